"""Log loss of piece networks alone, per attribute, on a folder of renders with truth.

    python bench/net_logloss.py FOLDER NET [NET ...]

Each NET is an ONNX file, or several joined by ``+`` (their logits averaged, as
``vision.net.PieceNets``). The boards are taken from truth, each image read as rendered
and on one board moved as the board finder moves it (``vision.net_training.gather``, as
the network is trained). Prints per network the mean log loss of occupied (all visible
cells) and of tall, dark, square, hollow (cells holding a piece), and their mean: the
network's own quality before the attribute models and the joint assignment
(``bench/pieces_eval.py`` scores those). Use the development set
(``data/renders/v2-dev/train``), never the held-out renders.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def log_loss(z: np.ndarray, y: np.ndarray) -> float:
    """Mean log loss of logits ``z`` for 0/1 labels ``y``."""
    z = np.clip(z, -30, 30)
    return float(np.mean(np.log1p(np.exp(-z * (2 * y - 1)))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("nets", nargs="+", metavar="NET")
    args = ap.parse_args(argv)
    from vision.net import PieceNetError, read_nets
    from vision.net_training import gather
    from vision.settings import VisionSettings

    try:
        nets = [(name, read_nets(name)) for name in args.nets]
    except PieceNetError as e:
        print(f"ERROR {e}", file=sys.stderr)
        return 2
    crops, fronts, Y, _ = gather([args.folder], VisionSettings(), 2, progress=False)
    if not len(crops):
        print(f"ERROR no truth image with a board in {args.folder}", file=sys.stderr)
        return 2
    print(f"{len(crops)} images of {args.folder}, as rendered and on a moved board")
    for name, net in nets:
        parts = []
        for v in range(crops.shape[1]):
            L = np.stack([net.logits(crops[i, v], fronts[i, v]) for i in range(len(crops))])
            seen = Y[:, :, 0] >= 0
            piece = Y[:, :, 0] == 1
            parts.append([log_loss(L[:, :, 0][seen], Y[:, :, 0][seen])]
                         + [log_loss(L[:, :, k][piece], Y[:, :, k][piece]) for k in range(1, 5)])
        o = np.mean(parts, 0)
        print(f"{name}: log loss occupied {o[0]:.4f} tall {o[1]:.4f} dark {o[2]:.4f} square {o[3]:.4f} "
              f"hollow {o[4]:.4f}, mean {o.mean():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
