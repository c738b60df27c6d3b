"""'Board cut off at the image edge' is said only when the board network, where it looked,
also sees a board surface reaching the frame's edge: a grid the hand-made search finds
running out of the picture (a checked tablecloth) is not enough."""

from types import SimpleNamespace

import numpy as np
import pytest

import vision.recognizer as rec
from vision.recognizer import CUT_OFF, NO_BOARD, Recognizer
from vision.settings import VisionSettings


@pytest.fixture
def grid_out_of_the_picture(monkeypatch):
    # the hand-made lattice search finds only a grid that leaves the picture
    monkeypatch.setattr(rec, "fit_lattice", lambda *a, **k: SimpleNamespace(cut_off=True, inside=0, H=np.eye(3), rms=1.0))
    return np.full((720, 1280, 3), 128, np.uint8)


def _network_says(monkeypatch, reason):
    # the network finds no board, sees (CUT_OFF) or does not see (NO_BOARD) a board surface
    # at the frame's edge, and asks the hand-made searches to look
    monkeypatch.setattr(Recognizer, "_net_board", lambda self, *a, **k: (None, reason, True, {}, lambda H: 0.0, None))


def test_a_grid_leaving_the_picture_is_no_board_when_the_network_sees_no_edge(monkeypatch, grid_out_of_the_picture):
    _network_says(monkeypatch, NO_BOARD)
    reading = Recognizer().analyze(grid_out_of_the_picture)
    assert not reading.found and reading.reason == NO_BOARD


def test_it_is_cut_off_when_the_network_sees_the_board_reach_the_edge(monkeypatch, grid_out_of_the_picture):
    _network_says(monkeypatch, CUT_OFF)
    reading = Recognizer().analyze(grid_out_of_the_picture)
    assert not reading.found and reading.reason == CUT_OFF


def test_without_the_network_the_grid_alone_says_cut_off(grid_out_of_the_picture):
    st = VisionSettings()
    st.board_net.enabled = False
    reading = Recognizer(st).analyze(grid_out_of_the_picture)
    assert not reading.found and reading.reason == CUT_OFF
