"""The learned board detector (vision/board_net.onnx): it loads, finds the boards of the
committed rendered scenes (tests/data, never trained on), gives no board on pictures
without one, and a broken model file is a clear error."""

import glob
import json
import os

import cv2
import numpy as np
import pytest

from vision import Recognizer
from vision.board_net import (INPUT_H, INPUT_W, LOW_MODEL_PATH, MODEL_PATH, OUT_H, OUT_W, BoardNet, BoardNetError, prepare_zoomed,
                              zoom_affine)
from vision.recognizer import CUT_OFF, NO_BOARD
from vision.settings import VisionSettings

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


def _scenes():
    out = []
    for p in sorted(glob.glob(os.path.join(DATA, "*.json"))):
        with open(p, encoding="utf-8") as f:
            t = json.load(f)
        if "image" in t and "cell_centers" in t:
            out.append((p, t))
    return out


def _pitch(c):
    d = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
    d[d == 0] = np.inf
    return float(np.median(d.min(1)))


def _net_only() -> VisionSettings:
    st = VisionSettings()
    st.board_net.fallback = False  # never fall back to the hand-made searches
    return st


def test_shipped_model_is_small_and_gives_three_maps():
    assert os.path.getsize(MODEL_PATH) < 5e6
    net = BoardNet()
    maps, A = net.heatmaps(np.zeros((720, 1280, 3), np.uint8))
    assert maps.shape == (3, OUT_H, OUT_W)
    assert np.all((maps >= 0) & (maps <= 1))
    assert A[0, 0] == pytest.approx(INPUT_W / 1280) and A[1, 1] * 720 <= INPUT_H


SCENES = _scenes()


@pytest.mark.skipif(not SCENES, reason="no committed rendered scenes")
def test_network_alone_finds_the_committed_boards_within_a_quarter_pitch():
    rec = Recognizer(_net_only())
    right = boards = 0
    for path, t in SCENES:
        img = cv2.imread(os.path.join(DATA, t["image"]))
        r = rec.find_board(img)
        if not t.get("board_found_expected", True):
            assert not r, f"{path}: a board reported where there is none"
            continue
        boards += 1
        if r:
            truth = np.asarray(t["cell_centers"], float)
            err = np.hypot(*(truth[:, None] - r.cell_centers[None]).transpose(2, 0, 1)).min(1)
            right += bool(err.max() <= 0.25 * _pitch(truth))
    # measured: 9 of 11 (docs/vision.md, session 3: a full Gigamic board missed, a full
    # wooden board found 0.3 pitch off)
    assert right >= 9, f"{right} of {boards} boards found right"


def test_frames_without_a_board_give_none():
    rng = np.random.default_rng(1)
    frames = [np.full((720, 1280, 3), 170, np.uint8), rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)]
    neg = os.path.join(DATA, "negative-no-board.jpg")
    if os.path.exists(neg):
        frames.append(cv2.imread(neg))
    for frame in frames:
        r = Recognizer().find_board(frame)
        assert not r and r.reason in (NO_BOARD, CUT_OFF)


@pytest.mark.parametrize("content", [b"", b"not a network at all" * 100, None])
def test_a_broken_model_file_is_a_clear_error(tmp_path, content):
    path = tmp_path / "board.onnx"
    if content is None:
        with open(MODEL_PATH, "rb") as f:
            path.write_bytes(f.read()[:20000])  # truncated
    else:
        path.write_bytes(content)
    with pytest.raises(BoardNetError, match="board.onnx"):
        BoardNet(str(path))
    st = VisionSettings()
    st.board_net.model_path = str(path)
    with pytest.raises(ValueError, match="board network file"):
        Recognizer(st).analyze(np.full((720, 1280, 3), 120, np.uint8))


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(BoardNetError, match="cannot be read"):
        BoardNet(str(tmp_path / "nowhere.onnx"))


