"""Board-top and cloth textures drawn with numpy + OpenCV (no Blender needed).

Each function returns ``(color, mask)`` as uint8 arrays: ``color`` (H, W, 3) sRGB in RGB
order and ``mask`` (H, W) where 255 marks engraved / printed / inlaid material (gold,
ink, chalk) whose surface differs from the board's base.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .catalog import BOARDS, cell_grid_xy


def _px(board, xy, n):
    """Board-frame metres -> texture pixel (u right, v down; texture covers the board)."""
    return (int(round((xy[0] / board.size + 0.5) * n * 16)), int(round((0.5 - xy[1] / board.size) * n * 16)))


def _c(rgb):
    return tuple(int(round(c * 255)) for c in rgb)


def board_texture(board, seed: int, n: int = 2048):
    """Top-surface design of ``board`` (a ``catalog.Board`` or a catalog id); pixel (0, 0)
    is the board corner at (-x, +y)."""
    b = BOARDS[board] if isinstance(board, str) else board
    rng = np.random.default_rng(seed)
    col = b.colors
    sh = 4  # cv2 sub-pixel shift bits (coordinates are multiplied by 16 in _px)
    color = np.zeros((n, n, 3), np.uint8)
    mask = np.zeros((n, n), np.uint8)
    scale = n / b.size  # pixels per metre
    centre = _px(b, (0, 0), n)
    if b.style == "gigamic":
        color[:] = _c(col["top"])
        lw = max(2, int(0.0016 * scale))  # engraved line width ~1.6 mm
        big_r = (b.size / 2 - 0.009)
        cv2.circle(mask, centre, int(big_r * scale * 16), 255, lw, cv2.LINE_AA, sh)
        for i in range(16):
            cv2.circle(mask, _px(b, cell_grid_xy(b, i), n), int(b.cell_radius * scale * 16), 255, int(lw * 1.5), cv2.LINE_AA, sh)
        gold = np.array(_c(col["gold"]), np.float32)
        m = mask.astype(np.float32)[..., None] / 255
        color = (color * (1 - m) + gold * m).astype(np.uint8)
    elif b.style == "printed-grid":
        color[:] = _c(col["paper"])
        ink = _c(col["ink"])
        lw = max(2, int(0.0015 * scale))
        h = 2 * b.pitch
        for k in range(5):
            o = -h + k * b.pitch
            cv2.line(mask, _px(b, (-h, o), n), _px(b, (h, o), n), 255, lw, cv2.LINE_AA, sh)
            cv2.line(mask, _px(b, (o, -h), n), _px(b, (o, h), n), 255, lw, cv2.LINE_AA, sh)
        edge = b.size / 2 - 0.008
        cv2.rectangle(mask, _px(b, (-edge, edge), n), _px(b, (edge, -edge), n), 255, max(1, lw // 2), cv2.LINE_AA, sh)
        m = mask.astype(np.float32)[..., None] / 255
        color = (color * (1 - m) + np.array(ink, np.float32) * m).astype(np.uint8)
        # paper fibres / print unevenness
        noise = cv2.GaussianBlur(rng.normal(0, 6, (n, n)).astype(np.float32), (0, 0), 2)
        color = np.clip(color.astype(np.float32) + noise[..., None], 0, 255).astype(np.uint8)
    elif b.style == "walnut-checker":
        # the wood itself is procedural in Blender; the mask marks the light inlays and border line
        h = 2 * b.pitch
        for i in range(16):
            r, c = divmod(i, 4)
            if (r + c) % 2 == 0:
                x0, y0 = -h + c * b.pitch, h - r * b.pitch
                cv2.rectangle(mask, _px(b, (x0 + 0.0015, y0 - 0.0015), n), _px(b, (x0 + b.pitch - 0.0015, y0 - b.pitch + 0.0015), n),
                              255, -1, cv2.LINE_AA, sh)
        e = h + 0.008
        cv2.rectangle(mask, _px(b, (-e, e), n), _px(b, (e, -e), n), 255, max(2, int(0.002 * scale)), cv2.LINE_AA, sh)
        color[:] = _c(col["inlay"])
    elif b.style == "felt-circles":
        color[:] = _c(col["felt"])
        for i in range(16):
            x, y = cell_grid_xy(b, i)
            pts = []
            wob = rng.normal(0, 0.0006, 3)
            for k in range(73):
                a = 2 * math.pi * k / 72
                rr = b.cell_radius + wob[0] * math.sin(2 * a + wob[1] * 900) + wob[2] * math.cos(3 * a)
                pts.append(_px(b, (x + rr * math.cos(a), y + rr * math.sin(a)), n))
            cv2.polylines(mask, [np.array(pts, np.int32)], False, 255, max(2, int(0.0022 * scale)), cv2.LINE_AA, sh)
        m = (mask.astype(np.float32) / 255) * rng.uniform(0.75, 1.0, (n, n)).astype(np.float32)
        mask = (m * 255).astype(np.uint8)
        m = m[..., None]
        color = (color * (1 - m) + np.array(_c(col["chalk"]), np.float32) * m).astype(np.uint8)
        fuzz = cv2.GaussianBlur(rng.normal(0, 10, (n, n)).astype(np.float32), (0, 0), 1.2)
        color = np.clip(color.astype(np.float32) + fuzz[..., None], 0, 255).astype(np.uint8)
    else:  # wood-round: plain wood, the recesses are geometry
        color[:] = 255
    return color, mask


def gingham(rgb, seed: int, n: int = 1024, checks: int = 8):
    """A checked tablecloth tile (repeats seamlessly)."""
    rng = np.random.default_rng(seed)
    base = np.array(_c(rgb), np.float32)
    white = np.array([240, 238, 232], np.float32)
    idx = (np.arange(n) * checks // n) % 2
    a = idx[None, :].astype(np.float32)
    b = idx[:, None].astype(np.float32)
    w = (a + b) / 2  # 0: white, 0.5: mid, 1: full colour
    img = white * (1 - w[..., None]) + base * w[..., None]
    weave = rng.normal(0, 7, (n, n)).astype(np.float32)
    img = np.clip(img + weave[..., None], 0, 255).astype(np.uint8)
    return img


def game_box_top(seed: int, n: int = 512):
    """A board-game box lid: coloured field with a title band."""
    rng = np.random.default_rng(seed)
    bg = rng.integers(30, 230, 3)
    img = np.zeros((n, n, 3), np.uint8)
    img[:] = bg
    cv2.rectangle(img, (0, int(n * 0.38)), (n, int(n * 0.62)), tuple(int(v) for v in 255 - bg), -1)
    cv2.putText(img, "GAMES", (int(n * 0.08), int(n * 0.56)), cv2.FONT_HERSHEY_DUPLEX, n / 190, tuple(int(v) for v in bg), 3, cv2.LINE_AA)
    for _ in range(6):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.circle(img, (int(rng.integers(0, n)), int(rng.integers(0, n * 0.3))), int(rng.integers(10, 60)), c, -1, cv2.LINE_AA)
    return img
