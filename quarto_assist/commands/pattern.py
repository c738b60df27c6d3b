"""``quarto-assist pattern --out FILE.png``: a printable checkerboard for lens calibration."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from calibration.pattern import (DEFAULT_COLS, DEFAULT_DPI, DEFAULT_ROWS, DEFAULT_SQUARE_MM, PatternError,
                                 png_with_dpi, printable_pattern)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="FILE.png", help="where to write the pattern (PNG)")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"squares down (default {DEFAULT_ROWS})")
    parser.add_argument("--cols", type=int, default=DEFAULT_COLS, help=f"squares across (default {DEFAULT_COLS})")
    parser.add_argument("--square-mm", type=float, default=DEFAULT_SQUARE_MM,
                        help=f"side of one printed square in millimetres (default {DEFAULT_SQUARE_MM:g})")
    parser.add_argument("--dpi", type=int, default=DEFAULT_DPI, help=f"print resolution (default {DEFAULT_DPI})")


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise PatternError(f"pattern file must end in .png: '{args.out}'")
    if not out.parent.is_dir() and str(out.parent):
        raise PatternError(f"cannot write '{args.out}': folder '{out.parent}' does not exist")
    page = printable_pattern(args.rows, args.cols, args.square_mm, args.dpi)
    data = png_with_dpi(page, args.dpi)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    h, w = page.shape
    print(f"wrote {out}: {args.rows}x{args.cols} squares of {args.square_mm:g} mm "
          f"({args.cols - 1}x{args.rows - 1} inner corners), page {w / args.dpi * 25.4:.0f} x "
          f"{h / args.dpi * 25.4:.0f} mm at {args.dpi} dpi")
    print("print at 100% (no 'fit to page'), check the 50 mm bar with a ruler, glue the sheet flat on card;")
    print(f"then photograph it 10-20 times from different angles and run: quarto-assist calibrate-camera "
          f"PHOTO... --rows {args.rows} --cols {args.cols} --square-mm {args.square_mm:g} --out profile.json")
    return 0
