"""Attribute models, unsupervised learning and the joint assignment."""

import numpy as np
import pytest

from vision.assign import assign_pieces
from vision.attributes import PIECE_ATTRIBUTES, PRIMARY_FEATURE, fit_unsupervised, models_from_dict
from vision.features import FEATURE_NAMES
from vision.settings import SettingsError, VisionSettings


def _board(rng, pieces, noise=0.1, shift=0.0):
    """(16, D) fake features where each attribute's primary feature tells the bit."""
    X = rng.normal(0, 1, (16, len(FEATURE_NAMES)))
    for j, a in enumerate(PIECE_ATTRIBUTES):
        feat, sign = PRIMARY_FEATURE[a]
        bits = np.array([(p >> j) & 1 for p in pieces])
        X[:, FEATURE_NAMES.index(feat)] = sign * (bits - 0.5) * 2 + rng.normal(0, noise, 16) + shift
    return X


def test_unsupervised_learning_recovers_all_pieces_of_a_new_board():
    rng = np.random.default_rng(0)
    boards = [_board(rng, rng.permutation(16)) for _ in range(2)]
    models, report = fit_unsupervised(boards)
    assert set(models) == set(PIECE_ATTRIBUTES)
    assert all(r["clean"] for r in report.values()), report
    learned = models_from_dict(models)
    pieces = rng.permutation(16)
    X = _board(rng, pieces)
    probs = np.stack([learned[a].predict_proba(X, FEATURE_NAMES) for a in PIECE_ATTRIBUTES], 1)
    assert assign_pieces(np.ones(16), probs) == list(pieces)


def test_unsupervised_learning_reports_a_class_that_does_not_separate():
    rng = np.random.default_rng(1)
    boards = [_board(rng, rng.permutation(16)) for _ in range(2)]
    j = FEATURE_NAMES.index(PRIMARY_FEATURE["hollow"][0])
    for b in boards:  # the cup cannot be seen: pure noise
        b[:, j] = rng.normal(0, 1, 16)
    _, report = fit_unsupervised(boards)
    assert not report["hollow"]["clean"] and report["tall"]["clean"]


def test_models_round_trip_through_settings():
    rng = np.random.default_rng(2)
    models, _ = fit_unsupervised([_board(rng, rng.permutation(16))])
    s = VisionSettings()
    s.attributes = {**s.attributes, **models}
    again = VisionSettings.from_dict(s.to_dict())
    assert again.attributes["tall"] == s.attributes["tall"]


def test_joint_assignment_resolves_a_doubtful_cell():
    # cells 0 and 1 both look most like piece 0; cell 1 is less sure of "tall"
    probs = np.array([[0.1, 0.1, 0.1, 0.1], [0.4, 0.1, 0.1, 0.1]] + [[0.5] * 4] * 14)
    occ = np.array([1, 1] + [0] * 14)
    cells = assign_pieces(occ, probs)
    assert cells[0] == 0 and cells[1] == 1 and cells[2:] == [None] * 14


@pytest.mark.parametrize("data, says", [
    ({"nonsense": 1}, "'nonsense'"),
    ({"lattice": {"min_cells": "seven"}}, "'seven'"),
    ({"attributes": {"tall": {"features": ["no-such"], "mean": [0], "scale": [1], "coef": [1]}}}, "'no-such'"),
    ([1, 2], "[1, 2]"),
])
def test_bad_settings_are_refused_quoting_the_value(data, says):
    with pytest.raises(SettingsError, match=None) as e:
        VisionSettings.from_dict(data)
    assert says in str(e.value)


def test_a_hidden_layer_model_learns_what_a_line_cannot_and_reads_back_the_same():
    """An attribute set when two measurements agree in sign (XOR-like): no logistic
    regression gets it, one hidden layer does, and its saved form scores the same."""
    from vision.attributes import AttributeModel, fit_hidden

    rng = np.random.default_rng(1)
    X = rng.normal(0, 1, (1500, len(FEATURE_NAMES)))
    a, b = FEATURE_NAMES.index("height"), FEATURE_NAMES.index("cup")
    y = (X[:, a] * X[:, b] > 0).astype(int)
    m = fit_hidden("tall", X[:1000], y[:1000], features=["height", "cup"], units=16, alpha=1e-3)
    p = m.predict_proba(X[1000:], FEATURE_NAMES)
    assert ((p > 0.5) == y[1000:]).mean() > 0.9
    back = AttributeModel.from_dict(m.to_dict(), name="tall")
    assert np.allclose(back.predict_proba(X[1000:], FEATURE_NAMES), p, atol=1e-9)


@pytest.mark.parametrize("hidden, says", [
    ({"units": 4, "weights": "AAAAAAAA", "bias": [0, 0, 0, 0]}, "does not fit"),
    ({"units": 2, "weights": "not base64!", "bias": [0, 0]}, "malformed"),
])
def test_a_broken_hidden_layer_is_refused_with_a_reason(hidden, says):
    from vision.attributes import AttributeModel, ModelError

    d = {"features": ["height"], "mean": [0.0], "scale": [1.0], "coef": [1.0] * hidden["units"],
         "intercept": 0.0, "hidden": hidden}
    with pytest.raises(ModelError, match=says):
        AttributeModel.from_dict(d, name="tall")
