"""How the whole pipeline holds up when the picture changes in ways real use brings.

    python bench/robustness.py DIR [DIR...] [--variants portrait,mirror,...] [--limit N]
                               [--set SECTION.NAME=VALUE ...]

Each image with truth (``NNNN.json``) is analysed as rendered and after each variant; the
truth's cell centres are moved with the picture, and the usual measures are printed
(``vision.evaluation``: board found, cells fully right, centre error, per attribute).
Variants:

- ``portrait``: a 3:4 phone-style picture, cut around the board from the rendered one
  (a board the cut crosses is then expected to say "cut off": its cells count as wrong,
  so compare with ``cut_off`` in the output);
- ``mirror``: left and right swapped (an equally real scene);
- ``rot180``: the camera mounted upside down; ``rot90``: turned on its side;
  ``rot45``: turned 45 degrees about the picture's centre, same size (as a camera at the
  table's corner sees the board, the corners left black; a board the turn cuts counts
  as cut off);
- ``grey``: a black-and-white camera; ``jpeg20``: heavy compression;
- ``half``: half the resolution (a 640x360 webcam); ``dark``: a third of the light;
- ``warm``: a warm lamp's colour cast.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _portrait(im, truth):
    h, w = im.shape[:2]
    pw = min(w, int(h * 0.75))
    cx = np.mean(np.asarray(truth["cell_centers"], float)[:, 0]) if truth["cell_centers"] else w / 2
    x0 = int(np.clip(cx - pw / 2, 0, w - pw))
    return im[:, x0:x0 + pw].copy(), np.array([[1.0, 0, -x0], [0, 1.0, 0]])


def _rot45(im, truth):
    import cv2

    h, w = im.shape[:2]
    M = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 45, 1.0)
    return cv2.warpAffine(im, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT), M


def variants():
    import cv2

    def same(f):
        return lambda im, t: (f(im), np.array([[1.0, 0, 0], [0, 1.0, 0]]))

    return {
        "original": same(lambda im: im),
        "portrait": _portrait,
        "mirror": lambda im, t: (cv2.flip(im, 1), np.array([[-1.0, 0, im.shape[1] - 1], [0, 1.0, 0]])),
        "rot180": lambda im, t: (cv2.rotate(im, cv2.ROTATE_180),
                                 np.array([[-1.0, 0, im.shape[1] - 1], [0, -1.0, im.shape[0] - 1]])),
        "rot90": lambda im, t: (cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE),
                                np.array([[0, -1.0, im.shape[0] - 1], [1.0, 0, 0]])),
        "rot45": _rot45,
        "grey": same(lambda im: cv2.cvtColor(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)),
        "jpeg20": same(lambda im: cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, 20])[1], 1)),
        "half": lambda im, t: (cv2.resize(im, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA),
                               np.array([[0.5, 0, -0.25], [0, 0.5, -0.25]])),
        "dark": same(lambda im: (im.astype(np.float32) * 0.35).astype(np.uint8)),
        "warm": same(lambda im: np.clip(im.astype(np.float32) * [0.6, 0.85, 1.15], 0, 255).astype(np.uint8)),
    }


def moved(truth: dict, M: np.ndarray, shape) -> dict:
    """The truth with its points moved by the 2x3 map ``M``; a board the new picture
    cuts is no longer expected to be found (as for renders cut off at the edge)."""
    out = dict(truth)
    for key in ("cell_centers", "board_corners"):
        pts = np.asarray(truth.get(key) or [], float).reshape(-1, 2)
        out[key] = (np.c_[pts, np.ones(len(pts))] @ M.T).tolist() if len(pts) else []
    corners = np.asarray(out["board_corners"], float).reshape(-1, 2)
    h, w = shape[:2]
    if truth.get("board_found_expected") and len(corners) and not (
            (corners >= 0).all() and (corners[:, 0] < w).all() and (corners[:, 1] < h).all()):
        out["board_found_expected"] = False
        out["cut_off_by_variant"] = True
    return out


def main(argv=None) -> int:
    import cv2

    from vision import Recognizer
    from vision.evaluation import load_truth, score_reading, summarize, truth_files_under
    from vision.settings import VisionSettings, apply_override, override_argument

    table = variants()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", metavar="DIR")
    ap.add_argument("--variants", default=",".join(table), help=f"comma-separated, of: {', '.join(table)}")
    ap.add_argument("--limit", type=int, help="at most N images per folder")
    ap.add_argument("--set", action="append", type=override_argument, metavar="SECTION.NAME=VALUE",
                    help='change a vision setting, e.g. board_net.model_path="other.onnx" (repeatable)')
    args = ap.parse_args(argv)
    settings = VisionSettings()
    for kv in args.set or []:  # checked when the options were read
        apply_override(settings, kv)
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in names if v not in table]
    if unknown:
        ap.error(f"unknown variant {unknown[0]!r}; choose from {', '.join(table)}")
    cv2.setNumThreads(1)
    files = []
    for folder in args.folders:
        files += truth_files_under(folder)[: args.limit]
    truths = [(f, load_truth(f)) for f in files]
    rec = Recognizer(settings)
    print(f"{len(truths)} images from {', '.join(args.folders)}")
    print(f"{'variant':10} {'board found':>11} {'cut off':>7} {'false':>5} {'cells right':>11} {'centre err':>10} "
          f"{'tall':>6} {'dark':>6} {'square':>6} {'hollow':>6}  seconds")
    for name in names:
        rows, cut, t0 = [], 0, time.perf_counter()
        for path, truth in truths:
            image = cv2.imread(os.path.join(os.path.dirname(path), truth["image"]))
            if image is None:
                continue
            picture, M = table[name](image, truth)
            t = moved(truth, M, picture.shape)
            cut += bool(t.get("cut_off_by_variant"))
            rows.append(score_reading(rec.analyze(picture), t, 0.0))
        s = summarize(rows)

        def f(v):
            return "   n/a" if v is None else f"{v:6.2f}"
        print(f"{name:10} {f(s['board_found_pct']):>11} {cut:7d} {s['false_positives']:5d} {f(s['cells_right_pct']):>11} "
              f"{f(s['cell_error_mean_px']):>10} {f(s['tall_pct'])} {f(s['dark_pct'])} {f(s['square_pct'])} "
              f"{f(s['hollow_pct'])}  {time.perf_counter() - t0:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
