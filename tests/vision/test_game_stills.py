"""Stills from a rendered game video (vision.game_stills): each state of the board once, no
hand in view, the pieces as the truth has them then, readable as any rendered still."""

import json
import os

import cv2
import numpy as np

from vision.evaluation import load_truth
from vision.game_stills import state_frames, write_stills

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "game01.mp4")


def _truth():
    with open(os.path.splitext(SAMPLE)[0] + ".json", encoding="utf-8") as f:
        return json.load(f)


def test_each_state_of_the_board_is_one_still_with_no_hand_in_view():
    truth = _truth()
    states = state_frames(truth)
    assert len(states) == len(truth["placements"]) + 1  # the empty board, then after each piece
    fps = truth["fps"]
    for k, (frame, cells) in enumerate(states):
        t = frame / fps
        assert all(not (h["from_t"] <= t <= h["to_t"]) for h in truth["hands"])
        assert sum(c is not None for c in cells) == k
        settled = [p for p in truth["placements"] if p["settled_t"] <= t]
        assert {p["cell"]: p["piece"] for p in settled} == {i: c for i, c in enumerate(cells) if c is not None}


def test_stills_are_written_as_rendered_stills_with_truth(tmp_path):
    n = write_stills(SAMPLE, str(tmp_path), per_state=2)
    truths = sorted(tmp_path.glob("*.json"))
    assert n == len(truths) == 2 * (len(_truth()["placements"]) + 1)
    last = load_truth(truths[-1])
    img = cv2.imread(str(tmp_path / last["image"]))
    assert img.shape == (last["height"], last["width"], 3)
    assert sum(c is not None for c in last["cells"]) == 12
    # the frame is the video's: the board's cells are where the truth puts them
    assert np.asarray(last["cell_centers"]).shape == (16, 2)
    # ... and the picture is the video's frame it names, not another
    cap = cv2.VideoCapture(SAMPLE)
    cap.set(cv2.CAP_PROP_POS_FRAMES, last["frame"])
    ok, frame = cap.read()
    cap.release()
    assert ok and np.array_equal(frame, img)


def test_several_stills_of_a_state_are_spread_over_the_time_it_stands():
    truth = _truth()
    one, two = state_frames(truth, 1), state_frames(truth, 2)
    assert len(two) == 2 * len(one)
    for (f1, c1), (a, ca), (b, cb) in zip(one, two[0::2], two[1::2]):
        assert ca == cb == c1 and a < f1 < b  # the first and last clear frames, the middle between
