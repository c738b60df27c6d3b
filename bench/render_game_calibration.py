"""Calibration photos for a rendered game video: the game's own scene (camera, light,
table, piece set) with all 16 pieces standing on the board, as a player would photograph
the set with the webcam where it stands before the game (docs/watch.md).

Runs in the renderer's venv (needs Blender's ``bpy``), niced::

    nice -n 10 scenegen/.venv/bin/python bench/render_game_calibration.py --seed 64 \\
        --board walnut-checker --piece-set procedural --out data/renders/game-calib/game19 --photos 2

Writes ``OUT/c0.jpg, c1.jpg ...`` with their truth JSON: the same arrangement rule as a
calibration session (every piece on a random cell, turned at random), no hand, no spare
pieces beside the board. Deterministic from ``--seed`` and the photo number.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def calibration_spec(seed: int, board: str, piece_set: str, photo: int) -> dict:
    """The scene of ``scenegen.game.video_spec(seed, board, piece_set)`` with all 16 pieces
    on the board in an arrangement drawn from ``seed`` and ``photo``."""
    from scenegen.catalog import BOARDS
    from scenegen.game import video_spec
    from scenegen.sampling import cell_world

    spec = video_spec(seed, board, piece_set)
    rng = random.Random(seed * 1000 + 17 + photo)
    cells = list(range(16))
    rng.shuffle(cells)
    recess = BOARDS[board].recess_depth
    pieces = []
    for piece, cell in enumerate(cells):
        x, y, z = cell_world(spec, cell)
        pieces.append({"piece": piece, "cell": cell, "x": x, "y": y, "z": z - recess, "yaw_deg": rng.uniform(0, 360)})
    spec["pieces"] = pieces
    spec["hand"] = None
    return spec


def main(argv=None) -> int:
    from scenegen.render import render_still

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True, help="the game video's --seed")
    ap.add_argument("--board", required=True, help="the game video's --board")
    ap.add_argument("--piece-set", default="procedural", help="the game video's --piece-set")
    ap.add_argument("--out", required=True, help="folder for c0.jpg, c1.jpg ...")
    ap.add_argument("--photos", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for k in range(args.photos):
        out = os.path.join(args.out, f"c{k}.jpg")
        if os.path.exists(out) and os.path.exists(os.path.splitext(out)[0] + ".json"):
            print(f"{out}: already there", file=sys.stderr)
            continue
        s = render_still(calibration_spec(args.seed, args.board, args.piece_set, k), out, args.threads)
        print(f"{out}: {s:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