def test_zoomed_view_puts_the_board_in_the_middle_at_the_map_it_reports():
    # a frame with bright dots at the corners of a "playing area": the zoomed canvas shows
    # each dot where the returned frame -> input map puts it, the area centred and enlarged
    frame = np.zeros((720, 1280, 3), np.uint8)
    quad = np.array([[500.0, 300.0], [760.0, 310.0], [800.0, 500.0], [470.0, 490.0]])
    for x, y in quad:
        cv2.circle(frame, (int(x), int(y)), 6, (255, 255, 255), -1)
    A = zoom_affine(quad, 1280, 720)
    assert A[0, 0] > 1.5 * INPUT_W / 1280  # enlarged over the whole-frame view
    blob, used = prepare_zoomed(frame, A)
    canvas = blob[0].transpose(1, 2, 0)[:, :, 0]
    mapped = quad @ used[:, :2].T + used[:, 2]
    assert np.abs(mapped - (quad @ A[:, :2].T + A[:, 2])).max() <= 1.0
    n, labels, stats, cents = cv2.connectedComponentsWithStats((canvas > 0.3).astype(np.uint8))
    assert n - 1 == 4
    for c in cents[1:]:
        assert np.hypot(*(mapped - c).T).min() <= 0.6
    centre = mapped.mean(0)
    assert abs(centre[0] - INPUT_W / 2) < 0.1 * INPUT_W and abs(centre[1] - INPUT_H / 2) < 0.1 * INPUT_H


@pytest.mark.skipif(not SCENES, reason="no committed rendered scenes")
def test_boards_found_with_the_zoomed_second_pass_are_a_few_hundredths_of_a_pitch_off():
    # measured (session 4): 0.032 pitch on average over these scenes, the zoomed view
    # used on 7 of the 10 boards found (on held-out renders the new network with the zoom
    # brought the mean centre error from 2.7 to 2.5 px: docs/vision.md, "Session 4: board")
    # session 5: 0.031 pitch over the 7 boards the zoomed pass placed; every board found
    # is bounded too (shrinking only the zoomed part of the frame let the rescue find the
    # full Gigamic board 0.24 pitch off: not kept, docs/vision.md "Session 5: board")
    rec = Recognizer(_net_only())
    errs, zoomed = [], []
    for path, t in SCENES:
        if not t.get("board_found_expected", True):
            continue
        r = rec.find_board(cv2.imread(os.path.join(DATA, t["image"])))
        if r:
            truth = np.asarray(t["cell_centers"], float)
            d = np.hypot(*(truth[:, None] - r.cell_centers[None]).transpose(2, 0, 1)).min(1)
            errs.append(d.mean() / _pitch(truth))
            if r.details.get("zoom") == "used":
                zoomed.append(errs[-1])
    assert len(errs) >= 9 and len(zoomed) >= 6
    assert np.mean(zoomed) < 0.05, f"mean centre error {np.mean(zoomed):.3f} pitch"
    assert max(errs) < 0.25, f"a board found {max(errs):.3f} pitch off on average"


def test_a_benchmark_setting_override_is_checked_like_a_profile_value():
    # bench/board_eval.py, board_diag.py, robustness.py and vision_bench.py take --set SECTION.NAME=VALUE
    from vision.settings import SettingsError, apply_override

    st = VisionSettings()
    apply_override(st, "board_net.zoom=false")
    apply_override(st, "board_net.min_score=1")
    assert st.board_net.zoom is False and st.board_net.min_score == 1.0
    for bad, quoted in (("board_net.zoom=1", "board_net.zoom"), ("board_net.nope=1", "nope"),
                        ("zoom=false", "zoom=false"), ("board_net.min_score=abc", "abc")):
        with pytest.raises(SettingsError, match=quoted):
            apply_override(st, bad)



def test_a_bad_benchmark_override_is_refused_when_the_options_are_read(capsys):
    # the benches check --set with argparse: usage, the reason and exit code 2, before any work
    import argparse

    from vision.settings import override_argument

    ap = argparse.ArgumentParser(prog="bench")
    ap.add_argument("--set", action="append", type=override_argument)
    assert ap.parse_args(["--set", "board_net.zoom=false"]).set == ["board_net.zoom=false"]
    with pytest.raises(SystemExit) as e:
        ap.parse_args(["--set", "board_net.nope=1"])
    assert e.value.code == 2
    assert "nope" in capsys.readouterr().err

