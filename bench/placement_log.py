"""What the watch knew at each placement of rendered game videos, against the truth.

    python bench/placement_log.py VIDEO [VIDEO ...] [--out rows.jsonl] [-v] [--profile FILE]

Runs ``watch`` in this process on each video (``--no-window --no-speech``) and, every time
the pixel tracker names a newly placed piece (``PixelTracker._identify``), records what it
weighed: vision's probabilities of tall / dark / square / hollow, the piece's height and
colour measured from the pictures before and after it came (``quarto_assist.silhouette``),
the log odds those two add to tall and to dark, the body colour vision's closer look saw
(``vision.crops.BODY_COLOUR_NAMES``, Lab), and the combined log odds. Each record is
matched to the true placement (the nearest true cell centre among the pieces set down by
then) and gets the true piece. Prints, per attribute, how often vision alone, the height
or colour cue (where it spoke) and the combination took the wrong side; ``-v`` lists every
placement with a wrong side. ``--out`` keeps the records (one JSON object a line) for a
closer look. This is how session 11 found which cue misnames which pieces (docs/watch.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

ATTRIBUTES = ("tall", "dark", "square", "hollow")


def _logged_identify(records: list):
    """A wrapper for ``PixelTracker._identify`` that appends what it knew to ``records``."""
    from quarto_assist.pixel_tracker import PixelTracker

    original = PixelTracker._identify

    def identify(self, cell, win, close=None):
        got = original(self, cell, win, close)
        if cell not in self._probs:
            return got
        tall, dark = self.cues()
        h = self._heights.get(cell)
        records.append({
            "t": float(self._run[-1][0]) if self._run else None,
            "center": [float(v) for v in self.centers[cell]],
            "named": got[0],
            "vision": [float(v) for v in self._probs[cell]],
            "height": None if h is None else float(h.value),
            "colour": None if h is None or h.colour is None else [float(v) for v in h.colour],
            "body": [float(v) for v in np.mean(self._bodies[cell], axis=0)] if self._bodies.get(cell) else None,
            "tall_cue": tall.get(cell),
            "dark_cue": dark.get(cell),
            "combined": [float(v) for v in self._log_odds()[cell]],
        })
        return got

    return PixelTracker, original, identify


def log_video(video: str, profile: str | None = None) -> list[dict]:
    """The records of one video, each with its true piece (``truth``, an int) added
    (``profile``: watched with that profile, as ``watch --profile``)."""
    from quarto_assist.cli import main as watch_main

    records: list[dict] = []
    cls, original, identify = _logged_identify(records)
    cls._identify = identify
    try:
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            watch_main(["watch", video, "--no-window", "--no-speech", "--events", os.path.join(tmp, "ev.jsonl")]
                       + (["--profile", profile] if profile else []))
    finally:
        cls._identify = original
    truth = json.load(open(os.path.splitext(video)[0] + ".json"))
    for r in records:
        # the pieces set down by then (the tracker may name a piece before the truth calls it
        # settled: the hand gone a frame or two early)
        settled = [p for p in truth["placements"] if r["t"] is None or p["t"] <= r["t"] + 0.05]
        best = min(settled or truth["placements"],
                   key=lambda p: float(np.hypot(*(np.asarray(p["cell_center"], float) - r["center"]))))
        r["truth"] = int(best["piece"], 16)
        r["video"] = os.path.basename(video)
    return records


def summary(records: list[dict]) -> list[str]:
    """Per attribute: placements where vision alone, the cue (tall: height, dark: colour)
    where it spoke, and the combination took the wrong side."""
    lines = [f"{len(records)} placements; wrong side of each attribute:"]
    for k, name in enumerate(ATTRIBUTES):
        truth = np.array([(r["truth"] >> k) & 1 for r in records], bool)
        vision = np.array([r["vision"][k] > 0.5 for r in records], bool)
        combined = np.array([r["combined"][k] > 0 for r in records], bool)
        line = f"  {name:6s} vision {int((vision != truth).sum()):3d}   combined {int((combined != truth).sum()):3d}"
        cue = {"tall": "tall_cue", "dark": "dark_cue"}.get(name)
        if cue:
            spoke = [(r[cue] > 0, t) for r, t in zip(records, truth) if r[cue] is not None and r[cue] != 0]
            line += (f"   {'height' if name == 'tall' else 'colour'} cue wrong {sum(a != t for a, t in spoke)}"
                     f" of {len(spoke)} where it spoke")
        lines.append(line)
    return lines


def _r(v, digits: int = 2):
    """``v`` (a number, a list of numbers or None) rounded for printing."""
    if v is None:
        return None
    return [round(x, digits) for x in v] if isinstance(v, list) else round(v, digits)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("videos", nargs="+")
    ap.add_argument("--out", help="write the records here, one JSON object a line")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every placement with an attribute on the wrong side")
    ap.add_argument("--profile", help="watch with this profile (watch --profile)")
    args = ap.parse_args(argv)
    records = []
    for video in args.videos:
        if not os.path.exists(os.path.splitext(video)[0] + ".json"):
            print(f"{video}: no truth file beside it ({os.path.splitext(video)[0]}.json): skipped")
            continue
        got = log_video(video, args.profile)
        print(f"{video}: {len(got)} placements logged", flush=True)
        records += got
    if not records:
        print("nothing logged")
        return 1
    print("\n".join(summary(records)))
    if args.verbose:
        for r in records:
            wrong = [n for k, n in enumerate(ATTRIBUTES) if (r["combined"][k] > 0) != bool((r["truth"] >> k) & 1)]
            if wrong:
                print(f"  {r['video']} t={r['t']:.1f} true {r['truth']:X} named {r['named']:X}: {', '.join(wrong)} "
                      f"(vision {[round(p, 2) for p in r['vision']]}, height {_r(r['height'])}, "
                      f"tall cue {_r(r['tall_cue'])}, colour {_r(r['colour'], 0)}, dark cue {_r(r['dark_cue'])})")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in records))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
