"""Stacked attribute models (a default model adapted to one set) and the adapting fit."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.adapt import fit_towards
from vision.attributes import AttributeModel, ModelError, models_from_dict
from vision.features import FEATURE_NAMES
from vision.settings import SettingsError, VisionSettings

BASE = {"features": ["height", "cup"], "mean": [0.5, 0.0], "scale": [2.0, 1.0], "coef": [1.5, -0.5], "intercept": 0.2}


def _stacked(**over):
    d = {"features": ["lightness"], "mean": [1.0], "scale": [0.5], "coef": [2.0, -1.0], "intercept": 0.3,
         "base": dict(BASE)}
    d.update(over)
    return d


def test_a_stacked_model_scores_its_base_plus_its_own_features():
    rng = np.random.default_rng(0)
    X = rng.normal(0, 1, (20, len(FEATURE_NAMES)))
    base = AttributeModel.from_dict(BASE, "tall")
    stacked = AttributeModel.from_dict(_stacked(), "tall")
    light = X[:, FEATURE_NAMES.index("lightness")]
    expected = 2.0 * base.decision(X, FEATURE_NAMES) - 1.0 * (light - 1.0) / 0.5 + 0.3
    assert np.allclose(stacked.decision(X, FEATURE_NAMES), expected)
    assert np.allclose(stacked.predict_proba(X, FEATURE_NAMES), 1 / (1 + np.exp(-expected)))


def test_stacked_and_plain_models_round_trip_through_settings():
    s = VisionSettings()
    s.attributes = {**s.attributes, "tall": _stacked(), "dark": dict(BASE)}
    again = VisionSettings.from_dict(s.to_dict())
    assert again.attributes["tall"] == _stacked() and again.attributes["dark"] == BASE
    m = models_from_dict(again.attributes)
    assert m["tall"].base is not None and m["dark"].base is None
    assert AttributeModel.from_dict(_stacked(), "tall").to_dict() == _stacked()


@pytest.mark.parametrize("model, says", [
    (_stacked(coef=[2.0]), "one coefficient more than features"),
    (_stacked(base={"features": ["no-such"], "mean": [0], "scale": [1], "coef": [1]}), "'no-such'"),
    (_stacked(base="nonsense"), "must be an object"),
    (_stacked(intercept=float("nan")), "non-finite"),
])
def test_a_broken_stacked_model_is_refused_saying_what(model, says):
    with pytest.raises(SettingsError) as e:
        VisionSettings.from_dict({"attributes": {"tall": model}})
    assert says in str(e.value) and "'tall'" in str(e.value)


def test_models_cannot_stack_without_end():
    d = dict(BASE)
    for _ in range(6):
        d = {"features": [], "mean": [], "scale": [], "coef": [1.0], "intercept": 0.0, "base": d}
    with pytest.raises(ModelError, match="stacks more than"):
        AttributeModel.from_dict(d, "tall")


def test_the_fit_stays_at_the_default_without_evidence_and_moves_with_it():
    rng = np.random.default_rng(1)
    still, moved = [], []
    for _ in range(20):  # 20 calibrations of 32 pieces each
        b = rng.normal(0, 2, 32)
        Z = rng.normal(0, 1, (32, 2))
        # labels exactly as likely as the default says: the weights stay near (1, 0, 0, 0)
        y = (rng.random(32) < 1 / (1 + np.exp(-b))).astype(float)
        still.append(fit_towards(b, Z, y))
        # labels told by the first measurement: its weight grows, the other's does not
        moved.append(fit_towards(b, Z, (Z[:, 0] > 0).astype(float)))
    still, moved = np.array(still), np.array(moved)
    assert abs(np.mean(still[:, 0]) - 1) < 0.2 and np.all(np.mean(np.abs(still[:, 1:3]), 0) < 0.5)
    assert np.all(moved[:, 1] > 1.5) and np.mean(np.abs(moved[:, 2])) < 0.5
