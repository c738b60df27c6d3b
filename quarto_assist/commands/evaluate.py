"""``quarto-assist evaluate DIR [--profile FILE] [--csv OUT] [--json]``

Runs ``analyze`` on every image of a rendered dataset folder (``NNNN.jpg`` + ``NNNN.json``
truth) and prints a per-stage summary; ``--csv`` writes one row per image.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time


def add_arguments(parser) -> None:
    parser.add_argument("folder", metavar="DIR", help="dataset folder with NNNN.jpg/.png and NNNN.json truth files")
    parser.add_argument("--profile", metavar="FILE", help="profile from 'quarto-assist calibrate' (default: built-in)")
    parser.add_argument("--csv", metavar="OUT", help="write one CSV row per image")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N images")
    parser.add_argument("--quiet", action="store_true", help="no progress line")


def run(args) -> int:
    from quarto_assist.commands.analyze import Analyzer
    from vision.evaluation import COLUMNS, load_truth, score_reading, summarize, truth_files
    from vision.image import load_image

    files = truth_files(args.folder)
    if args.limit:
        files = files[: args.limit]
    if not files:
        raise ValueError(f"no truth files (NNNN.json with an \"image\" key) in {args.folder!r}")
    analyzer = Analyzer(args.profile)
    rows = []
    out = None
    writer = None
    if args.csv:
        out = open(args.csv, "w", newline="", encoding="utf-8")
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
    try:
        for k, path in enumerate(files):
            truth = load_truth(path)
            image = load_image(os.path.join(os.path.dirname(path), truth["image"]), analyzer.profile.vision.image)
            t0 = time.perf_counter()
            reading = analyzer.analyze(image)
            row = score_reading(reading, truth, time.perf_counter() - t0)
            rows.append(row)
            if writer:
                writer.writerow(row)
            if not args.quiet and sys.stderr.isatty():
                print(f"\r{k + 1}/{len(files)} {truth['image']}", end="", file=sys.stderr, flush=True)
            elif not args.quiet and (k + 1) % max(1, len(files) // 10) == 0:
                print(f"{k + 1}/{len(files)} images", file=sys.stderr, flush=True)
    finally:
        if out:
            out.close()
    if not args.quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    summary = summarize(rows)
    if args.json:
        print(json.dumps(summary))
    else:
        print(summary_text(summary, args.folder))
    return 0


def summary_text(s: dict, folder: str) -> str:
    def f(v, unit="%"):
        return "n/a" if v is None else f"{v:.2f}{unit}" if isinstance(v, float) else f"{v}{unit}"

    lines = [
        f"{folder}: {s['images']} images ({s['positives']} with a board, {s['negatives']} without)",
        f"  board found            {f(s['board_found_pct'])}",
        f"  false boards           {s['false_positives']} of {s['negatives']} images without a board",
        f"  cell-centre error      mean {f(s['cell_error_mean_px'], ' px')}, max {f(s['cell_error_max_px'], ' px')}",
        f"  occupancy              {f(s['occupancy_pct'])}",
        f"  tall / dark            {f(s['tall_pct'])} / {f(s['dark_pct'])}",
        f"  square / hollow        {f(s['square_pct'])} / {f(s['hollow_pct'])}",
        f"  cells fully right      {f(s['cells_right_pct'])}",
        f"  boards fully right     {f(s['boards_right_pct'])}",
        f"  median time            {f(s['median_seconds'], ' s')}",
    ]
    return "\n".join(lines)
