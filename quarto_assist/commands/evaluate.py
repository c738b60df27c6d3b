"""``quarto-assist evaluate DIR [DIR...] [--profile FILE] [--csv OUT] [--json] [--by]``

Runs ``analyze`` on every image of rendered dataset folders (``NNNN.jpg`` + ``NNNN.json``
truth, in each folder and its direct subfolders) and prints a per-stage summary; ``--by``
adds the main figures per piece material, piece set, board style and camera tilt;
``--csv`` writes one row per image.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time


def add_arguments(parser) -> None:
    parser.add_argument("folders", nargs="+", metavar="DIR",
                        help="dataset folders with NNNN.jpg/.png and NNNN.json truth files (their direct subfolders too)")
    parser.add_argument("--profile", metavar="FILE", help="profile from 'quarto-assist calibrate' (default: built-in)")
    parser.add_argument("--csv", metavar="OUT", help="write one CSV row per image")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N images")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--by", action="store_true",
                        help="also break the figures down by piece material, piece set, board style and camera tilt")


def run(args) -> int:
    from quarto_assist.commands.analyze import Analyzer
    from vision.evaluation import COLUMNS, TruthError, breakdown, load_truth, score_reading, summarize, truth_files_under
    from vision.image import load_image
    from vision.view_check import check_view

    files = []
    for folder in args.folders:
        if not os.path.isdir(folder):
            raise TruthError(f"not a folder: {folder!r}")
        found = truth_files_under(folder)
        if not found:
            raise ValueError(f"no truth files (NNNN.json with an \"image\" key) in {folder!r} or its subfolders")
        files += [f for f in found if f not in files]
    if args.limit:
        files = files[: args.limit]
    root = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])
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
            if reading.found:
                advice = check_view(reading.homography, image.shape, analyzer.profile.vision.camera, image)
                row["view"] = ",".join(a.code for a in advice) or "ok"
            # images of several folders: name each by its path below the folders' common root
            row["image"] = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(path)), truth["image"]), root)
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
    label = " + ".join(args.folders)
    if args.json:
        if args.by:
            summary = dict(summary, by=breakdown(rows))
        print(json.dumps(summary))
    else:
        print(summary_text(summary, label))
        if args.by:
            print(breakdown_text(breakdown(rows)))
    return 0


def breakdown_text(groups: dict[str, dict[str, dict]]) -> str:
    """The main figures per group (``vision.evaluation.breakdown``), one table."""
    def f(v):
        return "   n/a" if v is None else f"{v:6.2f}"

    lines = [f"  {'by':12} {'group':22} {'images':>6} {'board found':>11} {'cells right':>11} {'boards right':>12}"]
    for key, title in (("material", "material"), ("piece_set", "piece set"), ("board_style", "board"),
                       ("tilt", "camera tilt"), ("view", "setup advice")):
        for name, s in groups.get(key, {}).items():
            lines.append(f"  {title:12} {name:22} {s['images']:6d} {f(s['board_found_pct']):>11} "
                         f"{f(s['cells_right_pct']):>11} {f(s['boards_right_pct']):>12}")
    return "\n".join(lines)


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
