"""Stills with truth from rendered game videos, for training the piece network on more sets.

    python -m vision.game_stills VIDEO... --out DIR [--per-state N]

A rendered game (``scenegen/render.sh game``) shows one piece set on one board from one
camera, its pieces set down one by one; its truth file (``VIDEO`` with ``.json``) says which
piece went where and when it had settled, and when a hand was over the board. Each state of
the board (empty, then after each placement) is written as ``N`` frames (default 1) taken
while no hand is in view, as ``DIR/<video>_<frame>.png`` with a truth file beside it in
the dataset's format (``docs/scenegen.md``: ``image``, ``cell_centers``, ``cells``, ...),
so that ``vision.net_training`` reads them as any rendered still. A game holds one set, so a
few dozen games add a few dozen sets; never make stills of a game kept back for measuring.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np

#: seconds after a piece has settled, or before the next hand comes, that a frame must keep
#: from either (the hand's motion blur and shadow linger for a frame or two)
MARGIN = 0.3


def _clear(t: float, hands: list[dict]) -> bool:
    return all(not (h["from_t"] - MARGIN <= t <= h["to_t"] + MARGIN) for h in hands)


def state_frames(truth: dict, per_state: int = 1) -> list[tuple[int, list]]:
    """``[(frame, cells)]``: for each state of the board (empty, then after each placement)
    up to ``per_state`` frame numbers spread evenly over the time the state stands with no
    hand in view (one: the middle one), and the 16 cells' pieces then (hex digit or ``None``)."""
    fps = float(truth["fps"])
    hands = truth.get("hands", [])
    placements = sorted(truth["placements"], key=lambda p: p["settled_t"])
    starts = [0.0] + [p["settled_t"] for p in placements]
    ends = [p["t"] for p in placements] + [int(truth["frames"]) / fps]
    cells: list = [None] * 16
    out = []
    for k, (a, b) in enumerate(zip(starts, ends)):
        if k:
            cells = list(cells)
            cells[placements[k - 1]["cell"]] = placements[k - 1]["piece"]
        frames = [f for f in range(int(a * fps) + 1, int(b * fps)) if f / fps >= a + MARGIN and _clear(f / fps, hands)]
        if not frames:
            continue
        picks = [len(frames) // 2] if per_state == 1 else np.linspace(0, len(frames) - 1, per_state).round()
        out += [(f, cells) for f in sorted({frames[int(i)] for i in picks})]
    return out


def write_stills(video: str, out_dir: str, per_state: int = 1) -> int:
    """Write the stills of one game video (see the module's docstring); returns how many."""
    truth_path = os.path.splitext(video)[0] + ".json"
    with open(truth_path, encoding="utf-8") as f:
        truth = json.load(f)
    name = os.path.splitext(os.path.basename(video))[0]
    os.makedirs(out_dir, exist_ok=True)
    wanted = dict(state_frames(truth, per_state))
    cap = cv2.VideoCapture(video)
    if not cap.isOpened():
        raise OSError(f"cannot open {video}")
    written, k = 0, 0
    try:
        while wanted:
            ok, frame = cap.read()
            if not ok:
                break
            if k in wanted:
                image = f"{name}_{k:04d}.png"
                cv2.imwrite(os.path.join(out_dir, image), frame)
                still = {
                    "image": image, "width": frame.shape[1], "height": frame.shape[0],
                    "source_video": os.path.basename(video), "frame": k,
                    "board": truth.get("board"), "piece_set": truth.get("piece_set"),
                    "board_found_expected": True, "cell_centers": truth["cell_centers"],
                    "board_corners": truth.get("board_corners"), "cells": wanted.pop(k),
                    "hidden": [False] * 16, "hand": False, "camera": truth.get("camera"),
                }
                with open(os.path.join(out_dir, f"{name}_{k:04d}.json"), "w", encoding="utf-8") as f:
                    json.dump(still, f)
                written += 1
            k += 1
    finally:
        cap.release()
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("videos", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-state", type=int, default=1, help="frames per state of the board (default 1)")
    args = ap.parse_args(argv)
    if args.per_state < 1:
        ap.error(f"--per-state must be 1 or more, not {args.per_state}")
    total = 0
    for i, v in enumerate(args.videos):
        try:
            n = write_stills(v, args.out, args.per_state)
        except (OSError, KeyError, ValueError, json.JSONDecodeError) as e:
            print(f"ERROR {v}: {e}", file=sys.stderr)
            return 2
        total += n
        print(f"[{i + 1}/{len(args.videos)}] {v}: {n} stills", file=sys.stderr)
    print(f"wrote {total} stills to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
