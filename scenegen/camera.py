"""Pinhole camera with OpenCV's lens distortion model, in plain numpy.

Conventions (OpenCV): camera frame x right, y down, z forward; a world point ``X`` maps
to ``R @ X + t`` in the camera frame. Pixel coordinates ``(x, y)`` have their origin at
the top-left pixel's centre. Distortion coefficients are ``[k1, k2, p1, p2, k3]``:

    r2 = x^2 + y^2,  radial = 1 + k1 r2 + k2 r2^2 + k3 r2^3
    xd = x radial + 2 p1 x y + p2 (r2 + 2 x^2)
    yd = y radial + p1 (r2 + 2 y^2) + 2 p2 x y

Images are rendered undistorted, then warped with :func:`undistort_normalized` (the
exact inverse of :func:`distort_normalized`), so truth points projected with
:func:`project` land on the same pixels as the rendered surfaces.
"""

from __future__ import annotations

import math

import numpy as np


def distort_normalized(xy: np.ndarray, dist) -> np.ndarray:
    """``(N, 2)`` undistorted normalized coordinates -> distorted normalized coordinates."""
    k1, k2, p1, p2, k3 = (list(dist) + [0.0] * 5)[:5]
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([xd, yd], axis=1)


def undistort_normalized(xyd: np.ndarray, dist, iterations: int = 40) -> np.ndarray:
    """Inverse of :func:`distort_normalized` by Newton's method (converges to ~1e-12
    for the monotonic models :func:`is_monotonic` accepts)."""
    xyd = np.asarray(xyd, dtype=np.float64)
    xy = xyd.copy()
    eps = 1e-7
    for _ in range(iterations):
        f = distort_normalized(xy, dist) - xyd
        # numeric 2x2 Jacobian per point
        fx = (distort_normalized(xy + [eps, 0.0], dist) - xyd - f) / eps
        fy = (distort_normalized(xy + [0.0, eps], dist) - xyd - f) / eps
        a, b, c, d = fx[:, 0], fy[:, 0], fx[:, 1], fy[:, 1]
        det = a * d - b * c
        dx = (d * f[:, 0] - b * f[:, 1]) / det
        dy = (-c * f[:, 0] + a * f[:, 1]) / det
        xy = xy - np.stack([dx, dy], axis=1)
        if np.max(np.abs(f)) < 1e-13:
            break
    return xy


def is_monotonic(dist, rd_max: float, stretch: float = 1.6) -> bool:
    """True when the radial model is invertible over the image: distorted radius grows
    with the undistorted one until it reaches ``rd_max`` (the image corner's normalized
    radius), and does so before the undistorted radius exceeds ``stretch * rd_max``."""
    k1, k2, _, _, k3 = (list(dist) + [0.0] * 5)[:5]
    r = np.linspace(0, rd_max * stretch, 800)
    rd = r * (1 + k1 * r**2 + k2 * r**4 + k3 * r**6)
    reach = np.nonzero(rd >= rd_max * 1.02)[0]
    if len(reach) == 0:
        return False
    return bool(np.all(np.diff(rd[: reach[0] + 1]) > 0))


def project(points: np.ndarray, K, dist, R, t) -> np.ndarray:
    """``(N, 3)`` world points -> ``(N, 2)`` distorted pixel coordinates (x, y)."""
    P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    Xc = P @ np.asarray(R, dtype=np.float64).T + np.asarray(t, dtype=np.float64)
    xy = Xc[:, :2] / Xc[:, 2:3]
    xyd = distort_normalized(xy, dist)
    K = np.asarray(K, dtype=np.float64)
    return np.stack([K[0, 0] * xyd[:, 0] + K[0, 1] * xyd[:, 1] + K[0, 2], K[1, 1] * xyd[:, 1] + K[1, 2]], axis=1)


def depth(points: np.ndarray, R, t) -> np.ndarray:
    """Camera-frame z of world points (positive in front of the camera)."""
    P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return (P @ np.asarray(R, dtype=np.float64).T + np.asarray(t, dtype=np.float64))[:, 2]


