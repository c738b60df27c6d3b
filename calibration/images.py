"""Reading the photos calibration learns from, with errors that name the file."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class ImageError(ValueError):
    """A photo that cannot be used."""


def expand_inputs(paths: list[str]) -> list[str]:
    """Files as given; a folder stands for its image files in name order."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise ImageError(f"folder '{p}' holds no images ({', '.join(IMAGE_SUFFIXES)})")
            out.extend(found)
        else:
            out.append(p)
    return out


def read_image(path: str) -> np.ndarray:
    """(H, W, 3) uint8 BGR image. Grayscale becomes 3 channels, alpha is dropped, 16-bit is
    scaled to 8. Raises :class:`ImageError` quoting the path when it cannot be read."""
    if not os.path.exists(path):
        raise ImageError(f"image '{path}' does not exist")
    if os.path.isdir(path):
        raise ImageError(f"image '{path}' is a folder")
    data = np.fromfile(path, np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None
    if img is None:
        raise ImageError(f"image '{path}' cannot be read (not an image, or damaged)")
    if img.dtype == np.uint16:
        img = (img / 257).astype(np.uint8)
    elif img.dtype != np.uint8:
        raise ImageError(f"image '{path}' has an unsupported pixel type {img.dtype}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    elif img.shape[2] == 1:
        img = cv2.cvtColor(img[:, :, 0], cv2.COLOR_GRAY2BGR)
    if min(img.shape[:2]) < 64:
        raise ImageError(f"image '{path}' is too small ({img.shape[1]}x{img.shape[0]} pixels)")
    return img
