"""How the picture of the board moved between two views: a camera knocked on its clip, a
board pushed on the table.

Once the board is found, the per-frame step reads the cells where the board *was*; a
camera knocked by a few degrees moves every cell by a third of a pitch without anything
looking like a hand. :func:`estimate_motion` registers two frames on the board's region
as a rotation and shift (``cv2.findTransformECC``, which does not mind the light changing
between the two), coarse to fine on grey copies shrunk to ``LEVELS`` pixels: at the
coarsest the board's repeating cells are blurred away, so a shift of half a cell is not
taken for one the other way. The result says how well the two views agree before and
after the move, so a caller can refuse a move that does not explain the picture (a hand,
pieces that came or went). About 10 ms on one core.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import apply_homography

#: long sides of the board's region, in pixels, at which the two views are registered,
#: coarse to fine
LEVELS = (48, 96, 192)
#: margin around the board's playing area taken into the registration, in board widths
MARGIN = 0.15


@dataclass
class Motion:
    """``affine``: (2, 3) map from the first view's pixels to the second's. ``before`` /
    ``after``: the two views' correlation on the board's region without and with the move
    (1 = the same picture)."""

    affine: np.ndarray
    before: float
    after: float

    def apply(self, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, float).reshape(-1, 2)
        return pts @ self.affine[:, :2].T + self.affine[:, 2]

    def homography(self) -> np.ndarray:
        """The move as a (3, 3) matrix, to compose with a board homography."""
        return np.vstack([self.affine, [0.0, 0.0, 1.0]])


def board_box(H: np.ndarray, shape, margin: float = MARGIN) -> tuple[int, int, int, int] | None:
    """Whole-pixel box (x0, y0, x1, y1) around the board ``H`` (unit square -> pixels)
    grown by ``margin`` board widths, inside an image of ``shape``; ``None`` when little
    of it is in the image."""
    ring = apply_homography(H, np.array([[-margin, -margin], [1 + margin, -margin],
                                         [1 + margin, 1 + margin], [-margin, 1 + margin]]))
    if not np.isfinite(ring).all():
        return None
    h, w = shape[:2]
    x0, y0 = np.floor(ring.min(axis=0)).astype(int)
    x1, y1 = np.ceil(ring.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image[..., :3], cv2.COLOR_BGR2GRAY)


def estimate_motion(first: np.ndarray, second: np.ndarray, H: np.ndarray, iterations: int = 60) -> Motion | None:
    """How the board ``H`` (unit square -> pixels of ``first``) moved in the picture from
    frame ``first`` to frame ``second`` (same size, BGR or grey): a rotation and shift,
    registered on the board's region; ``None`` when the region is not in view or the
    registration does not converge."""
    if first.shape[:2] != second.shape[:2]:
        return None
    box = board_box(H, first.shape)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    ga, gb = _grey(first)[y0:y1, x0:x1], _grey(second)[y0:y1, x0:x1]
    W = np.eye(3)  # in the region's own pixels: template -> input
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations, 1e-4)
    before = after = 0.0
    for side in LEVELS:  # coarse to fine: the board's repeating cells blur away at first
        f = min(1.0, side / max(x1 - x0, y1 - y0))
        size = (max(16, round((x1 - x0) * f)), max(16, round((y1 - y0) * f)))
        a = cv2.resize(ga, size, interpolation=cv2.INTER_AREA).astype(np.float32)
        b = cv2.resize(gb, size, interpolation=cv2.INTER_AREA).astype(np.float32)
        S = np.diag([size[0] / (x1 - x0), size[1] / (y1 - y0), 1.0])
        warp = (S @ W @ np.linalg.inv(S))[:2].astype(np.float32)
        try:
            before = float(cv2.computeECC(a, b))
            after, warp = cv2.findTransformECC(a, b, warp, cv2.MOTION_EUCLIDEAN, criteria, None, 3)
        except cv2.error:
            return None  # no texture, or the registration did not converge
        if not np.isfinite(warp).all():
            return None
        W = np.linalg.inv(S) @ np.vstack([warp.astype(float), [0, 0, 1]]) @ S
    T = np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1]])
    full = T @ W @ np.linalg.inv(T)
    return Motion(full[:2], before, float(after))
