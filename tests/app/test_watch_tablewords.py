"""Lines are named as a player at the table sees them, whatever the board's turn."""

import numpy as np

from engine.rules import BLOCKS, COLUMNS, DIAGONALS, ROWS
from quarto_assist.phrases import Phrases
from quarto_assist.tablewords import cell_keys, group_key

EN = Phrases("en")


def grid(angle_deg: float, tilt: float = 0.0) -> np.ndarray:
    """Cell centres of a board turned by ``angle_deg`` in the image (cell 0 far left at 0),
    the far side squeezed by ``tilt`` (perspective)."""
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = np.array([[(i % 4) - 1.5, (i // 4) - 1.5] for i in range(16)]) @ R.T
    squeeze = 1 - tilt * (1.5 - pts[:, 1]) / 3  # far (small y) rows narrower
    return np.c_[640 + 80 * pts[:, 0] * squeeze, 360 + 80 * pts[:, 1]]


def name(mask, centers):
    return EN.place(group_key(mask, centers))


def test_square_on_board_with_perspective():
    c = grid(0, tilt=0.4)
    assert name(ROWS[3], c) == "the row nearest the camera"
    assert name(ROWS[0], c) == "the row farthest from the camera"
    assert name(COLUMNS[0], c) == "the column on the left"
    assert name(COLUMNS[2], c) == "the second column from the right"
    assert name(DIAGONALS[0], c) == "the diagonal from the near right corner to the far left corner"
    assert name(BLOCKS[6], c) == "the near left square of four"
    assert EN.cell(cell_keys(13, c)) == "where the row nearest the camera meets the second column from the left"


def test_board_turned_the_other_way_round_keeps_the_players_view():
    c = grid(180)  # vision numbered from the near right corner
    assert name(ROWS[0], c) == "the row nearest the camera"
    assert name(COLUMNS[0], c) == "the column on the right"


def test_diamond_board_names_edges_and_the_diagonals_across_and_away():
    c = grid(45)
    names = {name(m, c) for m in ROWS + COLUMNS}
    assert len(names) == 8 and all("edge" in n for n in names)
    assert {name(m, c) for m in DIAGONALS} == {"the diagonal running across",
                                              "the diagonal running away from the camera"}
    assert len({name(b, c) for b in BLOCKS}) == 9
