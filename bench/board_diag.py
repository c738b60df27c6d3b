"""Where a board the finder misses is lost: the board network's maps, the fit, or acceptance.

    python bench/board_diag.py DIR [DIR ...] [--min-tilt DEG] [--min-pieces N] [--all]
                               [--net FILE.onnx] [--turned FILE.onnx] [--set SECTION.NAME=VALUE]

For every image with a board (optionally only those seen at ``--min-tilt`` degrees or
more with ``--min-pieces`` pieces or more), runs ``Recognizer.find_board`` and, for the
boards it misses (``--all``: every board), looks at each board network's whole-frame
maps against the truth:

- ``truth``: how well the true board explains the maps (``explain_score`` of the true
  homography: score / mean cell map / mean corner map / region map at the 16 centres)
  and how many of the 16 true centres and 4 corners have a peak within 0.35 pitch;
- ``hyp``: the hypotheses made from the peaks: how many, whether one of them lies on
  the true board (every centre within 0.25 pitch), its rank and scores;

and gives each miss one kind, the first that applies:

- ``maps``: the true board does not explain the maps well enough to pass
  (score < ``min_score`` or cell map < ``min_cells`` or region < ``min_region``): the
  network itself does not see it;
- ``no-hypothesis``: the maps would pass at the true board, but no hypothesis lands on it
  (the peaks do not form a grid the starts reach);
- ``ranked-out``: a hypothesis on the true board exists but is not among the 3 the
  acceptance looks at;
- ``refused``: the hypothesis on the board is looked at but fails a threshold (named);
- ``later``: the network accepts a board but the finder still says no board (the
  size or cut-off checks after it).

Prints one line per image and the counts per kind. A diagnosis, not a score: the
held-out folders may be looked at with it to see the kind of failure, never tuned on.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision import Recognizer  # noqa: E402
from vision.board_net import (UNIT_CORNERS, board_hypotheses, explain_score, output_to_frame,  # noqa: E402
                              peaks)
from vision.evaluation import truth_files_under  # noqa: E402
from vision.geometry import apply_homography, cell_grid, square_view_error  # noqa: E402

ON_BOARD_PITCH = 0.25  # a hypothesis is on the true board when every centre is this close


def truth_homography(truth: dict) -> np.ndarray:
    """Unit square -> frame pixels, fitted to the true cell centres."""
    H, _ = cv2.findHomography(cell_grid(), np.asarray(truth["cell_centers"], float), 0)
    return H / H[2, 2]


def diagnose(rec: Recognizer, net, bgr: np.ndarray, H_true: np.ndarray) -> dict:
    """The network ``net``'s whole-frame maps of ``bgr`` against the true board ``H_true``."""
    st = rec.settings.board_net
    maps, A = net.heatmaps(bgr)
    to_frame = output_to_frame(A)
    H_t = np.linalg.inv(to_frame) @ H_true
    H_t /= H_t[2, 2]
    score, c, k, r = explain_score(H_t, maps, region=True)
    pts = apply_homography(H_t, np.vstack([cell_grid(), UNIT_CORNERS]))
    pitch = float(np.median(np.hypot(*np.diff(pts[:4], axis=0).T)))
    cp = peaks(maps[0], st.peak_threshold, st.max_cell_peaks)
    kp = peaks(maps[1], st.peak_threshold, st.max_corner_peaks)

    def near(p, pk):
        if len(pk) == 0:
            return 0
        d = np.hypot(p[:, None, 0] - pk[None, :, 0], p[:, None, 1] - pk[None, :, 1])
        return int((d.min(1) <= 0.35 * pitch).sum())

    out = {"t_score": score, "t_cells": c, "t_corners": k, "t_region": r,
           "cell_hits": near(pts[:16], cp), "corner_hits": near(pts[16:], kp), "cell_peaks": len(cp)}
    hyps = board_hypotheses(maps, st)
    out["hyps"] = len(hyps)
    out["hyp_rank"] = -1
    frame_true = apply_homography(H_true, cell_grid())
    pitch_f = float(np.median(np.hypot(*np.diff(frame_true[:4], axis=0).T)))
    for i, (s, H, info) in enumerate(hyps):
        Hf = to_frame @ H
        p = apply_homography(Hf, cell_grid())
        d = np.hypot(*(p[:, None] - frame_true[None]).transpose(2, 0, 1)).min(1)
        if d.max() <= ON_BOARD_PITCH * pitch_f:
            out.update(hyp_rank=i, h_score=s, h_cells=info["net_cells"], h_region=info["net_region"],
                       h_square=square_view_error(Hf, (bgr.shape[1], bgr.shape[0])))
            break
    ok = score >= st.min_score and c >= st.min_cells and r >= st.min_region
    if not ok:
        out["kind"] = "maps"
    elif out["hyp_rank"] < 0:
        out["kind"] = "no-hypothesis"
    elif out["hyp_rank"] >= 3:
        out["kind"] = "ranked-out"
    else:
        fails = []
        if out["h_score"] < st.min_score:
            fails.append("score")
        if out["h_cells"] < st.min_cells:
            fails.append("cells")
        if out["h_region"] < st.min_region:
            fails.append("region")
        if out["h_square"] > rec.settings.outline.max_square_error:
            fails.append("square")
        out["kind"] = ("refused:" + "+".join(fails)) if fails else "later"
    return out


