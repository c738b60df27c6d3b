"""Learning from per-cell measurements: consistency checks, refusals and warnings.

The photos here are stand-ins carrying made-up features (no images), so each test says
exactly what the measurements were; tests on rendered photos are in test_calibrate_cli.py.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from calibration.learn import CalibrationRefused, PhotoCheck, learn_profile
from calibration.profile import default_profile
from vision.attributes import PIECE_ATTRIBUTES, PRIMARY_FEATURE
from vision.features import FEATURE_NAMES


def _features(rng, pieces, noise=0.1, spread=None):
    """(16, D) features in which each attribute's main feature tells its bit."""
    # background noise from its own generator, so the attribute draws below do not
    # shift when vision adds feature columns
    X = np.random.default_rng(int(rng.integers(1 << 31))).normal(0, 1, (16, len(FEATURE_NAMES)))
    for j, a in enumerate(PIECE_ATTRIBUTES):
        feat, sign = PRIMARY_FEATURE[a]
        bits = np.array([(p >> j) & 1 for p in pieces])
        X[:, FEATURE_NAMES.index(feat)] = sign * (bits - 0.5) * 2 + rng.normal(0, (spread or {}).get(a, noise), 16)
    return X


def _photo(name, features, problem=""):
    return PhotoCheck(path=name, frame=np.zeros((8, 8, 3), np.uint8), features=features, problem=problem)


def _base(strength=4.0):
    """A starting profile whose piece models roughly know the stand-in set: each reads its
    attribute's main feature (as vision's default models roughly read a real new set), as
    sure of itself as those are (p about 0.98 on a typical piece)."""
    base = default_profile()
    base.vision.attributes = {**base.vision.attributes, **{
        a: {"features": [PRIMARY_FEATURE[a][0]], "mean": [0.0], "scale": [1.0],
            "coef": [strength * PRIMARY_FEATURE[a][1]], "intercept": 0.0} for a in PIECE_ATTRIBUTES}}
    return base


def test_sixteen_distinct_pieces_are_learned_without_labels():
    rng = np.random.default_rng(0)
    arrangements = [rng.permutation(16) for _ in range(2)]
    photos = [_photo(f"p{k}.jpg", _features(rng, arr)) for k, arr in enumerate(arrangements)]
    base = _base()
    cal = learn_profile(photos, base)
    assert cal.pieces == [list(a) for a in arrangements]
    assert cal.warnings == []
    assert set(cal.profile.report["attributes"]) == set(PIECE_ATTRIBUTES)
    assert cal.profile.source_images == ["p0.jpg", "p1.jpg"]
    # the piece models are the starting ones adapted to the set (stacked on them); occupancy stays
    tall = cal.profile.vision.attributes["tall"]
    assert tall != base.vision.attributes["tall"] and tall.get("base") == base.vision.attributes["tall"]
    assert cal.profile.vision.attributes["occupied"] == base.vision.attributes["occupied"]


def test_a_set_the_default_does_not_know_is_learned_from_the_measurements():
    # vision's default models read nothing sensible on these made-up features, but each
    # attribute's main measurement splits the pieces cleanly: that start wins
    rng = np.random.default_rng(0)
    arrangements = [rng.permutation(16) for _ in range(2)]
    photos = [_photo(f"p{k}.jpg", _features(rng, arr)) for k, arr in enumerate(arrangements)]
    cal = learn_profile(photos, default_profile())
    assert cal.pieces == [list(a) for a in arrangements]
    assert all("from the measurements alone" in r["note"] for r in cal.report.values())


def test_a_class_the_photos_do_not_improve_keeps_the_default_and_says_so():
    rng = np.random.default_rng(6)
    arrangements = [rng.permutation(16) for _ in range(2)]
    photos = [_photo(f"p{k}.jpg", _features(rng, arr, spread={"square": 3.0})) for k, arr in enumerate(arrangements)]
    base = _base()
    # the starting square model reads a measurement of its own that tells square well
    # (the photos' squareness is mostly noise): adapting has nothing to add
    j = FEATURE_NAMES.index("patch_edges")
    for photo, arr in zip(photos, arrangements):
        photo.features[:, j] = np.array([(p >> 2) & 1 for p in arr]) * 2.0 - 1.0 + rng.normal(0, 0.3, 16)
    base.vision.attributes["square"] = {"features": ["patch_edges"], "mean": [0.0], "scale": [1.0], "coef": [2.0],
                                        "intercept": 0.0}
    cal = learn_profile(photos, base)
    assert cal.report["square"]["model"] in ("default", "rescaled")
    assert cal.profile.vision.attributes["square"].get("base", cal.profile.vision.attributes["square"]) == \
        base.vision.attributes["square"]


