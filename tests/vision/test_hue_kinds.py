"""A set whose two colours differ in hue more than in lightness (vision.kinds)."""

import dataclasses
import os

import cv2
import numpy as np

from vision.evaluation import load_truth, score_reading
from vision.kinds import HUE_WEIGHT, hue_kinds_log_odds
from vision.recognizer import Recognizer
from vision.settings import VisionSettings

BASE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data-hue", "green_red_0934")


def _read(hue_kinds: bool):
    st = VisionSettings()
    st = dataclasses.replace(st, pieces=dataclasses.replace(st.pieces, hue_kinds=hue_kinds))
    reading = Recognizer(st).analyze(cv2.imread(BASE + ".jpg"))
    return reading, score_reading(reading, load_truth(BASE + ".json"), 0.0)


def test_a_green_and_red_set_is_read_dark_by_its_two_kinds(lead_network_alone):
    # all 16 pieces of the held-out green-red set (red is the lighter colour) on the felt
    # board at 24 degrees in daylight, no profile: piece by piece the network reads two
    # pieces' colour the wrong way and the joint assignment makes four cells wrong; told
    # each piece's colour group, every piece is named right
    _, plain = _read(False)
    reading, kinds = _read(True)
    assert plain["attrs_scored"] == kinds["attrs_scored"] == 16
    assert plain["dark_right"] <= 14 and plain["cells_right"] <= 12
    assert kinds["dark_right"] == 16 and kinds["board_right"] == 1
    assert sorted(p for p in reading.cells if p is not None) == list(range(16))


def _lab(lights, a, b):
    return np.array([[L, a, b] for L in lights], float)


def test_two_groups_apart_in_hue_tell_every_piece_its_groups_side():
    # 8 green (a* -30) and 8 red (a* +40) pieces at the same lightness; the network reads
    # the green ones darker on the whole, one of them light and one red one dark
    lab = np.vstack([_lab(np.linspace(40, 50, 8), -30, 20), _lab(np.linspace(42, 52, 8), 40, 30)])
    dark = np.array([0.9, 0.8, 0.3, 0.7, 0.95, 0.6, 0.85, 0.9, 0.1, 0.2, 0.7, 0.05, 0.3, 0.1, 0.2, 0.15])
    out = hue_kinds_log_odds(lab, np.ones(16, bool), dark)
    assert (out[:8] == HUE_WEIGHT).all() and (out[8:] == -HUE_WEIGHT).all()


def test_nothing_is_said_where_lightness_tells_the_kinds_apart_or_the_groups_are_unclear():
    dark = np.r_[np.full(8, 0.8), np.full(8, 0.2)]
    occupied = np.ones(16, bool)
    # maple and mahogany: the two differ mostly in lightness, which the network reads itself
    lab = np.vstack([_lab(np.linspace(25, 30, 8), 20, 15), _lab(np.linspace(65, 70, 8), 8, 28)])
    assert not hue_kinds_log_odds(lab, occupied, dark).any()
    # a piece halfway between the two hues (caught in shade, or on a neighbour's colour)
    lab = np.vstack([_lab(np.linspace(40, 50, 8), -30, 20), _lab(np.linspace(42, 52, 8), 40, 30)])
    lab[3] = [45, 5, 25]
    assert not hue_kinds_log_odds(lab, occupied, dark).any()
    # too few pieces to tell two kinds, and empty cells say nothing
    few = np.zeros(16, bool)
    few[:3] = True
    assert not hue_kinds_log_odds(np.vstack([lab[:2], lab[8:]]), few, dark).any()
    lab = np.vstack([_lab(np.linspace(40, 50, 8), -30, 20), _lab(np.linspace(42, 52, 8), 40, 30)])
    some = np.zeros(16, bool)
    some[[0, 1, 2, 8, 9, 10]] = True
    out = hue_kinds_log_odds(lab, some, dark)
    assert (out[~some] == 0).all() and (out[[0, 1, 2]] > 0).all() and (out[[8, 9, 10]] < 0).all()