def main(argv=None) -> int:
    from vision.settings import VisionSettings, apply_override, override_argument

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--min-tilt", type=float, default=0.0, help="only views at this camera tilt or more")
    ap.add_argument("--min-pieces", type=int, default=0, help="only boards with this many pieces or more")
    ap.add_argument("--all", action="store_true", help="diagnose every board, not only the missed ones")
    ap.add_argument("--net", help="first board network ONNX file (default: the shipped one)")
    ap.add_argument("--turned", help="turned board network ONNX file (default: the shipped one)")
    ap.add_argument("--low", help="low-camera board network ONNX file (default: the shipped one)")
    ap.add_argument("--set", action="append", type=override_argument, metavar="SECTION.NAME=VALUE", help="change a vision setting")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    st = VisionSettings()
    if args.net:
        st.board_net.model_path = args.net
    if args.turned:
        st.board_net.turned_model_path = args.turned
    if args.low:
        st.board_net.low_model_path = args.low
    for kv in args.set or []:  # checked when the options were read
        apply_override(st, kv)
    rec = Recognizer(st)
    kinds: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    n = found = 0
    for jp in (p for folder in args.folders for p in truth_files_under(folder)):
        with open(jp, encoding="utf-8") as f:
            truth = json.load(f)
        if "image" not in truth or "video" in truth or len(truth.get("cell_centers") or []) != 16:
            continue
        if not truth.get("board_found_expected", True):
            continue
        tilt = float((truth.get("camera") or {}).get("tilt_deg") or 0.0)
        pieces = sum(c is not None for c in truth.get("cells") or [])
        if tilt < args.min_tilt or pieces < args.min_pieces:
            continue
        img = cv2.imread(os.path.join(os.path.dirname(jp), truth["image"]))
        if img is None:
            continue
        n += 1
        reading = rec.find_board(img)
        found += reading.found
        if reading.found and not args.all:
            continue
        H_true = truth_homography(truth)
        parts = []
        for name in ("first", "turned", "low"):
            if not (name == "first" or getattr(st.board_net, name)):
                continue
            d = diagnose(rec, rec._board_net(name), img, H_true)
            if not reading.found:
                kinds[name][d["kind"]] += 1
            h = (f"hyp #{d['hyp_rank']} {d['h_score']:.2f}/{d['h_cells']:.2f}/{d['h_region']:.2f}"
                 if d["hyp_rank"] >= 0 else f"no hyp of {d['hyps']}")
            parts.append(f"{name}: {d['kind']:14s} truth {d['t_score']:.2f}/{d['t_cells']:.2f}/{d['t_corners']:.2f}/"
                         f"{d['t_region']:.2f} peaks {d['cell_hits']:2d}/16 {d['corner_hits']}/4 ({d['cell_peaks']}) {h}")
        style = (truth.get("board") or {}).get("style", "?")
        print(f"{'found ' if reading.found else 'MISSED'} {style:14s} tilt {tilt:4.1f} pieces {pieces:2d} {jp}\n    "
              + "\n    ".join(parts) + (f"\n    {reading.reason}" if not reading.found else ""), flush=True)
    print(f"{n} boards, {found} found, {n - found} missed")
    for name, c in kinds.items():
        if c:
            print(f"  missed, {name} network: " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
