"""Training the large-set detector of :mod:`vision.set_size` from rendered boards with truth.

    python -m vision.set_size_training FOLDER [FOLDER ...] [--out vision/set_size.json] [--C 1]

Every image with the truth sizes of its set and board (``board.pitch_cm``,
``piece_set.short_cm``) and enough pieces is read by the network alone on the true board,
through the plain window and the zoomed one; the statistics of
:func:`vision.set_size.board_statistics` and "large set" (short pieces above
``LARGE_SHORT`` pitches) fit a logistic regression (scikit-learn), written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from vision.set_size import (LARGE_SHORT, LARGE_ZOOM, MODEL_FILE, MODEL_VERSION, STATISTICS, THRESHOLD,
                             board_statistics, large_set_probability)


def collect(folders: list[str], progress: bool = True):
    """Per image with truth sizes: ``(statistics, short height in pitches)`` from the
    network alone on the true board (no mirror: as the watch's per-frame step reads)."""
    from vision.evaluation import truth_files_under
    from vision.net import default_net
    from vision.net_training import truth_crops
    from vision.settings import VisionSettings

    settings, net = VisionSettings(), default_net()
    X, y, used = [], [], []
    for folder in folders:
        paths = truth_files_under(folder)
        for i, path in enumerate(paths):
            with open(path, encoding="utf-8") as f:
                truth = json.load(f)
            ps, board = truth.get("piece_set") or {}, truth.get("board") or {}
            if not ("short_cm" in ps and board.get("pitch_cm")):
                continue
            plain = truth_crops(path, settings)
            if plain is None:
                continue
            zoomed = truth_crops(path, settings, zoom=LARGE_ZOOM)
            a = net.logits(plain[0][0], plain[1][0])
            b = net.logits(zoomed[0][0], zoomed[1][0])
            stats = board_statistics(a[:, 0] > 0, a[:, 1], b[:, 1])
            if stats is not None:
                X.append(stats)
                y.append(ps["short_cm"] / board["pitch_cm"])
                used.append(path)
            if progress and (i + 1) % 50 == 0:
                print(f"  {folder}: {i + 1}/{len(paths)} images", file=sys.stderr, flush=True)
    return np.array(X), np.array(y), used


def fit(X: np.ndarray, short: np.ndarray, C: float = 1.0) -> dict:
    """A logistic regression of "large set" (short pieces above :data:`LARGE_SHORT`)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-9
    large = short > LARGE_SHORT
    if large.all() or not large.any():
        raise ValueError("training needs boards of both large and typical sets")
    clf = LogisticRegression(C=C, max_iter=5000).fit((X - mean) / scale, large)
    return {"version": MODEL_VERSION, "statistics": list(STATISTICS), "zoom": LARGE_ZOOM,
            "mean": mean.round(6).tolist(), "scale": scale.round(6).tolist(),
            "coef": clf.coef_[0].round(6).tolist(), "intercept": round(float(clf.intercept_[0]), 6)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Train the large-set detector (vision/set_size.json) "
                                             "from rendered boards with truth sizes.")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", default=MODEL_FILE)
    ap.add_argument("--C", type=float, default=1.0, help="inverse penalty of the logistic regression (default 1)")
    args = ap.parse_args(argv)
    t0 = time.time()
    X, short, used = collect(args.folders)
    if not len(X):
        print("no images with truth sizes (board.pitch_cm, piece_set.short_cm) in those folders", file=sys.stderr)
        return 1
    try:
        model = fit(X, short, args.C)
    except ValueError as e:
        print(str(e), file=sys.stderr)
        return 1
    model["C"] = args.C
    model["trained_on"] = {f: sum(os.path.abspath(u).startswith(os.path.join(os.path.abspath(f), ""))
                                  for u in used) for f in args.folders}
    model["boards"] = int(len(X))
    model["large_boards"] = int((short > LARGE_SHORT).sum())
    p = np.array([large_set_probability(x, model) for x in X])
    model["training_figures"] = {"large_judged_large": round(float(np.mean(p[short > LARGE_SHORT] > THRESHOLD)), 3),
                                 "typical_judged_large": round(float(np.mean(p[short <= LARGE_SHORT] > THRESHOLD)), 3)}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(model, f, indent=1)
    print(f"{len(X)} boards ({model['large_boards']} of large sets) in {time.time() - t0:.0f} s; "
          f"on them: {model['training_figures']}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
