"""A labelled grid of rendered images (for the README and for eyeballing a dataset).

    .venv/bin/python -m scenegen.contact_sheet data/renders/dev-v0 --out docs/img/contact_sheet.jpg
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

import cv2
import numpy as np


def label(truth: dict) -> str:
    ps = truth["piece_set"]
    board = truth["board"]["id"] + (" tinted" if "colors" in truth["board"] else "")
    pieces = f"{ps['light']}/{ps['dark']} {ps['material']}" if ps.get("procedural") else ps["id"]
    parts = [board, pieces, f"{truth['camera']['tilt_deg']:.0f}deg"]
    if truth.get("hand"):
        parts.append("hand")
    if not truth.get("board_found_expected", True):
        parts.append(truth.get("negative") or "negative")
    return " | ".join(parts)


def contact_sheet(images: list[str], cols: int = 4, thumb_w: int = 400, overlay: bool = False) -> np.ndarray:
    thumbs = []
    for path in images:
        im = cv2.imread(path)
        if im is None:
            raise OSError(f"cannot read image {path!r}")
        js = os.path.splitext(path)[0] + ".json"
        truth = json.load(open(js)) if os.path.exists(js) else None
        if overlay and truth:
            for (x, y), hid in zip(truth["cell_centers"], truth["hidden"]):
                cv2.circle(im, (int(round(x)), int(round(y))), 5, (0, 0, 255) if hid else (0, 255, 0), -1, cv2.LINE_AA)
        s = thumb_w / im.shape[1]
        th = cv2.resize(im, (thumb_w, int(round(im.shape[0] * s))), interpolation=cv2.INTER_AREA)
        if truth:
            cv2.rectangle(th, (0, th.shape[0] - 20), (thumb_w, th.shape[0]), (0, 0, 0), -1)
            cv2.putText(th, label(truth), (5, th.shape[0] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (255, 255, 255), 1, cv2.LINE_AA)
        thumbs.append(th)
    h = max(t.shape[0] for t in thumbs)
    rows = []
    for r in range(0, len(thumbs), cols):
        row = thumbs[r : r + cols]
        row += [np.zeros((h, thumb_w, 3), np.uint8)] * (cols - len(row))
        rows.append(np.hstack([cv2.copyMakeBorder(t, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(255, 255, 255)) for t in row]))
    return np.vstack(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scenegen.contact_sheet", description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="image files or folders of NNNN.jpg + NNNN.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--cols", type=int, default=4)
    ap.add_argument("--overlay", action="store_true", help="draw the truth cell centres (red: hidden)")
    args = ap.parse_args(argv)
    files = []
    for inp in args.inputs:
        files += sorted(glob.glob(os.path.join(inp, "**", "*.jpg"), recursive=True)) if os.path.isdir(inp) else [inp]
    files = files[: args.count]
    if not files:
        print(f"ERROR no images in {args.inputs!r}", file=sys.stderr)
        return 2
    sheet = contact_sheet(files, args.cols, overlay=args.overlay)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    cv2.imwrite(args.out, sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"wrote {args.out} ({len(files)} images)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
