"""The vision step: full analysis only when needed, and a board that seems to jump by a
cell in one analysis is not believed until readings agree on it."""

import numpy as np

from quarto_assist.vision_step import VisionStep
from watch_fakes import GRID, reading


class Recognizer:
    """analyze() returns the boards given in turn; track() keeps the previous board."""

    def __init__(self, boards):
        self.boards = list(boards)
        self.analyses = 0
        self.tracks = 0

    def analyze(self, frame):
        self.analyses += 1
        return reading([None] * 16, centers=self.boards.pop(0) if len(self.boards) > 1 else self.boards[0])

    def track(self, frame, previous):
        self.tracks += 1
        r = reading([None] * 16, centers=previous.cell_centers)
        r.obstructed[:] = True  # a hand stays over the board: the step re-checks with full analyses
        r.reason = "hand over the board"
        return r


def test_a_one_off_jump_of_the_lattice_is_not_believed():
    shifted = GRID + np.array([100.0, 0.0])  # one cell to the right
    rec = Recognizer([GRID, shifted, GRID, GRID])
    step = VisionStep(rec, recheck_after=0.5)
    img = np.zeros((8, 8, 3), np.uint8)
    out = [step(img, k / 10) for k in range(30)]
    assert rec.analyses >= 3 and rec.tracks > 10
    # after the odd analysis, tracking goes on from the board as it was
    assert np.allclose(step.previous.cell_centers, GRID)
    assert np.allclose(out[-1].cell_centers, GRID)


def test_a_board_that_really_moved_is_followed_after_three_agreeing_readings():
    shifted = GRID + np.array([100.0, 0.0])
    rec = Recognizer([GRID, shifted])  # every analysis after the first sees it moved
    step = VisionStep(rec, recheck_after=0.2)
    img = np.zeros((8, 8, 3), np.uint8)
    for k in range(60):
        r = step(img, k / 10)
    assert np.allclose(step._anchor, shifted)
