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

from types import SimpleNamespace

import cv2
import numpy as np

from vision.geometry import Remembered, apply_homography, cell_grid, cell_pitch_px, estimate_focal, jacobians

#: focal length (pixels) of a typical webcam or phone camera as a share of the image's
#: long side (about 65 degrees across the long side), used when the board does not tell
TYPICAL_FOCAL = 0.75
#: an estimate outside this range of the long side is not believed (a slightly wrong
#: homography seen nearly straight on can give any value)
FOCAL_RANGE = (0.35, 4.0)
#: the two constraints must come from a board this far from straight on (degrees of
#: tilt by the weak-perspective measure: the ratio of the homography's singular values)
MIN_TILT_DEG = 12.0
_RANGE = SimpleNamespace(default_focal_factor=TYPICAL_FOCAL, min_focal_factor=FOCAL_RANGE[0],
                         max_focal_factor=FOCAL_RANGE[1])


def _tilt_deg(H: np.ndarray) -> float:
    """Tilt of the board plane, from the local Jacobian of ``H`` at the board centre."""
    s = np.linalg.svd(jacobians(H, [[0.5, 0.5]])[0], compute_uv=False)
    return float(np.degrees(np.arccos(np.clip(s[1] / max(s[0], 1e-12), 0.0, 1.0))))


def focal_from_board(H: np.ndarray, image_shape) -> float | None:
    """Focal length in pixels implied by the board's homography ``H`` (3x3, unit square
    board -> pixels) with the principal point at the centre of an image of
    ``image_shape`` (h, w, ...), or ``None`` when the board cannot tell (seen nearly
    straight on, or the constraints disagree with any real camera). The constraints are
    ``vision.geometry.estimate_focal``'s, with this module's range."""
    H = np.asarray(H, float)
    if not np.all(np.isfinite(H)) or _tilt_deg(H) < MIN_TILT_DEG:
        return None
    h, w = image_shape[:2]
    f, estimated = estimate_focal(H, (w, h), _RANGE)
    return f if estimated else None


def guess_focal(H: np.ndarray, image_shape) -> float:
    """:func:`focal_from_board`, or a typical camera's (``TYPICAL_FOCAL`` x the image's
    long side) when the board cannot tell."""
    f = focal_from_board(H, image_shape)
    return f if f is not None else TYPICAL_FOCAL * float(max(image_shape[:2]))


def pinhole_homography(centres: np.ndarray, image_shape, focal: float | None = None,
                       max_rms_pitch: float = 0.1) -> np.ndarray | None:
    """The board homography (unit square -> pixels) of a pinhole camera (focal length
    ``focal`` pixels, default :func:`guess_focal` of the free homography through the
    centres; principal point at the image centre, square pixels) that puts the 16 cell
    centres nearest to ``centres`` (``(16, 2)`` pixels, in ``vision.geometry.cell_grid``
    order): six degrees of freedom (the board's pose) instead of a free homography's eight,
    so that the two a real camera cannot produce do not carry the board finder's errors
    into how the pieces stand up at each cell. ``None`` when the fit fails or leaves the
    centres more than ``max_rms_pitch`` pitches off (root mean square: not a view this
    camera can give)."""
    centres = np.asarray(centres, float).reshape(16, 2)
    if not np.all(np.isfinite(centres)):
        return None
    h, w = image_shape[:2]
    grid = cell_grid()
    if focal is None:
        H_free, _ = cv2.findHomography(grid, centres)
        if H_free is None:
            return None
        focal = guess_focal(H_free, image_shape)
    f = float(focal)
    K = np.array([[f, 0.0, w / 2.0], [0.0, f, h / 2.0], [0.0, 0.0, 1.0]])
    board = np.c_[grid, np.zeros(16)]
    try:
        ok, rvec, tvec = cv2.solvePnP(board, centres, K, None, flags=cv2.SOLVEPNP_ITERATIVE)
    except cv2.error:
        return None
    if not ok:
        return None
    R = cv2.Rodrigues(rvec)[0]
    H = K @ np.c_[R[:, 0], R[:, 1], np.asarray(tvec, float).ravel()]
    if not np.all(np.isfinite(H)) or abs(H[2, 2]) < 1e-12:
        return None
    H = H / H[2, 2]
    rms = float(np.sqrt(((apply_homography(H, grid) - centres) ** 2).sum(1).mean()))
    if rms > max_rms_pitch * float(np.median(cell_pitch_px(H))):
        return None
    return H


_READING = Remembered(8)


def reading_homography(H: np.ndarray, image_shape, max_rms_pitch: float = 0.1) -> np.ndarray:
    """The homography the pieces are read on, for a board found as ``H`` (unit square ->
    pixels of an image of ``image_shape``): :func:`pinhole_homography` through ``H``'s cell
    centres, or ``H`` itself where no such camera fits. Remembered for the last few boards
    (the watch reads the same board frame after frame; a refit costs about a millisecond)."""
    H = np.asarray(H, float)

    def compute():
        out = pinhole_homography(apply_homography(H, cell_grid()), image_shape, max_rms_pitch=max_rms_pitch)
        return H.copy() if out is None else out

    return _READING.get((H.tobytes(), tuple(image_shape[:2]), max_rms_pitch), compute)
