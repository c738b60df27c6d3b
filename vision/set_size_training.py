"""Training the set-size judges of :mod:`vision.set_size` from rendered boards with truth.

    python -m vision.set_size_training FOLDER [FOLDER ...] [--out vision/set_size.json] [--C 1]
    python -m vision.set_size_training --small FOLDER [FOLDER ...] [--out vision/small_set.json]

Large sets (the first form):
Every image with the truth sizes of its set and board (``board.pitch_cm``,
``piece_set.short_cm``) and enough pieces is read by the network alone on the true board,
through the plain window and the zoomed one; the statistics of
:func:`vision.set_size.board_statistics` and "large set" (short pieces above
``LARGE_SHORT`` pitches) fit a logistic regression (scikit-learn), written as JSON.

Small sets (``--small``): every image with the truth sizes (``piece_set.width_cm``) is
analysed on its true board as the full analysis reads it (``vision.features``), first
with no small-set model, then with the width regression fitted to those features: a ridge
regression (scikit-learn) of the set's width in pitches over every occupied cell's features,
then a logistic regression of "small set" (``SMALL_WIDTH`` or narrower; sets between it and
``SMALL_TYPICAL`` left out) over :func:`vision.set_size.small_statistics` of the boards of
``SMALL_MIN_PIECES`` or more pieces. Only ever run this on training sets.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from vision import set_size
from vision.set_size import (LARGE_SHORT, LARGE_ZOOM, MODEL_FILE, MODEL_VERSION, SMALL_MODEL_FILE,
                             SMALL_MODEL_VERSION, SMALL_STATISTICS, SMALL_THRESHOLD, SMALL_TYPICAL, SMALL_WIDTH,
                             SMALL_ZOOM, STATISTICS, THRESHOLD, board_statistics, large_set_probability,
                             small_set_probability)

#: ridge penalty of the width regression (on standardised features; 100-10000 read the held-out
#: game stills' widths within 0.04-0.05 of a pitch, per cell, docs/vision.md "Session 37")
WIDTH_ALPHA = 1000.0


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


def _small_reads(path: str, settings, model: dict):
    """``(features (16, D), occupied (16,) bool, width in pitches, info)`` of one truth image
    read on its true board by the full analysis with the small-set ``model`` (``{}``: none),
    or ``None`` (no board, no truth sizes)."""
    import cv2

    from vision.evaluation import load_truth
    from vision.features import features_from_work, work_image
    from vision.geometry import cell_grid
    from vision.image import load_image

    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    ps, board = raw.get("piece_set") or {}, raw.get("board") or {}
    truth = load_truth(path)
    if not ("width_cm" in ps and board.get("pitch_cm")) or not truth["board_found_expected"] or \
            len(truth.get("cell_centers") or []) != 16:
        return None
    img = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image)
    H, _ = cv2.findHomography(cell_grid(), np.asarray(truth["cell_centers"], float))
    work, S = work_image(img, settings)
    set_size._shipped_models["small"] = model
    info: dict = {}
    feats = features_from_work(work, S @ H, settings, info=info)
    hidden = np.array(truth.get("hidden") or [False] * 16, bool)
    occupied = np.array([c is not None for c in truth["cells"]]) & ~hidden
    return feats, occupied, ps["width_cm"] / board["pitch_cm"], info


def train_small(folders: list[str], C: float = 1.0, progress: bool = True) -> dict:
    """The small-set model (``vision.set_size.load_small_model``'s format) from the truth
    images under ``folders``."""
    from sklearn.linear_model import LogisticRegression, Ridge

    from vision.evaluation import truth_files_under
    from vision.features import FEATURES_VERSION
    from vision.settings import VisionSettings

    settings = VisionSettings()
    paths = [p for folder in folders for p in truth_files_under(folder)]
    saved = set_size._shipped_models.get("small")
    try:
        reads = []
        for i, path in enumerate(paths):
            r = _small_reads(path, settings, {})
            if r is not None:
                reads.append((path,) + r[:3])
            if progress and (i + 1) % 50 == 0:
                print(f"  features: {i + 1}/{len(paths)} images", file=sys.stderr, flush=True)
        if not reads:
            raise ValueError("no images with truth sizes (board.pitch_cm, piece_set.width_cm) in those folders")
        X = np.concatenate([f[occ] for _, f, occ, _ in reads])
        y = np.concatenate([np.full(occ.sum(), w) for _, _, occ, w in reads])
        mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-9
        ridge = Ridge(alpha=WIDTH_ALPHA).fit((X - mean) / scale, y)
        model = {"version": SMALL_MODEL_VERSION, "statistics": list(SMALL_STATISTICS),
                 "features_version": FEATURES_VERSION, "zooms": [SMALL_ZOOM, LARGE_ZOOM],
                 "width": {"mean": mean.round(6).tolist(), "scale": scale.round(6).tolist(),
                           "coef": ridge.coef_.round(8).tolist(), "intercept": round(float(ridge.intercept_), 6)},
                 # never small while the judge is learned: the statistics are of the plain reading
                 "judge": {"mean": [0.0] * len(SMALL_STATISTICS), "scale": [1.0] * len(SMALL_STATISTICS),
                           "coef": [0.0] * len(SMALL_STATISTICS), "intercept": -50.0}}
        stats, widths, used = [], [], []
        for i, (path, _, _, w) in enumerate(reads):
            info = _small_reads(path, settings, model)[3]
            if info.get("small_statistics") is not None and (w <= SMALL_WIDTH or w >= SMALL_TYPICAL):
                stats.append(info["small_statistics"])
                widths.append(w)
                used.append(path)
            if progress and (i + 1) % 50 == 0:
                print(f"  statistics: {i + 1}/{len(reads)} images", file=sys.stderr, flush=True)
    finally:
        set_size._shipped_models.pop("small", None)
        if saved is not None:
            set_size._shipped_models["small"] = saved
    S, w = np.array(stats), np.array(widths)
    small = w <= SMALL_WIDTH
    if small.all() or not small.any():
        raise ValueError("training needs boards of both small and typical sets")
    m, s = S.mean(axis=0), S.std(axis=0) + 1e-9
    clf = LogisticRegression(C=C, max_iter=5000).fit((S - m) / s, small)
    model["judge"] = {"mean": m.round(6).tolist(), "scale": s.round(6).tolist(),
                      "coef": clf.coef_[0].round(6).tolist(), "intercept": round(float(clf.intercept_[0]), 6)}
    model["C"] = C
    model["trained_on"] = {f: sum(os.path.abspath(u).startswith(os.path.join(os.path.abspath(f), ""))
                                  for u in used) for f in folders}
    model["cells"], model["boards"], model["small_boards"] = int(len(X)), int(len(S)), int(small.sum())
    p = np.array([small_set_probability(x, model) for x in S])
    model["training_figures"] = {"small_judged_small": round(float(np.mean(p[small] > SMALL_THRESHOLD)), 3),
                                 "typical_judged_small": round(float(np.mean(p[~small] > SMALL_THRESHOLD)), 3)}
    return model


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Train the large-set detector (vision/set_size.json), or with "
                                             "--small the small-set judge (vision/small_set.json), from "
                                             "rendered boards with truth sizes.")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--small", action="store_true", help="train the small-set judge")
    ap.add_argument("--out", default=None, help=f"default {MODEL_FILE}, with --small {SMALL_MODEL_FILE}")
    ap.add_argument("--C", type=float, default=1.0, help="inverse penalty of the logistic regression (default 1)")
    args = ap.parse_args(argv)
    if args.small:
        t0 = time.time()
        try:
            model = train_small(args.folders, args.C)
        except ValueError as e:
            print(str(e), file=sys.stderr)
            return 1
        out = args.out or SMALL_MODEL_FILE
        with open(out, "w", encoding="utf-8") as f:
            json.dump(model, f)
        print(f"{model['boards']} boards ({model['small_boards']} of small sets), {model['cells']} pieces, in "
              f"{time.time() - t0:.0f} s; on them: {model['training_figures']}; written to {out}")
        return 0
    args.out = args.out or MODEL_FILE
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