def test_an_unusable_photo_is_left_out_by_name_and_the_others_are_learned_from():
    rng = np.random.default_rng(1)
    photos = [_photo("good.jpg", _features(rng, range(16))), _photo("bad.jpg", None, "no board in view")]
    cal = learn_profile(photos, default_profile())
    assert [p.path for p in cal.photos] == ["good.jpg"] and cal.profile.source_images == ["good.jpg"]
    assert cal.warnings[0] == "photo 'bad.jpg' was left out: no board in view"
    assert cal.profile.report["warnings"][0] == cal.warnings[0]


def test_when_no_photo_can_be_used_calibration_is_refused_naming_each():
    photos = [_photo("a.jpg", None, "no board in view"), _photo("b.jpg", None, "something covers the board")]
    with pytest.raises(CalibrationRefused, match="photo 'a.jpg' cannot be used: no board in view; "
                                                 "photo 'b.jpg' cannot be used: something covers the board"):
        learn_profile(photos, default_profile())


def test_two_of_each_piece_is_not_a_set():
    rng = np.random.default_rng(2)
    # 8 different pieces, each twice (e.g. two sets mixed up): every class still splits
    # 8/8, but pairs of cells read as the same piece
    pieces = [p for p in (0, 3, 5, 6, 9, 10, 12, 15) for _ in range(2)]
    with pytest.raises(CalibrationRefused) as e:
        learn_profile([_photo("mixed.jpg", _features(rng, pieces))], _base())
    assert "'mixed.jpg'" in str(e.value)
    assert any(words in str(e.value) for words in
               ("read as the same piece", "do not split 8/8", "do not look like 16 different pieces"))


def test_a_class_that_does_not_split_evenly_is_refused_naming_it():
    rng = np.random.default_rng(3)
    # 16 different measurements but 12 tall pieces: not one Quarto set
    X = _features(rng, range(16))
    j = FEATURE_NAMES.index(PRIMARY_FEATURE["tall"][0])
    X[:, j] = np.r_[np.full(12, 1.0), np.full(4, -1.0)] + rng.normal(0, 0.05, 16)
    X2 = _features(rng, rng.permutation(16))
    with pytest.raises(CalibrationRefused) as e:
        learn_profile([_photo("a.jpg", X), _photo("b.jpg", X2)], _base())
    assert "tall" in str(e.value)


def test_a_class_that_barely_separates_is_warned_about_with_advice():
    rng = np.random.default_rng(4)
    photos = [_photo(f"p{k}.jpg", _features(rng, rng.permutation(16), spread={"dark": 0.45})) for k in range(2)]
    cal = learn_profile(photos, _base())
    assert len(cal.warnings) == 2
    assert cal.warnings[0].startswith("dark vs light barely separate")
    assert cal.warnings[1].startswith("a photo that would help") and "brighter, even light" in cal.warnings[1]
    assert cal.profile.report["warnings"] == cal.warnings


def test_advice_for_several_weak_classes_is_one_and_does_not_contradict_itself():
    """Heights show from low down, tops from high up: weak tall and square classes get one
    camera position that shows both, not "lower" and "higher" at once."""
    from calibration.learn import what_would_help

    both = what_would_help(["tall", "square", "hollow"], steep=None)
    assert "30-40 degrees" in both and "higher" not in both and "lower" not in both
    assert "cups" in both and "turned at different angles" in both
    assert "lower" in what_would_help(["tall"], steep=None)
    assert "higher" in what_would_help(["hollow"], steep=None)
    steep = what_would_help(["tall", "square"], steep=5.0)
    assert "almost straight down (5 degrees from vertical)" in steep and "higher" not in steep


class _FixedRecognizer:
    """Stands in for vision's recogniser: always the same reading."""

    def __init__(self, reading):
        self.reading = reading

    def analyze(self, frame):
        return self.reading


