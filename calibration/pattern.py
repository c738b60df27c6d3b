"""The printable checkerboard used for lens calibration.

``rows`` x ``cols`` counts SQUARES; OpenCV looks for the ``(rows - 1) x (cols - 1)`` inner
corners. One of the two counts should be odd and the other even so the pattern has no
180-degree symmetry (the defaults, 7 x 10, are).
"""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np

DEFAULT_ROWS = 7
DEFAULT_COLS = 10
DEFAULT_SQUARE_MM = 24.0  # 7x10 squares fit an A4 or Letter page in landscape
DEFAULT_DPI = 300
MM_PER_INCH = 25.4


class PatternError(ValueError):
    """A checkerboard that cannot be made or looked for."""


def check_pattern_size(rows: int, cols: int) -> None:
    """Raise :class:`PatternError` unless ``rows`` x ``cols`` squares make a usable pattern."""
    if rows < 3 or cols < 3:
        raise PatternError(f"checkerboard of {rows}x{cols} squares is too small: at least 3x3 squares")
    if rows > 40 or cols > 40:
        raise PatternError(f"checkerboard of {rows}x{cols} squares is too large: at most 40x40 squares")


def inner_corners(rows: int, cols: int) -> tuple[int, int]:
    """``(columns, rows)`` of inner corners, the ``patternSize`` OpenCV expects."""
    return cols - 1, rows - 1


def object_points(rows: int, cols: int, square: float = 1.0) -> np.ndarray:
    """(N, 3) float32 inner-corner positions on the pattern plane (z = 0), row by row,
    in the units of ``square``: the order ``cv2.findChessboardCorners`` returns."""
    nx, ny = inner_corners(rows, cols)
    grid = np.zeros((ny * nx, 3), np.float32)
    grid[:, :2] = np.mgrid[0:nx, 0:ny].T.reshape(-1, 2) * square
    return grid


def checkerboard(rows: int, cols: int, square_px: int, margin_px: int | None = None) -> np.ndarray:
    """(H, W) uint8 image: ``rows`` x ``cols`` squares of ``square_px`` pixels, black at
    the top-left, surrounded by a white margin (``square_px`` by default; the detector
    needs a white border around the pattern)."""
    check_pattern_size(rows, cols)
    if square_px < 2:
        raise PatternError(f"checkerboard squares of {square_px} pixels are too small")
    m = square_px if margin_px is None else margin_px
    ii, jj = np.mgrid[0:rows, 0:cols]
    cells = np.where((ii + jj) % 2 == 0, 0, 255).astype(np.uint8)
    board = np.kron(cells, np.ones((square_px, square_px), np.uint8))
    return cv2.copyMakeBorder(board, m, m, m, m, cv2.BORDER_CONSTANT, value=255)


def printable_pattern(rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS, square_mm: float = DEFAULT_SQUARE_MM,
                      dpi: int = DEFAULT_DPI) -> np.ndarray:
    """(H, W) uint8 page: the checkerboard, a 50 mm scale bar and a note on how to print.

    At ``dpi`` pixels per inch a square measures ``square_mm`` millimetres on paper.
    """
    check_pattern_size(rows, cols)
    if not 2.0 <= square_mm <= 200.0:
        raise PatternError(f"square size {square_mm} mm is out of range (2 to 200 mm)")
    if not 72 <= dpi <= 1200:
        raise PatternError(f"print resolution {dpi} dpi is out of range (72 to 1200)")
    px_per_mm = dpi / MM_PER_INCH
    mm = lambda v: int(round(v * px_per_mm))  # noqa: E731 - millimetres on paper -> pixels
    board = checkerboard(rows, cols, mm(square_mm), margin_px=mm(8))
    page = np.full((board.shape[0] + mm(16), board.shape[1]), 255, np.uint8)
    page[:board.shape[0]] = board
    x0, y0 = mm(8), board.shape[0] + mm(1)
    thick = max(1, mm(0.4))
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 2.6 * px_per_mm / 22.0  # letters about 2.6 mm high
    cv2.line(page, (x0, y0 + mm(2)), (x0 + mm(50), y0 + mm(2)), 0, thick)
    for x in (x0, x0 + mm(50)):
        cv2.line(page, (x, y0), (x, y0 + mm(4)), 0, thick)
    cv2.putText(page, f"this bar must measure 50 mm; each square {square_mm:g} mm",
                (x0 + mm(54), y0 + mm(3.5)), font, scale, 0, thick, cv2.LINE_AA)
    cv2.putText(page, f"{rows}x{cols} squares ({cols - 1}x{rows - 1} inner corners). "
                f"Print at 100% ({dpi} dpi), glue it flat on card.",
                (x0, y0 + mm(11)), font, scale, 0, thick, cv2.LINE_AA)
    return page


def png_with_dpi(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of ``image`` carrying its print resolution (a ``pHYs`` chunk), so that
    printing at 100 % gives squares of the intended size."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise PatternError("could not encode the pattern as PNG")
    data = buf.tobytes()
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]
