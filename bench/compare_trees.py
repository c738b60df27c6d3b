"""Two versions of vision side by side: speed and readings, frame by frame in turn.

    python bench/compare_trees.py OLD_TREE [NEW_TREE] [--folder DIR] [--frames N] [--rounds R]

OLD_TREE and NEW_TREE are source trees of this project (NEW_TREE defaults to this one),
for example a ``git worktree add /tmp/old <commit>``. Each runs in a process of its own
that imports only its tree's packages (one process for both let a function's late
``import vision.x`` pick up the other tree's module: session 12's version of this tool did),
and both read the same frames, taking turns frame by frame (the order alternating), so
that a shared machine's changing speed falls on both alike; separate benchmark runs here
have varied by a quarter within minutes. Prints the median CPU milliseconds (each
process's own CPU time, one core) of the full analysis (``Recognizer.analyze``) and of
the per-frame step (``Recognizer.track``) of each, their ratio, and how the readings
differ: boards found, cells read differently, the largest difference of the attribute
probabilities and of the features (when both trees have the same features).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


# --- the worker: one tree, in its own process ----------------------------------------------
def _summary(reading) -> dict | None:
    """What the parent compares of a reading (``None``: no board)."""
    if not reading or not reading.found:
        return None

    def plain(v):
        return None if v is None else np.asarray(v, float).round(9).tolist()

    return {"cells": [None if c is None else int(c) for c in reading.cells],
            "probabilities": plain(getattr(reading, "probabilities", None)),
            "features": plain(getattr(reading, "features", None))}


def worker(tree: str, frames_file: str) -> int:
    """Serve one tree's recogniser over stdin/stdout: a line ``analyze I``, ``track I``
    (on frame ``I``, the step from the frame's first analysis), ``time_analyze I`` or
    ``time_track I`` in, one JSON line out."""
    import time

    if hasattr(os, "sched_setaffinity"):
        # both trees' processes on one and the same core, taking turns on it: neither gets
        # a quieter core or warmer caches than the other
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    sys.path[:] = [tree] + [p for p in sys.path if os.path.abspath(p or ".") != os.path.join(ROOT, "bench")]
    import cv2

    cv2.setNumThreads(1)
    from quarto_assist.cli import one_blas_thread

    one_blas_thread()
    import vision

    rec = vision.Recognizer()
    frames = np.load(frames_file)
    first: dict[int, object] = {}
    for line in sys.stdin:
        what, i = line.split()
        i = int(i)
        out: dict = {}
        if what in ("analyze", "time_analyze"):
            c = time.process_time()
            r = rec.analyze(frames[i])
            out["cpu"] = time.process_time() - c
            if what == "analyze":
                first[i] = r
                out["reading"] = _summary(r)
        elif what in ("track", "time_track"):
            base = first.get(i)
            if base is not None and base.found:
                c = time.process_time()
                r = rec.track(frames[i], base)
                out["cpu"] = time.process_time() - c
                if what == "track":
                    out["reading"] = _summary(r)
        print(json.dumps(out), flush=True)
    return 0


# --- the parent: frames, turns, figures ----------------------------------------------------------
class Tree:
    """A worker process running one source tree."""

    def __init__(self, tree: str, frames_file: str):
        self.tree = tree
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", tree, frames_file],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree)

    def ask(self, what: str, i: int) -> dict:
        self.proc.stdin.write(f"{what} {i}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker for {self.tree} stopped (exit code {self.proc.wait()}); its error is above")
        return json.loads(line)

    def close(self):
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def _differences(a: dict | None, b: dict | None, worst: dict) -> tuple[int, int]:
    """Cells compared and cells read differently between two readings (both with a board)."""
    if not a or not b:
        return 0, 0
    differ = sum(x != y for x, y in zip(a["cells"], b["cells"]))
    for name in worst:
        x, y = a.get(name), b.get(name)
        if x is not None and y is not None and np.shape(x) == np.shape(y):
            worst[name] = max(worst[name], float(np.nanmax(np.abs(np.asarray(x, float) - np.asarray(y, float)))))
    return 16, differ


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="source tree of the version to compare against")
    ap.add_argument("new", nargs="?", default=ROOT, help="source tree of the new version (default: this one)")
    ap.add_argument("--folder", default=os.path.join(ROOT, "data", "renders", "v2-dev", "train"),
                    help="rendered images to run on (default: the development set)")
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    trees = [os.path.abspath(args.old), os.path.abspath(args.new)]
    for t in trees:
        if not os.path.isdir(os.path.join(t, "vision")):
            print(f"{t}: not a source tree of this project (no vision/ folder)", file=sys.stderr)
            return 2
    sys.path.insert(0, ROOT)
    from bench.vision_bench import frames_from

    frames = frames_from(args.folder, args.frames)
    with tempfile.TemporaryDirectory(prefix="compare-trees-") as tmp:
        frames_file = os.path.join(tmp, "frames.npy")
        np.save(frames_file, np.stack(frames))
        workers = [Tree(t, frames_file) for t in trees]
        try:
            first = [[w.ask("analyze", i)["reading"] for i in range(len(frames))] for w in workers]
            steps = [[w.ask("track", i).get("reading") for i in range(len(frames))] for w in workers]
            full, step = [[], []], [[], []]
            for rnd in range(args.rounds):
                for i in range(len(frames)):
                    for k in ((0, 1) if (i + rnd) % 2 == 0 else (1, 0)):
                        full[k].append(workers[k].ask("time_analyze", i)["cpu"])
                        got = workers[k].ask("time_track", i)
                        if "cpu" in got:
                            step[k].append(got["cpu"])
        except RuntimeError as e:
            print(f"ERROR {e}", file=sys.stderr)
            return 1
        finally:
            for w in workers:
                w.close()
    print(f"{len(frames)} frames from {args.folder}, {args.rounds} rounds, CPU time, one core, a process per tree")
    for k, t in enumerate(trees):
        print(f"{'old' if k == 0 else 'new'} {t}: full analysis {1e3 * statistics.median(full[k]):.1f} ms, "
              f"per-frame step {1e3 * statistics.median(step[k]):.1f} ms (medians)")
    print(f"new / old: full analysis x{statistics.median(full[1]) / statistics.median(full[0]):.3f}, "
          f"per-frame step x{statistics.median(step[1]) / statistics.median(step[0]):.3f}")
    found = [sum(r is not None for r in reads) for reads in first]
    cells = differ = 0
    worst = {"probabilities": 0.0, "features": 0.0}
    for pair in (first, steps):
        for a, b in zip(*pair):
            n, d = _differences(a, b, worst)
            cells, differ = cells + n, differ + d
    print(f"boards found: old {found[0]}, new {found[1]} of {len(frames)}; cells read differently: {differ} of {cells} "
          f"(full analyses and steps); largest difference: probabilities {worst['probabilities']:.2g}, "
          f"features {worst['features']:.2g}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        sys.exit(worker(sys.argv[2], sys.argv[3]))
    sys.exit(main())
