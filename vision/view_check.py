"""Is the camera where the pieces can be read? Setup advice from the board's geometry.

Two views defeat piece reading whatever the models learn:

- **steep**: a camera looking nearly straight down sees a tall and a short piece as
  nearly the same disc: a one-pitch vertical is a few pixels long in the picture. On the
  development renders (``bench/pieces_eval.py --by-lean``) tall is read right for 82.8 %
  of 261 pieces where that length is under 0.3 pitch, 97.7 % of 732 elsewhere.
- **low**: a camera close to the table's level sees the cells behind tall pieces hidden
  by them; the pipeline is made for views up to 50 degrees from straight down.

Both are told from the board's homography alone (the guessed camera of
``vision.crops.cell_geometry``), so they cost nothing once the board is found. A third is
told from the picture:

- **bright**: a board so brightly lit, or a camera so exposed, that much of the board is
  pure white in the picture: a light piece on it is pure white too, and neither vision nor
  the watch can see it (game92, a white board under a ceiling light: 32 % of the board's
  pixels at 250 or more, every white piece missed; the 205 development and held-out stills
  with a board, read no worse for it, reach 19 %).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class ViewAdvice:
    """One piece of setup advice: ``code`` ("steep", "low" or "bright"), the ``message``
    for the user, and the measure it rests on (``value``: the median lean in pitches for
    "steep", the median viewing angle in degrees for "low", the share of the board's pixels
    that are pure white for "bright")."""

    code: str
    message: str
    value: float

    @property
    def short(self) -> str:
        """A few words for a status line."""
        return SHORT[self.code]

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "value": round(self.value, 3)}


STEEP_MESSAGE = ("the camera looks nearly straight down, where tall and short pieces look alike: "
                 "tilt it to see the board from the side, about 25 to 50 degrees from straight down")
LOW_MESSAGE = ("the camera is low ({angle:.0f} degrees from straight down): pieces hide the cells behind them; "
               "raise it to look down on the board from 50 degrees or less")

BRIGHT_MESSAGE = ("the board is too bright for the camera ({share:.0%} of it pure white): light pieces on it may "
                  "not be seen; dim the light on the board or turn the camera's exposure down")

SHORT = {"steep": "camera straight above: tall/short unsure - tilt it",
         "low": "camera low: pieces hide cells - raise it",
         "bright": "board too bright: light pieces unseen - dim the light"}

#: grey level from which a pixel counts as pure white (an 8-bit camera clips there)
WHITE = 250


def view_measures(H: np.ndarray, image_shape) -> tuple[float, float]:
    """``(median lean in pitches, median viewing angle in degrees)`` over the 16 cells
    for the board homography ``H`` (board unit square -> pixels) in an image of
    ``image_shape`` ((H, W[, C]))."""
    from vision.crops import cell_geometry

    g = cell_geometry(np.asarray(H, float), image_shape)
    lean = float(np.median(g[:, 0]))
    angle = float(np.degrees(np.arccos(np.clip(np.median(g[:, 1]), 0.0, 1.0))))
    return lean, angle


def white_share(image: np.ndarray, H) -> float:
    """The share of the board's pixels (the unit square through ``H``) that are pure
    white (grey ``WHITE`` or more) in ``image`` ((H, W[, 3]) uint8 BGR or grey); 0 where
    the board covers no pixel."""
    square = np.array([[[0.0, 0.0]], [[1.0, 0.0]], [[1.0, 1.0]], [[0.0, 1.0]]], np.float64)
    corners = cv2.perspectiveTransform(square, np.asarray(H, np.float64)).reshape(-1, 2)
    if not np.all(np.isfinite(corners)):
        return 0.0
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 255)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    inside = grey[mask > 0]
    return float(np.mean(inside >= WHITE)) if inside.size else 0.0


def check_view(H, image_shape, settings=None, image: np.ndarray | None = None) -> list[ViewAdvice]:
    """The advice for a board seen through ``H`` (empty when the view is good, or when
    ``H`` is ``None``); ``settings``: ``vision.settings.CameraSettings`` (default);
    ``image``: the picture itself (8-bit), for the "bright" advice."""
    if H is None:
        return []
    from vision.settings import CameraSettings

    s = settings or CameraSettings()
    try:
        lean, angle = view_measures(H, image_shape)
    except (np.linalg.LinAlgError, ValueError):
        return []
    out = []
    if np.isfinite(lean) and lean < s.steep_lean:
        out.append(ViewAdvice("steep", STEEP_MESSAGE, lean))
    if np.isfinite(angle) and angle > s.low_view_deg:
        out.append(ViewAdvice("low", LOW_MESSAGE.format(angle=angle), angle))
    if image is not None and image.dtype == np.uint8:
        share = white_share(image, H)
        if share >= s.bright_white:
            out.append(ViewAdvice("bright", BRIGHT_MESSAGE.format(share=share), share))
    return out
