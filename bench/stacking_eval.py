"""How the attribute models and the piece network are combined, checked on a development set.

    python bench/stacking_eval.py data/renders/v2-dev/train [--check tests/data samples]

The shipped reading of each attribute is ``(1 - w) * model score + w * network logit``
(``vision.attributes.with_net``, ``w = NET_WEIGHT``), then the joint assignment of distinct
pieces (``vision.assign``). On the truth files of the folders given (board from truth, as
``bench/pieces_eval.py``; hidden cells left out) this prints:

- per attribute, accuracy on the cells holding a piece and log loss for a range of ``w``
  (before the assignment: what ``w`` does to each attribute alone);
- a temperature per attribute fitted by log loss on those folders, and cells / boards fully
  right after the assignment with and without it, there and on the ``--check`` folders
  (over- or under-confident attributes would make the assignment trade them badly).

Use a development set no model was trained on (``data/renders/v2-dev``, docs/scenegen.md),
never the held-out sets. Features are cached as ``bench/pieces_eval.py`` caches them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

WEIGHTS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 1.0)
TEMPERATURES = np.linspace(0.4, 3.0, 53)


def load(folders, settings, models):
    """Per image with a board: ``(stacked scores (16, 5), base scores (16, 5), network
    logits (16, 5), labels (16, 5), hidden (16,), true pieces)``."""
    from pieces_eval import image_features, truth_jsons

    from vision.attributes import MODEL_NAMES
    from vision.features import FEATURE_NAMES

    out = []
    files = [f for folder in folders for f in truth_jsons(folder)]
    for i, f in enumerate(files):
        r = image_features(f, settings)
        if i % 25 == 0:
            print(f"  features {i + 1}/{len(files)}", file=sys.stderr, flush=True)
        if r is None:
            continue
        X, Y, hidden, pieces = r
        stacked = np.stack([models[n].decision(X, FEATURE_NAMES) for n in MODEL_NAMES], 1)
        base = np.stack([models[n].base.decision(X, FEATURE_NAMES) for n in MODEL_NAMES], 1)
        net = np.stack([X[:, FEATURE_NAMES.index("net_" + n)] for n in MODEL_NAMES], 1)
        out.append((stacked, base, net, Y, hidden, pieces))
    return out


def _labelled(data, k, scores):
    """Scores (``scores(item)`` column ``k``) and labels of attribute ``k`` on visible cells."""
    s = np.concatenate([scores(d)[:, k][(d[3][:, k] >= 0) & ~d[4]] for d in data])
    y = np.concatenate([d[3][:, k][(d[3][:, k] >= 0) & ~d[4]] for d in data])
    return s, y


def _log_loss(s, y) -> float:
    p = 1.0 / (1.0 + np.exp(-np.clip(s, -30, 30)))
    return float(-np.mean(np.log(np.where(y == 1, p, 1 - p) + 1e-12)))


def fit_temperatures(data) -> np.ndarray:
    """Per attribute (tall, dark, square, hollow) the temperature of least log loss."""
    out = []
    for k in range(1, 5):
        s, y = _labelled(data, k, lambda d: d[0])
        out.append(min(TEMPERATURES, key=lambda t: _log_loss(s / t, y)))
    return np.array(out)


def fully_right(data, temperatures) -> str:
    """Cells and boards fully right after the joint assignment, attributes' scores divided
    by ``temperatures``."""
    from vision.assign import assign_pieces

    right = total = boards = 0
    for stacked, _, _, _, hidden, pieces in data:
        probs = 1.0 / (1.0 + np.exp(-np.clip(stacked[:, 1:] / temperatures, -40, 40)))
        cells = assign_pieces(1.0 / (1.0 + np.exp(-stacked[:, 0])) > 0.5, probs)
        ok = [c == p for c, p, h in zip(cells, pieces, hidden) if not h]
        right += sum(ok)
        total += len(ok)
        boards += all(ok)
    return f"cells {100 * right / max(total, 1):.2f} % of {total}, boards {100 * boards / max(len(data), 1):.1f} % of {len(data)}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", help="development folders (or lists of truth files)")
    ap.add_argument("--check", nargs="*", default=[], help="other folders to score the fitted temperatures on")
    args = ap.parse_args(argv)
    from vision.attributes import MODEL_NAMES, NET_WEIGHT, models_from_dict
    from vision.settings import VisionSettings

    settings = VisionSettings()
    with open(os.path.join(ROOT, "vision", "default_models.json"), encoding="utf-8") as f:
        models = models_from_dict(json.load(f)["models"])
    data = load(args.folders, settings, models)
    if not data:
        print("ERROR no truth image with a board in " + " ".join(args.folders), file=sys.stderr)
        return 2
    print(f"{len(data)} images; shipped network weight {NET_WEIGHT}")
    for k, name in enumerate(MODEL_NAMES):
        cols = []
        for w in WEIGHTS:
            s, y = _labelled(data, k, lambda d: (1 - w) * d[1] + w * d[2])
            cols.append(f"w {w}: {100 * np.mean((s > 0) == (y == 1)):.2f} % {_log_loss(s, y):.3f}")
        print(f"  {name:8s} ({len(y)}): " + " | ".join(cols))
    T = fit_temperatures(data)
    print("temperatures (tall, dark, square, hollow):", " ".join(f"{t:.2f}" for t in T))
    for label, d in [(" ".join(args.folders), data)] + [(c, load([c], settings, models)) for c in args.check]:
        print(f"  {label}: as shipped {fully_right(d, np.ones(4))} | with the temperatures {fully_right(d, T)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
