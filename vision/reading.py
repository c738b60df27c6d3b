"""What vision hands to the rest of the program: one reading of one frame.

Coordinates are image pixels, ``(x, y)`` with x to the right and y down, origin at the
top-left pixel's centre, in the image as given (distorted, if the lens distorts).

Cells are numbered 0-15 row-major in the board's own grid (see ``vision`` docs for
which corner is cell 0); ``cell_centers[i]`` is the centre of cell ``i`` on the board
surface.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class BoardReading:
    """Result of analysing one frame. Falsy when no board was read, with ``reason`` saying why.

    ``found``        the board was located.
    ``reason``       why not (``"no board in view"``, ``"board cut off"``, ``"too dark"``,
                     ``"hand over the board"``...); empty when all is well.
    ``corners``      (4, 2) float array: the board's playing-area corners, in the order
                     of cells 0, 3, 15, 12 (the outer corner nearest each).
    ``cell_centers`` (16, 2) float array: cell centres in the image.
    ``cells``        16 entries: piece int 0-15, or ``None`` for an empty cell.
    ``confidence``   (16,) float array in [0, 1]: how sure each cell's reading is.
    ``obstructed``   (16,) bool array: cells hidden (by a hand, say) in this frame;
                     their ``cells`` entry is not to be trusted.
    ``homography``   (3, 3) float array mapping board coordinates (unit square, cell
                     ``i`` centred at ``((i % 4 + .5) / 4, (i // 4 + .5) / 4)``) to
                     undistorted image pixels; ``None`` when not found.
    ``timings``      stage name -> seconds.
    ``probabilities`` (16, 5) float array or ``None``: per cell the probability of
                     occupied, tall, dark, square, hollow (before the joint assignment).
    ``features``     (16, D) float array or ``None``: ``vision.features.cell_features``.
    ``image_size``   ``(width, height)`` of the frame read, or ``None``.
    ``reference``    top-down grey view of the board from the last clear frame (the per-
                     frame step compares against it to see hands); ``None`` if not made.
    ``motion``       (2, 3) float array or ``None``: set by the watch when the picture of
                     the board moved since the reading before (a camera knocked): the map
                     from that reading's pixels to this one's.
    ``picture_motion`` (2, 3) float array or ``None``: with ``motion``, when the picture
                     moved differently since the last still view than the board's place
                     did since it was set (a camera creeping, followed once it adds up):
                     the picture's move since that view. ``None``: the same as ``motion``.
    ``large_set``    whether tall was read as of a large piece set (``vision.set_size``);
                     ``None``: not judged (too few pieces, or not read).
    ``small_set``    whether the attributes were read as of a small piece set, judged by
                     the full analysis (``vision.set_size``); ``None``: not judged.
    ``details``      how the board was found (``"method"``: ``"lattice"`` or
                     ``"outline"``, ``"cells_seen"``, ``"support"``), for diagnosis.
    """

    found: bool
    reason: str = ""
    corners: np.ndarray | None = None
    cell_centers: np.ndarray | None = None
    cells: list[int | None] = field(default_factory=lambda: [None] * 16)
    confidence: np.ndarray = field(default_factory=lambda: np.zeros(16))
    obstructed: np.ndarray = field(default_factory=lambda: np.zeros(16, bool))
    homography: np.ndarray | None = None
    timings: dict[str, float] = field(default_factory=dict)
    probabilities: np.ndarray | None = None
    features: np.ndarray | None = None
    image_size: tuple[int, int] | None = None
    reference: np.ndarray | None = None
    details: dict = field(default_factory=dict)
    motion: np.ndarray | None = None
    picture_motion: np.ndarray | None = None
    large_set: bool | None = None
    small_set: bool | None = None

    def __bool__(self) -> bool:
        return self.found

    @property
    def judged_size(self) -> str | None:
        """The piece set's size vision judged from this board and read the pieces as:
        "small", "large", or ``None`` (typical, or not judged)."""
        if self.small_set:
            return "small"
        return "large" if self.large_set else None

    @classmethod
    def not_found(cls, reason: str) -> "BoardReading":
        return cls(found=False, reason=reason)

    @property
    def clear(self) -> bool:
        """Found and nothing in the way: a reading the tracker may trust."""
        return self.found and not self.reason and not bool(np.any(self.obstructed))
