"""The lens model the renders are warped with is exact and agrees with OpenCV."""

import cv2
import numpy as np
import pytest

from scenegen import camera as cam
from scenegen.hand import occluded
from scenegen.sampling import SceneSampler


@pytest.mark.parametrize("dist", [[-0.3, 0.09, 0.001, -0.002, 0.0], [0.05, -0.02, 0, 0, 0.01], [0, 0, 0, 0, 0]])
def test_undistort_inverts_distort(dist):
    rng = np.random.default_rng(0)
    xy = rng.uniform(-0.7, 0.7, (500, 2)) * [1, 0.56]
    back = cam.undistort_normalized(cam.distort_normalized(xy, dist), dist)
    assert np.abs(back - xy).max() < 1e-9


def test_projection_matches_opencv():
    spec = SceneSampler(negative_rate=0).sample(11)
    c = spec["camera"]
    pts = np.random.default_rng(1).uniform(-0.15, 0.15, (50, 3)) * [1, 1, 0.3]
    ours = cam.project(pts, c["K"], c["dist"], c["R"], c["t"])
    rvec, _ = cv2.Rodrigues(np.asarray(c["R"]))
    theirs, _ = cv2.projectPoints(pts, rvec, np.asarray(c["t"]), np.asarray(c["K"]), np.asarray(c["dist"]))
    assert np.abs(ours - theirs.reshape(-1, 2)).max() < 1e-6


def test_warp_maps_each_point_to_its_truth_pixel():
    # a point rendered at its undistorted pixel in the oversized render lands, after the
    # warp, where project() says it is in the final frame
    spec = SceneSampler(negative_rate=0).sample(5)
    c = spec["camera"]
    margin = cam.required_margin(c["K"], c["dist"], 1280, 720)
    wr, hr, Kr = cam.render_geometry(c["K"], 1280, 720, margin, 0.75)
    mx, my = cam.distortion_maps(c["K"], c["dist"], 1280, 720, Kr)
    pts = np.random.default_rng(2).uniform(-0.12, 0.12, (30, 3)) * [1, 1, 0]
    final = cam.project(pts, c["K"], c["dist"], c["R"], c["t"])
    undist = cam.project(pts, Kr, [0] * 5, c["R"], c["t"])
    for (x, y), (u, v) in zip(final, undist):
        xi, yi = int(round(x)), int(round(y))
        # the map at the nearest final pixel reads the render within a pixel of the point
        assert abs(mx[yi, xi] - u) < 1.0 and abs(my[yi, xi] - v) < 1.0
    assert mx.min() >= -0.5 and my.min() >= -0.5 and mx.max() <= wr - 0.5 and my.max() <= hr - 0.5


def test_a_capsule_between_camera_and_point_hides_it():
    cap = [{"p0": [-0.1, 0.0, 0.2], "p1": [0.1, 0.0, 0.2], "r": 0.02}]
    hidden = occluded([0, 0, 0.5], [[0, 0, 0], [0.2, 0.2, 0]], cap)
    assert hidden.tolist() == [True, False]
