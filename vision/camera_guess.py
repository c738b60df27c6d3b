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

import numpy as np

from vision.geometry import estimate_focal, jacobians

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
