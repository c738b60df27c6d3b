"""Upright cell crops and the learned piece models, with the board taken from truth."""

import glob
import json
import os

import cv2
import numpy as np

from vision.crops import CROP_H, CROP_W, cell_crops, vertical_directions
from vision.settings import VisionSettings
from vision.training import truth_image_features

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
GRID = np.array([((i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4) for i in range(16)])


def _camera_homography(tilt_deg: float, f: float = 900.0, w: int = 1280, h: int = 720):
    """A camera at 60 units from the board centre, tilted about the image x axis: H
    (board unit square -> pixels), K, R, t."""
    a = np.radians(tilt_deg)
    # board frame: x right, y away from the camera, z up; camera looks down the tilt
    R = np.array([[1, 0, 0], [0, -np.cos(a), -np.sin(a)], [0, np.sin(a), -np.cos(a)]], float)  # rows: camera axes
    C = np.array([0.5, 0.5 - 6 * np.sin(a), 6 * np.cos(a)])  # camera centre in board units
    t = -R @ C
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    H = K @ np.c_[R[:, 0], R[:, 1], t]
    return H / H[2, 2], K, R, t


def _project(K, R, t, X):
    p = (K @ (R @ X.T + t[:, None])).T
    return p[:, :2] / p[:, 2:3]


def test_vertical_direction_follows_the_camera():
    for tilt in (5.0, 30.0, 50.0):
        H, K, R, t = _camera_homography(tilt)
        up = vertical_directions(H, (720, 1280))
        base = np.c_[GRID, np.zeros(16)]
        true = _project(K, R, t, base + [0, 0, 0.1]) - _project(K, R, t, base)
        true /= np.linalg.norm(true, axis=1, keepdims=True)
        # the focal length is guessed (0.75 x width = 960 here, true 900), yet the
        # direction stays within ~10 degrees (worst near a top-down view, far corners)
        err = np.degrees(np.arccos(np.clip((up * true).sum(1), -1, 1)))
        assert err.max() < 15.0 and np.median(err) < 5.0, (tilt, err)


def test_crops_are_fixed_size_and_upright():
    H, *_ = _camera_homography(35.0)
    img = np.zeros((720, 1280, 3), np.uint8)
    img[:360] = 200  # bright above the middle of the picture
    crops = cell_crops(img, H, vertical_directions(H, img.shape))
    assert crops.shape == (16, CROP_H, CROP_W, 3)
    # cells below the bright half: their crops' top rows reach up into it for the far row
    far = crops[:4, 0].mean()
    near = crops[12:, 0].mean()
    assert far >= near


def test_truth_board_reading_of_the_committed_images():
    """With the board from truth, the default models find occupied cells and the colour
    of the pieces on the committed test images (rendered scenes never trained on)."""
    settings = VisionSettings()
    from vision.assign import assign_pieces
    from vision.attributes import models_from_dict, predict_proba

    models = models_from_dict(settings.attributes)
    occ_ok = n = dark_ok = dark_n = 0
    for path in sorted(glob.glob(os.path.join(DATA, "*.json"))):
        r = truth_image_features(path, settings)
        if r is None:
            continue
        X, Y, hidden, pieces = r
        probs = predict_proba(X, models)
        cells = assign_pieces(probs[:, 0] > settings.pieces.occupied_threshold, probs[:, 1:])
        for i in np.flatnonzero(~hidden):
            n += 1
            occ_ok += (cells[i] is None) == (pieces[i] is None)
            if cells[i] is not None and pieces[i] is not None:
                dark_n += 1
                dark_ok += ((cells[i] >> 1) & 1) == ((pieces[i] >> 1) & 1)
    assert n > 100
    assert occ_ok / n > 0.85, occ_ok / n
    assert dark_ok / dark_n > 0.8, dark_ok / dark_n


def test_the_darker_of_a_sets_two_colours_is_found_whatever_their_hue():
    """Red and green pieces (green the darker) among empty cells of a green felt board:
    the colour split puts every green piece on the dark side and every red one on the
    light side; a board of one colour only gets no clear split."""
    from vision.features import _colour_split

    rng = np.random.default_rng(3)
    red, green, felt = np.array([47.0, 60, 45]), np.array([31.0, -35, 20]), np.array([38.0, -10, 5])
    lab = np.vstack([red + rng.normal(0, 3, (5, 3)), green + rng.normal(0, 3, (7, 3)), felt + rng.normal(0, 2, (4, 3))])
    pieces = np.r_[np.ones(12, bool), np.zeros(4, bool)]
    t, gap = _colour_split(lab, pieces)
    assert (t[:5] < -0.3).all() and (t[5:12] > 0.3).all() and gap > 5
    _, gap_one = _colour_split(np.vstack([red + rng.normal(0, 3, (12, 3)), felt + rng.normal(0, 2, (4, 3))]), pieces)
    assert gap_one < gap / 3


def test_front_weights_point_at_the_cells_a_piece_covers():
    from vision.crops import front_weights

    # low camera (tilt 60 degrees from straight down): a piece covers the cell behind it
    # (one row farther away, board y + 1), by about its own picture height per pitch
    H, *_ = _camera_homography(60.0)
    W = front_weights(H, (720, 1280))
    assert W.shape == (16, 16) and W.dtype == np.float32
    for i in range(16):
        if i < 4:
            assert W[i].max() < 0.05, (i, W[i])  # the front row has nothing in front of it
        else:
            assert np.argmax(W[i]) == i - 4 and W[i, i - 4] > 0.8, (i, W[i])
            assert W[i - 4, i] == 0.0  # the cell behind does not cover the one in front
    # straight from above a piece leans a little outwards and covers nothing
    H, *_ = _camera_homography(0.0)
    assert front_weights(H, (720, 1280)).max() < 0.3


def test_board_jitter_is_the_size_of_a_found_boards_error():
    from vision.net_training import JITTER_LOG_MEAN, board_jitter

    rng = np.random.default_rng(0)
    fields = np.array([board_jitter(rng) for _ in range(2000)])
    rms = np.sqrt((fields ** 2).sum(2).mean(1))
    assert abs(np.median(rms) - np.exp(JITTER_LOG_MEAN)) < 0.004
    assert rms.max() <= 0.25 + 1e-9
    # mostly a shift of the whole grid, not independent cells
    shift = np.sqrt((fields.mean(1) ** 2).sum(1))
    assert np.median(shift / rms) > 0.7


def test_the_upward_lean_is_worked_out_once_per_reading(monkeypatch):
    # the crops, the front weights, the local view and the region all need how far up
    # the picture a unit of height goes at every cell: one reading works it out once
    # (each time costs ~0.14 ms of the per-frame step) and the readings stay the same
    import vision.crops
    import vision.features
    from vision.features import features_from_work
    from tests.vision.synthetic import drawn_board

    img, centres = drawn_board("rings", tilt=0.3, seed=1)
    H, _ = cv2.findHomography(GRID, centres)
    before = features_from_work(img, H, VisionSettings())
    calls = []
    real = vision.crops.vertical_displacements

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(vision.crops, "vertical_displacements", counted)
    monkeypatch.setattr(vision.features, "vertical_displacements", counted)
    after = features_from_work(img, H, VisionSettings())
    assert len(calls) == 1
    np.testing.assert_array_equal(before, after)


def test_cell_geometry_says_how_long_a_pitch_of_height_is_in_each_crop():
    # the piece network's third input: a piece one pitch tall is `lean` crop pitches long
    # (under a top-down camera almost nothing, from a low one most of a pitch); checked
    # against the true camera, with the camera guessed from the board alone
    from vision.crops import GEOMETRY_NAMES, cell_geometry
    from vision.geometry import jacobians

    assert GEOMETRY_NAMES == ("lean", "foreshortening", "view_slope")
    leans = []
    for tilt in (0.0, 5.0, 30.0, 50.0):
        H, K, R, t = _camera_homography(tilt)
        g = cell_geometry(H, (720, 1280))
        assert g.shape == (16, 3) and g.dtype == np.float32
        base = np.c_[GRID, np.zeros(16)]
        d = _project(K, R, t, base + [0, 0, 0.25]) - _project(K, R, t, base)
        pitch = np.linalg.svd(jacobians(H, GRID), compute_uv=False)[:, 0] * 0.25
        np.testing.assert_allclose(g[:, 0], np.hypot(*d.T) / pitch, atol=0.03)
        a = np.radians(tilt)
        camera = np.array([0.5, 0.5 - 6 * np.sin(a), 6 * np.cos(a)])
        np.testing.assert_allclose(g[:, 2], np.hypot(*(GRID - camera[:2]).T) / camera[2], atol=0.01)
        leans.append(float(np.median(g[:, 0])))
        assert (g[:, 1] <= 1.0).all() and abs(np.median(g[:, 1]) - np.cos(a)) < 0.1
    assert leans[0] < 0.1 and leans[-1] > 0.7 and leans == sorted(leans)


def test_network_crops_are_stretched_where_a_pitch_of_height_is_short():
    # near the point under the camera a tall piece's side is a thin band above its top
    # face; the network's crops magnify the vertical there (up to 3x), less and less as the
    # camera comes down, and not at all where a tall piece fills the crop anyway
    from vision.crops import STRETCH_MAX, cell_geometry, crop_frames, crop_stretch

    medians = [float(np.median(crop_stretch(cell_geometry(_camera_homography(t)[0], (720, 1280)))))
               for t in (2.0, 30.0, 45.0, 65.0)]
    assert medians == sorted(medians, reverse=True) and abs(medians[-1] - 1.0) < 0.05
    s = crop_stretch(cell_geometry(_camera_homography(2.0)[0], (720, 1280)))
    assert (s > 2.0).all() and (s <= STRETCH_MAX).all()
    H = _camera_homography(2.0)[0]
    centres = cv2.perspectiveTransform(GRID.reshape(-1, 1, 2), H).reshape(-1, 2)
    up = np.tile([0.0, -1.0], (16, 1))
    plain, stretched = crop_frames(H, centres, up), crop_frames(H, centres, up, s)
    for k in range(16):
        assert np.isclose(np.linalg.norm(plain[k][:, 1]) / np.linalg.norm(stretched[k][:, 1]), s[k])
        assert np.allclose(plain[k][:, 0], stretched[k][:, 0])  # the width is not changed
        # the cell centre stays at the same crop pixel
        y_c = CROP_H * 1.7 / 2.1
        assert np.allclose(plain[k] @ [CROP_W / 2, y_c, 1], stretched[k] @ [CROP_W / 2, y_c, 1], atol=1e-6)


def test_zoomed_crops_span_more_pitches_about_the_same_cell_centre():
    # bench/zoom_oracle.py: a large set seen through a window zoom times as wide and high
    # looks like a typical set; zoom 1 is the crops as shipped
    from vision.crops import CROP_ABOVE, CROP_BELOW, crop_frames

    H = _camera_homography(30.0)[0]
    centres = cv2.perspectiveTransform(GRID.reshape(-1, 1, 2), H).reshape(-1, 2)
    up = np.tile([0.0, -1.0], (16, 1))
    plain, same, zoomed = crop_frames(H, centres, up), crop_frames(H, centres, up, zoom=1.0), \
        crop_frames(H, centres, up, zoom=1.3)
    y_c = CROP_H * CROP_ABOVE / (CROP_ABOVE + CROP_BELOW)
    for k in range(16):
        assert np.array_equal(plain[k], same[k])
        assert np.allclose(zoomed[k][:, :2], 1.3 * plain[k][:, :2])
        assert np.allclose(plain[k] @ [CROP_W / 2, y_c, 1], zoomed[k] @ [CROP_W / 2, y_c, 1], atol=1e-6)


def test_attribute_models_train_on_the_listed_images_only(tmp_path):
    # vision.training --files: the shipped models are rebuilt on the images of a list
    # (the renders folders grow while a background render runs)
    from vision.training import main

    listed = os.path.join(DATA, "printed-grid-red-white.json")
    lst = tmp_path / "files.txt"
    lst.write_text(listed + "\n")
    out = tmp_path / "models.json"
    assert main([DATA, "--files", str(lst), "--out", str(out), "--augment", "0", "--ensemble", "1",
                 "--units", "8"]) == 0
    doc = json.loads(out.read_text())
    hidden = json.load(open(listed)).get("hidden") or [False] * 16
    assert doc["images"] == 1
    assert doc["cells"] == 16 - sum(hidden)
    assert set(doc["models"]) == {"occupied", "tall", "dark", "square", "hollow"}


def test_a_development_run_keeps_the_same_images_aside_whatever_else_is_listed():
    # vision.net_training --keep-aside: two training lists (the session's old and new one)
    # are scored on the very same images, which neither trains on
    from vision.net_training import kept_aside

    old = [f"data/v2/train/{i:04d}.json" for i in range(10)]
    new = sorted(old + [f"data/v2/train/{i:04d}.json" for i in range(10, 30)])
    aside = [old[2], old[7]]
    for paths in (old, new):
        m = kept_aside(paths, aside)
        assert [p for p, k in zip(paths, m) if k] == aside
    # a fraction drawn at random changes with the list: that is what --keep-aside avoids
    a = [p for p, k in zip(old, kept_aside(old, None, 0.3)) if k]
    b = [p for p, k in zip(new, kept_aside(new, None, 0.3)) if k]
    assert a != b
    assert kept_aside(old) is None


def test_the_hog_of_8_bit_crops_matches_the_formula_it_looks_up():
    # the table of gradient lengths and directions gives the numbers arctan2 gives
    from vision.crops import hog

    rng = np.random.default_rng(4)
    for shape in [(16, CROP_H, CROP_W), (5, 24, 24)]:
        grey = rng.integers(0, 256, shape, dtype=np.uint8)
        grey[0] = 128  # a flat crop: no gradient at all
        grey[1, :, : shape[2] // 2] = 0  # a hard edge: gradients of +-255
        grey[1, :, shape[2] // 2:] = 255
        assert np.array_equal(hog(grey), hog(grey.astype(np.float32)))


def test_two_groups_split_where_the_groups_are_furthest_apart():
    from vision.features import _two_group_middle

    def brute(v):
        v = np.sort(v)
        scores = [k * (len(v) - k) * (v[k:].mean() - v[:k].mean()) ** 2 for k in range(1, len(v))]
        k = int(np.argmax(scores)) + 1
        return 0.5 * (v[:k].mean() + v[k:].mean())

    rng = np.random.default_rng(5)
    for _ in range(200):
        v = rng.random(16) * 3
        assert abs(_two_group_middle(v, np.ones(16, bool), -1.0, 0.0) - brute(v)) < 1e-12
    # short and tall pieces: the middle lies between the two heights
    heights = np.array([0.6] * 8 + [1.2] * 8)
    assert abs(_two_group_middle(heights, np.ones(16, bool), -1.0, 0.1) - 0.9) < 1e-12
    # values on a grid tie often: the lowest of the splits that score the same
    assert _two_group_middle(np.array([0.0, 1.0, 2.0]), np.ones(3, bool), -1.0, 0.0) == 0.75
    # fewer than two values, or groups too close: the fallback
    assert _two_group_middle(heights, np.eye(16, dtype=bool)[0], -1.0, 0.1) == -1.0
    assert _two_group_middle(np.full(16, 0.5) + rng.random(16) * 0.01, np.ones(16, bool), -1.0, 0.1) == -1.0


def test_a_remembered_camera_is_the_camera_of_that_board_only():
    # the per-frame step keeps its board's homography, so the guessed camera is
    # remembered; another board (or the same board in another image size) must get its own
    import vision.crops as crops

    crops._POSES.clear()
    H1 = _camera_homography(30.0)[0]
    H2 = _camera_homography(45.0)[0]
    first = crops.vertical_displacements(H1, (720, 1280))
    expected = first.copy()
    assert not np.allclose(first, crops.vertical_displacements(H2, (720, 1280)))
    assert not np.allclose(first, crops.vertical_displacements(H1, (360, 640)))
    first[:] = 0  # a caller changing its result changes nothing remembered
    np.testing.assert_array_equal(crops.vertical_displacements(H1, (720, 1280)), expected)
    crops._POSES.clear()
    np.testing.assert_array_equal(crops.vertical_displacements(H1, (720, 1280)), expected)  # afresh: the same
    calls = []
    real = crops._guess_pose
    try:
        crops._guess_pose = lambda *a: calls.append(1) or real(*a)
        crops.vertical_displacements(H1, (720, 1280))
        crops.vertical_displacements(H2, (720, 1280))
        crops.vertical_displacements(H2, (720, 1280))
    finally:
        crops._guess_pose = real
    assert len(calls) == 1  # H1 was remembered; H2 guessed once, then remembered
    for tilt in range(10, 40, 2):  # never more than a few boards kept
        crops.vertical_displacements(_camera_homography(float(tilt))[0], (720, 1280))
    assert len(crops._POSES) <= crops._POSES.kept
