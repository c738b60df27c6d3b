"""The per-frame step reads the pieces from the piece network alone (the hand-made
measurements are most of its cost); the full analysis, which the watch asks for once per
placement, keeps the whole reading."""

import os

import cv2
import numpy as np
import pytest

from vision import Recognizer
from vision.attributes import models_from_dict, networks_only, with_net
from vision.features import FEATURE_NAMES
from vision.net import NET_FEATURE_NAMES
from vision.settings import VisionSettings, apply_override

PHOTO = os.path.join(os.path.dirname(__file__), "..", "data", "printed-grid-red-white.jpg")
MEASURED = [i for i, n in enumerate(FEATURE_NAMES) if not n.startswith("net_")]
NET = [FEATURE_NAMES.index(n) for n in NET_FEATURE_NAMES]


@pytest.fixture(scope="module")
def photo():
    img = cv2.imread(PHOTO)
    assert img is not None, PHOTO
    return img


def test_the_step_reads_from_the_network_alone(photo):
    rec = Recognizer()
    full = rec.analyze(photo)
    assert full.found, full.reason
    step = rec.track(photo, full)
    assert step.found and not step.obstructed.any()
    assert np.abs(full.features[:, MEASURED]).sum() > 0  # the analysis measures everything
    assert not step.features[:, MEASURED].any()  # the step only ran the network
    assert np.allclose(step.probabilities, 1.0 / (1.0 + np.exp(-step.features[:, NET])))
    # the same frame: the step sees the same cells taken and empty as the analysis
    assert [c is None for c in step.cells] == [c is None for c in full.cells]


def test_the_step_can_keep_the_whole_reading(photo):
    settings = VisionSettings()
    apply_override(settings, "pieces.step_networks_only=false")
    rec = Recognizer(settings)
    full = rec.analyze(photo)
    step = rec.track(photo, full)
    assert np.abs(step.features[:, MEASURED]).sum() > 0
    # one look (the step does not read the mirrored board), else the same reading
    assert [c is None for c in step.cells] == [c is None for c in full.cells]


def test_which_models_need_only_the_network():
    shipped = VisionSettings().attributes
    assert not networks_only(models_from_dict(shipped))  # 0.7 network, 0.3 measurements
    # a stack whose measured part has no weight does not need the measurements made
    alone = models_from_dict(with_net(shipped, 1.0))
    assert networks_only(alone)
    X = np.random.default_rng(0).normal(0, 1, (16, len(FEATURE_NAMES)))
    for name, m in alone.items():
        assert np.allclose(m.decision(X, FEATURE_NAMES), X[:, FEATURE_NAMES.index(f"net_{name}")])
