"""Render a calibration benchmark: per piece set and board, a "session" (one room light,
one table, one camera) with a few photos of all 16 pieces on the board (for calibrating)
and more photos of games in progress (for scoring), as a user would take them.

Runs in the renderer's venv (needs Blender's ``bpy``), niced::

    nice -n 10 scenegen/.venv/bin/python bench/render_calibration_set.py --out data/renders/calib-holdout \\
        --groups green-red:felt-circles,maple-mahogany:gigamic,maple-mahogany:wood-round,green-red:printed-grid \\
        --calib 2 --eval 12 --seed 500

Layout: ``OUT/<set>__<board>__s<k>/`` holding ``c0.jpg, c1.jpg ...`` (calibration photos,
all 16 pieces, no hand) and ``NNNN.jpg`` (scored photos: 0-16 pieces, a hand in about a
third), each with its truth JSON (format: /work/briefs/truth.md, docs/scenegen.md). The
default groups use only the piece sets and board that scenegen holds out of tuning
(``scenegen.catalog.DEFAULT_HOLDOUT_*``). Deterministic from ``--seed``; finished images
are skipped, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

DEFAULT_GROUPS = "green-red:felt-circles,maple-mahogany:gigamic,maple-mahogany:wood-round,green-red:printed-grid"


def _seed(*parts) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:4], "big")


def session_specs(sampler, set_id: str, board_id: str, session: int, n_calib: int, n_eval: int, seed: int,
                  hand_rate: float = 0.3):
    """[(name, spec)]: calibration photos then scored photos sharing light, table, camera, board pose."""
    base = sampler.sample(_seed(seed, set_id, board_id, session, "session"), n_on_board=16, hand=False, negative=None)
    out = []
    for k in range(n_calib + n_eval):
        calib = k < n_calib
        s = _seed(seed, set_id, board_id, session, k)
        rng = random.Random(s)
        spec = copy.deepcopy(base)
        spec["seed"] = s
        n = 16 if calib else rng.randint(0, 16)
        spec["pieces"] = sampler._pieces(rng, spec, n)
        spec["clutter"] = sampler._clutter(rng, spec)
        spec["hand"] = sampler._hand(rng, spec) if (not calib and rng.random() < hand_rate) else None
        spec["post"] = sampler._post(rng)
        out.append((f"c{k}" if calib else f"{k - n_calib:04d}", spec))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--groups", default=DEFAULT_GROUPS, help="comma list of SET:BOARD (default: held-out ones)")
    ap.add_argument("--sessions", type=int, default=1, help="sessions (light + camera) per group")
    ap.add_argument("--calib", type=int, default=2, help="calibration photos per session")
    ap.add_argument("--eval", type=int, default=12, help="scored photos per session")
    ap.add_argument("--seed", type=int, default=500)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    from scenegen.dataset import quiet_stdout
    from scenegen.render import render_still
    from scenegen.sampling import SceneSampler

    jobs = []
    for g in args.groups.split(","):
        set_id, board_id = g.split(":")
        sampler = SceneSampler([board_id], [set_id])
        for sess in range(args.sessions):
            folder = os.path.join(args.out, f"{set_id}__{board_id}__s{sess}")
            os.makedirs(folder, exist_ok=True)
            for name, spec in session_specs(sampler, set_id, board_id, sess, args.calib, args.eval, args.seed):
                jobs.append((os.path.join(folder, name + ".jpg"), spec))
    t0 = time.time()
    for n, (jpg, spec) in enumerate(jobs, 1):
        if os.path.exists(jpg) and os.path.exists(jpg[:-4] + ".json"):
            continue
        with quiet_stdout(os.path.join(args.out, "blender.log")):
            sec = render_still(spec, jpg, threads=args.threads)
        print(f"[{n}/{len(jobs)}] {jpg} {sec:.1f} s (elapsed {time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
