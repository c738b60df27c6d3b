"""Frame sources: one factory for a camera index, a video file or a folder of frames.

Every frame comes with its source time ``t`` in seconds. For files and folders
``t = index / fps`` (the file's own rate for videos, ``--fps`` for folders), so every
delay computed from ``t`` is the same however fast the frames are processed. For a
camera ``t`` is wall time since the source was opened.

A source's ``read()`` returns a :class:`Frame`, or ``None`` at the end of a file or
folder; a camera that stops delivering raises :class:`CameraLost` (the app retries,
see :mod:`quarto_assist.session`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .clock import Clock, WallClock

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mpg", ".mpeg")


class SourceError(OSError):
    """A source that cannot be opened; the message quotes it and says what to do."""


class CameraUnavailable(SourceError):
    """No camera at the given index."""


class CameraLost(SourceError):
    """A camera that was delivering frames stopped."""


@dataclass
class Frame:
    """One frame: ``image`` (H, W, 3) uint8 BGR, ``t`` source seconds, ``index`` from 0."""

    image: np.ndarray
    t: float
    index: int


class Source(Protocol):
    name: str
    live: bool  # a camera: time is wall time, frames can be lost and come back
    fps: float

    def read(self) -> Frame | None: ...

    def reopen(self) -> None: ...

    def close(self) -> None: ...


def sample_videos() -> list[Path]:
    """The bundled sample game videos (``samples/*.mp4`` beside the package)."""
    root = Path(__file__).resolve().parent.parent / "samples"
    return sorted(root.glob("*.mp4")) if root.is_dir() else []


def no_camera_hint() -> str:
    videos = sample_videos()
    if videos:
        try:
            shown = os.path.relpath(videos[0])
        except ValueError:
            shown = str(videos[0])
        return f"try the bundled sample game: quarto-assist watch {shown}"
    return "give a video file or a folder of frames instead: quarto-assist watch GAME.mp4"


class VideoFileSource:
    """A video file read frame by frame; ``t = index / fps`` with the file's own rate
    (``fps`` given only when the file does not say)."""

    live = False

    def __init__(self, path: str, fps: float | None = None):
        import cv2

        self.name = path
        if not os.path.isfile(path):
            raise SourceError(f"video {path!r} does not exist")
        self._cap = cv2.VideoCapture(path)
        if not self._cap.isOpened():
            raise SourceError(f"cannot open video {path!r} (not a video OpenCV can read)")
        own = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = float(own) if own and own > 0 and own < 1000 else float(fps or 10.0)
        self._index = 0

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok or image is None:
            return None
        f = Frame(image, self._index / self.fps, self._index)
        self._index += 1
        return f

    def reopen(self) -> None:  # a file does not come back; nothing to do
        pass

    def close(self) -> None:
        self._cap.release()


class FolderSource:
    """Image files of a folder read in name order at ``fps`` frames per second."""

    live = False

    def __init__(self, path: str, fps: float = 10.0):
        self.name = path
        if fps <= 0:
            raise SourceError(f"invalid --fps {fps!r} (must be above 0)")
        self.fps = float(fps)
        self._files = sorted(p for p in Path(path).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise SourceError(f"folder {path!r} holds no image files ({', '.join(IMAGE_SUFFIXES)})")
        self._index = 0
        #: names of the files that could not be read as images (skipped)
        self.skipped: list[str] = []

    def read(self) -> Frame | None:
        import cv2

        while self._index < len(self._files):
            i = self._index
            self._index += 1
            image = cv2.imread(str(self._files[i]), cv2.IMREAD_COLOR)
            if image is not None:
                return Frame(image, i / self.fps, i)
            # an unreadable file is skipped (and reported at the end); its time slot stays empty
            self.skipped.append(self._files[i].name)
        return None

    def reopen(self) -> None:
        pass

    def close(self) -> None:
        pass


class CameraSource:
    """A camera by index; ``t`` is wall time since opening. ``read`` raises
    :class:`CameraLost` when the camera stops delivering."""

    live = True

    def __init__(self, index: int, clock: Clock | None = None, width: int = 1280, height: int = 720):
        self.name = f"camera {index}"
        self.index = index
        self.clock = clock or WallClock()
        self._size = (width, height)
        self._cap = None
        self._frames = 0
        self.fps = 30.0
        self._open(first=True)
        self._t0 = self.clock.now()

    def _open(self, first: bool = False) -> None:
        import cv2

        cap = _quietly(lambda: cv2.VideoCapture(self.index))
        if not cap.isOpened():
            cap.release()
            if first:
                raise CameraUnavailable(f"no camera found at index {self.index}; {no_camera_hint()}")
            raise CameraLost(f"camera {self.index} is still not available")
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self._size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self._size[1])
        fps = cap.get(cv2.CAP_PROP_FPS)
        if fps and 0 < fps < 1000:
            self.fps = float(fps)
        self._cap = cap

    def read(self) -> Frame | None:
        if self._cap is None:
            raise CameraLost(f"camera {self.index} is disconnected")
        ok, image = self._cap.read()
        if not ok or image is None:
            self._cap.release()
            self._cap = None
            raise CameraLost(f"camera {self.index} stopped delivering frames")
        f = Frame(image, self.clock.now() - self._t0, self._frames)
        self._frames += 1
        return f

    def reopen(self) -> None:
        """Try once to open the camera again; raises :class:`CameraLost` if it is not back."""
        self._open()

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def _quietly(fn):
    """Run ``fn`` with OpenCV's own log silenced: a missing camera is reported by us,
    in one line, not by a page of backend warnings."""
    try:
        import cv2.utils.logging as cvlog
    except ImportError:
        return fn()
    old = cvlog.getLogLevel()
    cvlog.setLogLevel(cvlog.LOG_LEVEL_SILENT)
    try:
        return fn()
    finally:
        cvlog.setLogLevel(old)


def open_source(spec: str, fps: float = 10.0, clock: Clock | None = None) -> Source:
    """``'0'`` -> camera 0; a video file; a folder of frames (read at ``fps``)."""
    spec = str(spec)
    if spec.isdigit():
        return CameraSource(int(spec), clock=clock)
    if os.path.isdir(spec):
        return FolderSource(spec, fps)
    if os.path.isfile(spec):
        if Path(spec).suffix.lower() in IMAGE_SUFFIXES:
            raise SourceError(f"source {spec!r} is a single image; give a video, a folder of frames or a camera index "
                              f"(for one photo use: quarto-assist analyze {spec})")
        return VideoFileSource(spec, fps)
    raise SourceError(f"source {spec!r} is neither a camera index, a video file nor a folder of frames")
