"""How the board's picture moved between two views (vision.motion): a camera knocked by a
few degrees is measured to a fraction of a pixel at the cells, and a move that does not
explain the picture says so by its correlation."""

import cv2
import numpy as np

from synthetic import drawn_board
from vision.geometry import cell_grid
from vision.motion import estimate_motion


def _board():
    img, centres = drawn_board("rings", tilt=0.35, seed=1)
    H, _ = cv2.findHomography(cell_grid(), centres)
    return img, centres, H


def test_a_knocked_camera_is_measured_at_every_cell():
    img, centres, H = _board()
    knock = cv2.getRotationMatrix2D((640, 360), 3.0, 1.0)
    knock[:, 2] += (20.0, 12.0)  # about 0.2 of a cell pitch more at the board
    moved = cv2.warpAffine(img, knock, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
    m = estimate_motion(img, moved, H)
    truth = centres @ knock[:, :2].T + knock[:, 2]
    assert np.abs(m.apply(centres) - truth).max() < 0.5  # pixels; the cells moved by 25-45
    assert m.after > 0.95 and m.after - m.before > 0.3


def test_the_same_view_is_no_move():
    img, centres, H = _board()
    noisy = np.clip(img + np.random.default_rng(0).normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    m = estimate_motion(img, noisy, H)
    assert np.abs(m.apply(centres) - centres).max() < 0.3
    assert m.after > 0.9


def test_a_picture_of_something_else_does_not_agree_after_any_move():
    img, centres, H = _board()
    other = np.random.default_rng(2).integers(0, 255, img.shape, dtype=np.uint8)
    m = estimate_motion(img, other, H)
    assert m is None or m.after < 0.5


def test_a_board_out_of_the_picture_gives_no_move():
    img, _, _ = _board()
    far = np.array([[100.0, 0, 5000], [0, 100.0, 5000], [0, 0, 1]])  # the board lies far outside the frame
    assert estimate_motion(img, img, far) is None
