"""Printable pattern and lens calibration: a synthetic camera is recovered; failures are clear."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import FrameMapping, distort_points, prepare_frame, undistort_image
from calibration.lens import find_pattern
from calibration.pattern import inner_corners
from calibration.profile import load_profile
from quarto_assist.cli import main
from synthetic_camera import synthetic_views


def test_pattern_prints_at_the_stated_size_and_is_detectable(tmp_path, capsys):
    out = tmp_path / "pattern.png"
    assert main(["pattern", "--out", str(out), "--rows", "6", "--cols", "9", "--square-mm", "20", "--dpi", "150"]) == 0
    assert "20 mm" in capsys.readouterr().out
    data = out.read_bytes()
    assert b"pHYs" in data[:100]  # print resolution stored, so 100 % printing keeps the size
    page = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    found, corners = cv2.findChessboardCorners(page, inner_corners(6, 9))
    assert found
    pitch_px = np.median(np.abs(np.diff(corners.reshape(5, 8, 2)[:, :, 0], axis=1)))
    assert pitch_px / 150 * 25.4 == pytest.approx(20, abs=0.3)


def test_pattern_refuses_bad_sizes(capsys, tmp_path):
    assert main(["pattern", "--out", str(tmp_path / "p.png"), "--rows", "1"]) == 2
    assert main(["pattern", "--out", str(tmp_path / "p.jpg")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(e.startswith("ERROR ") for e in err)
    assert not any(tmp_path.iterdir())


def test_calibrate_camera_recovers_a_synthetic_lens(tmp_path, capsys):
    K, dist, images = synthetic_views(12, size=(640, 480), seed=7)
    paths = []
    for i, im in enumerate(images):
        paths.append(str(tmp_path / f"view{i:02d}.png"))
        cv2.imwrite(paths[-1], im)
    out = tmp_path / "cam.json"
    assert main(["calibrate-camera", *paths, "--out", str(out), "--square-mm", "24"]) == 0
    assert "RMS error" in capsys.readouterr().out
    cam = load_profile(out).camera
    assert cam.image_size == (640, 480) and cam.rms < 0.3
    assert cam.K[0, 0] == pytest.approx(K[0, 0], rel=0.01) and cam.K[1, 1] == pytest.approx(K[1, 1], rel=0.01)
    assert cam.K[0, 2] == pytest.approx(K[0, 2], abs=3) and cam.K[1, 2] == pytest.approx(K[1, 2], abs=3)
    assert cam.dist[0] == pytest.approx(dist[0], abs=0.03)
    # what matters to the user: undistortion moves every pixel where the true lens would
    grid = np.mgrid[40:600:40, 40:440:40].reshape(2, -1).T.astype(float)
    assert np.abs(distort_points(grid, K, dist) - distort_points(grid, cam.K, cam.dist)).max() < 0.5


def test_undistorted_frame_maps_back_to_original_pixels(tmp_path):
    K, dist, images = synthetic_views(10, size=(640, 480), seed=7)
    paths = []
    for i, im in enumerate(images):
        paths.append(str(tmp_path / f"v{i}.png"))
        cv2.imwrite(paths[-1], im)
    out = tmp_path / "cam.json"
    assert main(["calibrate-camera", *paths, "--out", str(out)]) == 0
    profile = load_profile(out)
    frame, mapping = prepare_frame(profile, images[0])
    assert frame.shape == images[0].shape and not mapping.identity
    # a point found in the undistorted frame comes back where it is in the photo
    pts = np.array([[100.0, 80.0], [320.0, 240.0], [600.0, 400.0]])
    back = mapping.to_original(mapping.to_undistorted(pts))
    assert np.abs(back - pts).max() < 0.05
    # straight pattern rows: in the undistorted frames the corners of a row lie on a line
    # (in the photos as taken they bend by pixels)
    checked = 0
    for image in images:
        frame, _ = prepare_frame(profile, image)
        raw, flat = find_pattern(image, 7, 10), find_pattern(frame, 7, 10)
        if raw is None or flat is None:
            continue
        checked += 1
        assert _row_bend(flat) < 0.5 < _row_bend(raw)
    assert checked >= 3
    # the same lens at twice the resolution is handled by scaling K
    big = cv2.resize(images[0], (1280, 960))
    frame2, mapping2 = undistort_image(big, profile.camera)
    assert frame2.shape == big.shape and mapping2.K[0, 0] == pytest.approx(2 * profile.camera.K[0, 0])


def test_no_camera_means_frame_as_given():
    img = np.zeros((100, 120, 3), np.uint8)
    frame, mapping = prepare_frame(None, img)
    assert frame is img and mapping.identity
    assert np.array_equal(FrameMapping().to_original(np.array([[1.0, 2.0]])), [[1.0, 2.0]])


def test_calibrate_camera_without_pattern_refuses_and_writes_nothing(tmp_path, capsys):
    rng = np.random.default_rng(1)
    paths = []
    for i in range(4):
        paths.append(str(tmp_path / f"noise{i}.png"))
        cv2.imwrite(paths[-1], rng.integers(0, 255, (480, 640), dtype=np.uint8))
    out = tmp_path / "cam.json"
    out.write_text("old")
    assert main(["calibrate-camera", *paths, "--out", str(out)]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("ERROR")]
    assert len(err) == 1 and "found in 0 of 4 photos" in err[0]
    assert out.read_text() == "old"


def test_calibrate_camera_unreadable_image_is_one_line(tmp_path, capsys):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not really a jpeg")
    assert main(["calibrate-camera", str(bad), "--out", str(tmp_path / "c.json")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("ERROR ") and str(bad) in err[0]
    assert not (tmp_path / "c.json").exists()


def _row_bend(corners: np.ndarray) -> float:
    """Largest distance (pixels) of a corner from the straight line through its row."""
    worst = 0.0
    for row in corners.reshape(6, 9, 2):
        centred = row - row.mean(0)
        _, _, vt = np.linalg.svd(centred)
        worst = max(worst, float(np.abs(centred @ vt[1]).max()))
    return worst


def _distorted_board(K, dist, seed=0):
    """A drawn board photographed through a lens with distortion ``dist``: the image and
    the true cell centres in its (distorted) pixels."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "vision_synthetic", Path(__file__).resolve().parents[1] / "vision" / "synthetic.py")
    synthetic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synthetic)
    ideal, centres = synthetic.drawn_board("rings", tilt=0.3, size=(1280, 720), seed=seed)
    h, w = ideal.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pix = np.stack([xs, ys], -1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-6)
    src = cv2.undistortPoints(pix, K, dist, None, K, None, crit).reshape(h, w, 2).astype(np.float32)
    photo = cv2.remap(ideal, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return photo, distort_points(centres, K, dist), np.asarray(centres, float)


def test_analyze_with_a_camera_profile_reports_centres_in_the_photo(tmp_path, capsys):
    import json

    from calibration.camera import CameraModel
    from calibration.profile import default_profile, save_profile

    K = np.array([[700.0, 0, 645], [0, 700.0, 356], [0, 0, 1]])
    dist = np.array([-0.32, 0.12, 0.0, 0.0, 0.0])
    photo, truth, undistorted = _distorted_board(K, dist)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), photo)
    profile = default_profile()
    profile.camera = CameraModel(K=K, dist=dist, image_size=(1280, 720))
    save_profile(profile, tmp_path / "cam.json")
    assert main(["analyze", str(path), "--profile", str(tmp_path / "cam.json"), "--json"]) == 0
    found = np.array(json.loads(capsys.readouterr().out)["cell_centers"])
    err = np.linalg.norm(truth[:, None] - found[None], axis=2).min(axis=1)
    # centres left in undistorted pixels would sit where the board is in the undistorted
    # picture, up to 8 px away here; reported in the photo they sit nearer the photo's cells,
    # within what board finding promises on drawn boards (0.12 cell pitch, tests/vision)
    off = np.linalg.norm(undistorted[:, None] - found[None], axis=2).min(axis=1)
    g = truth.reshape(4, 4, 2)
    pitch = min(np.linalg.norm(g[:, 1:] - g[:, :-1], axis=2).mean(), np.linalg.norm(g[1:] - g[:-1], axis=2).mean())
    assert err.mean() < off.mean() and err.max() < 0.12 * pitch
