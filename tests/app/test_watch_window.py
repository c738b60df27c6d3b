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


def test_a_piece_the_camera_is_unsure_of_gets_an_orange_question_mark_and_a_line_to_check():
    img = np.full((600, 1000, 3), 90, np.uint8)
    board = [None] * 16
    board[12:16] = [1, 3, 5, 15]
    plain = draw(img, ViewState(t=30.0, reading=reading(board), centers=GRID, board=board))
    marked = draw(img, ViewState(t=30.0, reading=reading(board), centers=GRID, board=board, doubtful={15: ["tall"]}))
    x, y = GRID[15].astype(int)
    near = (marked != plain).any(axis=2)[y - 40:y + 10, x:x + 40]  # beside the piece's own mark
    assert near.any()
    changed = marked[y - 40:y + 10, x:x + 40][near]
    assert ((changed[:, 2] > 200) & (changed[:, 1] > 120) & (changed[:, 0] < 60)).any()  # orange
    assert (marked[40:70, :600] != plain[40:70, :600]).any()  # "check: d4 tall?" in the top panel
    assert ((marked[..., 0] != plain[..., 0]).any(axis=1)).sum() > 0
    far = GRID[12].astype(int)  # the sure pieces are drawn as before
    assert (marked[far[1] - 10:far[1] + 10, far[0] - 10:far[0] + 10] == plain[far[1] - 10:far[1] + 10,
                                                                               far[0] - 10:far[0] + 10]).all()
