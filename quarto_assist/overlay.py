"""Drawing the watch view: the frame with the board, pieces, last move, winning line,
coach marks, messages and the keys. Pure: an image and a
:class:`~quarto_assist.session.ViewState` in, a new image out.

All positions are image pixels (x, y). Text uses OpenCV's built-in Unicode font when
available (OpenCV 5), so Russian, Hungarian and Latvian show as written.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.pieces import DARK, piece_symbol
from engine.rules import cell_name

KEYS = "q quit   space/c claim Quarto!   u undo   e correct a piece (cell, then 0-F or .)   g piece handed over"

GREEN = (80, 200, 80)
ORANGE = (0, 160, 255)
RED = (40, 40, 230)
GOLD = (0, 215, 255)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
CYAN = (230, 200, 0)

_FONT = None


def _font():
    global _FONT
    if _FONT is None:
        try:
            _FONT = cv2.FontFace("sans")
        except (AttributeError, cv2.error):
            _FONT = False
    return _FONT


def text(img: np.ndarray, s: str, org, size: int = 22, color=WHITE, shadow: bool = True) -> None:
    """Write ``s`` with its baseline starting at ``org`` (x, y); ``size`` in pixels."""
    x, y = int(org[0]), int(org[1])
    f = _font()
    if f:
        if shadow:
            cv2.putText(img, s, (x + 1, y + 1), BLACK, f, size, 500)
        cv2.putText(img, s, (x, y), color, f, size, 500)
    else:  # older OpenCV: Hershey font, ASCII only
        scale = size / 30.0
        if shadow:
            cv2.putText(img, s, (x + 1, y + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, 3, cv2.LINE_AA)
        cv2.putText(img, s, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, color, 1, cv2.LINE_AA)


def _wrap(s: str, width: int) -> list[str]:
    words, lines, cur = s.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        lines.append(cur)
    return lines


def _panel(img, x0, y0, x1, y1, alpha=0.55):
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = (img[y0:y1, x0:x1] * (1 - alpha)).astype(img.dtype)


def draw(image: np.ndarray, view) -> np.ndarray:
    """The frame with everything the player needs drawn on it (a copy)."""
    img = image.copy()
    h, w = img.shape[:2]
    s = max(0.6, w / 1280.0)
    reading = view.reading
    centers = view.centers
    if reading is not None and getattr(reading, "found", False) and getattr(reading, "corners", None) is not None:
        color = GREEN if reading.clear else ORANGE
        pts = np.asarray(reading.corners, float).reshape(-1, 1, 2).round().astype(np.int32)
        cv2.polylines(img, [pts], True, color, max(1, int(2 * s)), cv2.LINE_AA)
    if centers is not None:
        spacing = float(np.linalg.norm(centers[1] - centers[0])) if len(centers) > 1 else 40.0
        r = max(7, int(0.2 * spacing))  # small enough to leave the real piece in view
        for line in view.winning:
            pts = np.asarray([centers[c] for c in line], float).round().astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [pts], False, GOLD, max(3, int(r * 0.6)), cv2.LINE_AA)
        for line in getattr(view, "unsure", []):  # a line to check: thin and orange
            pts = np.asarray([centers[c] for c in line], float).round().astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [pts], False, ORANGE, max(2, int(r * 0.2)), cv2.LINE_AA)
        for c in range(16):
            x, y = (int(round(v)) for v in centers[c])
            p = view.board[c]
            if p is not None:
                fill = (60, 60, 60) if p & DARK else (220, 220, 220)
                ink = WHITE if p & DARK else BLACK
                cv2.circle(img, (x, y), r, fill, -1, cv2.LINE_AA)
                cv2.circle(img, (x, y), r, WHITE, 1, cv2.LINE_AA)
                text(img, piece_symbol(p), (x - int(r * 0.45), y + int(r * 0.5)), int(r * 1.3), ink, shadow=False)
                if c in view.doubtful:  # the camera is unsure of this piece: check it
                    text(img, "?", (x + int(r * 0.8), y - int(r * 0.5)), int(r * 1.4), ORANGE)
            else:
                cv2.circle(img, (x, y), max(2, r // 5), (200, 200, 200), -1, cv2.LINE_AA)
            if view.edit is not None:
                text(img, cell_name(c), (x - r, y - r - 2), max(14, int(r * 0.9)), CYAN)
        if view.last_cell is not None:
            x, y = (int(round(v)) for v in centers[view.last_cell])
            cv2.circle(img, (x, y), r + int(6 * s), CYAN, max(2, int(2 * s)), cv2.LINE_AA)
        for c in view.flagged_cells:
            x, y = (int(round(v)) for v in centers[c])
            cv2.circle(img, (x, y), r + int(10 * s), RED, max(2, int(3 * s)), cv2.LINE_AA)
        if view.coach and view.coach_place is not None:
            x, y = (int(round(v)) for v in centers[view.coach_place])
            cv2.circle(img, (x, y), r + int(4 * s), GREEN, max(2, int(3 * s)), cv2.LINE_AA)
            text(img, "here", (x + r, y - r), int(18 * s), GREEN)

    # top panel: state; bottom: messages and keys
    # (text, colour): the state's status and the setup advice in orange
    lines = [(f"t {view.t:6.1f}s   {view.variant}   grace {view.grace:g}s" + ("   coach" if view.coach else "")
              + ("   GAME OVER" if view.over else ""), WHITE)]
    if view.status:
        lines.append((view.status, ORANGE))
    lines += [(f"setup: {a}", ORANGE) for a in view.setup]
    if view.doubtful:
        lines.append(("check: " + ", ".join(f"{cell_name(c)} {'/'.join(w)}?" for c, w in sorted(view.doubtful.items()))
                      + "   (e corrects)", ORANGE))
    if view.coach:
        if view.coach_give is not None:
            lines.append((f"coach: hand over {piece_symbol(view.coach_give)}", WHITE))
        if view.coach_poison:
            lines.append(("poison: " + " ".join(piece_symbol(q) for q in view.coach_poison), WHITE))
    if view.edit is not None:
        lines.append((f"correct: {view.edit or ''}_   (cell a1-d4, then piece 0-F or . for empty; Esc cancels)", WHITE))
    size = int(22 * s)
    _panel(img, 0, 0, w, int((len(lines) + 0.6) * size * 1.3))
    for i, (ln, colour) in enumerate(lines):
        text(img, ln, (int(10 * s), int((i + 1) * size * 1.3)), size, colour)

    msgs = []
    for m in view.messages[-3:]:
        if view.t - m.t <= 12.0:
            for part in _wrap(m.text, int(w / (size * 0.5))):
                msgs.append((part, m.kind))
    msgs = msgs[-5:]
    keys_y = h - int(10 * s)
    top = keys_y - int((len(msgs) + 1.2) * size * 1.3)
    _panel(img, 0, top, w, h)
    for i, (ln, kind) in enumerate(msgs):
        color = {"quarto": GOLD, "flag": RED, "coach": GREEN}.get(kind, WHITE)
        text(img, ln, (int(10 * s), top + int((i + 1) * size * 1.3)), size, color)
    text(img, KEYS, (int(10 * s), keys_y), int(17 * s), (200, 200, 200))
    return img
