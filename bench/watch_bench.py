"""Frames per second of `quarto-assist watch` on 1280x720 video, on one core.

    python bench/watch_bench.py [VIDEO] [--profile FILE] [--frames N]

Runs the whole headless loop (decode, vision's full analysis or per-frame track step,
tracker, referee, events) with ``cv2.setNumThreads(1)`` and prints frames per second,
overall and per stage. VIDEO defaults to the bundled sample game (samples/*.mp4), else
the first rendered game under data/renders/, else a drawn 1280x720 board with a hand
passing over it (made here, seeded). Target: 30 fps or more.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def drawn_game(path: str, frames: int = 300, fps: float = 10.0, seed: int = 0) -> str:
    """A 1280x720 video of a drawn ring board with round 'pieces' and a hand-coloured
    blob that sweeps over it now and then."""
    rng = np.random.default_rng(seed)
    w, h = 1280, 720
    base = np.full((h, w, 3), (150, 160, 170), np.uint8)
    base = (base + rng.normal(0, 3, base.shape)).clip(0, 255).astype(np.uint8)
    S = 800
    top = np.full((S, S, 3), (40, 40, 42), np.uint8)
    pitch = S / 5
    centres = [((i % 4 + 1) * pitch, (i // 4 + 1) * pitch) for i in range(16)]
    for x, y in centres:
        cv2.circle(top, (int(x), int(y)), int(0.42 * pitch), (80, 170, 220), 6, cv2.LINE_AA)
    dst = np.float32([[430, 150], [850, 150], [970, 640], [310, 640]])
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [S, 0], [S, S], [0, S]]), dst)
    vw = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    order = rng.permutation(16)
    for k in range(frames):
        placed = min(16, k // 20)
        t = top.copy()
        for j in order[:placed]:
            x, y = centres[j]
            colour = (200, 215, 230) if j % 2 else (45, 60, 90)
            cv2.circle(t, (int(x), int(y)), int(0.3 * pitch), colour, -1, cv2.LINE_AA)
        img = base.copy()
        warped = cv2.warpPerspective(t, H, (w, h))
        mask = cv2.warpPerspective(np.full((S, S), 255, np.uint8), H, (w, h)) > 127
        img[mask] = warped[mask]
        if k % 20 < 8:  # a hand comes in from the right
            cx = int(1280 - 60 * (k % 20))
            cv2.ellipse(img, (cx, 420), (160, 60), 10, 0, 360, (120, 150, 210), -1, cv2.LINE_AA)
        vw.write(img)
    vw.release()
    return path


def default_video() -> str | None:
    for pattern in ("samples/*.mp4", "data/renders/**/*.mp4"):
        found = sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))
        if found:
            return found[0]
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video", nargs="?")
    ap.add_argument("--profile")
    ap.add_argument("--frames", type=int, default=0, help="stop after N frames (0: whole video)")
    ap.add_argument("--vision-every", type=int, default=3, help="as watch --vision-every (default 3)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    from quarto_assist.cli import one_blas_thread
    one_blas_thread()  # as the app does: BLAS threads only slow small products
    from quarto_assist.capture import open_source
    from quarto_assist.commands.watch import build_recognizer
    from quarto_assist.events import EventLog
    from quarto_assist.session import Watcher, WatchOptions
    from quarto_assist.speech import SilentSpeaker
    from quarto_assist.vision_step import VisionStep

    video = args.video or default_video()
    tmp = None
    if video is None:
        tmp = tempfile.TemporaryDirectory()
        video = drawn_game(os.path.join(tmp.name, "drawn.mp4"))
        print("no sample or rendered game found: using a drawn board video")
    recognizer, profile = build_recognizer(args.profile)

    # decoding alone
    src = open_source(video)
    t0 = time.perf_counter()
    n_dec = 0
    while src.read() is not None:
        n_dec += 1
        if args.frames and n_dec >= args.frames:
            break
    dec = time.perf_counter() - t0
    src.close()

    src = open_source(video)
    if args.frames:
        inner = src.read

        def limited():
            f = inner()
            return None if f is None or f.index >= args.frames else f

        src.read = limited
    step = VisionStep(recognizer, profile, every=args.vision_every)
    log = EventLog(None)
    w = Watcher(src, step, SilentSpeaker(), log, WatchOptions(record_path=None), out=lambda s: None)
    t0 = time.perf_counter()
    c0 = time.process_time()
    w.run()
    total = time.perf_counter() - t0
    cpu = time.process_time() - c0
    n = w.frames
    print(f"video: {os.path.relpath(video, ROOT) if tmp is None else 'drawn board (generated)'}")
    print(f"frames: {n}, size {src._cap.get(cv2.CAP_PROP_FRAME_WIDTH):.0f}x{src._cap.get(cv2.CAP_PROP_FRAME_HEIGHT):.0f}"
          if hasattr(src, "_cap") else f"frames: {n}")
    print(f"decode only:        {n_dec / dec:7.1f} fps")
    print(f"vision per frame:   {step.seconds / max(n, 1) * 1000:7.2f} ms  "
          f"({step.full} full analyses, {step.tracked} track steps)")
    print(f"whole watch loop:   {n / total:7.1f} fps on one core, wall clock (target >= 30)")
    print(f"                    {n / cpu:7.1f} fps by CPU time (what one core does when other jobs share it)")
    rest = max(total - step.seconds, 1e-9)
    print(f"all but vision:     {n / rest:7.1f} fps (decode, cell pictures, tracker, referee, events)")
    placed = sum(1 for e in log.events if e["event"] == "placed")
    quartos = sum(1 for e in log.events if e["event"] == "quarto")
    print(f"events: {placed} placed, {quartos} quarto")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
