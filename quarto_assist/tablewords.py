"""Where a line, block or cell is, as seen from the camera: descriptor keys for speech.

Players do not know cell names; they see "the row nearest the camera". This module
looks at the cell centres in the image (``centers``: (16, 2) float array, (x, y)
pixels, y down, cells numbered row-major in the game's grid) and returns a language-free
key that :mod:`quarto_assist.phrases` turns into words:

- a family of four parallel lines (the rows, or the columns, of the game grid) that runs
  across the image: ``("row", k)``, k = 0 for the one nearest the camera (lowest in the
  image); one that runs away from the camera: ``("col", k)``, k = 0 leftmost;
  one slanting up to the right (a board turned 45 degrees): ``("slant_nr", k)``, k = 0
  at the near-right edge; slanting down to the right: ``("slant_nl", k)``, k = 0 at the
  near-left edge.
- a diagonal of the grid: ``("diag", "across" | "depth" | "nl_fr" | "nr_fl")``.
- a 2x2 block (advanced variant): ``("block", "near-left" | "near" | ... | "centre")``.
"""

from __future__ import annotations

import math

import numpy as np

from engine.rules import BLOCKS, COLUMNS, DIAGONALS, ROWS, mask_cells

Key = tuple[str, object]


def _direction_class(vec) -> str:
    """'h' across the image, 'v' away from the camera, '/' rising right, '\\' falling right."""
    dx, dy = float(vec[0]), float(vec[1])
    ang = math.degrees(math.atan2(dy, dx)) % 180.0
    if ang < 30 or ang > 150:
        return "h"
    if 60 < ang < 120:
        return "v"
    return "/" if ang >= 90 else "\\"


def _family_keys(masks, centers: np.ndarray) -> dict[int, Key]:
    lines = [mask_cells(m) for m in masks]
    direction = np.mean([centers[c[-1]] - centers[c[0]] for c in lines], axis=0)
    kind = _direction_class(direction)
    means = [centers[c].mean(axis=0) for c in lines]
    if kind == "h":
        order = sorted(range(4), key=lambda i: -means[i][1])
        name = "row"
    elif kind == "v":
        order = sorted(range(4), key=lambda i: means[i][0])
        name = "col"
    elif kind == "/":
        order = sorted(range(4), key=lambda i: -(means[i][0] + means[i][1]))
        name = "slant_nr"
    else:
        order = sorted(range(4), key=lambda i: -(means[i][1] - means[i][0]))
        name = "slant_nl"
    return {masks[i]: (name, rank) for rank, i in enumerate(order)}


def _diagonal_key(mask: int, centers: np.ndarray) -> Key:
    cells = mask_cells(mask)
    vec = centers[cells[-1]] - centers[cells[0]]
    kind = _direction_class(vec)
    return ("diag", {"h": "across", "v": "depth", "/": "nl_fr", "\\": "nr_fl"}[kind])


def _block_key(mask: int, centers: np.ndarray) -> Key:
    board_c = centers.mean(axis=0)
    offs = np.array([centers[mask_cells(b)].mean(axis=0) - board_c for b in BLOCKS])
    sx = max(np.abs(offs[:, 0]).max(), 1e-6)
    sy = max(np.abs(offs[:, 1]).max(), 1e-6)
    dx, dy = centers[mask_cells(mask)].mean(axis=0) - board_c
    h = "left" if dx < -0.33 * sx else "right" if dx > 0.33 * sx else ""
    v = "near" if dy > 0.33 * sy else "far" if dy < -0.33 * sy else ""
    return ("block", "-".join(p for p in (v, h) if p) or "centre")


def group_key(mask: int, centers) -> Key:
    """The descriptor of a winning group (a line or a block, as a cell mask)."""
    centers = np.asarray(centers, float).reshape(16, 2)
    if mask in ROWS:
        return _family_keys(ROWS, centers)[mask]
    if mask in COLUMNS:
        return _family_keys(COLUMNS, centers)[mask]
    if mask in DIAGONALS:
        return _diagonal_key(mask, centers)
    if mask in BLOCKS:
        return _block_key(mask, centers)
    raise ValueError(f"not a line or block: {mask:#06x}")


def cell_keys(cell: int, centers) -> tuple[Key, Key]:
    """The two lines (one of each family) that cross at ``cell``."""
    centers = np.asarray(centers, float).reshape(16, 2)
    row_mask = ROWS[cell // 4]
    col_mask = COLUMNS[cell % 4]
    a = _family_keys(ROWS, centers)[row_mask]
    b = _family_keys(COLUMNS, centers)[col_mask]
    # say the line running across first: "the row nearest the camera, second column from the left"
    prefer = {"row": 0, "slant_nr": 1, "slant_nl": 2, "col": 3}
    return (a, b) if prefer[a[0]] <= prefer[b[0]] else (b, a)
