"""Render a dataset of still scenes with truth, split into train/ and holdout/.

    scenegen/.venv/bin/python -m scenegen.dataset --out data/renders/dev --count 200 --seed 1

Deterministic from ``--seed``: image ``i`` is always the same scene, so an interrupted run
resumes where it stopped (finished images are skipped) and several runs with different
``--start``/``--count`` fill one folder. Holdout images use only boards and piece sets
that training images never show (``--holdout-boards``, ``--holdout-sets``), so accuracy
measured on ``holdout/`` is accuracy on sets the pipeline was not tuned on.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import sys
import time

from .catalog import BOARDS, DEFAULT_HOLDOUT_BOARDS, DEFAULT_HOLDOUT_SETS, PIECE_SETS
from .sampling import SceneSampler


class DatasetError(ValueError):
    pass


def scene_seed(seed: int, index: int) -> int:
    """Seed of image ``index`` of a dataset seeded with ``seed`` (stable across Pythons)."""
    h = hashlib.sha256(f"quarto-scenegen:{seed}:{index}".encode()).digest()
    return int.from_bytes(h[:4], "big")


def _ids(text: str | None, known: dict, what: str) -> list[str]:
    if text is None:
        return list(known)
    if text.strip() in ("", "none"):
        return []
    out = [t.strip() for t in text.split(",") if t.strip()]
    for t in out:
        if t not in known:
            raise DatasetError(f"unknown {what}: {t!r} (known: {', '.join(known)})")
    return out


class Plan:
    """Which scene (split, board pool, piece-set pool) image ``i`` is."""

    def __init__(self, seed, boards, sets, holdout_boards, holdout_sets, holdout_fraction, procedural_sets=0.0,
                 board_tints=0.0, **sampler_kw):
        self.seed = seed
        train_boards = [b for b in boards if b not in holdout_boards] or list(boards)
        train_sets = [s for s in sets if s not in holdout_sets] or list(sets)
        # procedural sets are for training only; they keep clear of the held-out sets' colours
        avoid = sorted(set(DEFAULT_HOLDOUT_SETS) | set(holdout_sets))
        self.train = SceneSampler(train_boards, train_sets, procedural_rate=procedural_sets, procedural_avoid=avoid,
                                  board_tint_rate=board_tints, **sampler_kw)
        self.holdout_fraction = holdout_fraction if (holdout_boards or holdout_sets) else 0.0
        self.holdout = {}
        if holdout_boards:
            self.holdout["board"] = SceneSampler(holdout_boards, train_sets, **sampler_kw)
        if holdout_sets:
            self.holdout["set"] = SceneSampler(train_boards, holdout_sets, **sampler_kw)
        if holdout_boards and holdout_sets:
            self.holdout["both"] = SceneSampler(holdout_boards, holdout_sets, **sampler_kw)

    def scene(self, index: int) -> tuple[str, dict]:
        s = scene_seed(self.seed, index)
        r = random.Random(s ^ 0x5EED)
        if r.random() < self.holdout_fraction:
            mode = sorted(self.holdout)[r.randrange(len(self.holdout))]
            spec = self.holdout[mode].sample(s)
            spec["holdout"] = mode
            return "holdout", spec
        return "train", self.train.sample(s)


@contextlib.contextmanager
def quiet_stdout(log_path: str):
    """Send Blender's per-tile chatter (written straight to fd 1) to a log file."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(log_path, "a") as log:
        os.dup2(log.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _set_name(spec: dict) -> str:
    p = spec["piece_set"].get("params")
    return f"{p['light']}/{p['dark']} {p['material']}" if p else spec["piece_set"]["id"]


def _fmt(sec: float) -> str:
    sec = int(sec)
    return f"{sec // 3600}h{sec // 60 % 60:02d}m" if sec >= 3600 else f"{sec // 60}m{sec % 60:02d}s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scenegen.dataset", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output folder (train/ and holdout/ are made inside)")
    ap.add_argument("--count", type=int, required=True, help="number of images (indices start..start+count-1)")
    ap.add_argument("--start", type=int, default=0, help="first image index (default 0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boards", help=f"comma list of boards to use (default all: {','.join(BOARDS)})")
    ap.add_argument("--piece-sets", help=f"comma list of piece sets (default all: {','.join(PIECE_SETS)})")
    ap.add_argument("--holdout-boards", default=",".join(DEFAULT_HOLDOUT_BOARDS),
                    help="boards only in holdout/ ('none' for no held-out board; default %(default)s)")
    ap.add_argument("--holdout-sets", default=",".join(DEFAULT_HOLDOUT_SETS),
                    help="piece sets only in holdout/ ('none'; default %(default)s)")
    ap.add_argument("--holdout-fraction", type=float, default=0.2, help="share of images in holdout/ (default 0.2)")
    ap.add_argument("--negative-rate", type=float, default=0.08, help="share of images with no board / board cut off")
    ap.add_argument("--hand-rate", type=float, default=0.3, help="share of images with a hand over the board")
    ap.add_argument("--procedural-sets", type=float, default=0.0,
                    help="share of train images whose piece set is drawn afresh (scenegen.procedural; default 0)")
    ap.add_argument("--large-sets", type=float, default=0.0,
                    help="share of the procedural piece sets drawn at the large end of the sizes "
                         "(short pieces as high as other sets' tall ones; default 0)")
    ap.add_argument("--board-tints", type=float, default=0.0,
                    help="share of train images whose board is recoloured (same design, other colours; default 0)")
    ap.add_argument("--separate-pieces", action="store_true",
                    help="centre and square pieces that would overlap a neighbour (default off: old datasets' scenes)")
    ap.add_argument("--min-pieces", type=int, default=0,
                    help="at least this many pieces on the board in every image with a board (default 0)")
    ap.add_argument("--tilt", default="0,50",
                    help="camera angle from straight down, degrees: LOW,HIGH drawn uniformly (default 0,50); "
                         "e.g. 0,15 for cameras on an arm above the board")
    ap.add_argument("--samples", type=int, default=8, help="Cycles samples per pixel (denoised; default 8)")
    ap.add_argument("--render-scale", type=float, default=0.75, help="render size relative to the final frame (default 0.75)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--flat", action="store_true",
                    help="no train/holdout split: all images directly in --out (holdout options ignored)")
    ap.add_argument("--specs-only", action="store_true", help="write the scene descriptions (spec JSON) without rendering")
    ap.add_argument("--only", choices=("train", "holdout"),
                    help="render only this split's images of the range (each is the same image a full run makes): "
                         "e.g. rebuild an evaluation set without its training images")
    args = ap.parse_args(argv)
    try:
        boards = _ids(args.boards, BOARDS, "board")
        sets = _ids(args.piece_sets, PIECE_SETS, "piece set")
        hb = [b for b in _ids(args.holdout_boards, BOARDS, "board") if b in boards]
        hs = [s for s in _ids(args.holdout_sets, PIECE_SETS, "piece set") if s in sets]
        if args.flat:
            hb, hs = [], []
        try:
            tilt = tuple(float(v) for v in args.tilt.split(","))
        except ValueError:
            tilt = ()
        if len(tilt) != 2:
            raise DatasetError(f"--tilt takes LOW,HIGH in degrees, got {args.tilt!r}")
        if args.count < 0:
            raise DatasetError(f"--count must be >= 0, got {args.count!r}")
        plan = Plan(args.seed, boards, sets, hb, hs, args.holdout_fraction, negative_rate=args.negative_rate,
                    hand_rate=args.hand_rate, samples=args.samples, render_scale=args.render_scale,
                    procedural_sets=args.procedural_sets, board_tints=args.board_tints,
                    min_pieces=args.min_pieces, separate_pieces=args.separate_pieces,
                    large_set_rate=args.large_sets, tilt_range=tilt)
    except ValueError as e:
        print(f"ERROR {e}", file=sys.stderr)
        return 2
    splits = {"train": "", "holdout": ""} if args.flat else {"train": "train", "holdout": "holdout"}
    for split in splits.values():
        os.makedirs(os.path.join(args.out, split), exist_ok=True)
    manifest = {"seed": args.seed, "boards": boards, "piece_sets": sets, "holdout_boards": hb, "holdout_sets": hs,
                "holdout_fraction": plan.holdout_fraction, "negative_rate": args.negative_rate, "hand_rate": args.hand_rate,
                "procedural_sets": args.procedural_sets, "board_tints": args.board_tints,
                "separate_pieces": args.separate_pieces, "min_pieces": args.min_pieces, "large_sets": args.large_sets, "tilt": list(tilt),
                "samples": args.samples, "render_scale": args.render_scale, "width": 1280, "height": 720}
    with open(os.path.join(args.out, "dataset.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    log_path = os.path.join(args.out, "blender.log")
    scenes = [(i, *plan.scene(i)) for i in range(args.start, args.start + args.count)]
    if args.only:
        scenes = [s for s in scenes if s[1] == args.only]
        print(f"{len(scenes)} of {args.count} images are in {args.only}/", file=sys.stderr, flush=True)
    done_times: list[float] = []
    t_start = time.time()
    for n, (i, split, spec) in enumerate(scenes):
        split = splits[split]
        name = f"{i:04d}"
        jpg = os.path.join(args.out, split, name + ".jpg")
        js = os.path.join(args.out, split, name + ".json")
        if args.specs_only:
            with open(os.path.join(args.out, split, name + ".spec.json"), "w") as f:
                json.dump(spec, f)
            continue
        if os.path.exists(js) and os.path.exists(jpg):
            print(f"[{n + 1:>5}/{len(scenes)}] {os.path.join(split, name)}.jpg exists, skipped", file=sys.stderr, flush=True)
            continue
        from .render import render_still

        with quiet_stdout(log_path):
            sec = render_still(spec, jpg, threads=args.threads)
        done_times.append(sec)
        left = len(scenes) - n - 1
        avg = sum(done_times[-20:]) / len(done_times[-20:])
        pct = 100 * (n + 1) / max(len(scenes), 1)
        bar = "#" * int(pct / 5) + "." * (20 - int(pct / 5))
        print(f"[{bar}] {n + 1}/{len(scenes)} {pct:3.0f}%  {os.path.join(split, name)}.jpg {sec:5.1f} s  "
              f"({spec['board']['id']}{' tinted' if 'colors' in spec['board'] else ''}, {_set_name(spec)})  ETA {_fmt(left * avg)}", file=sys.stderr, flush=True)
    if done_times:
        print(f"rendered {len(done_times)} images in {_fmt(time.time() - t_start)}, "
              f"{sum(done_times) / len(done_times):.1f} s per image", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
