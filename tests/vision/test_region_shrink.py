"""The per-frame step brings only the board's part of the frame to working scale: the
same pixels there, so the same reading, for less work."""

import os

import cv2
import numpy as np

import vision.recognizer as recognizer
from vision import Recognizer
from vision.image import shrink, shrink_region
from vision.settings import ImageSettings, VisionSettings

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


def test_the_shrunk_region_has_exactly_the_pixels_of_the_whole_frame_shrunk():
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (720, 1280, 3), np.uint8)
    settings = ImageSettings()
    scale, whole = shrink(image, settings)
    s, part, box = shrink_region(image, settings, (301.5, 97.2, 933.0, 611.9))
    assert s == scale and part.shape == whole.shape and box is not None
    x0, y0, x1, y1 = box
    assert x0 <= 301.5 * scale and x1 >= 933.0 * scale  # the box grows to whole pixels, never shrinks
    assert np.array_equal(part[y0:y1, x0:x1], whole[y0:y1, x0:x1])
    assert not part[:y0].any() and not part[:, :x0].any()
    # a scale without a small period (1366 wide), or a box over most of the frame: all of it
    odd = rng.integers(0, 256, (768, 1366, 3), np.uint8)
    assert shrink_region(odd, settings, (300, 100, 900, 600))[2] is None
    assert shrink_region(image, settings, (0, 0, 1280, 720))[2] is None


def test_the_per_frame_step_reads_the_same_as_from_the_whole_frame(monkeypatch):
    rec = Recognizer(VisionSettings())
    compared = 0
    for name in sorted(os.listdir(DATA)):
        if not name.endswith(".jpg") or compared == 3:
            continue
        image = cv2.imread(os.path.join(DATA, name))
        first = rec.analyze(image)
        if not first.found:
            continue
        x0, y0, x1, y1 = recognizer.board_region(first.homography, image.shape)
        covered = (min(x1, image.shape[1]) - max(x0, 0)) * (min(y1, image.shape[0]) - max(y0, 0))
        if covered > 0.6 * image.shape[0] * image.shape[1]:
            continue  # a board close to the camera: the whole frame is shrunk (first test)
        boxes = []
        real = recognizer.shrink_region

        def spy(image, settings, box):
            out = real(image, settings, box)
            boxes.append(out[2])
            return out

        with monkeypatch.context() as m:
            m.setattr(recognizer, "shrink_region", spy)
            part = rec.track(image, first)
        assert boxes and boxes[-1] is not None, name  # the step did shrink only the board's region
        with monkeypatch.context() as m:
            m.setattr(recognizer, "board_region", lambda H, shape: (0.0, 0.0, 1e9, 1e9))
            whole = rec.track(image, first)
        assert np.array_equal(part.probabilities, whole.probabilities), name
        assert part.cells == whole.cells
        compared += 1
    assert compared == 3
