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
#: a registration from no move that leaves the views agreeing less than this is tried again
#: from matched corners (a hard knock)
GUESS_BELOW = 0.8
#: ... which need at least this many corners agreeing on one move
GUESS_MATCHES = 12


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


def estimate_motion(first: np.ndarray, second: np.ndarray, H: np.ndarray, iterations: int = 60,
                    hard: bool = False) -> Motion | None:
    """How the board ``H`` (unit square -> pixels of ``first``) moved in the picture from
    frame ``first`` to frame ``second`` (same size, BGR or grey): a rotation and shift,
    registered on the board's region; ``None`` when the region is not in view or the
    registration does not converge. ``hard``: a hard knock may have come (a turn of many
    degrees, a shift of a pitch or more), which can lead the registration astray from no
    move at all; when it leaves the views disagreeing (correlation under ``GUESS_BELOW``),
    corners matched between the two views (ORB) give it a second start, and the better of
    the two is returned."""
    if first.shape[:2] != second.shape[:2]:
        return None
    box = board_box(H, first.shape)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    first, second = _grey(first), _grey(second)
    ga, gb = first[y0:y1, x0:x1], second[y0:y1, x0:x1]
    T = np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1]])  # region pixels -> image pixels
    best = _register(ga, gb, np.eye(3), LEVELS, iterations)
    if hard and (best is None or best[2] < GUESS_BELOW):
        guess = _matched_corners(first, second, box)
        if guess is not None:
            again = _register(ga, gb, np.linalg.inv(T) @ guess @ T, LEVELS[1:], iterations)
            if again is not None and (best is None or again[2] > best[2]):
                best = again
    if best is None:
        return None
    W, before, after = best
    full = T @ W @ np.linalg.inv(T)
    return Motion(full[:2], before, float(after))


def _register(ga: np.ndarray, gb: np.ndarray, W: np.ndarray, levels, iterations: int):
    """ECC registration of region ``gb`` onto ``ga`` (grey, same size) coarse to fine from
    the start ``W`` (3, 3, region pixels: template -> input). Returns ``(W, correlation
    before, after)`` or ``None``. ``before`` is without any move."""
    h, w = ga.shape[:2]
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations, 1e-4)
    before = after = 0.0
    for side in levels:  # coarse to fine: the board's repeating cells blur away at first
        f = min(1.0, side / max(w, h))
        size = (max(16, round(w * f)), max(16, round(h * f)))
        a = cv2.resize(ga, size, interpolation=cv2.INTER_AREA).astype(np.float32)
        b = cv2.resize(gb, size, interpolation=cv2.INTER_AREA).astype(np.float32)
        S = np.diag([size[0] / w, size[1] / h, 1.0])
        warp = (S @ W @ np.linalg.inv(S))[:2].astype(np.float32)
        try:
            before = float(cv2.computeECC(a, b))
            after, warp = cv2.findTransformECC(a, b, warp, cv2.MOTION_EUCLIDEAN, criteria, None, 3)
        except cv2.error:
            return None  # no texture, or the registration did not converge
        if not np.isfinite(warp).all():
            return None
        W = np.linalg.inv(S) @ np.vstack([warp.astype(float), [0, 0, 1]]) @ S
    return W, before, float(after)


def _matched_corners(first: np.ndarray, second: np.ndarray, box) -> np.ndarray | None:
    """A (3, 3) rotation and shift (image pixels, ``first`` -> ``second``) from ORB corners
    of the board's region ``box`` in ``first`` matched anywhere near it in ``second``
    (RANSAC), or ``None`` when too few agree."""
    x0, y0, x1, y1 = box
    h, w = second.shape[:2]
    grow = (x1 - x0) // 2
    X0, Y0, X1, Y1 = max(0, x0 - grow), max(0, y0 - grow), min(w, x1 + grow), min(h, y1 + grow)
    orb = cv2.ORB_create(nfeatures=600)
    ka, da = orb.detectAndCompute(np.ascontiguousarray(first[y0:y1, x0:x1]), None)
    kb, db = orb.detectAndCompute(np.ascontiguousarray(second[Y0:Y1, X0:X1]), None)
    if da is None or db is None or len(ka) < GUESS_MATCHES or len(kb) < GUESS_MATCHES:
        return None
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(da, db)
    if len(matches) < GUESS_MATCHES:
        return None
    pa = np.float32([ka[m.queryIdx].pt for m in matches]) + np.float32([x0, y0])
    pb = np.float32([kb[m.trainIdx].pt for m in matches]) + np.float32([X0, Y0])
    A, inliers = cv2.estimateAffinePartial2D(pa, pb, method=cv2.RANSAC, ransacReprojThreshold=3.0)
    if A is None or inliers is None or int(inliers.sum()) < GUESS_MATCHES:
        return None
    scale = float(np.hypot(A[0, 0], A[1, 0]))
    if not 0.9 < scale < 1.1:
        return None  # a knock turns and shifts the picture; it does not zoom it
    A[:, :2] /= scale
    return np.vstack([A.astype(float), [0.0, 0.0, 1.0]])
