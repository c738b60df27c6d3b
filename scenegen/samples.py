"""Render the small committed image sets: ``samples/`` (README examples) and ``tests/data/``.

    scenegen/.venv/bin/python -m scenegen.samples --set samples --out samples
    scenegen/.venv/bin/python -m scenegen.samples --set testdata --out tests/data

Each entry is a recipe (board, piece set, pieces on the board, hand, negative, camera
tilt range) searched from a fixed seed, so the sets re-render identically.
"""

from __future__ import annotations

import argparse
import os
import sys

from .sampling import SceneSampler

# name, board, piece set, pieces on board, hand, negative, (tilt min, max)
SAMPLES = [
    ("gigamic-beech-walnut", "gigamic", "beech-walnut", 9, False, None, (28, 40)),
    ("gigamic-hand", "gigamic", "beech-walnut", 7, True, None, (20, 38)),
    ("wood-round-black-white", "wood-round", "black-white", 12, False, None, (0, 15)),
    ("printed-grid-red-white", "printed-grid", "red-white", 10, False, None, (38, 50)),
    ("felt-circles-green-red-full", "felt-circles", "green-red", 16, False, None, (25, 45)),
    ("negative-no-board", "gigamic", "red-blue", 0, False, "no-board", (20, 45)),
]

# training boards/sets and held-out ones (felt-circles, green-red, maple-mahogany are held out by default)
TESTDATA = [
    ("full-gigamic-beech-walnut-1", "gigamic", "beech-walnut", 16, False, None, (15, 35)),
    ("full-gigamic-beech-walnut-2", "gigamic", "beech-walnut", 16, False, None, (30, 48)),
    ("full-felt-circles-green-red-1", "felt-circles", "green-red", 16, False, None, (10, 30)),
    ("full-felt-circles-green-red-2", "felt-circles", "green-red", 16, False, None, (30, 45)),
    ("full-wood-round-black-white", "wood-round", "black-white", 16, False, None, (0, 20)),
    ("gigamic-empty", "gigamic", "beech-walnut", 0, False, None, (20, 40)),
    ("gigamic-maple-mahogany", "gigamic", "maple-mahogany", 8, False, None, (25, 45)),
    ("wood-round-red-blue", "wood-round", "red-blue", 6, False, None, (20, 40)),
    ("printed-grid-red-white", "printed-grid", "red-white", 11, False, None, (10, 35)),
    ("walnut-checker-hand", "walnut-checker", "beech-walnut", 8, True, None, (20, 40)),
    ("gigamic-hand", "gigamic", "black-white", 10, True, None, (25, 45)),
    ("negative-no-board", "wood-round", "beech-walnut", 0, False, "no-board", (10, 45)),
    ("negative-cut-off", "gigamic", "beech-walnut", 8, False, "board-cut-off", (10, 40)),
]

SETS = {"samples": SAMPLES, "testdata": TESTDATA}


def recipe_spec(recipe, base_seed: int) -> dict:
    name, board, pset, n, hand, negative, (tmin, tmax) = recipe
    sampler = SceneSampler([board], [pset])
    for k in range(2000):
        seed = base_seed + k
        spec = sampler.sample(seed, n_on_board=n, hand=hand, negative=negative)
        c = spec["camera"]
        ok = tmin <= c["tilt_deg"] <= tmax and spec["negative"] == negative
        if hand:
            ok = ok and spec["hand"] is not None
        if negative is None and n == 16:
            ok = ok and spec["hand"] is None
        if ok:
            return spec
    raise RuntimeError(f"no scene found for recipe {name!r}")


def main(argv=None) -> int:
    from .dataset import quiet_stdout
    from .render import render_still

    ap = argparse.ArgumentParser(prog="python -m scenegen.samples", description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--quality", type=int, default=85, help="JPEG quality of the committed images (default 85)")
    ap.add_argument("--only", help="render only the recipe with this name")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for i, recipe in enumerate(SETS[args.set]):
        if args.only and recipe[0] != args.only:
            continue
        spec = recipe_spec(recipe, args.seed + 1000 * i)
        spec["post"]["jpeg_quality"] = min(spec["post"]["jpeg_quality"], args.quality)
        out = os.path.join(args.out, recipe[0] + ".jpg")
        with quiet_stdout(os.devnull):
            sec = render_still(spec, out)
        print(f"{out}: {sec:.1f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
