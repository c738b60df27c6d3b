"""Piece recognition alone, with the board taken from truth (board finding cannot fail).

    python bench/pieces_eval.py --train data/renders/dev-v0 data/renders/v1/train \\
        --test data/renders/calib-holdout data/renders/v1/holdout [--models vision/default_models.json]

For every image with a board, the homography comes from the truth cell centres (fitted
to the unit-grid positions), per-cell features are ``vision.features.cell_features`` and
the reading is the recogniser's: occupancy threshold, then the joint assignment of
distinct pieces (the features include the piece network's logits, ``vision/net.py``).
Prints occupancy accuracy, per-attribute accuracy (cells holding a piece
in truth and in the reading, after the assignment), cells fully right and boards fully
right (hidden cells are not scored).

On ``--train`` folders: image-grouped 5-fold cross-validation of the training recipe
(``vision.training.train``), so the figure is for images the models did not see. On
``--test`` folders: the models given by ``--models`` (default: the built-in ones), or
with ``--fit`` models trained on all ``--train`` folders (never on the test folders).
Features are cached in ``/tmp/pieces_eval_cache`` (keyed by image path, mtime and the
feature layout).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CACHE = "/tmp/pieces_eval_cache"


def truth_jsons(folder: str) -> list[str]:
    from vision.evaluation import truth_files_under

    return truth_files_under(folder)


def _net_digest() -> str:
    """The piece network's file digest (its logits are features, so the cache depends on it)."""
    from vision.net import NET_FILE

    if not hasattr(_net_digest, "value"):
        with open(NET_FILE, "rb") as f:
            _net_digest.value = hashlib.sha1(f.read()).hexdigest()
    return _net_digest.value


def image_features(path: str, settings, variant: int = 0):
    """``vision.training.truth_image_features`` with a disk cache (keyed by truth file,
    its image's mtime, and the feature layout)."""
    from vision import crops
    from vision.features import FEATURE_NAMES, FEATURES_VERSION
    from vision.training import AUGMENT_VERSION, truth_image_features

    layout = f"f{FEATURES_VERSION}:aug{AUGMENT_VERSION}:{'|'.join(FEATURE_NAMES)}:{crops.CROP_SPAN}:{crops.CROP_BELOW}:{crops.CROP_ABOVE}:{crops.CROP_W}x{crops.CROP_H}:{_net_digest()}"
    key = hashlib.sha1(f"{os.path.abspath(path)}:{os.path.getmtime(path)}:{variant}:{layout}".encode()).hexdigest()
    cache = os.path.join(CACHE, key + ".npz")
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=True)
        return (z["X"], z["Y"], z["hidden"], list(z["pieces"])) if z["X"].size else None
    r = truth_image_features(path, settings, variant)
    os.makedirs(CACHE, exist_ok=True)
    if r is None:
        np.savez(cache, X=np.zeros(0), Y=np.zeros(0), hidden=np.zeros(0), pieces=np.zeros(0))
    else:
        np.savez(cache, X=r[0], Y=r[1], hidden=r[2], pieces=np.array(r[3], dtype=object))
    return r


def collect(folders, settings, augment: int = 0):
    """Per image ``(path, X, Y, hidden, pieces, augmented [(X, Y, hidden)...])``."""
    data = []
    for folder in folders:
        for path in truth_jsons(folder):
            r = image_features(path, settings)
            if r is not None:
                aug = [image_features(path, settings, v)[:3] for v in range(1, augment + 1)]
                data.append((path,) + r + (aug,))
    return data


def stack(data):
    """Training arrays of images (with their augmented copies), hidden cells left out."""
    parts = [(d[1], d[2], d[3]) for d in data] + [a for d in data for a in d[5]]
    return np.vstack([x[~h] for x, _, h in parts]), np.vstack([y[~h] for _, y, h in parts])


def read(models, X, threshold):
    from vision.assign import assign_pieces
    from vision.attributes import predict_proba

    probs = predict_proba(X, models)
    return assign_pieces(probs[:, 0] > threshold, probs[:, 1:]), probs


def score(results) -> dict:
    """results: list of (pred cells, truth pieces, hidden)."""
    occ = att = full = boards = n_cells = 0
    att_n = 0
    att_ok = np.zeros(4)
    for pred, truth, hidden in results:
        board_ok = True
        for i in range(16):
            if hidden[i]:
                continue
            n_cells += 1
            occ += (pred[i] is None) == (truth[i] is None)
            if pred[i] is not None and truth[i] is not None:
                att_n += 1
                att_ok += [((pred[i] >> b) & 1) == ((truth[i] >> b) & 1) for b in range(4)]
            ok = pred[i] == truth[i]
            full += ok
            board_ok &= ok
        boards += board_ok
    return {"images": len(results), "occupancy": occ / max(n_cells, 1),
            **{a: att_ok[k] / max(att_n, 1) for k, a in enumerate(("tall", "dark", "square", "hollow"))},
            "cells_right": full / max(n_cells, 1), "boards_right": boards / max(len(results), 1)}


def show(name, s):
    print(f"{name:40s} {s['images']:4d} img  occ {100 * s['occupancy']:5.1f}  tall {100 * s['tall']:5.1f}  "
          f"dark {100 * s['dark']:5.1f}  square {100 * s['square']:5.1f}  hollow {100 * s['hollow']:5.1f}  "
          f"cells {100 * s['cells_right']:5.1f}  boards {100 * s['boards_right']:5.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="*", default=[])
    ap.add_argument("--test", nargs="*", default=[])
    ap.add_argument("--models", help="model file (default: the built-in models)")
    ap.add_argument("--fit", action="store_true", help="test with models trained on all --train folders")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--augment", type=int, default=3, help="augmented copies per training image (as vision.training)")
    ap.add_argument("-C", type=float, default=None, help="regularisation (default: the training recipe's)")
    args = ap.parse_args()

    from vision.attributes import models_from_dict
    from vision.settings import VisionSettings
    from vision.training import train

    settings = VisionSettings()
    thr = settings.pieces.occupied_threshold
    kw = {} if args.C is None else {"C": args.C}
    train_data = collect(args.train, settings, args.augment)
    if train_data:
        groups = np.arange(len(train_data)) % args.folds
        rng = np.random.default_rng(0)
        groups = rng.permutation(groups)
        results = []
        for f in range(args.folds):
            tr = [d for d, g in zip(train_data, groups) if g != f]
            X, Y = stack(tr)
            models = models_from_dict(train(X, Y, **kw))
            for d, g in zip(train_data, groups):
                if g == f:
                    results.append((read(models, d[1], thr)[0], d[4], d[3]))
        show(f"train CV ({args.folds}-fold by image)", score(results))
    if args.fit:
        X, Y = stack(train_data)
        models = models_from_dict(train(X, Y, **kw))
    elif args.models:
        with open(args.models, encoding="utf-8") as fh:
            models = models_from_dict(json.load(fh)["models"])
    else:
        models = models_from_dict(settings.attributes)
    for folder in args.test:
        data = collect([folder], settings)
        results = [(read(models, d[1], thr)[0], d[4], d[3]) for d in data]
        show(os.path.relpath(folder), score(results))
        subs = sorted({os.path.dirname(d[0]) for d in data})
        if len(subs) > 1:
            for sub in subs:
                show("  " + os.path.basename(sub), score([r for r, d in zip(results, data) if os.path.dirname(d[0]) == sub]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
