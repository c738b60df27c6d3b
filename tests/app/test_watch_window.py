"""What the window shows and how keys become actions (drawing is tested headless)."""

import numpy as np

from quarto_assist.overlay import draw
from quarto_assist.session import Message, ViewState
from quarto_assist.window import KeyInterpreter
from watch_fakes import GRID, reading


def keys(text):
    k = KeyInterpreter()
    out = []
    for ch in text:
        out += k.key(ch)
    return out


def test_keys_quit_claim_undo():
    assert keys("q") == [("quit",)]
    assert keys(" ") == [("claim",)] and keys("c") == [("claim",)]
    assert keys("u") == [("undo",)]


def test_correct_a_piece_by_cell_name_and_hex_digit():
    assert keys("eb3a") == [("correct", 9, 10)]
    assert keys("ed4.") == [("correct", 15, None)]
    assert keys("ea\x1bq") == [("quit",)]  # Esc leaves the correct mode


def test_coach_given_piece():
    assert keys("gF") == [("given", 15)]


def test_overlay_marks_the_winning_line_last_move_and_messages():
    img = np.full((600, 1000, 3), 90, np.uint8)
    board = [None] * 16
    board[12:16] = [1, 3, 5, 15]
    v = ViewState(t=5.0, reading=reading(board), centers=GRID, board=board, last_cell=15,
                  winning=[[12, 13, 14, 15]], messages=[Message(4.9, "Кварто! Ближний к камере ряд: все высокие.",
                                                                "quarto")])
    out = draw(img, v)
    assert out.shape == img.shape and img.mean() == 90  # a copy; the frame is untouched
    mid = ((GRID[12] + GRID[13]) / 2).astype(int)
    assert tuple(out[mid[1], mid[0]]) == (0, 215, 255)  # gold line between two cells of the line
    assert (out[-60:] != 90).any()  # the message panel at the bottom


def test_overlay_marks_a_line_to_check_thin_and_orange():
    img = np.full((600, 1000, 3), 90, np.uint8)
    board = [None] * 16
    board[12:16] = [1, 3, 5, 15]
    out = draw(img, ViewState(t=5.0, reading=reading(board), centers=GRID, board=board, unsure=[[12, 13, 14, 15]]))
    mid = ((GRID[12] + GRID[13]) / 2).astype(int)
    assert tuple(out[mid[1], mid[0]]) == (0, 160, 255)  # orange between two cells of the line
    assert tuple(out[mid[1] + 12, mid[0]]) == (90, 90, 90)  # thin: not the gold line's width


def test_setup_advice_stays_in_the_top_panel_in_orange():
    img = np.full((600, 1000, 3), 90, np.uint8)
    plain = draw(img, ViewState(t=30.0, reading=reading([None] * 16), centers=GRID))
    told = draw(img, ViewState(t=30.0, reading=reading([None] * 16), centers=GRID,
                               setup=["camera straight above: tall/short unsure - tilt it"]))
    band = told[40:70, :600]  # the panel's second line, long after any message has gone
    assert (band != plain[40:70, :600]).any()
    assert ((band[..., 2] > 200) & (band[..., 1] > 120) & (band[..., 0] < 60)).any()  # orange text
