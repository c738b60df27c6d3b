"""Large and small piece sets: reading the pieces from crops that fit the set's size.

The piece network's crops span a fixed number of cell pitches (``vision.crops``: 1.7 above
the cell centre). Most sets' short pieces stand 0.45-0.75 of a pitch high and their tall
ones about twice that; a *large* set's short pieces (0.8-1 pitch) fill the crop as a
typical set's tall piece does, and are read tall (docs/vision.md, "Session 27": on the
game stills of large sets the network alone read tall right for 80.8 % of pieces, and
with the window zoomed out to the set's size for 89-92 %).

No single piece tells a large set's short piece from a typical set's tall one. A board
does: how the network's tall logits of all its pieces change when the window is zoomed out
by :data:`LARGE_ZOOM` (a typical set's tall pieces shrink to short; a large set's short
pieces do, its tall ones stay tall and whole). :func:`large_set_probability` weighs a few
statistics of both readings (:func:`board_statistics`) with a logistic regression learned
from rendered boards with truth (``python -m vision.set_size_training FOLDERS``, which writes
:data:`MODEL_FILE`); above :data:`THRESHOLD` the tall logits of the zoomed window replace
the plain ones (``vision.features``). Occupancy and the other attributes always come from
the plain crops (zoomed, occupancy reads worse: 98.2 -> 94.2 %). The model is trained on the
network's single look (as the per-frame step reads); the full analysis judges from the mean
of the look and its mirror, which only smooths the statistics.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

#: the window zoomed out this many times for a large set (its short pieces, 0.8-1 pitch,
#: then fill it as a typical set's 0.6-0.75 do)
LARGE_ZOOM = 1.3
#: a *small* set (narrow pieces, tall ones under about 0.75 of a pitch high, as high as most
#: sets' short ones) reads its four attributes from a window zoomed in this much, where its
#: pieces fill the window as a typical set's do (the piece network alone on the settled
#: boards of game97 and its calibration photos, plain -> zoomed in: tall right 82 -> 106 of
#: 110 pieces, square 107 -> 110; game102's: square 53 -> 63 of 78, tall 74 -> 67).
#: Occupancy stays with the plain window. Nothing judges it from one board: a calibration of
#: all 16 pieces does (``calibration.learn.choose_set_size``), or the user.
SMALL_ZOOM = 1 / 1.3
#: a board whose probability of a large set is above this reads tall from the zoomed window
#: (cross-validated on the training boards of 2+ pieces: 0.4 and 0.5 zoom 36 % and 27 % of
#: large sets and 4 % and 2 % of typical ones; 0.4 read tall better on both)
THRESHOLD = 0.4
#: a set whose short pieces stand higher than this (pitches) counts as large in training
LARGE_SHORT = 0.75
#: boards with fewer pieces than this are not judged (plain reading): on 2-5 pieces the
#: detector, cross-validated on the training boards, took 22 % of typical sets for large
MIN_PIECES = 6
#: logits are clipped to this before the statistics (one confident cell must not decide)
CLIP = 10.0
MODEL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "set_size.json")
MODEL_VERSION = 1
STATISTICS = ("pieces", "plain_p", "plain_pos", "plain_mean", "plain_q25",
              "zoomed_p", "zoomed_pos", "zoomed_mean", "zoomed_q25")

#: the shipped models as read (``_shipped``), by kind; ``{}``: unreadable
_shipped_models: dict[str, dict] = {}


class SetSizeModelError(ValueError):
    """The set-size model file is missing, unreadable or of another version."""


def board_statistics(occupied: np.ndarray, plain: np.ndarray, zoomed: np.ndarray) -> np.ndarray | None:
    """``occupied`` (16,) bool, the network's tall logits from the plain and the zoomed
    window (16,) -> the :data:`STATISTICS` of the occupied cells, or ``None`` when fewer
    than :data:`MIN_PIECES` are occupied."""
    m = np.asarray(occupied, bool)
    if m.sum() < MIN_PIECES:
        return None
    out = [m.sum() / 16.0]
    for t in (plain, zoomed):
        t = np.clip(np.asarray(t, float)[m], -CLIP, CLIP)
        out += [float(np.mean(1.0 / (1.0 + np.exp(-t)))), float(np.mean(t > 0)), float(np.mean(t)),
                float(np.quantile(t, 0.25))]
    return np.array(out)


def _read_model(path: str, what: str, version: int, statistics: tuple) -> dict:
    """A judge's JSON file, checked for its ``version`` and ``statistics`` (raises
    :class:`SetSizeModelError` naming ``what`` and the file)."""
    try:
        with open(path, encoding="utf-8") as f:
            model = json.load(f)
    except (OSError, ValueError) as e:
        raise SetSizeModelError(f"{what} {path!r} cannot be read: {e}") from None
    if not isinstance(model, dict) or model.get("version") != version or \
            tuple(model.get("statistics", ())) != statistics:
        raise SetSizeModelError(f"{what} {path!r} is not version {version} with {statistics}")
    return model


def load_model(path: str = MODEL_FILE) -> dict:
    """The logistic regression of :data:`MODEL_FILE` (mean, scale, coef, intercept)."""
    model = _read_model(path, "set-size model", MODEL_VERSION, STATISTICS)
    if model.get("zoom") != LARGE_ZOOM:
        raise SetSizeModelError(f"set-size model {path!r} was trained for a zoom of {model.get('zoom')!r}, "
                                f"not {LARGE_ZOOM}")
    for key in ("mean", "scale", "coef"):
        if len(model.get(key, ())) != len(STATISTICS):
            raise SetSizeModelError(f"set-size model {path!r}: {key!r} has the wrong length")
    return model


def _shipped(kind: str, load) -> dict | None:
    """The shipped model of ``kind`` ("large" or "small") read by ``load``, once; ``None``
    (with one warning) when it cannot be read: then no set is judged of that size, as
    before the judge existed."""
    if kind not in _shipped_models:
        try:
            _shipped_models[kind] = load()
        except SetSizeModelError as e:
            print(f"warning: {e}; {kind} piece sets are read as typical ones", file=sys.stderr)
            _shipped_models[kind] = {}
    return _shipped_models[kind] or None


def _linear(x: np.ndarray, fitted: dict) -> np.ndarray:
    """A linear model on standardised inputs (``fitted``: mean, scale, coef, intercept)."""
    z = (np.asarray(x, float) - np.asarray(fitted["mean"])) / np.asarray(fitted["scale"])
    return z @ np.asarray(fitted["coef"]) + fitted["intercept"]


def default_model() -> dict | None:
    """The shipped large-set model (:func:`_shipped`)."""
    return _shipped("large", load_model)


def large_set_probability(stats: np.ndarray | None, model: dict | None = None) -> float:
    """How likely the board's set is a large one, from :func:`board_statistics` (0 when
    the board has too few pieces to tell, or no model can be read)."""
    model = model or default_model()
    if stats is None or model is None:
        return 0.0
    return float(1.0 / (1.0 + np.exp(-_linear(stats, model))))


# --- small sets, judged from a board -------------------------------------------------------
#
# A small set's pieces fill the plain window little: its tall ones read short and its tops
# have few pixels (``SMALL_ZOOM`` above). Two things on a board tell such a set (docs/vision.md,
# "Session 37"): how the network's readings change through the windows zoomed in and out (a
# small set's pieces read more surely zoomed in, a typical set's less: zoomed in, their tops
# are cut off), and how wide the pieces look, from every measured feature of their cells (a
# ridge regression of the set's width in pitches). A logistic regression of both, learned from
# rendered boards with truth (``python -m vision.set_size_training --small FOLDERS``, which
# writes :data:`SMALL_MODEL_FILE`), judges the board; above :data:`SMALL_THRESHOLD` every
# attribute but occupancy is read through the zoomed-in window, as for a set known to be small.

SMALL_MODEL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_set.json")
SMALL_MODEL_VERSION = 1
#: a set this narrow (pieces' width in pitches) or narrower counts as small in training; one
#: at least SMALL_TYPICAL wide as typical; between them the window matters little (on the game
#: videos of sets 0.46-0.51 wide reading every piece zoomed in gained or lost 0-1 piece)
SMALL_WIDTH, SMALL_TYPICAL = 0.46, 0.52
#: boards with fewer pieces than this are not judged small (plain reading): on game stills
#: of 3-6 pieces typical sets were taken for small (docs/vision.md, "Session 37")
SMALL_MIN_PIECES = 7
#: a board judged small above this probability
SMALL_THRESHOLD = 0.5
#: the network's outputs whose change through the windows the judge weighs (1 tall, 2 dark,
#: 3 square, 4 hollow)
_CRISP = (1, 2, 3, 4)
SMALL_STATISTICS = tuple(f"in_{a}" for a in ("tall", "dark", "square", "hollow")) + \
    tuple(f"out_{a}" for a in ("tall", "dark", "square", "hollow")) + ("width",)
#: logits are clipped to this before the windows are compared
SMALL_CLIP = 6.0


def piece_widths(features: np.ndarray, model: dict) -> np.ndarray:
    """``(N, D)`` cell features (``vision.features.FEATURE_NAMES``) -> ``(N,)`` the width of
    each cell's piece in pitches as the model's ridge regression reads it."""
    return _linear(features, model["width"])


def small_statistics(occupied: np.ndarray, plain: np.ndarray, zoomed_in: np.ndarray, zoomed_out: np.ndarray,
                     widths: np.ndarray, least: int = SMALL_MIN_PIECES) -> np.ndarray | None:
    """The :data:`SMALL_STATISTICS` of a board: ``occupied`` (16,) bool; the network's
    logits (16, 5) through the plain window and the ones zoomed in (``SMALL_ZOOM``) and out
    (``LARGE_ZOOM``); ``widths`` (16,) the pieces' widths (:func:`piece_widths`). Per
    attribute the mean over the occupied cells of how much surer the zoomed window reads than
    the plain one (|logit| minus |logit|), then the median width. ``None`` with fewer than
    ``least`` pieces."""
    m = np.asarray(occupied, bool)
    if m.sum() < max(1, least):
        return None
    a = np.abs(np.clip(np.asarray(plain, float)[m][:, _CRISP], -SMALL_CLIP, SMALL_CLIP))
    out = []
    for z in (zoomed_in, zoomed_out):
        b = np.abs(np.clip(np.asarray(z, float)[m][:, _CRISP], -SMALL_CLIP, SMALL_CLIP))
        out += list((b - a).mean(axis=0))
    return np.array(out + [float(np.median(np.asarray(widths, float)[m]))])


def load_small_model(path: str = SMALL_MODEL_FILE) -> dict:
    """The small-set model of :data:`SMALL_MODEL_FILE`: the width regression (``"width"``:
    mean, scale, coef over the features, intercept) and the judge (``"judge"``: a logistic
    regression over :data:`SMALL_STATISTICS`)."""
    from vision.features import FEATURE_NAMES, FEATURES_VERSION

    model = _read_model(path, "small-set model", SMALL_MODEL_VERSION, SMALL_STATISTICS)
    if model.get("features_version") != FEATURES_VERSION or model.get("zooms") != [SMALL_ZOOM, LARGE_ZOOM]:
        raise SetSizeModelError(f"small-set model {path!r} was trained on other features or windows")
    w, j = model.get("width") or {}, model.get("judge") or {}
    for key in ("mean", "scale", "coef"):
        if len(w.get(key, ())) != len(FEATURE_NAMES) or len(j.get(key, ())) != len(SMALL_STATISTICS):
            raise SetSizeModelError(f"small-set model {path!r}: {key!r} has the wrong length")
    return model


def default_small_model() -> dict | None:
    """The shipped small-set model (:func:`_shipped`)."""
    return _shipped("small", load_small_model)


def small_set_probability(stats: np.ndarray | None, model: dict | None = None) -> float:
    """How likely the board's set is a small one, from :func:`small_statistics` (0 when the
    board has too few pieces to tell, or no model can be read)."""
    model = model or default_small_model()
    if stats is None or model is None:
        return 0.0
    return float(1.0 / (1.0 + np.exp(-_linear(stats, model["judge"]))))
