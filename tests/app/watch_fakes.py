"""Scripted stand-ins for the camera, vision and speech, for the watch tests.

A script is a list of board readings at a fixed frame rate: ``Script(fps).hold(cells,
seconds)`` appends that many frames of a clear board, ``.hand(seconds)`` frames with a
hand over the board. ``ScriptedSource`` plays it as frames (``t = i / fps``) and
``ScriptedStep`` hands back the reading of each frame, as vision would.
"""

from __future__ import annotations

import numpy as np

from quarto_assist.capture import CameraLost, Frame
from vision.reading import BoardReading

# a board seen square-on: cell 0 at the far left, row 4 (cells 12-15) nearest the camera
GRID = np.array([[400 + 100 * (i % 4), 150 + 100 * (i // 4)] for i in range(16)], float)
CORNERS = np.array([[350, 100], [750, 100], [750, 500], [350, 500]], float)


def board(text: str) -> list:
    """'A.../..../..../....' -> 16 pieces or None."""
    cells = text.replace("/", "")
    assert len(cells) == 16, text
    return [None if ch == "." else int(ch, 16) for ch in cells]


def reading(cells, obstructed: bool = False, centers=GRID, perm=None, found=True, reason="") -> BoardReading:
    """A reading of ``cells`` (game order). ``perm``: vision numbers its cells otherwise:
    vision cell j is game cell perm[j]."""
    if not found:
        return BoardReading.not_found(reason or "no board in view")
    cells = list(cells)
    centers = np.asarray(centers, float)
    if perm is not None:
        cells = [cells[perm[j]] for j in range(16)]
        centers = centers[list(perm)]
    obs = np.full(16, bool(obstructed))
    return BoardReading(found=True, reason="hand over the board" if obstructed else "", corners=CORNERS.copy(),
                        cell_centers=centers.copy(), cells=cells, confidence=np.ones(16), obstructed=obs)


class Script:
    def __init__(self, fps: float = 10.0):
        self.fps = fps
        self.readings: list[BoardReading] = []

    @property
    def t(self) -> float:
        return len(self.readings) / self.fps

    def add(self, r: BoardReading, seconds: float) -> "Script":
        self.readings.extend([r] * int(round(seconds * self.fps)))
        return self

    def hold(self, cells, seconds: float, **kw) -> "Script":
        if isinstance(cells, str):
            cells = board(cells)
        return self.add(reading(cells, **kw), seconds)

    def hand(self, seconds: float, cells=None) -> "Script":
        return self.add(reading(cells or [None] * 16, obstructed=True), seconds)

    def lost(self, seconds: float) -> "Script":
        return self.add(BoardReading.not_found("no board in view"), seconds)


class ScriptedSource:
    """Frames of a script; ``losses``: frame index -> how many reopen attempts fail
    before the camera is back (a live camera that disconnects there)."""

    def __init__(self, script: Script, live: bool = False, losses: dict | None = None):
        self.script = script
        self.fps = script.fps
        self.live = live
        self.name = "scripted"
        self.i = 0
        self.losses = dict(losses or {})
        self.down = 0
        self.reopens = 0
        self.image = np.zeros((8, 8, 3), np.uint8)

    def read(self):
        if self.i in self.losses:
            self.down = self.losses.pop(self.i)
            raise CameraLost("camera 0 stopped delivering frames")
        if self.i >= len(self.script.readings):
            return None
        f = Frame(self.image, self.i / self.fps, self.i)
        self.i += 1
        return f

    def reopen(self):
        self.reopens += 1
        if self.down > 0:
            self.down -= 1
            raise CameraLost("camera 0 is still not available")

    def close(self):
        pass


class ScriptedStep:
    """Vision stand-in: the scripted reading for the frame at time ``t``."""

    def __init__(self, script: Script):
        self.script = script

    def __call__(self, image, t: float):
        return self.script.readings[int(round(t * self.script.fps))]