def look_at(eye, target, roll_deg: float = 0.0, up=(0.0, 0.0, 1.0)):
    """Rotation ``R`` and translation ``t`` (world -> camera, OpenCV axes) of a camera at
    ``eye`` looking at ``target``; ``roll_deg`` turns the image about the optical axis."""
    eye = np.asarray(eye, dtype=np.float64)
    z = np.asarray(target, dtype=np.float64) - eye
    z /= np.linalg.norm(z)
    upv = np.asarray(up, dtype=np.float64)
    if abs(np.dot(z, upv)) > 0.999:   # looking straight down: use world +y as "up" in the image
        upv = np.array([0.0, 1.0, 0.0])
    x = np.cross(z, upv)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    Rm = np.stack([x, y, z])
    if roll_deg:
        c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
        Rm = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) @ Rm
    t = -Rm @ eye
    return Rm, t


def intrinsics(width: int, height: int, hfov_deg: float, cx_off: float = 0.0, cy_off: float = 0.0) -> np.ndarray:
    """K for an image ``width`` x ``height`` with horizontal field of view ``hfov_deg``
    (of the undistorted pinhole) and the principal point offset from the image centre."""
    f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, (width - 1) / 2 + cx_off], [0, f, (height - 1) / 2 + cy_off], [0, 0, 1.0]])


def distortion_maps(K, dist, width: int, height: int, K_src, margin: tuple[int, int] = (0, 0)):
    """Remap tables for ``cv2.remap``: for every pixel of the distorted output image, where
    to read in the undistorted render (whose intrinsics are ``K_src``)."""
    K = np.asarray(K, dtype=np.float64)
    K_src = np.asarray(K_src, dtype=np.float64)
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    xd = (xs.ravel() - K[0, 2]) / K[0, 0]
    yd = (ys.ravel() - K[1, 2]) / K[1, 1]
    xy = undistort_normalized(np.stack([xd, yd], axis=1), dist)
    mx = (xy[:, 0] * K_src[0, 0] + K_src[0, 2]).reshape(height, width).astype(np.float32)
    my = (xy[:, 1] * K_src[1, 1] + K_src[1, 2]).reshape(height, width).astype(np.float32)
    return mx, my


def required_margin(K, dist, width: int, height: int) -> int:
    """Pixels to add on each side of the undistorted render so the warp never reads
    outside it (barrel distortion pulls in content from beyond the frame)."""
    K = np.asarray(K, dtype=np.float64)
    xs = np.concatenate([np.linspace(0, width - 1, 64), np.full(64, 0.0), np.full(64, width - 1.0), np.linspace(0, width - 1, 64)])
    ys = np.concatenate([np.full(64, 0.0), np.linspace(0, height - 1, 64), np.linspace(0, height - 1, 64), np.full(64, height - 1.0)])
    xy = undistort_normalized(np.stack([(xs - K[0, 2]) / K[0, 0], (ys - K[1, 2]) / K[1, 1]], axis=1), dist)
    px = xy[:, 0] * K[0, 0] + K[0, 2]
    py = xy[:, 1] * K[1, 1] + K[1, 2]
    over = max(-px.min(), px.max() - (width - 1), -py.min(), py.max() - (height - 1), 0.0)
    return int(math.ceil(over)) + 4


def render_geometry(K, width: int, height: int, margin: int, scale: float):
    """Size and intrinsics of the undistorted render: the final ``width`` x ``height``
    frame grown by ``margin`` pixels on each side, then scaled by ``scale`` (rendering
    smaller saves time; the lens warp resamples to the final size).

    Returns ``(render_width, render_height, K_render)``; pixel-centre convention in both.
    """
    K = np.asarray(K, dtype=np.float64)
    wc, hc = width + 2 * margin, height + 2 * margin
    wr = int(round(wc * scale))
    s = wr / wc
    hr = int(round(hc * s))
    Kr = np.array([[K[0, 0] * s, 0.0, (K[0, 2] + margin + 0.5) * s - 0.5],
                   [0.0, K[1, 1] * s, (K[1, 2] + margin + 0.5) * s - 0.5],
                   [0.0, 0.0, 1.0]])
    return wr, hr, Kr
