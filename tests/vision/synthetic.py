"""Drawn test boards with exactly known geometry (no renderer needed): rings or squares on
a flat board, warped into a camera view by a known homography."""

from __future__ import annotations

import cv2
import numpy as np


def drawn_board(style: str = "rings", tilt: float = 0.35, size=(1280, 720), seed: int = 0):
    """Returns ``(image (H, W, 3) uint8, true cell centres (16, 2))``. ``tilt`` squeezes
    the far side (0 = square-on)."""
    rng = np.random.default_rng(seed)
    S = 800
    top = np.full((S, S, 3), (40, 40, 42), np.uint8) if style == "rings" else np.full((S, S, 3), (200, 215, 225), np.uint8)
    pitch = S / 5
    centres = np.array([((i % 4 + 1) * pitch, (i // 4 + 1) * pitch) for i in range(16)])
    for x, y in centres:
        if style == "rings":
            cv2.circle(top, (int(x), int(y)), int(0.42 * pitch), (80, 170, 220), 6, cv2.LINE_AA)
        else:
            h = int(0.5 * pitch)
            cv2.rectangle(top, (int(x) - h, int(y) - h), (int(x) + h, int(y) + h), (30, 30, 35), 4)
    w, h = size
    src = np.float32([[0, 0], [S, 0], [S, S], [0, S]])
    cx, cy = w / 2 + rng.uniform(-40, 40), h / 2 + rng.uniform(-20, 20)
    half_bottom, half_top, height = 330, 330 * (1 - tilt), 560 * (1 - 0.5 * tilt)
    dst = np.float32([[cx - half_top, cy - height / 2], [cx + half_top, cy - height / 2],
                      [cx + half_bottom, cy + height / 2], [cx - half_bottom, cy + height / 2]])
    H = cv2.getPerspectiveTransform(src, dst)
    bg = np.full((h, w, 3), (180, 190, 200), np.uint8)
    bg = (bg + rng.normal(0, 4, bg.shape)).clip(0, 255).astype(np.uint8)
    warped = cv2.warpPerspective(top, H, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((S, S), 255, np.uint8), H, (w, h))
    img = np.where(mask[:, :, None] > 127, warped, bg)
    q = np.c_[centres, np.ones(16)] @ H.T
    return img, q[:, :2] / q[:, 2:3]


def look_at_pose(tilt_deg: float, distance: float, azimuth_deg: float = 0.0, target=(0.5, 0.5)):
    """Camera above the board (board units, z up) looking at ``target`` from ``tilt_deg``
    off vertical. Returns (R, t) mapping board points to camera coordinates."""
    a, tl = np.radians(azimuth_deg), np.radians(tilt_deg)
    tgt = np.array([target[0], target[1], 0.0])
    # camera on the near side (large board y = near the camera)
    eye = tgt + distance * np.array([np.sin(tl) * np.sin(a), np.sin(tl) * np.cos(a), np.cos(tl)])
    fwd = tgt - eye
    fwd /= np.linalg.norm(fwd)
    up_world = np.array([0.0, -1.0, 0.0]) if tilt_deg < 1 else np.array([0.0, 0.0, 1.0])
    right = np.cross(fwd, up_world)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])
    return R, -R @ eye


def board_homography(tilt_deg: float, distance: float = 2.6, azimuth_deg: float = 15.0, focal: float = 1000.0,
                     size=(1280, 720)) -> np.ndarray:
    """(3, 3) homography (board unit square -> pixels) of a pinhole camera placed by
    :func:`look_at_pose`, principal point at the centre of a ``size`` (w, h) image."""
    R, t = look_at_pose(tilt_deg, distance, azimuth_deg)
    K = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])
    H = K @ np.c_[R[:, 0], R[:, 1], t]
    return H / H[2, 2]


