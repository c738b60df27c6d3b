"""Synthetic photos of the printed checkerboard through a known lens (for lens-calibration tests).

Every output pixel is traced back through the distortion model and the pattern's pose to
the flat pattern, so the images follow OpenCV's camera model exactly.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from scipy.ndimage import map_coordinates

from calibration.pattern import checkerboard, inner_corners

SQUARE_PX = 40  # resolution of the flat pattern texture


@functools.lru_cache(maxsize=4)
def _ideal_rays_cached(K_bytes: bytes, dist_bytes: bytes, size: tuple[int, int]) -> np.ndarray:
    K = np.frombuffer(K_bytes).reshape(3, 3)
    dist = np.frombuffer(dist_bytes)
    w, h = size
    # the field is smooth: trace every 4th pixel exactly, interpolate the rest
    step = 4
    pad = 3 * step  # spline boundary effects stay outside the image
    xs, ys = np.meshgrid(np.arange(-pad, w + pad, step, dtype=np.float64), np.arange(-pad, h + pad, step, dtype=np.float64))
    pix = np.stack([xs, ys], -1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-8)
    coarse = cv2.undistortPoints(pix, K, dist, None, None, None, crit).reshape(xs.shape + (2,))
    yy, xx = (np.mgrid[0:h, 0:w] + pad) / step
    out = np.stack([map_coordinates(coarse[..., c], [yy, xx], order=3) for c in range(2)], -1)
    return out.astype(np.float64)


def _ideal_rays(K, dist, size) -> np.ndarray:
    """(H, W, 2) normalised undistorted coordinates of every pixel of a (w, h) image."""
    return _ideal_rays_cached(np.asarray(K, float).tobytes(), np.asarray(dist, float).tobytes(), tuple(size))


def render_view(K, dist, rvec, tvec, size, rows, cols, square_mm, rng, noise=2.0, table=110):
    """(H, W) uint8 photo of the ``rows`` x ``cols`` pattern at pose (rvec, tvec) in mm,
    inner corner (0, 0) at the pattern origin, seen by a camera with K and dist."""
    w, h = size
    texture = checkerboard(rows, cols, SQUARE_PX)
    margin = SQUARE_PX
    norm = _ideal_rays(K, dist, size).reshape(-1, 2)
    R, _ = cv2.Rodrigues(np.asarray(rvec, float))
    H = np.column_stack([R[:, 0], R[:, 1], np.asarray(tvec, float).ravel()])
    plane = np.column_stack([norm, np.ones(len(norm))]) @ np.linalg.inv(H).T
    X = plane[:, 0] / plane[:, 2]
    Y = plane[:, 1] / plane[:, 2]
    map_x = (margin + SQUARE_PX * (1 + X / square_mm)).reshape(h, w).astype(np.float32)
    map_y = (margin + SQUARE_PX * (1 + Y / square_mm)).reshape(h, w).astype(np.float32)
    img = cv2.remap(texture, map_x, map_y, cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=table)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    img = img.astype(np.float32) + rng.normal(0, noise, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def poses(n, rows, cols, square_mm, rng):
    """``n`` varied poses (rvec, tvec) that keep the pattern in front of the camera, tilted
    up to about 35 degrees and moved around the picture."""
    nx, ny = inner_corners(rows, cols)
    centre = np.array([(nx - 1) / 2 * square_mm, (ny - 1) / 2 * square_mm, 0.0])
    out = []
    for k in range(n):
        rx, ry = rng.uniform(-0.6, 0.6, 2)
        rz = rng.uniform(-0.3, 0.3)
        rvec = np.array([rx, ry, rz])
        R, _ = cv2.Rodrigues(rvec)
        z = rng.uniform(260, 360)
        off = np.array([rng.uniform(-0.3, 0.3) * z, rng.uniform(-0.2, 0.2) * z, z])
        tvec = off - R @ centre
        out.append((rvec, tvec))
    return out


def synthetic_views(n, size=(640, 480), rows=7, cols=10, square_mm=24.0, seed=0):
    """(K, dist, [images]) for a made-up camera: ``n`` seeded photos of the pattern."""
    rng = np.random.default_rng(seed)
    w, h = size
    K = np.array([[0.82 * w, 0, w / 2 + 3.0], [0, 0.82 * w, h / 2 - 4.0], [0, 0, 1]])
    dist = np.array([-0.28, 0.10, 0.0008, -0.0005, 0.0])
    images = [render_view(K, dist, r, t, size, rows, cols, square_mm, rng) for r, t in poses(n, rows, cols, square_mm, rng)]
    return K, dist, images
