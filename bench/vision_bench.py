"""Speed of vision on one core: median milliseconds per 1280x720 frame.

    python bench/vision_bench.py [DATASET_DIR] [--frames N] [--no-net] [--set SECTION.NAME=VALUE]

Uses the images of a rendered dataset folder when given (resized to 1280x720 if
needed), otherwise a drawn test board. Prints the full analysis (``Recognizer.analyze``)
and the per-frame step once the board is known (``Recognizer.track``), with per-stage
medians, and the CPU time of this process (``time.process_time``, less disturbed by other
work on a shared machine). Targets: full analysis <= 100 ms, per-frame step <= 33 ms.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision import Recognizer  # noqa: E402


def frames_from(folder: str | None, n: int) -> list[np.ndarray]:
    out = []
    if folder:
        paths = sorted(glob.glob(os.path.join(folder, "*.jpg")) + glob.glob(os.path.join(folder, "*.png")))
        for p in paths[:n]:
            img = cv2.imread(p)
            if img is not None:
                if img.shape[:2] != (720, 1280):
                    img = cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA)
                out.append(img)
    if not out:
        from tests.vision.synthetic import drawn_board

        out = [drawn_board("rings", tilt=0.3, seed=s)[0] for s in range(min(n, 5))]
    return out


def main(argv=None) -> int:
    from vision.settings import VisionSettings, apply_override, override_argument

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", help="rendered dataset folder (default: a drawn board)")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-net", action="store_true", help="without the board network (hand-made searches only)")
    ap.add_argument("--set", action="append", type=override_argument, metavar="SECTION.NAME=VALUE",
                    help="change a vision setting, e.g. board_net.zoom=false (repeatable)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    from quarto_assist.cli import one_blas_thread
    one_blas_thread()  # as the app does: BLAS threads only slow small products
    frames = frames_from(args.folder, args.frames)
    st = VisionSettings()
    st.board_net.enabled = not args.no_net
    for kv in args.set or []:  # checked when the options were read
        apply_override(st, kv)
    rec = Recognizer(st)
    rec.analyze(frames[0])  # warm up
    full, step, stages, full_cpu, step_cpu = [], [], {}, [], []
    found = 0
    for img in frames:
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            r = rec.analyze(img)
            full.append(time.perf_counter() - t)
            full_cpu.append(time.process_time() - c)
            for k, v in r.timings.items():
                stages.setdefault(k, []).append(v)
        found += bool(r)
        if r:
            for _ in range(args.repeat):
                t, c = time.perf_counter(), time.process_time()
                rec.track(img, r)
                step.append(time.perf_counter() - t)
                step_cpu.append(time.process_time() - c)
    ms = lambda xs: 1000 * statistics.median(xs) if xs else float("nan")  # noqa: E731
    print(f"frames: {len(frames)} ({'%s' % args.folder if args.folder else 'drawn board'}), board found in {found}, one core")
    print(f"full analysis   median {ms(full):6.1f} ms  (target <= 100), CPU {ms(full_cpu):6.1f} ms")
    print(f"per-frame step  median {ms(step):6.1f} ms  (target <= 33), CPU {ms(step_cpu):6.1f} ms")
    for k, v in stages.items():
        if k != "total":
            print(f"  {k:12s} {ms(v):6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
