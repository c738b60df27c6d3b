"""Drawing a reading over its frame (for ``analyze --overlay`` and debugging)."""

from __future__ import annotations

import cv2
import numpy as np

from engine.pieces import piece_symbol


def piece_label(p: int) -> str:
    """``13`` -> ``'D TsQH'``-style short label: hex digit plus one letter per attribute
    (T/s tall/short, D/l dark/light, Q/r square/round, H/o hollow/solid)."""
    letters = "".join(a if p >> k & 1 else b for k, (a, b) in enumerate((("T", "s"), ("D", "l"), ("Q", "r"), ("H", "o"))))
    return f"{piece_symbol(p)} {letters}"


def draw_reading(image: np.ndarray, reading, notes=()) -> np.ndarray:
    """A copy of ``image`` (``(H, W, 3)`` uint8 BGR) with the board outline, cell
    centres and numbers, and each recognised piece's label; a banner says the reason
    when the board was not found or something is in the way; ``notes`` (short texts, e.g.
    ``vision.view_check.ViewAdvice.short``) go in an orange banner at the bottom."""
    out = image.copy()
    h, w = out.shape[:2]
    scale = max(h, w) / 1000.0
    thick = max(1, int(round(2 * scale)))
    if reading.found and reading.corners is not None:
        cv2.polylines(out, [np.round(reading.corners).astype(np.int32)], True, (0, 220, 255), thick, cv2.LINE_AA)
        for i, (x, y) in enumerate(reading.cell_centers):
            c = (int(round(x)), int(round(y)))
            bad = bool(reading.obstructed[i])
            cv2.circle(out, c, max(3, thick * 2), (0, 0, 255) if bad else (0, 255, 0), -1, cv2.LINE_AA)
            cv2.putText(out, str(i), (c[0] + 4, c[1] + int(16 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.45 * scale, (255, 255, 255), thick, cv2.LINE_AA)
            p = reading.cells[i]
            if p is not None:
                label = piece_label(p)
                org = (c[0] - int(30 * scale), c[1] - int(8 * scale))
                cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
                cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (255, 255, 0), thick, cv2.LINE_AA)
    if not reading.found or reading.reason:
        text = reading.reason or "no board"
        cv2.rectangle(out, (0, 0), (w, int(40 * scale)), (0, 0, 0), -1)
        cv2.putText(out, text, (10, int(28 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, (0, 0, 255), thick, cv2.LINE_AA)
    for k, note in enumerate(reversed(list(notes))):
        y1 = h - int(40 * scale) * k
        cv2.rectangle(out, (0, y1 - int(40 * scale)), (w, y1), (0, 0, 0), -1)
        cv2.putText(out, note, (10, y1 - int(12 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, (0, 160, 255), thick,
                    cv2.LINE_AA)
    return out
