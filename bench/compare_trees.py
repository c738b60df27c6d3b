"""Two versions of vision in one process: speed and readings, frame by frame in turn.

    python bench/compare_trees.py OLD_TREE [NEW_TREE] [--folder DIR] [--frames N] [--rounds R]

OLD_TREE and NEW_TREE are source trees of this project (NEW_TREE defaults to this one),
for example a ``git worktree add /tmp/old <commit>``. Both are loaded into this process
and run on the same frames, taking turns frame by frame (the order alternating), so that a
shared machine's changing speed falls on both alike; separate benchmark runs here have
varied by a quarter within minutes. Prints the median CPU milliseconds of the full analysis
(``Recognizer.analyze``) and of the per-frame step (``Recognizer.track``) of each, their
ratio, and how the readings differ: boards found, cells read differently, the largest
difference of the attribute probabilities and of the features.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import cv2
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PACKAGES = ("vision", "bench", "quarto_assist", "engine", "calibration", "tests")


def load_recognizer(tree: str):
    """A ``vision.Recognizer`` of the source tree ``tree``: the project's packages are
    imported afresh from there (the other tree's modules keep running from their own)."""
    for name in [k for k in sys.modules if k.split(".")[0] in PACKAGES]:
        del sys.modules[name]
    sys.path.insert(0, tree)
    try:
        from quarto_assist.cli import one_blas_thread

        one_blas_thread()
        import vision

        return vision.Recognizer()
    finally:
        sys.path.remove(tree)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="source tree of the version to compare against")
    ap.add_argument("new", nargs="?", default=ROOT, help="source tree of the new version (default: this one)")
    ap.add_argument("--folder", default=os.path.join(ROOT, "data", "renders", "v2-dev", "train"),
                    help="rendered images to run on (default: the development set)")
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    sys.path.insert(0, ROOT)
    from bench.vision_bench import frames_from

    frames = frames_from(args.folder, args.frames)
    sys.path.remove(ROOT)
    trees = [os.path.abspath(args.old), os.path.abspath(args.new)]
    for t in trees:
        if not os.path.isdir(os.path.join(t, "vision")):
            print(f"{t}: not a source tree of this project (no vision/ folder)", file=sys.stderr)
            return 2
    recs = [load_recognizer(t) for t in trees]
    first = [[r.analyze(f) for f in frames] for r in recs]
    steps = [[r.track(f, a) if a else None for f, a in zip(frames, reads)] for r, reads in zip(recs, first)]
    full, step = [[], []], [[], []]
    for rnd in range(args.rounds):
        for i, f in enumerate(frames):
            for k in ((0, 1) if (i + rnd) % 2 == 0 else (1, 0)):
                c = time.process_time()
                recs[k].analyze(f)
                full[k].append(time.process_time() - c)
                if first[k][i]:
                    c = time.process_time()
                    recs[k].track(f, first[k][i])
                    step[k].append(time.process_time() - c)
    print(f"{len(frames)} frames from {args.folder}, {args.rounds} rounds, CPU time, one core")
    for k, t in enumerate(trees):
        print(f"{'old' if k == 0 else 'new'} {t}: full analysis {1e3 * statistics.median(full[k]):.1f} ms, "
              f"per-frame step {1e3 * statistics.median(step[k]):.1f} ms (medians)")
    print(f"new / old: full analysis x{statistics.median(full[1]) / statistics.median(full[0]):.3f}, "
          f"per-frame step x{statistics.median(step[1]) / statistics.median(step[0]):.3f}")
    found = [sum(bool(r) for r in reads) for reads in first]
    cells = differ = 0
    worst = {"probabilities": 0.0, "features": 0.0}
    for pair in (first, steps):
        for a, b in zip(*pair):
            if not a or not b:
                continue
            cells += 16
            differ += sum(x != y for x, y in zip(a.cells, b.cells))
            for name in worst:
                x, y = getattr(a, name), getattr(b, name)
                if x is not None and y is not None and np.shape(x) == np.shape(y):
                    worst[name] = max(worst[name], float(np.nanmax(np.abs(np.asarray(x, float) - np.asarray(y, float)))))
    print(f"boards found: old {found[0]}, new {found[1]} of {len(frames)}; cells read differently: {differ} of {cells} "
          f"(full analyses and steps); largest difference: probabilities {worst['probabilities']:.2g}, "
          f"features {worst['features']:.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
