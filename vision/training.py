"""Building the built-in default attribute models from rendered training sets with truth.

    python -m vision.training data/renders/train-a data/renders/train-b [--out vision/default_models.json]

For every image with a board, the homography is fitted to the true cell centres; the
features of every unhidden cell (hand-made measurements plus HOG and colour of upright
cell crops, ``vision.crops``) and its true content train one model per attribute:
occupancy (all cells) a logistic regression (C = 0.003, best in image-grouped
cross-validation, ``bench/pieces_eval.py``), the four piece attributes (occupied cells)
an average of 3 networks with one hidden layer of 64 units. Every image also counts in
3 augmented copies (mirrored, jittered, recoloured). Finally each model's score is
averaged with the convolutional piece network's logit (``--net-weight``, see
``vision.net``; train the network first, ``python -m vision.net_training``: its logits
are features, but not inputs of these models). Only ever run this on training sets:
the holdout sets measure what it learned.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from vision.attributes import DEFAULT_MODELS_FILE, MODEL_NAMES, NET_WEIGHT, fit_hidden, fit_logistic, with_net
from vision.evaluation import _truth_piece, load_truth, truth_files
from vision.geometry import cell_grid
from vision.image import load_image
from vision.settings import VisionSettings




def truth_image_features(path: str, settings: VisionSettings, variant: int = 0):
    """Features of one truth image with the board taken from truth (homography fitted
    from the true cell centres to the unit-grid positions; cells in truth order).
    ``variant`` > 0 is an augmented copy for training (seeded by ``variant``): odd
    variants mirror the picture left-right, variants from 2 on also recolour it
    (:func:`recolour`: other hues and light, the same light/dark order), and every
    variant moves the cell centres by a few percent of a pitch (as a board finder's
    error would) before fitting.
    Returns ``(features (16, D), labels (16, 5) with -1 unknown, hidden (16,), pieces)``
    or ``None`` for an image without a board."""
    import cv2

    from vision.features import cell_features
    from vision.reading import BoardReading

    truth = load_truth(path)
    if not truth["board_found_expected"] or len(truth.get("cell_centers") or []) != 16:
        return None
    img = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image)
    centres = np.asarray(truth["cell_centers"], float)
    if variant:
        rng = np.random.default_rng(variant)
        if variant % 2:
            img = np.ascontiguousarray(img[:, ::-1])
            centres = centres.copy()
            centres[:, 0] = img.shape[1] - 1 - centres[:, 0]
        if variant >= 2:
            img = recolour(img, rng)
        pitch = float(np.median(np.sort(np.hypot(*(centres[:, None] - centres[None]).T), axis=1)[:, 1]))
        centres = centres + rng.normal(0.0, 0.04 * pitch, centres.shape)
    H, _ = cv2.findHomography(cell_grid(), centres)
    X = cell_features(img, BoardReading(found=True, homography=H, cell_centers=centres), settings)
    pieces = [_truth_piece(c) for c in truth["cells"]]
    Y = np.array([[0 if p is None else 1] + [-1 if p is None else (p >> b) & 1 for b in range(4)] for p in pieces])
    hidden = np.array(truth.get("hidden") or [False] * 16, bool)
    return X, Y, hidden, pieces


#: changes whenever :func:`truth_image_features`' augmentation changes (feature caches key on it)
AUGMENT_VERSION = 2


def recolour(img: np.ndarray, rng) -> np.ndarray:
    """The picture as another piece set and room might show it: hues turned by a random
    angle and chroma scaled (in CIE Lab, so lightness -- what "dark" means -- is kept),
    then lightness bent by a random gamma (order kept, so the darker of two colours
    stays the darker)."""
    import cv2

    lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    angle = rng.uniform(0.0, 2.0 * np.pi)
    chroma = rng.uniform(0.6, 1.4)
    c, s = np.cos(angle) * chroma, np.sin(angle) * chroma
    a, b = lab[..., 1].copy(), lab[..., 2].copy()
    lab[..., 1] = c * a - s * b
    lab[..., 2] = s * a + c * b
    lab[..., 0] = 100.0 * (lab[..., 0] / 100.0) ** rng.uniform(0.75, 1.35)
    out = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)
    return np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)


def collect(folders: list[str], settings: VisionSettings, progress=True, augment: int = 0,
            files: list[str] | None = None):
    """Features ``(N, D)`` and labels ``(N, 5)`` (occupied, tall, dark, square, hollow;
    -1 where unknown) of every unhidden cell in ``folders`` (or in the truth files
    ``files``), the board taken from truth
    (so the models learn what a cell looks like, not the board finder's mistakes), plus
    ``augment`` augmented copies of every image (see :func:`truth_image_features`).
    Also returns per-cell meta (truth file, cell, board style, piece set)."""
    X, Y, meta = [], [], []
    if files is None:
        files = [f for d in folders for f in truth_files(d)]
    t0 = time.time()
    for k, path in enumerate(files):
        truth = load_truth(path)
        for v in range(augment + 1):
            r = truth_image_features(path, settings, v)
            if r is None:
                break
            for i in np.flatnonzero(~r[2]):
                X.append(r[0][i])
                Y.append(r[1][i])
                meta.append((path, int(i), truth.get("board", {}).get("style", "?"), truth.get("piece_set", {}).get("id", "?")))
        if progress and (k + 1) % 20 == 0:
            print(f"{k + 1}/{len(files)} images ({time.time() - t0:.0f} s)", file=sys.stderr)
    return np.array(X), np.array(Y), meta


def train(X: np.ndarray, Y: np.ndarray, C: float = 0.003, units: int = 64, alpha: float = 1.0, ensemble: int = 3) -> dict:
    """Model dicts for ``VisionSettings.attributes`` from collected features/labels.
    With truth at hand every feature may help an attribute, so the default models use
    them all (calibration, with no labels, keeps to ``MODEL_FEATURES``). ``units`` > 0:
    the four piece attributes get a hidden layer of that many units (L2 penalty
    ``alpha``; ``ensemble`` networks averaged); occupancy stays logistic (C)."""
    from vision.features import FEATURE_NAMES
    from vision.net import NET_FEATURE_NAMES

    # not the network's logits: it was trained on these very images, so on them its
    # logits are better than they will be on new ones (a model stacked on them would
    # trust them too much)
    features = [f for f in FEATURE_NAMES if f not in NET_FEATURE_NAMES]
    models = {}
    for k, name in enumerate(MODEL_NAMES):
        ok = Y[:, k] >= 0
        if units > 0 and name != "occupied":
            m = fit_hidden(name, X[ok], Y[ok, k], features=features, units=units, alpha=alpha, ensemble=ensemble)
        else:
            m = fit_logistic(name, X[ok], Y[ok, k], features=features, C=C)
        models[name] = m.to_dict()
    return models


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="train vision's default attribute models on rendered training sets")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", default=DEFAULT_MODELS_FILE)
    ap.add_argument("--augment", type=int, default=3, help="augmented copies per image (mirrored, jittered; default 3)")
    ap.add_argument("--units", type=int, default=64,
                    help="hidden units of the piece-attribute models (0: logistic regression; default 64)")
    ap.add_argument("--alpha", type=float, default=1.0, help="L2 penalty of the hidden-layer models (default 1.0)")
    ap.add_argument("--ensemble", type=int, default=3, help="networks averaged per attribute (default 3)")
    ap.add_argument("--net-weight", type=float, default=NET_WEIGHT,
                    help="weight of the piece network's logit averaged with each model's score "
                         f"(vision/net.py; 0: the models alone; default {NET_WEIGHT})")
    ap.add_argument("--files", metavar="LIST",
                    help="train only on the truth files listed (one path a line) that lie under the folders or their "
                         "direct subfolders (to repeat a training on the images present on an earlier day)")
    args = ap.parse_args(argv)
    settings = VisionSettings()
    files = None
    if args.files:
        from vision.evaluation import listed_truth_files

        files = listed_truth_files(args.folders, args.files)
    X, Y, _ = collect(args.folders, settings, augment=args.augment, files=files)
    if len(X) == 0:
        print("no cells collected", file=sys.stderr)
        return 1
    models = train(X, Y, units=args.units, alpha=args.alpha, ensemble=args.ensemble)
    if args.net_weight > 0:
        models = with_net(models, args.net_weight)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"trained_on": [os.path.basename(os.path.normpath(d)) for d in args.folders],
                   "files": args.files, "images": len(files) if files is not None else None,
                   "cells": int(len(X)), "augment": args.augment,
                   "units": args.units, "alpha": args.alpha, "ensemble": args.ensemble,
                   "net_weight": args.net_weight, "models": models}, f, indent=1)
    for name in MODEL_NAMES:
        print(f"{name:9s} separation {models[name].get('base', models[name]).get('separation', 0):.2f}")
    print(f"wrote {args.out} from {len(X)} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
