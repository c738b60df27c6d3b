"""Square read through three windows (vision.features.WINDOW_ZOOM, WINDOW_WEIGHTS)."""

import os

import cv2
import pytest

import vision.features as features
from vision.evaluation import load_truth, score_reading
from vision.recognizer import Recognizer
from vision.settings import VisionSettings

BASE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data-windows", "game102_0400")
SHIPPED = features.WINDOW_WEIGHTS


def _score(monkeypatch, weights, size="typical"):
    """The test board read with the windows weighted ``weights``; the set's size as given
    (default "typical": this narrow set would otherwise be judged small, and every attribute
    read through the window zoomed in, which is what ``test_set_size`` covers)."""
    monkeypatch.setattr(features, "WINDOW_WEIGHTS", weights)
    settings = VisionSettings()
    settings.pieces.set_size = size
    reading = Recognizer(settings).analyze(cv2.imread(BASE + ".jpg"))
    return reading, score_reading(reading, load_truth(BASE + ".json"), 0.0)


def test_a_narrow_sets_square_pieces_are_read_through_three_windows(monkeypatch, lead_network_alone):
    # eleven pieces of a narrow set (0.42 of a pitch wide) on the walnut board, no profile:
    # through the plain window alone three pieces' square is misread; with the windows zoomed
    # in and out beside it, one is
    _, plain = _score(monkeypatch, (1.0, 0.0, 0.0))
    _, three = _score(monkeypatch, SHIPPED)
    assert three["attrs_scored"] == plain["attrs_scored"] == 11
    assert plain["square_right"] <= 8
    assert three["square_right"] >= 10
    assert three["cells_right"] > plain["cells_right"]
    # by default the board's eleven pieces tell a small set, read through the window zoomed in
    judged, auto = _score(monkeypatch, SHIPPED, size="auto")
    assert judged.small_set is True
    assert auto["square_right"] >= 10 and auto["cells_right"] >= three["cells_right"]


def test_the_other_attributes_stay_as_the_plain_window_reads_them(monkeypatch):
    plain, _ = _score(monkeypatch, (1.0, 0.0, 0.0))
    three, _ = _score(monkeypatch, SHIPPED)
    assert [c is None for c in three.cells] == [c is None for c in plain.cells]
    # the network's logits of occupancy, tall, dark and hollow do not move; square's do
    col = {name: features.FEATURE_INDEX[f"net_{name}"] for name in ("occupied", "tall", "dark", "square", "hollow")}
    for name in ("occupied", "tall", "dark", "hollow"):
        assert three.features[:, col[name]] == pytest.approx(plain.features[:, col[name]])
    assert three.features[:, col["square"]] != pytest.approx(plain.features[:, col["square"]])


def test_the_per_frame_step_reads_square_through_the_plain_window(monkeypatch):
    # the watch names each new piece by a full analysis; the step's square is the plain one's
    image = cv2.imread(BASE + ".jpg")
    col = features.FEATURE_INDEX["net_square"]
    steps = []
    for weights in ((1.0, 0.0, 0.0), SHIPPED):
        monkeypatch.setattr(features, "WINDOW_WEIGHTS", weights)
        rec = Recognizer()
        full = rec.analyze(image)
        steps.append(rec.track(image, full).features[:, col])
    assert steps[1] == pytest.approx(steps[0])
