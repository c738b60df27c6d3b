"""Reading the photos calibration learns from, with errors that name the file."""

from __future__ import annotations

import os
from pathlib import Path

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
    """(H, W, 3) uint8 BGR image, read as vision reads frames (grey, 16-bit and alpha
    converted). Raises a ``ValueError`` quoting the path when it cannot be used."""
    from vision.image import load_image
    from vision.settings import ImageSettings

    return load_image(path, ImageSettings())
