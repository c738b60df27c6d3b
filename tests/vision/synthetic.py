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
