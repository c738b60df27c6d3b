"""The OpenCV window and its keys. The window only turns keys and clicks into actions
for :meth:`quarto_assist.session.Watcher.act`; all drawing is :func:`overlay.draw`.

Keys: ``q``/Esc quit; space or ``c`` claim "Quarto!"; ``u`` undo the last move;
``e`` correct a piece: type the cell (``a1``-``d4`` as drawn, or click it) then the
piece digit ``0``-``F`` or ``.`` for empty; ``g`` then a digit: the piece handed over
(coach mode then says where to place it).
"""

from __future__ import annotations

import os

import numpy as np

from engine.pieces import parse_piece
from engine.rules import parse_cell

from . import overlay

HEX = "0123456789abcdef"


class KeyInterpreter:
    """Keys to actions, with the small state machine of the correct and give modes."""

    def __init__(self):
        self.mode: str | None = None  # None | "edit" | "give"
        self.buffer = ""
        self.cell: int | None = None

    @property
    def edit_text(self) -> str | None:
        if self.mode == "edit":
            return self.buffer
        if self.mode == "give":
            return "piece handed over: "
        return None

    def click(self, cell: int) -> None:
        if self.mode == "edit":
            self.cell = cell
            from engine.rules import cell_name

            self.buffer = cell_name(cell) + " "

    def key(self, ch: str) -> list[tuple]:
        if ch == "\x1b":  # Esc: leave a mode, or quit
            if self.mode is None:
                return [("quit",)]
            self.mode, self.buffer, self.cell = None, "", None
            return []
        if self.mode == "edit":
            return self._edit(ch.lower())
        if self.mode == "give":
            self.mode = None
            if ch.lower() in HEX:
                return [("given", parse_piece(ch))]
            return []
        if ch == "q":
            return [("quit",)]
        if ch in (" ", "c"):
            return [("claim",)]
        if ch == "u":
            return [("undo",)]
        if ch == "e":
            self.mode, self.buffer, self.cell = "edit", "", None
        elif ch == "g":
            self.mode = "give"
        return []

    def _edit(self, ch: str) -> list[tuple]:
        if self.cell is None:
            if len(self.buffer) == 0 and ch in "abcd":
                self.buffer = ch
            elif len(self.buffer) == 1 and ch in "1234":
                self.cell = parse_cell(self.buffer + ch)
                self.buffer += ch + " "
            return []
        if ch == "." or ch in HEX:
            cell = self.cell
            self.mode, self.buffer, self.cell = None, "", None
            return [("correct", cell, None if ch == "." else parse_piece(ch))]
        return []


def _qt_fonts() -> None:
    """OpenCV's Qt build ships no fonts; point Qt at the system's so it does not
    complain on every window (the overlay draws its own text anyway)."""
    if os.path.isdir(os.environ.get("QT_QPA_FONTDIR", "")):
        return  # (the OpenCV wheel sets it to a folder it does not ship)
    for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype", "/usr/share/fonts"):
        if os.path.isdir(d):
            os.environ["QT_QPA_FONTDIR"] = d
            return


class Window:
    """A highgui window. ``show(image, view)`` draws, shows and returns the actions of
    the keys pressed meanwhile; ``poll()`` only reads keys."""

    def __init__(self, title: str = "quarto-assist watch", delay_ms: int = 1):
        _qt_fonts()
        import cv2

        self.cv2 = cv2
        self.title = title
        self.delay_ms = delay_ms
        self.keys = KeyInterpreter()
        self.last_image: np.ndarray | None = None
        self._view = None
        self._sized = False
        try:
            cv2.namedWindow(title, cv2.WINDOW_NORMAL | cv2.WINDOW_KEEPRATIO | cv2.WINDOW_GUI_NORMAL)
        except cv2.error as e:
            raise OSError(f"cannot open a window ({e.msg.strip() if hasattr(e, 'msg') else e}); "
                          "use --no-window for headless use") from None
        cv2.setMouseCallback(title, self._mouse)

    def _mouse(self, event, x, y, flags, param) -> None:
        if event != self.cv2.EVENT_LBUTTONDOWN or self._view is None or self._view.centers is None:
            return
        d = np.linalg.norm(np.asarray(self._view.centers) - np.array([x, y], float), axis=1)
        self.keys.click(int(d.argmin()))

    def show(self, image: np.ndarray, view) -> list[tuple]:
        view.edit = self.keys.edit_text
        self._view = view
        self.last_image = overlay.draw(image, view)
        if not self._sized:  # first frame: open at the frame's size (at most 1280 wide)
            h, w = self.last_image.shape[:2]
            f = min(1.0, 1280.0 / w)
            self.cv2.resizeWindow(self.title, int(w * f), int(h * f))
            self._sized = True
        self.cv2.imshow(self.title, self.last_image)
        return self.poll()

    def poll(self) -> list[tuple]:
        actions = []
        k = self.cv2.waitKey(self.delay_ms)
        try:
            if self._sized and self.cv2.getWindowProperty(self.title, self.cv2.WND_PROP_VISIBLE) < 1:
                return [("quit",)]  # the window was closed
        except self.cv2.error:
            return [("quit",)]
        while k != -1:
            k &= 0xFF
            actions.extend(self.keys.key(chr(k)))
            k = self.cv2.waitKey(1)
        return actions

    def close(self) -> None:
        try:
            self.cv2.destroyWindow(self.title)
        except self.cv2.error:
            pass
