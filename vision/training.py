"""Building the built-in default attribute models from rendered training sets with truth.

    python -m vision.training data/renders/train-a data/renders/train-b [--out vision/default_models.json]

For every image whose board is found, predicted cells are matched to the true cells by
centre (as in evaluation); the features of matched cells and their true contents train
one logistic model per attribute (occupancy on all cells, the four attributes on occupied
ones). Only ever run this on training sets: the holdout sets measure what it learned.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.attributes import DEFAULT_MODELS_FILE, MODEL_NAMES, fit_logistic
from vision.evaluation import _truth_piece, load_truth, truth_files
from vision.image import load_image
from vision.recognizer import Recognizer
from vision.settings import VisionSettings


def collect(folders: list[str], settings: VisionSettings, progress=True):
    """Features ``(N, D)`` and labels ``(N, 5)`` (occupied, tall, dark, square, hollow;
    -1 where unknown) of every matched, unhidden cell in ``folders``. Also returns
    per-image meta (folder, image, board style, piece set)."""
    rec = Recognizer(settings)
    X, Y, meta = [], [], []
    files = [f for d in folders for f in truth_files(d)]
    t0 = time.time()
    for k, path in enumerate(files):
        truth = load_truth(path)
        if not truth["board_found_expected"]:
            continue
        img = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image)
        r = rec.analyze(img)
        if not r.found:
            continue
        tc = np.asarray(truth["cell_centers"], float)
        d = np.hypot(tc[:, None, 0] - r.cell_centers[None, :, 0], tc[:, None, 1] - r.cell_centers[None, :, 1])
        ti, pj = linear_sum_assignment(d)
        pitch = float(np.median(np.sort(np.hypot(*(tc[:, None] - tc[None]).T), axis=1)[:, 1]))
        hidden = truth.get("hidden") or [False] * 16
        for i, j in zip(ti, pj):
            if hidden[i] or d[i, j] > 0.4 * pitch:
                continue
            p = _truth_piece(truth["cells"][i])
            y = [0 if p is None else 1] + [-1 if p is None else (p >> b) & 1 for b in range(4)]
            X.append(r.features[j])
            Y.append(y)
            meta.append((path, j, truth.get("board", {}).get("style", "?"), truth.get("piece_set", {}).get("id", "?")))
        if progress and (k + 1) % 20 == 0:
            print(f"{k + 1}/{len(files)} images ({time.time() - t0:.0f} s)", file=sys.stderr)
    return np.array(X), np.array(Y), meta


def train(X: np.ndarray, Y: np.ndarray, C: float = 0.1) -> dict:
    """Model dicts for ``VisionSettings.attributes`` from collected features/labels.
    With truth at hand every feature may help an attribute, so the default models use
    them all (calibration, with no labels, keeps to ``MODEL_FEATURES``)."""
    from vision.features import FEATURE_NAMES

    models = {}
    for k, name in enumerate(MODEL_NAMES):
        ok = Y[:, k] >= 0
        m = fit_logistic(name, X[ok], Y[ok, k], features=FEATURE_NAMES, C=C)
        models[name] = m.to_dict()
    return models


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="train vision's default attribute models on rendered training sets")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", default=DEFAULT_MODELS_FILE)
    args = ap.parse_args(argv)
    settings = VisionSettings()
    X, Y, _ = collect(args.folders, settings)
    if len(X) == 0:
        print("no cells collected", file=sys.stderr)
        return 1
    models = train(X, Y)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"trained_on": [os.path.basename(os.path.normpath(d)) for d in args.folders],
                   "cells": int(len(X)), "models": models}, f, indent=1)
    for name in MODEL_NAMES:
        print(f"{name:9s} separation {models[name].get('separation', 0):.2f}")
    print(f"wrote {args.out} from {len(X)} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
