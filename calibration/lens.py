"""Lens calibration from photos of the printed checkerboard (see :mod:`calibration.pattern`).

Stages: :func:`find_pattern` per image (inner corners as an (N, 2) float32 array in
pixels, (x, y), row by row as :func:`calibration.pattern.object_points` orders them),
then :func:`fit_camera` over all images that showed the pattern.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera import CameraModel
from .pattern import check_pattern_size, inner_corners, object_points

#: fewest views with the pattern for a trustworthy focal length (OpenCV needs 1, but one
#: view cannot separate focal length from distance; three tilted views can)
MIN_VIEWS = 3
#: with fewer views the third radial term overfits: keep k3 = 0
FULL_MODEL_VIEWS = 10
#: detection runs on a copy at most this wide; corners are then refined at full size
DETECT_WIDTH = 1280


class LensCalibrationError(ValueError):
    """Checkerboard photos from which no camera model can be fitted."""


@dataclass
class FitResult:
    """``camera`` the fitted model; ``view_errors`` RMS reprojection error per view (pixels);
    ``coverage`` fraction of the image area the pattern covered in at least one view;
    ``warnings`` what a user should fix for a better fit."""

    camera: CameraModel
    view_errors: list[float]
    coverage: float
    warnings: list[str] = field(default_factory=list)


def find_pattern(image: np.ndarray, rows: int, cols: int) -> np.ndarray | None:
    """Inner corners of a ``rows`` x ``cols``-square checkerboard in ``image`` (H, W[, 3])
    uint8, as an (N, 2) float32 array of pixels refined to subpixel; ``None`` when the whole
    pattern is not visible."""
    check_pattern_size(rows, cols)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    size = inner_corners(rows, cols)
    scale = min(1.0, DETECT_WIDTH / gray.shape[1])
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
    found, corners = cv2.findChessboardCorners(small, size, flags=flags)
    if not found:
        # the sector-based detector copes better with blur, glare and strong distortion
        found, corners = cv2.findChessboardCornersSB(small, size, flags=cv2.CALIB_CB_NORMALIZE_IMAGE)
        if not found:
            return None
    corners = corners.reshape(-1, 1, 2).astype(np.float32) / scale
    # refine within a window a bit smaller than half a square
    pitch = float(np.median(np.linalg.norm(np.diff(corners.reshape(size[1], size[0], 2), axis=1), axis=2)))
    win = int(max(2, min(11, pitch * 0.3)))
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01)
    corners = cv2.cornerSubPix(gray, corners, (win, win), (-1, -1), criteria)
    return corners.reshape(-1, 2)


def fit_camera(views: list[np.ndarray], image_size: tuple[int, int], rows: int, cols: int,
               square_mm: float = 1.0) -> FitResult:
    """Fit K and distortion to the corner sets ``views`` (each (N, 2) float32, from
    :func:`find_pattern`) of images of ``image_size`` (width, height)."""
    if len(views) < MIN_VIEWS:
        raise LensCalibrationError(f"need the checkerboard in at least {MIN_VIEWS} photos, have {len(views)}")
    obj = object_points(rows, cols, square_mm)
    objs = [obj] * len(views)
    imgs = [v.reshape(-1, 1, 2).astype(np.float32) for v in views]
    flags = 0 if len(views) >= FULL_MODEL_VIEWS else cv2.CALIB_FIX_K3
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera(objs, imgs, image_size, None, None, flags=flags)
    errors = []
    for o, im, r, t in zip(objs, imgs, rvecs, tvecs):
        proj, _ = cv2.projectPoints(o, r, t, K, dist)
        errors.append(float(np.sqrt(np.mean(np.sum((proj - im) ** 2, axis=2)))))
    w, h = image_size
    mask = np.zeros((h // 8 + 1, w // 8 + 1), np.uint8)
    for v in views:
        hull = cv2.convexHull((v / 8).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
    coverage = float(mask.mean())
    warnings = []
    if rms > 1.0:
        worst = int(np.argmax(errors))
        warnings.append(f"the fit is loose (RMS {rms:.2f} px; photo {worst + 1} fits worst at {errors[worst]:.2f} px): "
                        "use sharp photos of a flat, rigid pattern")
    if coverage < 0.5:
        warnings.append(f"the pattern covered only {coverage:.0%} of the picture: add photos with the pattern "
                        "near the edges and corners, where the lens distorts most")
    if len(views) < FULL_MODEL_VIEWS:
        warnings.append(f"only {len(views)} photos with the pattern: {FULL_MODEL_VIEWS} or more, tilted in "
                        "different directions, give a more reliable fit")
    camera = CameraModel(K=K, dist=dist.ravel(), image_size=(int(w), int(h)), rms=float(rms),
                         images_used=len(views),
                         extra={"pattern": {"rows": rows, "cols": cols, "square_mm": float(square_mm)}})
    return FitResult(camera=camera, view_errors=errors, coverage=coverage, warnings=warnings)
