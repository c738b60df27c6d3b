"""Recognition after calibration, on rendered sets: calibrate on a few photos, score the rest.

    python bench/calibration_holdout.py DATASET [DATASET...] [--photos 2] [--keep DIR] [--limit N]

For every (piece set, board) group in the dataset folders (rendered images with truth,
see docs/calibration.md), the first ``--photos`` images (in name order) that show all 16
pieces on the board with nothing in the way are the calibration photos; every other image
of the group (with a board in view) is scored, with the same measure as
``quarto-assist evaluate`` (vision.evaluation), once with the built-in default profile
and once with the calibrated one. Calibration photos are never scored.

With ``--keep DIR`` the profiles and one folder per group (links to its scored images
and truth) are kept, so any figure can be re-checked with::

    quarto-assist evaluate DIR/<group> --profile DIR/<group>.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def load_group_truths(folders: list[str]) -> dict[tuple[str, str, str], list[tuple[str, dict]]]:
    """(piece set id, board id, folder) -> [(truth path, truth dict)], photos named ``c*``
    (the calibration photos of bench/render_calibration_set.py) first, then name order."""
    from vision.evaluation import load_truth, truth_files

    groups: dict[tuple[str, str, str], list] = defaultdict(list)
    for folder in folders:
        if not os.path.isdir(folder):
            continue
        paths = truth_files(folder)
        paths.sort(key=lambda p: (not os.path.basename(p).startswith("c"), os.path.basename(p)))
        for path in paths:
            t = load_truth(path)
            key = ((t.get("piece_set") or {}).get("id", "?"), (t.get("board") or {}).get("id", "?"),
                   os.path.basename(os.path.normpath(folder)))
            groups[key].append((path, t))
    return groups


def is_calibration_photo(t: dict) -> bool:
    cells = t.get("cells") or []
    return (bool(t.get("board_found_expected")) and len(cells) == 16 and all(c is not None for c in cells)
            and not any(t.get("hidden") or []) and not t.get("hand"))


def score(profile, items, limit=None):
    from calibration.camera import analyze_with_profile
    from vision import Recognizer
    from vision.evaluation import score_reading, summarize
    from vision.image import load_image

    rec = Recognizer(profile.vision)
    rows = []
    for path, t in items[:limit]:
        image = load_image(os.path.join(os.path.dirname(path), t["image"]), profile.vision.image)
        t0 = time.perf_counter()
        reading = analyze_with_profile(rec, profile, image)
        rows.append(score_reading(reading, t, time.perf_counter() - t0))
    return summarize(rows), rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="+", help="rendered dataset folders (NNNN.jpg + NNNN.json)")
    ap.add_argument("--photos", type=int, default=2, help="calibration photos per group (default 2)")
    ap.add_argument("--keep", metavar="DIR", help="keep profiles and per-group evaluation folders here")
    ap.add_argument("--limit", type=int, help="score at most N images per group")
    ap.add_argument("--json", metavar="OUT", help="write all figures as JSON")
    args = ap.parse_args()

    from calibration.learn import CalibrationRefused, examine_photo, learn_profile
    from calibration.profile import default_profile, save_profile
    from vision import Recognizer
    from vision.image import load_image

    keep = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="calib-holdout-"))
    keep.mkdir(parents=True, exist_ok=True)
    base = default_profile()
    base_rec = Recognizer(base.vision)
    groups = load_group_truths(args.datasets)
    results = {}
    totals = {"default": [], "calibrated": []}
    refused: list[str] = []
    print(f"{'set / board':34} {'calibration':14} {'n':>4}  {'cells default':>13} {'cells calib':>11}  "
          f"{'boards default':>14} {'boards calib':>12}  seconds")
    for (set_id, board_id, folder_name), items in sorted(groups.items()):
        name = folder_name if folder_name.startswith(f"{set_id}__{board_id}") else f"{set_id}__{board_id}__{folder_name}"
        calib = [(p, t) for p, t in items if is_calibration_photo(t)][: args.photos]
        calib_paths = {p for p, _ in calib}
        scored = [(p, t) for p, t in items if p not in calib_paths and t.get("board_found_expected")]
        if len(calib) < args.photos or not scored:
            print(f"{set_id + ' / ' + board_id:34} {'too few photos':14} {len(scored):4}")
            continue
        t0 = time.perf_counter()
        checks = []
        for p, t in calib:
            img = load_image(os.path.join(os.path.dirname(p), t["image"]), base.vision.image)
            checks.append(examine_photo(os.path.join(os.path.dirname(p), t["image"]), img, base_rec, base.vision, base))
        try:
            cal = learn_profile(checks, base, name=f"{set_id} on {board_id}")
            status = "ok" + (f" ({len(cal.warnings)} warn)" if cal.warnings else "")
            profile = cal.profile
        except CalibrationRefused as e:
            status, profile = "REFUSED", None
            print(f"  {name}: calibration refused: {e}", file=sys.stderr)
        seconds = time.perf_counter() - t0
        d_sum, d_rows = score(base, scored, args.limit)
        totals["default"] += d_rows
        entry = {"calibration": status, "calibration_photos": [t["image"] for _, t in calib],
                 "calibration_seconds": round(seconds, 2), "default": d_sum}
        c_sum = None
        if profile is not None:
            save_profile(profile, keep / f"{name}.json")
            c_sum, c_rows = score(profile, scored, args.limit)
            totals["calibrated"] += c_rows
            entry["calibrated"] = c_sum
            entry["warnings"] = cal.warnings
        else:
            totals["calibrated"] += d_rows  # a refused calibration leaves the user on the default
            refused.append(name)
        folder = keep / name
        folder.mkdir(exist_ok=True)
        for p, t in scored[: args.limit]:
            for src in (p, os.path.join(os.path.dirname(p), t["image"])):
                dst = folder / os.path.basename(src)
                if not dst.exists():
                    os.symlink(os.path.abspath(src), dst)
        results[name] = entry

        def f(s, k):
            return "   n/a" if s is None or s.get(k) is None else f"{s[k]:6.2f}"
        print(f"{set_id + ' / ' + board_id:34} {status:14} {d_sum['positives']:4}  {f(d_sum, 'cells_right_pct'):>13} "
              f"{f(c_sum, 'cells_right_pct'):>11}  {f(d_sum, 'boards_right_pct'):>14} {f(c_sum, 'boards_right_pct'):>12}"
              f"  {seconds:5.1f}", flush=True)

    from vision.evaluation import summarize
    overall = {k: summarize(v) if v else None for k, v in totals.items()}
    for k, s in overall.items():
        if s:
            print(f"ALL {k:10}: {s['positives']} images, board found {s['board_found_pct']}%, "
                  f"cells fully right {s['cells_right_pct']}%, boards fully right {s['boards_right_pct']}%, "
                  f"tall/dark/square/hollow {s['tall_pct']}/{s['dark_pct']}/{s['square_pct']}/{s['hollow_pct']}%")
    if refused:
        print(f"calibration refused for {len(refused)} group(s), scored with the default there: {', '.join(refused)}")
    print(f"profiles and evaluation folders in {keep}")
    if args.json:
        Path(args.json).write_text(json.dumps({"groups": results, "overall": overall}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
