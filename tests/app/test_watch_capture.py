"""Frame sources: folders in name order at --fps, video files at their own rate, a
missing camera explained in one line."""

import cv2
import numpy as np
import pytest

from quarto_assist.capture import CameraSource, CameraUnavailable, SourceError, open_source


def frame(k: int) -> np.ndarray:
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, :, 1] = 20 * k  # tells the frames apart
    return img


def test_a_folder_is_read_in_name_order_with_time_from_fps(tmp_path):
    for k in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"{k:04d}.png"), frame(k))
    (tmp_path / "notes.txt").write_text("not a frame")
    src = open_source(str(tmp_path), fps=4)
    got = []
    while (f := src.read()) is not None:
        got.append((f.index, f.t, int(f.image[0, 0, 1])))
    assert got == [(0, 0.0, 0), (1, 0.25, 20), (2, 0.5, 40)]
    assert not src.live


def test_a_video_file_uses_its_own_frame_rate(tmp_path):
    path = str(tmp_path / "game.avi")
    vw = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48))
    for k in range(6):
        vw.write(frame(k))
    vw.release()
    src = open_source(path, fps=10)
    ts = []
    while (f := src.read()) is not None:
        ts.append(f.t)
    assert ts == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])


def test_bad_sources_say_what_is_wrong(tmp_path):
    with pytest.raises(SourceError, match="neither a camera index"):
        open_source(str(tmp_path / "nothing.mp4"))
    with pytest.raises(SourceError, match="no image files"):
        open_source(str(tmp_path))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video")
    with pytest.raises(SourceError, match="cannot open video"):
        open_source(str(junk))


def test_no_camera_points_to_the_sample_video():
    with pytest.raises(CameraUnavailable, match=r"no camera found at index 57; .*quarto-assist watch"):
        CameraSource(57)
