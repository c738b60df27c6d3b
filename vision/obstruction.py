"""Per-frame check that nothing (a hand, an arm) covers the board.

The board seen top-down (warped through the known homography, a little beyond its
playing area) is compared with the same view from the last clear frame. A hand or arm
reaches in over the board's edge and covers more than a cell; a newly placed piece
changes the inside of one cell. So a changed region that touches the edge of the view and
covers more than ``hand_min_cells`` cells of the playing area is an obstruction, and the
cells it covers are obstructed.
"""

from __future__ import annotations

import cv2
import numpy as np

#: the top-down view extends this far beyond the playing area (board units) so that an
#: arm reaching in is seen crossing the edge
MARGIN = 0.125


def top_down(gray: np.ndarray, H: np.ndarray, size: int) -> np.ndarray:
    """``(size, size)`` uint8 view of the board plane ``[-MARGIN, 1 + MARGIN]^2`` from a
    grey ``(H, W)`` image, ``H`` mapping board units to that image's pixels."""
    span = 1.0 + 2 * MARGIN
    A = np.array([[span / size, 0, -MARGIN], [0, span / size, -MARGIN], [0, 0, 1]])  # view px -> board
    M = H @ A  # view px -> image px
    return cv2.warpPerspective(gray, M, (size, size), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


#: a change of the view's brightness by more than this share is taken for the light's
LIGHT_CHANGE = 0.04


def light_gain(view: np.ndarray, reference: np.ndarray) -> float:
    """How much brighter ``view`` is than ``reference`` (two top-down views): the median
    ratio of their pixels where the reference is not black (most of a view is the bare
    board and pieces, whatever a hand covers)."""
    lit = reference > 16
    if lit.sum() < 0.25 * reference.size:
        return 1.0
    return float(np.median(view[lit].astype(np.float32) / reference[lit]))


def obstructed_cells(view: np.ndarray, reference: np.ndarray, settings) -> tuple[np.ndarray, float]:
    """Compare two top-down views (``(S, S)`` uint8 from :func:`top_down`).

    ``settings``: ``TrackSettings``. Returns ``(obstructed (16,) bool, changed_fraction)``
    where ``changed_fraction`` is the share of the view that changed at all (a large
    value means the board or camera moved).
    """
    size = view.shape[0]
    a = cv2.GaussianBlur(view, (5, 5), 0).astype(np.int16)
    b = cv2.GaussianBlur(reference, (5, 5), 0).astype(np.int16)
    gain = light_gain(a, b)
    if abs(gain - 1.0) > LIGHT_CHANGE:
        # the light changed (a lamp switched off, a cloud): every pixel in proportion to its
        # brightness; a hand changes a part of the view however the room is lit
        b = np.round(b * gain).astype(np.int16)
    changed = (np.abs(a - b) > settings.change_threshold).astype(np.uint8)
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    frac = float(changed.mean())
    out = np.zeros(16, bool)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    px_per_unit = size / (1.0 + 2 * MARGIN)
    cell_area = (px_per_unit / 4) ** 2
    hand = np.zeros_like(changed, bool)
    lo, hi = int(round(MARGIN * px_per_unit)), int(round((1 + MARGIN) * px_per_unit))
    inside = labels[lo:hi, lo:hi]
    for k in range(1, n):
        x, y, w, h, area = stats[k]
        touches = x == 0 or y == 0 or x + w == size or y + h == size
        # only what reaches over the playing area counts: a spare piece taken from beside
        # the board, or a tall piece on an edge cell seen poking past the edge, changes the
        # margin, but covers less than a cell of the playing area
        if touches and area >= settings.hand_min_cells * cell_area \
                and np.count_nonzero(inside == k) >= settings.hand_min_cells * cell_area:
            hand |= labels == k
    if hand.any():
        for i in range(16):
            x0 = int((MARGIN + (i % 4) / 4) * px_per_unit)
            y0 = int((MARGIN + (i // 4) / 4) * px_per_unit)
            s = int(px_per_unit / 4)
            out[i] = hand[y0 : y0 + s, x0 : x0 + s].mean() >= settings.cell_cover_fraction
    return out, frac
