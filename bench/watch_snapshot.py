"""Pictures of the watch window as it shows a game: the README's.

    xvfb-run -a -s "-screen 0 1600x1000x24" python bench/watch_snapshot.py [VIDEO] [--out DIR]

Runs ``quarto-assist watch VIDEO --coach --no-speech`` with its real window (a display is
needed: ``xvfb-run`` gives one on a machine without) and saves what the window showed at two
moments: ``watch_quarto.jpg``, the first unclaimed winning line highlighted (a few frames after it
is called), and ``watch_coach.jpg``, the coach's advice on what to hand over with poison pieces
to warn about (from 22 s on). The default video is the bundled sample game
(``samples/game01.mp4``), the default folder ``docs/img``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import cv2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

#: frames after the first one with a line highlighted / with poison warned about
SETTLE_FRAMES = 3
COACH_FROM_S, COACH_FRAMES = 22.0, 8
WIDTH = 960


def _save(path: str, image) -> None:
    h, w = image.shape[:2]
    small = cv2.resize(image, (WIDTH, round(h * WIDTH / w)), interpolation=cv2.INTER_AREA)
    cv2.imwrite(path, small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"wrote {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video", nargs="?", default=os.path.join(ROOT, "samples", "game01.mp4"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    args = ap.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        print("no display: run under xvfb-run (see the top of this file)")
        return 1
    from quarto_assist import window
    from quarto_assist.cli import main as cli_main

    os.makedirs(args.out, exist_ok=True)
    seen = {"quarto": 0, "coach": 0}
    show = window.Window.show

    def snap(self, image, view):
        actions = show(self, image, view)
        if view.winning and seen["quarto"] < SETTLE_FRAMES:
            seen["quarto"] += 1
            if seen["quarto"] == SETTLE_FRAMES:
                _save(os.path.join(args.out, "watch_quarto.jpg"), self.last_image)
        if view.coach_give is not None and view.coach_poison and view.t >= COACH_FROM_S and seen["coach"] < COACH_FRAMES:
            seen["coach"] += 1
            if seen["coach"] == COACH_FRAMES:
                _save(os.path.join(args.out, "watch_coach.jpg"), self.last_image)
        return actions

    window.Window.show = snap
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cli_main(["watch", args.video, "--coach", "--no-speech", "--events", os.path.join(tmp, "events.jsonl"),
                      "--record", os.path.join(tmp, "game.txt")])
    finally:
        window.Window.show = show
    missing = [k for k, n in seen.items() if n < (SETTLE_FRAMES if k == "quarto" else COACH_FRAMES)]
    if missing:
        print(f"not shown in this game: {', '.join(missing)}")
        return 1
    return 0


if __name__ == "__main__":  # the coach thinks in a process of its own, which imports this file again
    raise SystemExit(main())