@pytest.mark.skipif(not SCENES, reason="no committed rendered scenes")
def test_a_camera_turned_on_its_side_still_finds_the_boards_numbered_by_the_convention():
    # a portrait frame goes to the turned network first. Measured (session 5): 8 of these
    # 11 boards found right (within a quarter pitch) with the first network alone, 8 with
    # the turned one first, which finds 9; on v1/holdout and tests/data (bench/robustness.py
    # rot90) boards found 65.7 -> 94.3 %, cells fully right 55.4 -> 76.8 % (docs/vision.md,
    # "Session 5: board")
    rec = Recognizer(_net_only())
    found, turned = 0, 0
    scenes = [(p, t) for p, t in SCENES if t.get("board_found_expected", True)]
    for path, t in scenes:
        img = cv2.rotate(cv2.imread(os.path.join(DATA, t["image"])), cv2.ROTATE_90_CLOCKWISE)
        r = rec.find_board(img)
        if not r:
            continue
        h = img.shape[0]
        truth = np.asarray(t["cell_centers"], float)
        truth = np.c_[720 - 1 - truth[:, 1], truth[:, 0]]  # (x, y) -> turned clockwise
        d = np.hypot(*(truth[:, None] - r.cell_centers[None]).transpose(2, 0, 1)).min(1)
        found += d.max() < 0.25 * _pitch(truth)
        turned += r.details.get("net") == "turned"
        c = r.cell_centers.reshape(4, 4, 2)  # rows of the convention
        assert c[3, :, 1].mean() > c[0, :, 1].mean() and c[:, 3, 0].mean() > c[:, 0, 0].mean()
        assert h == 1280
    assert found >= len(scenes) - 3 and turned >= 6, (found, turned, len(scenes))


@pytest.mark.skipif(not SCENES, reason="no committed rendered scenes")
def test_low_camera_network_alone_finds_the_committed_boards_and_is_asked_last():
    # the third network (session 6: full boards seen from low cameras drawn more often in
    # training) is asked only when the other two find no board; alone it finds the
    # committed boards as the first one does (measured: 10 of 11 within a quarter pitch)
    st = _net_only()
    st.board_net.model_path = LOW_MODEL_PATH
    st.board_net.turned = st.board_net.low = False
    rec = Recognizer(st)
    right = 0
    for path, t in SCENES:
        r = rec.find_board(cv2.imread(os.path.join(DATA, t["image"])))
        if not t.get("board_found_expected", True):
            assert not r, f"{path}: a board reported where there is none"
            continue
        if r:
            truth = np.asarray(t["cell_centers"], float)
            err = np.hypot(*(truth[:, None] - r.cell_centers[None]).transpose(2, 0, 1)).min(1)
            right += bool(err.max() <= 0.25 * _pitch(truth))
    assert right >= 9, f"{right} boards found right"
    # a frame the first network finds is read by it alone
    path, t = next((p, t) for p, t in SCENES if t.get("board_found_expected", True))
    r = Recognizer(_net_only()).find_board(cv2.imread(os.path.join(DATA, t["image"])))
    assert r and "net" not in r.details


def test_corner_peaks_hold_a_grid_corner_whose_cell_a_piece_hides():
    # session 7: the wrong boards were grids a fraction of a pitch off at a corner cell
    # whose foot a piece hides; the zoomed refit now also fits the playing area's corner
    # peaks (a cell peak counting twice a corner peak) and keeps the better explanation
    from vision.board_net import UNIT_CORNERS, refine
    from vision.geometry import apply_homography, cell_grid

    quad = np.float32([[52, 30], [118, 28], [140, 86], [30, 90]])  # output-map pixels
    H_true = cv2.getPerspectiveTransform(UNIT_CORNERS.astype(np.float32), quad)
    cells = apply_homography(H_true, cell_grid())
    pitch = np.hypot(*(cells[1] - cells[0]))
    rng = np.random.default_rng(7)
    seen = cells + rng.normal(0, 0.03 * pitch, cells.shape)
    seen[[11, 14]] += 0.25 * (cells[[11, 14]] - cells[10])  # feet beside the hidden corner misplaced
    seen = np.delete(seen, 15, axis=0)  # corner cell 15: no peak at all
    corner_peaks = apply_homography(H_true, UNIT_CORNERS) + rng.normal(0, 0.03 * pitch, (4, 2))
    start = H_true @ np.array([[1.03, 0.0, 0.0], [0.0, 1.03, 0.0], [0.0, 0.0, 1.0]])
    H_cells, n_cells = refine(start, np.c_[seen, np.ones(15)], np.zeros((0, 3)), 0.35, 3)
    H_both, n_both = refine(start, np.c_[seen, np.ones(15)], np.c_[corner_peaks, np.ones(4)], 0.35, 3, cell_weight=2)
    err_cells = np.hypot(*(apply_homography(H_cells, cell_grid())[15] - cells[15])) / pitch
    err_both = np.hypot(*(apply_homography(H_both, cell_grid())[15] - cells[15])) / pitch
    assert (n_cells, n_both) == (15, 19)  # inliers count each peak once, whatever its weight
    assert err_both < 0.5 * err_cells, f"corner cell {err_both:.3f} pitch off with corners, {err_cells:.3f} without"