def drawn_scene(cells, tilt_deg: float = 35.0, distance: float = 2.6, size=(1280, 720), seed: int = 0,
                radius_pitch: float = 0.3, short_pitch: float = 0.7, tall_pitch: float = 1.4,
                light=(150, 190, 225), dark=(40, 55, 90)):
    """A board of rings with simple drawn pieces (cylinders and boxes, lighter top face,
    dark cup for hollow ones), seen by a pinhole camera. ``cells``: 16 piece ints or None.
    Returns ``(image, true cell centres (16, 2))``."""
    rng = np.random.default_rng(seed)
    w, h = size
    f = 0.9 * w
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    R, t = look_at_pose(tilt_deg, distance, rng.uniform(-8, 8))

    def proj(P):
        P = np.asarray(P, float).reshape(-1, 3) @ R.T + t
        q = P @ K.T
        return q[:, :2] / q[:, 2:3]

    # board top: texture of side S over board coords [-0.1, 1.1]
    S = 960
    lo, span = -0.1, 1.2
    tex = np.full((S, S, 3), (40, 40, 42), np.uint8)
    for i in range(16):
        cx, cy = ((i % 4 + 0.5) / 4 - lo) / span * S, ((i // 4 + 0.5) / 4 - lo) / span * S
        cv2.circle(tex, (int(cx), int(cy)), int(0.42 * 0.25 / span * S), (80, 170, 220), 7, cv2.LINE_AA)
    A = np.array([[span / S, 0, lo], [0, span / S, lo], [0, 0, 1]])  # texture px -> board
    Hb = K @ np.c_[R[:, 0], R[:, 1], t] @ A
    img = (np.full((h, w, 3), (170, 180, 190), np.float64) + rng.normal(0, 3, (h, w, 3))).clip(0, 255).astype(np.uint8)
    warped = cv2.warpPerspective(tex, Hb, (w, h))
    mask = cv2.warpPerspective(np.full((S, S), 255, np.uint8), Hb, (w, h))
    img = np.where(mask[:, :, None] > 127, warped, img)
    cam = -R.T @ t
    order = sorted([i for i in range(16) if cells[i] is not None],
                   key=lambda i: -np.hypot((i % 4 + 0.5) / 4 - cam[0], (i // 4 + 0.5) / 4 - cam[1]))
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    for i in order:
        p = cells[i]
        cx, cy = (i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4
        r = radius_pitch * 0.25
        hgt = (tall_pitch if p & 1 else short_pitch) * 0.25
        col = np.array(dark if p & 2 else light, float)
        if p & 4:
            rot = rng.uniform(0, np.pi / 2)
            ring = np.stack([np.cos(rot + np.arange(4) * np.pi / 2), np.sin(rot + np.arange(4) * np.pi / 2)], 1) * r * np.sqrt(2)
        else:
            ring = np.stack([np.cos(ang), np.sin(ang)], 1) * r
        bottom = np.c_[ring + [cx, cy], np.zeros(len(ring))]
        top = np.c_[ring + [cx, cy], np.full(len(ring), hgt)]
        hull = cv2.convexHull(np.vstack([proj(bottom), proj(top)]).astype(np.float32))
        cv2.fillConvexPoly(img, np.round(hull).astype(np.int32), tuple(int(c) for c in col * 0.75), cv2.LINE_AA)
        cv2.fillConvexPoly(img, np.round(proj(top)).astype(np.int32), tuple(int(c) for c in np.minimum(col * 1.1, 255)), cv2.LINE_AA)
        if p & 8:
            cup = np.c_[np.stack([np.cos(ang), np.sin(ang)], 1) * 0.5 * r + [cx, cy], np.full(len(ang), hgt)]
            cv2.fillConvexPoly(img, np.round(proj(cup)).astype(np.int32), tuple(int(c) for c in col * 0.3), cv2.LINE_AA)
    centres = proj(np.c_[[((i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4) for i in range(16)], np.zeros(16)])
    return img, centres