def _reading(n_occupied, found=True, reason=""):
    import cv2

    from vision.reading import BoardReading

    if not found:
        return BoardReading.not_found(reason)
    grid = np.array([((i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4) for i in range(16)])
    centres = 100 + 200 * grid
    H, _ = cv2.findHomography(grid, centres)
    return BoardReading(found=True, homography=H, cell_centers=centres,
                        cells=list(range(n_occupied)) + [None] * (16 - n_occupied))


@pytest.mark.parametrize("n, usable, words", [
    (16, True, ""),
    (13, True, "looked empty"),        # a few pieces the base profile misses: trusted
    (9, False, "only 9 of 16 cells hold a piece"),
])
def test_examine_photo_trusts_a_few_unseen_pieces_but_not_a_game_in_progress(n, usable, words):
    from calibration.learn import examine_photo

    image = np.full((400, 400, 3), 120, np.uint8)
    base = default_profile()
    check = examine_photo("p.jpg", image, _FixedRecognizer(_reading(n)), base.vision, base)
    assert check.usable == usable
    assert words in (check.note if usable else check.problem)
    assert (check.features is not None) == usable


def test_examine_photo_passes_on_vision_reason():
    from calibration.learn import examine_photo

    base = default_profile()
    check = examine_photo("p.jpg", np.zeros((400, 400, 3), np.uint8),
                          _FixedRecognizer(_reading(0, found=False, reason="too dark")), base.vision, base)
    assert not check.usable and check.problem == "too dark"


def _seen_from(photo, tilt_deg):
    """``photo`` with a board seen by a camera ``tilt_deg`` from straight down (1280x720)."""
    from tests.vision.synthetic import board_homography
    from vision.reading import BoardReading

    photo.frame = np.zeros((720, 1280, 3), np.uint8)
    photo.reading = BoardReading(found=True, homography=board_homography(tilt_deg))
    return photo


def test_a_camera_looking_straight_down_is_named_when_heights_do_not_separate():
    """The same rule as analyze's and watch's setup advice (vision.view_check "steep"),
    told from each photo's board."""
    rng = np.random.default_rng(0)
    photos = [_seen_from(_photo(f"p{k}.jpg", _features(rng, rng.permutation(16), spread={"tall": 0.5})), 3.0)
              for k in range(2)]
    cal = learn_profile(photos, _base())
    assert any(w.startswith("tall vs short") for w in cal.warnings)
    said = re.search(r"almost straight down \((\d+) degrees from vertical\)", cal.warnings[-1])
    assert said and int(said.group(1)) < 15  # the median cell's view: a few degrees more than the camera's tilt
    # from 35 degrees the same weak heights get "lower", not "straight down"
    photos = [_seen_from(_photo(f"p{k}.jpg", _features(rng, rng.permutation(16), spread={"tall": 0.5})), 35.0)
              for k in range(2)]
    cal = learn_profile(photos, _base())
    assert any(w.startswith("tall vs short") for w in cal.warnings)
    assert "straight down" not in cal.warnings[-1] and "lower" in cal.warnings[-1]


def test_calibrating_again_and_again_from_the_last_profile_keeps_profiles_readable(tmp_path):
    from calibration.profile import load_profile, save_profile

    rng = np.random.default_rng(7)
    profile = _base()
    for k in range(6):  # each calibration stacks on the profile it starts from
        photos = [_photo(f"p{k}{j}.jpg", _features(rng, rng.permutation(16), noise=0.3)) for j in range(2)]
        profile = learn_profile(photos, profile).profile
        save_profile(profile, tmp_path / "p.json")
        profile = load_profile(tmp_path / "p.json")
    assert set(profile.vision.attributes) >= set(PIECE_ATTRIBUTES)


def test_photos_from_a_low_camera_are_named_with_what_to_do():
    rng = np.random.default_rng(0)
    photos = [_seen_from(_photo(f"p{k}.jpg", _features(rng, rng.permutation(16))), tilt)
              for k, tilt in enumerate((62.0, 35.0))]
    cal = learn_profile(photos, _base())
    low = [w for w in cal.warnings if "camera is low" in w]
    assert len(low) == 1 and low[0].startswith("photo 'p0.jpg': the camera is low (")
    assert "raise it" in low[0] and "p1.jpg" not in low[0]


def _with_body_colours(X, pieces, light=(85.0, 2.0, 4.0), dark=(40.0, 10.0, -8.0), rng=None):
    """``X`` with the pieces' body colours (``vision.crops.BODY_COLOUR_NAMES``): the set's
    light or dark colour, give or take a few Lab units."""
    from vision.crops import BODY_COLOUR_NAMES

    rng = rng or np.random.default_rng(1)
    k = FEATURE_NAMES.index(BODY_COLOUR_NAMES[0])
    X = X.copy()
    for i, p in enumerate(pieces):
        X[i, k:k + 3] = np.array(dark if p & 2 else light) + rng.normal(0, 2.0, 3)
    return X


def test_the_sets_two_colours_are_learned_for_the_watch():
    rng = np.random.default_rng(0)
    arrangements = [rng.permutation(16) for _ in range(2)]
    photos = [_photo(f"p{k}.jpg", _with_body_colours(_features(rng, arr), arr)) for k, arr in enumerate(arrangements)]
    colours = learn_profile(photos, _base()).profile.vision.pieces.set_colours
    assert len(colours) == 7
    assert np.allclose(colours[0:3], (85, 2, 4), atol=2) and np.allclose(colours[3:6], (40, 10, -8), atol=2)
    assert 1.0 < colours[6] < 3.5  # the spread within a kind
    # kept in the profile file
    from calibration.profile import profile_from_dict

    again = profile_from_dict(learn_profile(photos, _base()).profile.to_dict())
    assert tuple(again.vision.pieces.set_colours) == tuple(colours)


def test_no_colours_are_learned_when_dark_and_light_do_not_split_cleanly():
    rng = np.random.default_rng(3)
    arrangements = [rng.permutation(16) for _ in range(2)]
    photos = [_photo(f"p{k}.jpg", _with_body_colours(_features(rng, arr, spread={"dark": 1.5}), arr))
              for k, arr in enumerate(arrangements)]
    cal = learn_profile(photos, _base())
    assert not cal.report["dark"]["clean"]
    assert cal.profile.vision.pieces.set_colours == ()


def _sized(rng, pieces, clear: str):
    """A stand-in photo whose piece network splits tall 8/8 clearly (gap 6 nats) through the
    window of size ``clear`` and barely (gap under 1) through the others."""
    from calibration.learn import SET_SIZES
    from vision.features import FEATURE_INDEX

    X = _features(rng, pieces)
    tall = np.array([p & 1 for p in pieces], float)
    by_size = {}
    for size in SET_SIZES:
        Y = X.copy()
        Y[:, FEATURE_INDEX["net_tall"]] = (tall - 0.5) * (6.0 if size == clear else 0.8) + rng.normal(0, 0.05, 16)
        by_size[size] = Y
    photo = _photo("p.jpg", X)
    photo.features_by_size = by_size
    return photo


@pytest.mark.parametrize("clear, written", [("small", "small"), ("large", "large"), ("typical", "auto")])
def test_the_sets_size_is_the_one_whose_window_splits_tall_from_short_clearly(clear, written):
    from calibration.learn import SIZE_MARGIN, choose_set_size
    from vision.features import FEATURE_INDEX

    rng = np.random.default_rng(3)
    photos = [_sized(rng, rng.permutation(16), clear) for _ in range(2)]
    cal = learn_profile(photos, _base())
    assert cal.profile.vision.pieces.set_size == written
    assert cal.set_size == (None if clear == "typical" else clear)
    # the models learned from the pieces as read through the chosen window
    if clear != "typical":
        assert all(p.features is p.features_by_size[clear] for p in photos)
    if clear == "typical":
        return
    # a window clearer than the plain one by less than the margin is not enough
    k = FEATURE_INDEX["net_tall"]
    for extra, chosen in ((SIZE_MARGIN - 0.5, None), (SIZE_MARGIN + 0.5, clear)):
        for p in photos:
            plain = p.features_by_size["typical"][:, k]
            tall = plain > 0
            p.features_by_size[clear][:, k] = plain + np.where(tall, extra / 2, -extra / 2)
        assert choose_set_size(photos)[0] == chosen


def test_photos_read_without_sizes_leave_the_size_as_it_was():
    from calibration.learn import choose_set_size

    rng = np.random.default_rng(4)
    photos = [_photo(f"p{k}.jpg", _features(rng, rng.permutation(16))) for k in range(2)]
    assert choose_set_size(photos) == (None, {})
    assert learn_profile(photos, _base()).profile.vision.pieces.set_size == "auto"