def test_a_greyscale_copy_of_a_photo_finds_the_board_where_the_photo_does():
    # session 32: the Gigamic sample photo saved as a grey PNG was read with its grid 0.37
    # pitch off (22 px), 14 pieces where 8 stand: the whole-frame maps put the board a little
    # off, and the zoomed look, which explained its maps at 0.64 where that board did at
    # 0.22, was refused for moving the grid more than 0.35 pitch. A refit that explains the
    # zoomed maps clearly better may now move it up to 0.6 pitch
    sample = os.path.join(DATA, "..", "..", "samples", "gigamic-beech-walnut.jpg")
    colour = cv2.imread(sample)
    grey = cv2.cvtColor(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    rec = Recognizer()
    a, b = rec.analyze(colour), rec.analyze(grey)
    assert a.found and b.found
    assert np.abs(np.asarray(a.cell_centers) - np.asarray(b.cell_centers)).max() < 2.0
    same = sum((x is None) == (y is None) for x, y in zip(a.cells, b.cells))
    assert same >= 15, f"{same} of 16 cells read taken or empty alike"


@pytest.mark.skipif(not SCENES, reason="no committed rendered scenes")
def test_mirrored_maps_are_the_maps_of_the_mirrored_frame_laid_back_onto_it():
    # session 38: the mirrored look mirrors the network's canvas; a 1280x720 frame fills the
    # canvas's width, so that is the mirrored frame's view, and its maps laid back fall on
    # the frame's own output pixels
    net = BoardNet()
    path, t = next((p, t) for p, t in SCENES if t.get("board_found_expected", True))
    bgr = cv2.imread(os.path.join(DATA, t["image"]))
    of_mirrored_frame, A = net.heatmaps(cv2.flip(bgr, 1))
    mirrored, A2 = net.mirrored_heatmaps(bgr)
    assert np.allclose(A, A2)
    assert np.abs(mirrored - of_mirrored_frame[:, :, ::-1]).max() < 1e-4
    plain, _ = net.heatmaps(bgr)
    assert np.abs(mirrored - plain).max() > 0.01  # a second opinion, not the same maps


@pytest.mark.skipif(not SCENES, reason="no committed rendered scenes")
def test_a_board_no_network_accepts_is_looked_for_again_in_the_mirrored_view(monkeypatch):
    # held out (session 38), the mirrored second look found 5 of the 11 boards the three
    # networks missed (3 within a quarter pitch), no false board on 87 pictures without one.
    # Here every network is made to refuse what it sees; the mirrored look, taking the larger
    # of the two maps at every point, then finds the board where it is
    real = Recognizer._net_board

    def refusing(self, *a, **k):
        H, reason, search, info, region, maps = real(self, *a, **k)
        return None, NO_BOARD, False, info, region, maps

    monkeypatch.setattr(Recognizer, "_net_board", refusing)
    path, t = next((p, t) for p, t in SCENES if t.get("board_found_expected", True))
    bgr = cv2.imread(os.path.join(DATA, t["image"]))
    r = Recognizer(_net_only()).find_board(bgr)
    assert r and r.details.get("mirror") is True
    truth = np.asarray(t["cell_centers"], float)
    err = np.hypot(*(truth[:, None] - r.cell_centers[None]).transpose(2, 0, 1)).min(1)
    assert err.max() <= 0.25 * _pitch(truth)
    st = _net_only()
    st.board_net.mirror_rescue = False
    off = Recognizer(st).find_board(bgr)
    assert not off and off.reason == NO_BOARD
