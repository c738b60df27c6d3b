"""The camera's focal length, guessed from the board itself.

Standing pieces up in the picture (which way is "up" at each cell, how far a piece's top
leans) needs a pinhole camera. Without lens calibration its focal length is unknown; a
fixed share of the image width is wrong for portrait photos, 4:3 webcams and zoomed or
cropped pictures. But the board is a square: its homography ``H`` (board unit square ->
pixels) is ``K [r1 r2 t]`` up to scale, and ``r1``, ``r2`` are orthogonal and of equal
length. With square pixels and the principal point at the image centre that gives the
focal length (Zhang's plane constraints with one unknown), whenever the board is seen at
a slant; seen nearly straight on, the constraints degenerate and the focal length hardly
matters there, so a typical camera's is used.
"""

from __future__ import annotations

import numpy as np

#: focal length (pixels) of a typical webcam or phone camera as a share of the image's
#: long side (about 65 degrees across the long side), used when the board does not tell
TYPICAL_FOCAL = 0.75
#: an estimate outside this range of the long side is not believed (a slightly wrong
#: homography seen nearly straight on can give any value)
FOCAL_RANGE = (0.35, 4.0)
#: the two constraints must come from a board this far from straight on (degrees of
#: tilt by the weak-perspective measure: the ratio of the homography's singular values)
MIN_TILT_DEG = 12.0


def _tilt_deg(H: np.ndarray) -> float:
    """Tilt of the board plane, from the local Jacobian of ``H`` at the board centre."""
    e = 1e-3

    def at(x, y):
        p = H @ np.array([x, y, 1.0])
        return p[:2] / p[2]

    c = at(0.5, 0.5)
    J = np.stack([(at(0.5 + e, 0.5) - c) / e, (at(0.5, 0.5 + e) - c) / e], -1)
    s = np.linalg.svd(J, compute_uv=False)
    return float(np.degrees(np.arccos(np.clip(s[1] / max(s[0], 1e-12), 0.0, 1.0))))


def focal_from_board(H: np.ndarray, image_shape) -> float | None:
    """Focal length in pixels implied by the board's homography ``H`` (3x3, unit square
    board -> pixels) with the principal point at the centre of an image of
    ``image_shape`` (h, w, ...), or ``None`` when the board cannot tell (seen nearly
    straight on, or the constraints disagree with any real camera)."""
    H = np.asarray(H, float)
    if not np.all(np.isfinite(H)) or _tilt_deg(H) < MIN_TILT_DEG:
        return None
    h, w = image_shape[:2]
    T = np.array([[1.0, 0, -w / 2.0], [0, 1.0, -h / 2.0], [0, 0, 1.0]])
    G = T @ H
    G = G / np.linalg.norm(G[:, :2])
    a, b = G[:, 0], G[:, 1]
    # with omega = diag(u, u, 1), u = 1 / f^2:  a^T omega b = 0  and
    # a^T omega a - b^T omega b = 0, each linear in u: least squares over both
    rows = np.array([a[0] * b[0] + a[1] * b[1], a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2])
    rhs = -np.array([a[2] * b[2], a[2] ** 2 - b[2] ** 2])
    denom = float(rows @ rows)
    if denom < 1e-18:
        return None
    u = float(rows @ rhs) / denom
    if u <= 0:
        return None
    f = 1.0 / np.sqrt(u)
    long_side = float(max(h, w))
    if not (FOCAL_RANGE[0] * long_side <= f <= FOCAL_RANGE[1] * long_side):
        return None
    return float(f)


def guess_focal(H: np.ndarray, image_shape) -> float:
    """:func:`focal_from_board`, or a typical camera's (``TYPICAL_FOCAL`` x the image's
    long side) when the board cannot tell."""
    f = focal_from_board(H, image_shape)
    return f if f is not None else TYPICAL_FOCAL * float(max(image_shape[:2]))
