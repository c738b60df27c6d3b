"""A board with every cell hidden from the camera is not one a camera can find."""

import json

from vision.evaluation import BOARD_HIDDEN, load_truth, score_reading
from vision.reading import BoardReading


def _truth(tmp_path, hidden):
    t = {"image": "x.jpg", "board_found_expected": True, "negative": None,
         "cell_centers": [[10.0 * i, 5.0 * i] for i in range(16)], "cells": [None] * 16, "hidden": hidden}
    p = tmp_path / "x.json"
    p.write_text(json.dumps(t))
    return load_truth(p)


def test_a_board_hidden_everywhere_is_expected_to_give_no_board(tmp_path):
    t = _truth(tmp_path, [True] * 16)
    assert t["board_found_expected"] is False and t["negative"] == BOARD_HIDDEN
    row = score_reading(BoardReading(found=False, reason="no board in view"), t, 0.1)
    assert row["board_expected"] == 0 and row["board_right"] == 1


def test_a_board_with_one_cell_in_view_is_still_expected(tmp_path):
    t = _truth(tmp_path, [True] * 15 + [False])
    assert t["board_found_expected"] is True and t["negative"] is None
