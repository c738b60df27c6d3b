"""Reading and normalising frames: whatever the file holds becomes 8-bit BGR.

Grayscale, 16-bit and alpha images are converted; a truncated or foreign file raises
:class:`ImageError` quoting the path. Expected conditions ("too dark") are not errors:
see :func:`too_dark`.
"""

from __future__ import annotations

import os

import cv2
import numpy as np


class ImageError(ValueError):
    """A file that is not a usable image."""


def load_image(path: str | os.PathLike, settings) -> np.ndarray:
    """Read ``path`` as an ``(H, W, 3)`` uint8 BGR array. ``settings``: ``ImageSettings``."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ImageError(f"cannot read image {path!r}: no such file")
    if os.path.isdir(path):
        raise ImageError(f"cannot read image {path!r}: it is a folder")
    data = np.fromfile(path, dtype=np.uint8)
    if data.size == 0:
        raise ImageError(f"cannot read image {path!r}: the file is empty")
    if _truncated(data):
        raise ImageError(f"cannot read image {path!r}: the file is truncated or corrupt")
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ImageError(f"cannot read image {path!r}: not an image format OpenCV can decode")
    return to_bgr8(img, settings, name=path)


def _truncated(data: np.ndarray) -> bool:
    """JPEGs end with the EOI marker and PNGs with an IEND chunk; OpenCV decodes a cut-off
    file into a half-grey picture without complaint, so check the ending ourselves."""
    head = data[:8].tobytes()
    tail = data[-12:].tobytes()
    if head[:3] == b"\xff\xd8\xff":
        return b"\xff\xd9" not in data[-64:].tobytes()
    if head == b"\x89PNG\r\n\x1a\n":
        return b"IEND" not in tail
    return False


def to_bgr8(img: np.ndarray, settings, name: str = "frame") -> np.ndarray:
    """Any decoded image (grey, BGR, BGRA; 8 or 16 bit; float) -> ``(H, W, 3)`` uint8 BGR.

    Alpha is composited over mid-grey so transparent areas read as neither board nor
    piece. Raises :class:`ImageError` for images too large to analyse (a picture too
    small to show a board is an expected failure, see :func:`too_small`).
    """
    if img is None or not isinstance(img, np.ndarray) or img.ndim not in (2, 3) or img.size == 0:
        raise ImageError(f"cannot use image {name!r}: not a picture")
    h, w = img.shape[:2]
    if h * w > settings.max_pixels:
        raise ImageError(f"image {name!r} is too large ({w}x{h} pixels)")
    if img.dtype == np.uint16:
        img = (img / 257.0 + 0.5).astype(np.uint8)
    elif img.dtype in (np.float32, np.float64):
        img = np.clip(img * (255.0 if img.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
    elif img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 1:
        return cv2.cvtColor(img[:, :, 0], cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        alpha = img[:, :, 3:4].astype(np.float32) / 255.0
        return (img[:, :, :3] * alpha + 128.0 * (1 - alpha) + 0.5).astype(np.uint8)
    if img.shape[2] == 3:
        return np.ascontiguousarray(img)
    raise ImageError(f"cannot use image {name!r}: {img.shape[2]} channels")


def working_scale(shape, settings) -> float:
    """Factor (<= 1) that brings the longer side down to ``work_long_side``."""
    return min(1.0, settings.work_long_side / max(shape[:2]))


#: down to this scale the working image is interpolated (two pixels each way, whose window
#: covers the 1-1.5 source pixels a working pixel spans); below it pixel areas are averaged.
#: A 1280x720 frame (scale 0.75) shrinks in 2.2 instead of 8.9 ms so (OpenCV averages areas
#: for a scale that is not 1/n on a slow general path); the readings move as any change of
#: a few pixel values moves them, and on 275 renders read as many cells right (docs/vision.md,
#: "Session 25")
INTERPOLATE_DOWN_TO = 2 / 3


def shrink_interpolation(scale: float) -> int:
    """The OpenCV interpolation :func:`shrink` uses at ``scale`` (< 1)."""
    return cv2.INTER_LINEAR if scale >= INTERPOLATE_DOWN_TO else cv2.INTER_AREA


def shrink(image: np.ndarray, settings) -> tuple[float, np.ndarray]:
    """The image at working scale (``settings``: ``ImageSettings``) and that scale: the
    one copy every stage measures on (interpolated when shrinking a little, pixel areas
    averaged when shrinking more: :data:`INTERPOLATE_DOWN_TO`)."""
    scale = working_scale(image.shape, settings)
    if scale < 1.0:
        return scale, cv2.resize(image, None, fx=scale, fy=scale, interpolation=shrink_interpolation(scale))
    return scale, image


def shrink_region(image: np.ndarray, settings, box) -> tuple[float, np.ndarray, tuple[int, int, int, int] | None]:
    """:func:`shrink` of the part of ``image`` inside ``box`` (x0, y0, x1, y1 pixels) only:
    a working-scale image of the full size with the same pixels as :func:`shrink` inside
    the box and black outside, and the box at working scale (``None`` when the whole image
    was shrunk). Both ways of shrinking are local, so a box whose sides fall on pixels the scale
    maps to whole working pixels gives exactly the pixels of the whole image shrunk; for
    scales without such a small period, or a box covering most of the image, the whole
    image is shrunk."""
    h, w = image.shape[:2]
    scale = working_scale(image.shape, settings)
    if scale >= 1.0:
        return scale, image, None
    period = next((p for p in range(1, 17) if abs(p * scale - round(p * scale)) < 1e-9), None)
    out_w, out_h = round(w * scale), round(h * scale)
    if period is None or abs(w * scale - out_w) > 1e-9 or abs(h * scale - out_h) > 1e-9:
        return scale, shrink(image, settings)[1], None
    x0, y0 = (max(0, int(np.floor(v / period)) * period) for v in box[:2])
    x1 = min(w, int(np.ceil(box[2] / period)) * period)
    y1 = min(h, int(np.ceil(box[3] / period)) * period)
    if x1 <= x0 or y1 <= y0 or (x1 - x0) * (y1 - y0) > 0.7 * w * h:
        return scale, shrink(image, settings)[1], None
    sx0, sy0, sx1, sy1 = (round(v * scale) for v in (x0, y0, x1, y1))
    work = np.zeros((out_h, out_w) + image.shape[2:], image.dtype)
    work[sy0:sy1, sx0:sx1] = cv2.resize(image[y0:y1, x0:x1], (sx1 - sx0, sy1 - sy0),
                                        interpolation=shrink_interpolation(scale))
    return scale, work, (sx0, sy0, sx1, sy1)


def too_small(shape, settings) -> bool:
    """Fewer than ``min_side`` pixels on a side: no board can be read."""
    return min(shape[:2]) < settings.min_side


def too_dark(gray: np.ndarray, settings) -> bool:
    """``(H, W)`` uint8 grey frame too dark to read (mean and contrast both low)."""
    return float(gray.mean()) < settings.too_dark_mean and float(gray.std()) < settings.too_dark_std
