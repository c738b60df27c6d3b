"""Large piece sets: their short pieces are read short (vision.set_size)."""

import os

import cv2
import numpy as np
import pytest

from vision import set_size
from vision.evaluation import load_truth, score_reading
from vision.recognizer import Recognizer
from vision.settings import VisionSettings

TESTS = os.path.dirname(os.path.dirname(__file__))
DATA = os.path.join(TESTS, "data")


def _read(name: str, size: str = "auto"):
    """``name``: a file of tests/data, ``"large-set"``: tests/data-large-set/gigamic, or
    ``"small-set"``: tests/data-small-set/game."""
    base = {"large-set": os.path.join(TESTS, "data-large-set", "gigamic"),
            "small-set": os.path.join(TESTS, "data-small-set", "game")}.get(name, os.path.join(DATA, name))
    settings = VisionSettings()
    settings.pieces.set_size = size
    reading = Recognizer(settings).analyze(cv2.imread(base + ".jpg"))
    return reading, score_reading(reading, load_truth(base + ".json"), 0.0)


def test_a_large_sets_short_pieces_are_read_short():
    # a set whose short pieces stand 0.92 of a pitch high (4.2 cm on 4.6 cm cells; tall
    # 9.1 cm), eleven pieces on the board (nine in full view of the camera)
    _, row = _read("large-set", size="auto")
    _, plain = _read("large-set", size="typical")
    assert row["attrs_scored"] == 9
    assert row["tall_right"] >= 8
    # without the detector, short pieces of this set read tall (6 of 9 right before session
    # 35; 7 since square is read through three windows, which turned the joint assignment
    # of one piece, and one square wrong: cells fully right 10 either way)
    assert plain["tall_right"] < row["tall_right"]
    assert row["cells_right"] >= plain["cells_right"]


def test_a_small_sets_tall_pieces_are_read_tall_when_the_set_is_known_to_be_small():
    # tall pieces 0.69 of a pitch high (3.7 cm on 5.4 cm cells), two of them among three
    # pieces on the board: through the plain window they look like a typical set's short ones
    _, small = _read("small-set", size="small")
    _, plain = _read("small-set", size="typical")
    _, auto = _read("small-set", size="auto")  # too few pieces to judge; nothing judges small
    assert small["attrs_scored"] == 3 and small["tall_right"] == 3
    assert plain["tall_right"] == auto["tall_right"] == 1


@pytest.mark.parametrize("name", ["full-gigamic-beech-walnut-1", "gigamic-maple-mahogany", "printed-grid-red-white"])
def test_typical_sets_read_as_without_the_detector(name):
    on, _ = _read(name, size="auto")
    off, _ = _read(name, size="typical")
    assert on.cells == off.cells


def test_the_shipped_detector_loads_and_needs_pieces_to_judge():
    model = set_size.load_model()
    assert model["zoom"] == set_size.LARGE_ZOOM
    # one piece: no judgement, the plain reading stands
    one = np.zeros(16, bool)
    one[3] = True
    assert set_size.board_statistics(one, np.zeros(16), np.zeros(16)) is None
    assert set_size.large_set_probability(None) == 0.0
    # every piece read tall plainly and short zoomed out: a large set's short pieces
    occupied = np.ones(16, bool)
    assert set_size.large_set_probability(set_size.board_statistics(occupied, np.full(16, 4.0), np.full(16, -4.0))) > \
        set_size.large_set_probability(set_size.board_statistics(occupied, np.full(16, -4.0), np.full(16, -4.0)))


@pytest.mark.parametrize("text", ["not json", '{"version": 99}', '{"version": 1, "statistics": []}'])
def test_a_broken_detector_file_is_refused_by_name(tmp_path, text):
    path = tmp_path / "set_size.json"
    path.write_text(text)
    with pytest.raises(set_size.SetSizeModelError, match="set_size.json"):
        set_size.load_model(str(path))


def test_without_a_readable_detector_sets_read_as_typical(monkeypatch, capsys):
    def broken(path=set_size.MODEL_FILE):
        raise set_size.SetSizeModelError(f"set-size model {path!r} cannot be read: test")

    monkeypatch.setattr(set_size, "load_model", broken)
    monkeypatch.setattr(set_size, "_model", None)
    reading, row = _read("large-set", size="auto")
    _, plain = _read("large-set", size="typical")
    assert reading.found and row["tall_right"] == plain["tall_right"]
    assert capsys.readouterr().err.count("large piece sets are read as typical ones") == 1


def test_the_reading_says_whether_the_set_was_judged_large():
    large, _ = _read("large-set", size="auto")
    typical, _ = _read("printed-grid-red-white", size="auto")  # 11 pieces of a typical set
    empty, _ = _read("gigamic-empty", size="auto")
    assert large.large_set is True and typical.large_set is False
    assert empty.found and empty.large_set is None  # no pieces: nothing to judge


def test_a_set_known_to_be_large_is_read_zoomed_out_on_any_board():
    # pieces.set_size "large" (a profile may say so): every board reads tall zoomed out, and
    # says so, however few pieces stand on it
    known, row = _read("large-set", size="large")
    assert known.large_set is True and row["tall_right"] >= 8
    empty, _ = _read("gigamic-empty", size="large")
    assert empty.found and empty.large_set is True
    typical, _ = _read("large-set", size="typical")
    assert typical.large_set is None


def test_the_training_command_writes_a_detector_that_is_read_back(tmp_path, capsys):
    from vision import set_size_training

    out = tmp_path / "set_size.json"
    assert set_size_training.main([DATA, os.path.join(TESTS, "data-large-set"), "--out", str(out)]) == 0
    model = set_size.load_model(str(out))
    assert model["boards"] >= 10 and model["large_boards"] >= 1
    assert model["trained_on"][os.path.join(TESTS, "data-large-set")] == 1
    # without the truth sizes it needs, it says so and writes nothing
    empty = tmp_path / "none"
    empty.mkdir()
    assert set_size_training.main([str(empty), "--out", str(tmp_path / "no.json")]) == 1
    assert "truth sizes" in capsys.readouterr().err and not (tmp_path / "no.json").exists()
