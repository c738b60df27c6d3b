"""Board finding alone, scored against rendered truth.

    python bench/board_eval.py DIR [DIR ...] [--limit N] [--overlays OUTDIR] [--quiet]
                               [--net FILE.onnx | --no-net] [--no-fallback] [--files LIST]

DIR is a dataset folder (``NNNN.jpg`` + ``NNNN.json``) or a folder of such folders.
Runs ``Recognizer.find_board`` (no piece reading) on each image and prints one line per
image: verdict, board style, camera tilt, mean / max centre error in pixels, the
reason when not found, milliseconds; then totals per verdict, per board style, the centre
error per folder (over the boards found correct: the mean of each board's mean error, and
the median, in pixels and in cell pitches), and the median milliseconds.

Verdicts (images with a board): ``correct`` = all 16 centres within 0.25 cell pitch of
the truth (each true centre matched to the nearest predicted one, one to one), ``wrong``
= found but some centre farther, ``missed`` = not found. Images without a board:
``reject`` (right) or ``false`` (a false board). With ``--overlays``, a PNG per image
not ``correct``/``reject``: truth centres in blue, found centres in green, outline yellow.

A wrong board is given a kind (:func:`wrong_kind`: the found centres seen in the true
board's cell coordinates): ``elsewhere`` (not on the board: another object), ``size``
(a grid of the wrong pitch), ``45-degree``, ``shifted`` (by whole rows / columns: onto
the table or a printed border), ``bent`` (one part of the grid off: a corner, the
perspective) or ``loose`` (the whole grid off by a fraction of a pitch); the counts per
kind and per finding method are printed. ``--stages`` also finds each wrong board again
with the zoomed pass and the polish switched off, then with the zoomed pass alone, and
says which stage first made it wrong (``net``: the network's own hypothesis, ``zoom``,
``polish``; ``fallback`` for the hand-made searches').
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
import time

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision import Recognizer  # noqa: E402
from vision.evaluation import listed_truth_files, truth_files_under  # noqa: E402

TOLERANCE_PITCH = 0.25


def truth_pitch(centres: np.ndarray) -> float:
    """Median distance from each true centre to its nearest neighbour (pixels)."""
    d = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1))
    d[d == 0] = np.inf
    return float(np.median(d.min(1)))


def judge(truth: dict, reading) -> tuple[str, float, float, float]:
    expected = bool(truth.get("board_found_expected", bool(truth.get("cell_centers"))))
    if not expected:
        return ("false" if reading.found else "reject"), float("nan"), float("nan"), float("nan")
    if not reading.found:
        return "missed", float("nan"), float("nan"), float("nan")
    t = np.asarray(truth["cell_centers"], float)
    p = np.asarray(reading.cell_centers, float)
    cost = np.hypot(*(t[:, None] - p[None]).transpose(2, 0, 1))
    r, c = linear_sum_assignment(cost)
    err = cost[r, c]
    pitch = truth_pitch(t)
    ok = err.max() <= TOLERANCE_PITCH * pitch
    return ("correct" if ok else "wrong"), float(err.mean()), float(err.max()), pitch


def wrong_kind(truth_centres: np.ndarray, found_centres: np.ndarray) -> tuple[str, str]:
    """The kind of a wrong board and a short description of it.

    ``truth_centres``, ``found_centres``: ``(16, 2)`` pixel centres (found ones in the
    finder's row-major numbering). The found centres are taken into the true board's cell
    coordinates (column, row; true cells at 0..3) through the homography fitted to the
    true centres, and an affine map from the found grid's own (column, row) fitted to
    them: its scale, turn, offset and the residual name the kind (see the module text).
    """
    grid = np.stack([np.arange(16) % 4, np.arange(16) // 4], 1).astype(float)
    H, _ = cv2.findHomography(grid, truth_centres, 0)
    q = cv2.perspectiveTransform(found_centres.reshape(-1, 1, 2).astype(float), np.linalg.inv(H)).reshape(-1, 2)
    X = np.hstack([grid, np.ones((16, 1))])
    M, *_ = np.linalg.lstsq(X, q, rcond=None)
    A, b = M[:2].T, M[2]
    resid = float(np.hypot(*(X @ M - q).T).max())
    scale = float(np.sqrt(abs(np.linalg.det(A))))
    turn = float(np.degrees(np.arctan2(A[1, 0], A[0, 0]))) % 90.0
    offset = A @ [1.5, 1.5] + b - 1.5  # the grid's middle, in cells from the true middle
    err = float(np.hypot(*(q - np.round(q)).T).max())  # off the nearest true lattice point
    desc = (f"scale {scale:.2f} turn {turn:.0f} offset {offset[0]:+.2f},{offset[1]:+.2f} cells "
            f"bend {resid:.2f}")
    if np.abs(offset).max() > 3.0:
        return "elsewhere", desc
    if abs(scale - 1) > 0.15:
        return "size", desc
    if 25 < turn < 65:
        return "45-degree", desc
    if resid > 0.2:
        return "bent", desc
    if np.abs(np.round(offset)).max() >= 1 and err < 0.25:
        return "shifted", desc
    return "loose", desc


def overlay(path: str, img: np.ndarray, truth: dict, reading) -> None:
    out = img.copy()
    for x, y in truth.get("cell_centers") or []:
        cv2.circle(out, (int(round(x)), int(round(y))), 7, (255, 80, 0), 2)
    if reading.found:
        q = np.asarray(reading.corners, np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [q], True, (0, 255, 255), 2)
        for i, (x, y) in enumerate(reading.cell_centers):
            cv2.circle(out, (int(round(x)), int(round(y))), 4, (0, 255, 0), -1)
            cv2.putText(out, str(i), (int(x) + 5, int(y) - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 0), 1)
    cv2.putText(out, f"{reading.reason} {reading.details}"[:150], (10, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1)
    cv2.imwrite(path, out)


def main(argv=None) -> int:
    from vision.settings import VisionSettings, apply_override, override_argument

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--limit", type=int, default=0, help="at most N images (evenly spread)")
    ap.add_argument("--overlays", help="folder for PNG overlays of the failures")
    ap.add_argument("--quiet", action="store_true", help="totals only")
    ap.add_argument("--net", help="board network ONNX file (default: the shipped one)")
    ap.add_argument("--no-net", action="store_true", help="hand-made searches only (as before session 3)")
    ap.add_argument("--set", action="append", type=override_argument, metavar="SECTION.NAME=VALUE",
                    help="change a vision setting, e.g. board_net.min_score=0.3 (repeatable)")
    ap.add_argument("--no-fallback", action="store_true",
                    help="the network alone: no hand-made search when it finds no board")
    ap.add_argument("--stages", action="store_true",
                    help="say which stage made each wrong board wrong (finds it again without the zoom / polish)")
    ap.add_argument("--files", help="only the truth files listed in this text file (one a line; folders still "
                                    "group the centre errors): the same images in runs while a folder grows")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    from quarto_assist.cli import one_blas_thread
    one_blas_thread()  # as the app does: BLAS threads only slow small products
    files = [p for folder in args.folders for p in truth_files_under(folder)]
    if args.files:
        files = listed_truth_files(args.folders, args.files)
    if args.limit and len(files) > args.limit:
        files = [files[i] for i in np.linspace(0, len(files) - 1, args.limit).round().astype(int)]
    if not files:
        print(f"no truth files in {args.folders}")
        return 2
    if args.overlays:
        os.makedirs(args.overlays, exist_ok=True)
    st = VisionSettings()
    if args.net:
        st.board_net.model_path = args.net
    if args.no_net:
        st.board_net.enabled = False
    if args.no_fallback:
        st.board_net.fallback = False
    for kv in args.set or []:  # checked when the options were read
        apply_override(st, kv)
    rec = Recognizer(st)
    stage_recs = None
    if args.stages:
        raw = VisionSettings.from_dict(st.to_dict())
        raw.board_net.zoom, raw.board_net.polish_max_shift = False, 0.0
        zoomed = VisionSettings.from_dict(st.to_dict())
        zoomed.board_net.polish_max_shift = 0.0
        stage_recs = [("net", Recognizer(raw)), ("zoom", Recognizer(zoomed))]
    kinds: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_method: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    counts = collections.Counter()
    by_style: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    ms = []
    errors: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)  # folder -> (px, pitch)
    roots = sorted(args.folders, key=len, reverse=True)
    for jp in files:
        with open(jp, encoding="utf-8") as f:
            truth = json.load(f)
        if "image" not in truth or "video" in truth:
            continue  # a game video's truth, not a still
        img = cv2.imread(os.path.join(os.path.dirname(jp), truth["image"]))
        if img is None:
            print(f"{jp}: image unreadable")
            continue
        t0 = time.perf_counter()
        reading = rec.find_board(img)
        ms.append(1000 * (time.perf_counter() - t0))
        verdict, mean_err, max_err, pitch = judge(truth, reading)
        if verdict == "correct":
            root = next((r for r in roots if os.path.abspath(jp).startswith(os.path.abspath(r))), "?")
            errors[root].append((mean_err, mean_err / pitch))
        style = (truth.get("board") or {}).get("style", "?")
        tilt = (truth.get("camera") or {}).get("tilt_deg", float("nan"))
        counts[verdict] += 1
        by_style[style][verdict] += 1
        method = (reading.details or {}).get("method", "")
        by_method[method or "-"][verdict] += 1
        note = reading.reason if not reading.found else ""
        if verdict == "wrong":
            kind, desc = wrong_kind(np.asarray(truth["cell_centers"], float), np.asarray(reading.cell_centers, float))
            stage = ""
            if stage_recs is not None:
                stage = "fallback" if method != "net" else "polish"
                for name, r in stage_recs if method == "net" else []:
                    if judge(truth, r.find_board(img))[0] == "wrong":
                        stage = name
                        break
                stage = f" made wrong by {stage}"
            d = reading.details or {}
            by = f"{d.get('net', 'first')} network, zoom {d.get('zoom', '-')}" if method == "net" else method
            kinds[kind][method or "-"] += 1
            note = f"{kind}: {desc}{stage} ({by})"
        if not args.quiet:
            print(f"{verdict:8s} {style:14s} tilt {tilt:5.1f} err {mean_err:6.1f}/{max_err:6.1f} px "
                  f"{method:8s} {ms[-1]:6.0f} ms  {jp}  {note}")
        if args.overlays and verdict not in ("correct", "reject"):
            name = jp.replace("/", "_").replace(".json", ".png").lstrip("_.")
            overlay(os.path.join(args.overlays, name), img, truth, reading)
    boards = counts["correct"] + counts["wrong"] + counts["missed"]
    print(f"images {len(ms)}: with a board {boards}: found {counts['correct'] + counts['wrong']} "
          f"correct {counts['correct']} wrong {counts['wrong']} missed {counts['missed']}; "
          f"without a board {counts['reject'] + counts['false']}: false boards {counts['false']}")
    if boards:
        print(f"found {100 * (counts['correct'] + counts['wrong']) / boards:.1f} %  "
              f"correct {100 * counts['correct'] / boards:.1f} %")
    for style in sorted(by_style):
        c = by_style[style]
        print(f"  {style:14s} correct {c['correct']:3d} wrong {c['wrong']:3d} missed {c['missed']:3d} "
              f"false {c['false']:2d} reject {c['reject']:2d}")
    for method in sorted(by_method):
        c = by_method[method]
        print(f"  by {method:11s} correct {c['correct']:3d} wrong {c['wrong']:3d} missed {c['missed']:3d} "
              f"false {c['false']:2d} reject {c['reject']:2d}")
    for kind in sorted(kinds, key=lambda k: -sum(kinds[k].values())):
        print(f"  wrong, {kind:10s} {sum(kinds[kind].values()):3d} ("
              + ", ".join(f"{m} {n}" for m, n in kinds[kind].most_common()) + ")")
    every = [e for v in errors.values() for e in v]
    for root in [r for r in args.folders if errors.get(r)] + (["all"] if len(errors) > 1 else []):
        e = np.array(errors[root] if root != "all" else every)
        print(f"  centre error {root}: {len(e)} correct boards, mean {e[:, 0].mean():.2f} px / "
              f"{e[:, 1].mean():.3f} pitch, median {np.median(e[:, 0]):.2f} px / {np.median(e[:, 1]):.3f} pitch")
    print(f"median {statistics.median(ms):.0f} ms per image (find_board, one OpenCV thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
