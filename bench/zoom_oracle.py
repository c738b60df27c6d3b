"""How much the piece network gains when its crops are scaled to the piece set's size.

    python bench/zoom_oracle.py FOLDER [FOLDER ...] [--ref 0.75] [--net FILE]

The network's crops span a fixed number of cell pitches (``vision.crops``): a short piece
of a large set (0.87-0.94 of a pitch high) fills the crop as a tall piece of a typical set
does, and a tall one is cut off at the top. Here every image with truth is read twice by
the network alone, with the board from truth: once with the crops as shipped, once with
the window zoomed out by ``max(1, short / ref)`` (the set's true short height in pitches
over ``--ref``), so that the set looks typical to the network. Prints per folder and per
attribute how often the network's logit is on the right side (per cell, no joint
assignment): occupancy over visible cells, attributes over occupied ones, and how many
images were zoomed. An oracle: the set's size comes from truth (still renders carry it;
game stills from ``python -m vision.game_stills`` get it from their video's scene,
``scenegen.game.video_spec``). It tells what an estimate of the set's size would be worth
(docs/vision.md, "Session 27").
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

NAMES = ("occupied", "tall", "dark", "square", "hollow")
#: a game video's name -> its set's short height in pitches (``None``: not found)
_VIDEO_SHORT: dict[str, float | None] = {}


def short_height(path: str) -> float | None:
    """The set's short-piece height in cell pitches for truth file ``path``, or ``None``."""
    with open(path, encoding="utf-8") as f:
        truth = json.load(f)
    ps, board = truth.get("piece_set") or {}, truth.get("board") or {}
    if "short_cm" in ps and board.get("pitch_cm"):
        return ps["short_cm"] / board["pitch_cm"]
    video = truth.get("source_video")
    if not video:
        return None
    if video not in _VIDEO_SHORT:
        from scenegen.catalog import BOARDS, piece_set_for
        from scenegen.game import video_spec

        # game stills name their video only (``vision.game_stills``): found where game
        # videos are kept
        found = sorted(glob.glob(os.path.join(ROOT, "data", "renders", "*", video)) +
                       glob.glob(os.path.join(ROOT, "samples", video)))
        if not found:
            _VIDEO_SHORT[video] = None
            return None
        with open(os.path.splitext(found[0])[0] + ".json", encoding="utf-8") as f:
            vt = json.load(f)
        spec = video_spec(vt["seed"] // 100, vt["board"]["id"], "procedural" if ps.get("id", "").startswith("proc-")
                          else ps.get("id"))
        s = piece_set_for(spec["piece_set"])
        # the scene drawn again must be the video's (its set's name in the truth)
        same = s.id == vt["piece_set"]["id"] if "id" in vt.get("piece_set", {}) else True
        _VIDEO_SHORT[video] = s.short_h / BOARDS[vt["board"]["id"]].pitch if same else None
    return _VIDEO_SHORT[video]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--ref", type=float, default=0.75,
                    help="short height in pitches up to which crops are left as they are (default 0.75)")
    ap.add_argument("--net", help="piece network file (default: the shipped one)")
    args = ap.parse_args(argv)
    from vision.evaluation import truth_files_under
    from vision.net import PieceNet, default_net
    from vision.net_training import truth_crops
    from vision.settings import VisionSettings

    settings = VisionSettings()
    net = PieceNet(args.net) if args.net else default_net()
    for folder in args.folders:
        right = {m: np.zeros((5, 2)) for m in ("as shipped", "zoomed")}
        zoomed = images = 0
        for path in truth_files_under(folder):
            short = short_height(path)
            if short is None:
                continue
            zoom = max(1.0, short / args.ref)
            for mode in right:
                r = truth_crops(path, settings, zoom=zoom if mode == "zoomed" else 1.0)
                if r is None:
                    break
                crops, front, Y = r
                logits = net.logits(crops[0], front[0])
                seen = Y[:, 0] >= 0
                right[mode][0] += [((logits[seen, 0] > 0) == (Y[seen, 0] == 1)).sum(), seen.sum()]
                for a in range(1, 5):
                    m = (Y[:, 0] == 1) & (Y[:, a] >= 0)
                    right[mode][a] += [((logits[m, a] > 0) == (Y[m, a] == 1)).sum(), m.sum()]
            else:
                images += 1
                zoomed += zoom > 1.0
        for mode, r in right.items():
            figures = "  ".join(f"{n} {100 * r[i, 0] / max(1, r[i, 1]):5.1f}" for i, n in enumerate(NAMES))
            print(f"{folder:40s} {mode:10s} {images:4d} img ({zoomed} zoomed)  {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
