"""Does the piece network read better from crops with more pixels? (session 24)

    python bench/crop_resolution.py --train DIR... --test DIR... [--scale 2] [--seeds 0 1]

Trains the piece network from scratch (``vision.net_training``'s recipe, network and
augmentation) on the training folders' renders twice per seed: on the shipped crops
(``CROP_W`` x ``CROP_H`` pixels for the same window of the picture) and on crops ``--scale``
times as many pixels across and along (the same window; one more halving convolution in
front of the network, so that its later layers see maps of the same size). Both read the
same images with the board from truth (moved as a found board is, the first jittered
copy, as training's validation does) and are scored on the test folders: cells fully
right after the joint assignment, each attribute, and the log loss per output. The crops
come from the working image (960 pixels on the longer side), as at run time.

The crop size is a setting of ``vision.crops`` read by the whole pipeline; this tool
changes it inside its own process only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/net_logloss.py

OUTPUTS = ("occupied", "tall", "dark", "square", "hollow")


class NoBoards(ValueError):
    """No image of the training or the test folders shows a board."""


def log_losses(logits: np.ndarray, Y: np.ndarray) -> dict:
    """Mean log loss per output over the known labels (attributes on occupied cells), as
    ``bench/net_logloss.py`` counts it."""
    from net_logloss import log_loss

    L, Yf = logits.reshape(-1, 5), Y.reshape(-1, 5)
    out = {}
    for k, name in enumerate(OUTPUTS):
        m = (Yf[:, k] >= 0) & ((Yf[:, 0] == 1) if k else True)
        out[name] = log_loss(L[m, k], Yf[m, k]) if m.any() else float("nan")
    return out


def _scaled_builder(build, scale: int):
    """``vision.net_training.build_model`` for crops ``scale`` times larger: the same
    network after one more halving convolution per doubling in front."""
    from torch import nn

    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, 2, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    def builder(*args, **kwargs):
        model = build(*args, **kwargs)
        first = model.features[0][0]  # the first convolution: 3 -> width/2, halving
        stem, c = [], 3
        for _ in range(int(np.log2(scale))):
            stem.append(block(c, 16))
            c = 16
        model.features = nn.Sequential(*stem, block(c, first.out_channels), *list(model.features)[1:])
        return model

    return builder


def run(train_dirs, test_dirs, scale: int, seed: int, epochs: int, variants: int) -> dict:
    """Train and score one network (``vision.net_training.train`` seeds itself); returns
    the figures."""
    from vision import crops as C
    from vision import net_training as T
    from vision.settings import VisionSettings

    settings = VisionSettings()
    saved = C.CROP_W, C.CROP_H, T.CACHE, T.build_model
    try:
        if scale != 1:
            C.CROP_W, C.CROP_H = saved[0] * scale, saved[1] * scale
            T.CACHE = f"{saved[2]}_x{scale}"
            T.build_model = _scaled_builder(saved[3], scale)
        try:
            crops, fronts, Y, paths = T.gather(train_dirs, settings, variants, progress=False)
            tc, tf, tY, _ = T.gather(test_dirs, settings, 2, progress=False)
        except ValueError:  # numpy's stack of no images
            raise NoBoards("no image with a board among the --train or --test folders' renders") from None
        t0 = time.time()
        model = T.train(crops, fronts, Y, epochs=epochs, seed=seed, log=lambda *_: None)
        seconds = time.time() - t0
        logits = T.predict(model, tc[:, 1], tf[:, 1])
    finally:
        C.CROP_W, C.CROP_H, T.CACHE, T.build_model = saved
    scores = T.board_scores(logits, tY)
    return {"crop": f"{crops.shape[4]}x{crops.shape[3]}", "seed": seed, "train_images": len(paths),
            "test_images": len(tY), "seconds": seconds, **scores, "log_loss": log_losses(logits, tY)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", nargs="+", required=True, help="folders of rendered training images with truth")
    ap.add_argument("--test", nargs="+", required=True, help="folders of images to score on (never trained on)")
    ap.add_argument("--scale", type=int, default=2, choices=(2, 4), help="crop pixels against the shipped size")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--variants", type=int, default=5, help="jittered copies of each training image")
    args = ap.parse_args(argv)
    from vision.evaluation import truth_files_under

    for name, dirs in (("--train", args.train), ("--test", args.test)):
        if not any(truth_files_under(d) for d in dirs):
            print(f"ERROR {name}: no rendered image with truth in {' '.join(dirs)}", file=sys.stderr)
            return 2
    try:
        import torch  # noqa: F401
    except ImportError:
        print("ERROR torch is not installed: pip install -e '.[train]' (see pyproject.toml)", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    print("crop     seed  train  test  cells   tall   dark  square hollow  occupied | log loss: tall dark square hollow occupied  seconds")
    for seed in args.seeds:
        for scale in (1, args.scale):
            print(f"training on {'the shipped' if scale == 1 else f'x{scale}'} crops, seed {seed} "
                  f"({args.epochs} epochs; minutes)...", file=sys.stderr, flush=True)
            try:
                r = run(args.train, args.test, scale, seed, args.epochs, args.variants)
            except NoBoards as e:
                print(f"ERROR {e}", file=sys.stderr)
                return 2
            ll = r["log_loss"]
            print(f"{r['crop']:8s} {seed:4d} {r['train_images']:6d} {r['test_images']:5d} "
                  f"{100 * r['cells_right']:6.2f} {100 * r['tall']:6.2f} {100 * r['dark']:6.2f} "
                  f"{100 * r['square']:6.2f} {100 * r['hollow']:6.2f} {100 * r['occupancy']:8.2f} |"
                  f"        {ll['tall']:.3f} {ll['dark']:.3f} {ll['square']:.3f}  {ll['hollow']:.3f}  {ll['occupied']:.3f}"
                  f"  {r['seconds']:7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
