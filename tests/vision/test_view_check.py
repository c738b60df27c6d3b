"""Setup advice from the board's geometry: a camera straight above cannot tell tall from
short, a camera near the table's level hides cells behind pieces."""

import json

import cv2
import numpy as np
import pytest

from quarto_assist.cli import main
from tests.vision.synthetic import board_homography as _homography
from tests.vision.synthetic import drawn_board
from vision.settings import CameraSettings, VisionSettings
from vision.view_check import check_view, view_measures

W, H_PX = 1280, 720


@pytest.mark.parametrize("tilt", [28.0, 35.0, 45.0])
def test_a_camera_looking_on_from_the_side_gets_no_advice(tilt):
    assert check_view(_homography(tilt), (H_PX, W, 3)) == []


@pytest.mark.parametrize("tilt", [2.0, 8.0])
def test_a_camera_straight_above_is_told_to_tilt(tilt):
    advice = check_view(_homography(tilt, distance=3.5), (H_PX, W, 3))
    assert [a.code for a in advice] == ["steep"]
    assert "tall and short" in advice[0].message and advice[0].value < 0.3


def test_a_camera_near_the_table_is_told_to_rise_and_the_angle_is_said():
    advice = check_view(_homography(62.0), (H_PX, W, 3))
    assert [a.code for a in advice] == ["low"]
    _, angle = view_measures(_homography(62.0), (H_PX, W, 3))
    assert 56 <= angle <= 68
    assert f"{angle:.0f} degrees" in advice[0].message


def test_thresholds_come_from_the_settings_and_survive_a_profile_round_trip():
    H = _homography(35.0)
    assert check_view(H, (H_PX, W, 3), CameraSettings(steep_lean=5.0))[0].code == "steep"
    assert check_view(H, (H_PX, W, 3), CameraSettings(low_view_deg=10.0))[0].code == "low"
    s = VisionSettings()
    s.camera.steep_lean = 0.25
    assert VisionSettings.from_dict(json.loads(json.dumps(s.to_dict()))).camera.steep_lean == 0.25


def _lit(share_white: float, H) -> np.ndarray:
    """A 720p picture whose board (the unit square through ``H``) is pale grey with its
    near part, ``share_white`` of its rows, pure white (a lamp's glare)."""
    img = np.full((H_PX, W, 3), 90, np.uint8)
    pts = cv2.perspectiveTransform(np.array([[[0, 0]], [[1, 0]], [[1, 1]], [[0, 1]]], np.float64), H)
    cv2.fillPoly(img, [np.round(pts.reshape(-1, 2)).astype(np.int32)], (235, 238, 240))
    if share_white > 0:
        glare = np.array([[[0, 1 - share_white]], [[1, 1 - share_white]], [[1, 1]], [[0, 1]]], np.float64)
        pts = cv2.perspectiveTransform(glare, H)
        cv2.fillPoly(img, [np.round(pts.reshape(-1, 2)).astype(np.int32)], (255, 255, 255))
    return img


def test_a_board_half_pure_white_is_told_to_be_dimmed_and_a_pale_one_is_not():
    H = _homography(35.0)
    assert check_view(H, (H_PX, W, 3), image=_lit(0.0, H)) == []  # a white board, exposed right
    assert check_view(H, (H_PX, W, 3), image=_lit(0.1, H)) == []  # a glint, not the board
    advice = check_view(H, (H_PX, W, 3), image=_lit(0.5, H))
    assert [a.code for a in advice] == ["bright"]
    assert 0.3 <= advice[0].value <= 0.7 and "too bright" in advice[0].message and "%" in advice[0].message
    grey = cv2.cvtColor(_lit(0.5, H), cv2.COLOR_BGR2GRAY)  # a grey camera alike
    assert [a.code for a in check_view(H, (H_PX, W), image=grey)] == ["bright"]


def test_no_board_or_a_broken_homography_gives_no_advice():
    assert check_view(None, (H_PX, W, 3)) == []
    assert check_view(np.full((3, 3), np.nan), (H_PX, W, 3)) == []


def test_analyze_prints_the_advice_for_a_photo_from_straight_above(tmp_path, capsys):
    img, _ = drawn_board("rings", tilt=0.0, seed=3)
    p = tmp_path / "above.png"
    cv2.imwrite(str(p), img)
    assert main(["analyze", str(p), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [a["code"] for a in out["advice"]] == ["steep"]
    assert main(["analyze", str(p)]) == 0
    assert "advice: the camera looks nearly straight down" in capsys.readouterr().out
    over = tmp_path / "over.png"
    assert main(["analyze", str(p), "--overlay", str(over)]) == 0
    band = cv2.imread(str(over))[-40:]  # the advice's banner at the bottom, orange text on black
    assert ((band[..., 2] > 200) & (band[..., 1] > 100) & (band[..., 0] < 60)).any()


def test_analyze_says_nothing_of_a_good_view(tmp_path, capsys):
    img, _ = drawn_board("rings", tilt=0.35, seed=7)
    p = tmp_path / "side.png"
    cv2.imwrite(str(p), img)
    assert main(["analyze", str(p), "--json"]) == 0
    assert "advice" not in json.loads(capsys.readouterr().out)
