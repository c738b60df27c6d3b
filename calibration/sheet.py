"""The picture a user checks after calibration: the 16 pieces as recognised, with attributes.

Top: the separations and, at the right, the set's two colours learned for the watch (two
swatches, when learned). Then one tile per piece 0-F (cut from the first photo), its digit
and four attribute words, framed green when every attribute was read with confidence,
orange when one was close to the boundary. Below: each photo, shrunk, with the digit read
on every cell.
"""

from __future__ import annotations

import cv2
import numpy as np

from .learn import ATTRIBUTES, OPPOSITE, UNSURE, Calibration
from .profile import set_colours

TILE_W, TILE_H = 150, 190
CROP_H = 140
GREEN, ORANGE, WHITE, BLACK = (60, 170, 60), (0, 140, 255), (255, 255, 255), (0, 0, 0)


def piece_box(centre: np.ndarray, pitch: float, shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """Crop box (x0, y0, x1, y1) around a piece standing on the cell centred at ``centre``
    (x, y) pixels, ``pitch`` pixels between cells: tall pieces rise about two pitches."""
    h, w = shape[:2]
    x, y = float(centre[0]), float(centre[1])
    x0, x1 = int(x - 0.6 * pitch), int(x + 0.6 * pitch)
    y0, y1 = int(y - 1.9 * pitch), int(y + 0.55 * pitch)
    return max(0, x0), max(0, y0), min(w, x1), min(h, y1)


def _pitch(centres: np.ndarray) -> float:
    c = np.asarray(centres, float).reshape(4, 4, 2)
    d = np.concatenate([np.linalg.norm(np.diff(c, axis=0), axis=2).ravel(),
                        np.linalg.norm(np.diff(c, axis=1), axis=2).ravel()])
    return float(np.median(d))


def render_sheet(cal: Calibration, photo_width: int = 600) -> np.ndarray:
    """(H, W, 3) uint8 BGR picture of what calibration learned."""
    first = cal.photos[0]
    centres = np.asarray(first.reading.cell_centers, float)
    pitch = _pitch(centres)
    pieces, probs = cal.pieces[0], cal.probs[0]
    cell_of = {p: i for i, p in enumerate(pieces)}

    tiles = np.full((4 * TILE_H, 4 * TILE_W, 3), 245, np.uint8)
    for piece in range(16):
        ty, tx = divmod(piece, 4)
        tile = tiles[ty * TILE_H:(ty + 1) * TILE_H, tx * TILE_W:(tx + 1) * TILE_W]
        cell = cell_of.get(piece)
        if cell is None:
            continue
        x0, y0, x1, y1 = piece_box(centres[cell], pitch, first.frame.shape)
        crop = first.frame[y0:y1, x0:x1]
        if crop.size:
            s = min((TILE_W - 10) / crop.shape[1], (CROP_H - 6) / crop.shape[0])
            crop = cv2.resize(crop, (max(1, int(crop.shape[1] * s)), max(1, int(crop.shape[0] * s))),
                              interpolation=cv2.INTER_AREA)
            ox = (TILE_W - crop.shape[1]) // 2
            tile[4:4 + crop.shape[0], ox:ox + crop.shape[1]] = crop
            # mark the cell centre: a neighbour behind may show in the crop too
            mx, my = ox + (centres[cell][0] - x0) * s, 4 + (centres[cell][1] - y0) * s
            cv2.circle(tile, (int(mx), int(my)), 4, WHITE, -1, cv2.LINE_AA)
            cv2.circle(tile, (int(mx), int(my)), 4, BLACK, 1, cv2.LINE_AA)
        p = probs[cell]
        sure = [max(p[j], 1 - p[j]) >= UNSURE for j in range(4)]
        colour = GREEN if all(sure) else ORANGE
        cv2.rectangle(tile, (1, 1), (TILE_W - 2, TILE_H - 2), colour, 3)
        cv2.putText(tile, "0123456789ABCDEF"[piece], (8, CROP_H + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.75, BLACK, 2,
                    cv2.LINE_AA)
        words = [ATTRIBUTES[j] if piece >> j & 1 else OPPOSITE[ATTRIBUTES[j]] for j in range(4)]
        for k, (word, ok) in enumerate(zip(words, sure)):
            cv2.putText(tile, word + ("" if ok else "?"), (34 + (k % 2) * 56, CROP_H + 16 + (k // 2) * 18),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.42, BLACK if ok else ORANGE, 1, cv2.LINE_AA)

    panels = []
    for photo, pcs in zip(cal.photos, cal.pieces):
        img = photo.frame
        s = photo_width / img.shape[1]
        small = cv2.resize(img, (photo_width, int(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
        for i, c in enumerate(np.asarray(photo.reading.cell_centers, float) * s):
            text = "0123456789ABCDEF"[pcs[i]]
            org = (int(c[0]) - 7, int(c[1]) + 8)
            cv2.putText(small, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.7, BLACK, 4, cv2.LINE_AA)
            cv2.putText(small, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.7, WHITE, 2, cv2.LINE_AA)
        panels.append(small)

    width = max(tiles.shape[1], photo_width)
    header = np.full((56, width, 3), 255, np.uint8)
    seps = "  ".join(f"{a} {cal.report.get(a, {}).get('separation', 0):.1f}" for a in ATTRIBUTES)
    # (short enough to end before the colour swatches at the right)
    cv2.putText(header, f"separation: {seps}", (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, BLACK, 1, cv2.LINE_AA)
    # which classes were adapted to this set, and which kept the model calibration started from
    forms = {"adapted": "adapted", "rescaled": "rescaled", "default": "unchanged"}
    groups = {}
    for a in ATTRIBUTES:
        groups.setdefault(forms.get(cal.report.get(a, {}).get("model", ""), ""), []).append(a)
    text = "; ".join(f"{k}: {', '.join(v)}" for k, v in groups.items() if k)
    text = f"models {text}" if text else ""
    if cal.set_size:  # pieces read through a window fitted to the set (calibration.learn.choose_set_size)
        text = f"a {cal.set_size} set" + (f"; {text}" if text else "")
    if text:
        cv2.putText(header, text, (8, 44), cv2.FONT_HERSHEY_SIMPLEX, 0.45, BLACK, 1, cv2.LINE_AA)
    _colour_swatches(header, set_colours(cal.profile))
    rows = [header, _pad(tiles, width)] + [_pad(p, width) for p in panels]
    return np.concatenate(rows, axis=0)


def lab_to_bgr(lab) -> tuple[int, int, int]:
    """A CIE Lab colour (L 0-100) as an 8-bit BGR triple."""
    px = np.array([[lab]], np.float32)
    bgr = cv2.cvtColor(px, cv2.COLOR_Lab2BGR)[0, 0]
    return tuple(int(v) for v in np.clip(np.round(bgr * 255.0), 0, 255))


def _colour_swatches(header: np.ndarray, colours: tuple) -> None:
    """The set's two colours learned for the watch (``pieces.set_colours``), drawn at the
    header's right end as two labelled swatches; nothing when none were learned."""
    if not colours:
        return
    x = header.shape[1] - 150
    for k, (label, lab) in enumerate((("light", colours[0:3]), ("dark", colours[3:6]))):
        x0 = x + k * 75
        cv2.rectangle(header, (x0, 6), (x0 + 30, 30), lab_to_bgr(lab), -1)
        cv2.rectangle(header, (x0, 6), (x0 + 30, 30), BLACK, 1)
        cv2.putText(header, label, (x0 + 34, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.45, BLACK, 1, cv2.LINE_AA)


def _pad(img: np.ndarray, width: int) -> np.ndarray:
    if img.shape[1] == width:
        return img
    out = np.full((img.shape[0], width, 3), 255, np.uint8)
    out[:, :img.shape[1]] = img
    return out
