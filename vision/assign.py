"""Joint identity assignment: the pieces on one board are all different.

Each occupied cell has four attribute probabilities; instead of thresholding them cell by
cell, the pieces 0-15 are assigned to the occupied cells all at once so that no piece is
used twice and the total log-likelihood is largest (Hungarian method).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

#: ``(16, 4)`` 0/1 table: bit j of piece p (tall, dark, square, hollow)
PIECE_BITS = np.array([[(p >> j) & 1 for j in range(4)] for p in range(16)], dtype=float)


def piece_log_likelihood(probs: np.ndarray, eps: float = 1e-4) -> np.ndarray:
    """``(N, 4)`` attribute probabilities -> ``(N, 16)`` log-likelihood of each piece."""
    p = np.clip(np.asarray(probs, float), eps, 1 - eps)
    return np.log(p) @ PIECE_BITS.T + np.log(1 - p) @ (1 - PIECE_BITS).T


def assign_pieces(occupied: np.ndarray, probs: np.ndarray, exclude=()) -> list[int | None]:
    """Assign distinct pieces to occupied cells.

    ``occupied``: ``(16,)`` bool (or probabilities, > 0.5 = occupied);
    ``probs``: ``(16, 4)`` probabilities of tall, dark, square, hollow per cell;
    ``exclude``: pieces known not to be on the board (e.g. the one in hand).
    Returns 16 entries: piece int or ``None`` for empty cells.
    """
    occ = np.asarray(occupied) > 0.5
    cells = np.flatnonzero(occ)
    out: list[int | None] = [None] * 16
    if len(cells) == 0:
        return out
    ll = piece_log_likelihood(probs[cells])
    for p in exclude:
        ll[:, p] = -1e9
    rows, cols = linear_sum_assignment(-ll)
    for r, c in zip(rows, cols):
        out[int(cells[r])] = int(c)
    return out
