"""Scoring readings against rendered ground truth (see the truth format in docs/vision.md).

Cells are matched by their centres (the renderer numbers its cells its own way): each
true cell is paired with the nearest predicted cell by an optimal one-to-one matching.
A cell is *fully right* when its occupancy is right and, if it holds a piece, all four
attributes are right; cells the truth marks ``hidden`` (under a hand) are not scored.
"""

from __future__ import annotations

import json
import math
import os
from statistics import median

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.attributes import PIECE_ATTRIBUTES


#: the ``negative`` kind of a scene whose board stands in the scene but has every cell
#: hidden from the camera
BOARD_HIDDEN = "board-hidden"


class TruthError(ValueError):
    """A truth file that does not follow the format."""


def load_truth(path: str | os.PathLike) -> dict:
    """Read and check one ``NNNN.json`` truth file."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
    except json.JSONDecodeError as e:
        raise TruthError(f"truth file {path!r} is not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(t, dict) or "image" not in t:
        raise TruthError(f"truth file {path!r} has no \"image\" key")
    expected = bool(t.get("board_found_expected", bool(t.get("cell_centers"))))
    hidden = t.get("hidden")
    if expected and isinstance(hidden, list) and len(hidden) == 16 and all(hidden):
        # every cell hidden from the camera (a hand or arm right in front of the lens):
        # no camera can find that board, and "no board in view" is the right answer.
        # Renders from before session 26 still say a board is expected there
        expected = False
        t["negative"] = t.get("negative") or BOARD_HIDDEN
    t["board_found_expected"] = expected
    if expected:
        cc, cells = t.get("cell_centers"), t.get("cells")
        if not (isinstance(cc, list) and len(cc) == 16 and isinstance(cells, list) and len(cells) == 16):
            raise TruthError(f"truth file {path!r} must list 16 cell_centers and 16 cells")
    return t


def _truth_piece(v):
    if v is None:
        return None
    if isinstance(v, int):
        return v
    return int(str(v), 16)


#: CSV columns of :func:`score_reading` rows
COLUMNS = [
    "image", "board_expected", "board_found", "reason", "mean_err_px", "max_err_px",
    "cells_scored", "occupancy_right", "tall_right", "dark_right", "square_right", "hollow_right",
    "attrs_scored", "cells_right", "board_right", "seconds", "piece_set", "material", "board_style", "tilt_deg",
    "view",
]


def scene_of(truth: dict) -> dict:
    """What a rendered scene shows, for breaking figures down: the ``piece_set`` id (sets
    drawn afresh for one scene all count as ``procedural``), its ``material`` (wood,
    paint, plastic), the ``board_style`` id and the camera's ``tilt_deg`` (blank when the
    truth does not say)."""

    def ident(v):
        return (v.get("id") or "") if isinstance(v, dict) else (v or "")

    tilt = (truth.get("camera") or {}).get("tilt_deg")
    pieces = truth.get("piece_set")
    name = ident(pieces)
    return {"piece_set": "procedural" if name.startswith("proc-") else name,
            "material": (pieces.get("material") or "") if isinstance(pieces, dict) else "",
            "board_style": ident(truth.get("board")),
            "tilt_deg": "" if tilt is None else round(float(tilt), 1)}


def score_reading(reading, truth: dict, seconds: float) -> dict:
    """One row (dict with ``COLUMNS``) comparing a ``BoardReading`` with a truth dict."""
    row = {c: "" for c in COLUMNS}
    row.update(image=truth["image"], board_expected=int(truth["board_found_expected"]),
               board_found=int(bool(reading.found)), reason=reading.reason, seconds=round(seconds, 4),
               **scene_of(truth))
    if not truth["board_found_expected"]:
        row["board_right"] = int(not reading.found)
        return row
    hidden = list(truth.get("hidden") or [False] * 16)
    scored = [i for i in range(16) if not hidden[i]]
    row["cells_scored"] = len(scored)
    zero = dict(occupancy_right=0, tall_right=0, dark_right=0, square_right=0, hollow_right=0,
                attrs_scored=0, cells_right=0, board_right=0)
    if not reading.found:
        row.update(zero)
        return row
    true_c = np.asarray(truth["cell_centers"], float)
    pred_c = np.asarray(reading.cell_centers, float)
    d = np.hypot(true_c[:, None, 0] - pred_c[None, :, 0], true_c[:, None, 1] - pred_c[None, :, 1])
    ti, pj = linear_sum_assignment(d)
    pair = dict(zip(ti.tolist(), pj.tolist()))
    errs = d[ti, pj]
    row["mean_err_px"] = round(float(errs.mean()), 2)
    row["max_err_px"] = round(float(errs.max()), 2)
    # a cell matched to a predicted cell far away (wrong lattice) is not read at all
    pitch = float(np.median(np.sort(np.hypot(*(true_c[:, None] - true_c[None]).T), axis=1)[:, 1]))
    occ_right = attrs = cells_right = 0
    attr_right = {a: 0 for a in PIECE_ATTRIBUTES}
    for i in scored:
        t = _truth_piece(truth["cells"][i])
        j = pair[i]
        p = reading.cells[j] if d[i, j] < 0.5 * pitch else "far"
        if p == "far":
            continue
        occ_ok = (t is None) == (p is None)
        occ_right += occ_ok
        if t is None:
            cells_right += occ_ok
            continue
        if p is None:
            continue
        # attributes are scored where both truth and reading have a piece: the
        # attribute stage's own accuracy (a missed piece already counts in occupancy
        # and in fully-right cells)
        attrs += 1
        ok = True
        for k, a in enumerate(PIECE_ATTRIBUTES):
            same = ((t >> k) & 1) == ((p >> k) & 1)
            attr_right[a] += same
            ok &= same
        cells_right += ok
    row.update(occupancy_right=occ_right, attrs_scored=attrs, cells_right=cells_right,
               board_right=int(cells_right == len(scored)),
               **{f"{a}_right": attr_right[a] for a in PIECE_ATTRIBUTES})
    return row


def summarize(rows: list[dict]) -> dict:
    """Per-stage summary of :func:`score_reading` rows (percentages 0-100)."""
    pos = [r for r in rows if r["board_expected"]]
    neg = [r for r in rows if not r["board_expected"]]
    found = [r for r in pos if r["board_found"]]

    def pct(a, b):
        return None if b == 0 else round(100.0 * a / b, 2)

    cells = sum(r["cells_scored"] for r in pos)
    attrs = sum(r["attrs_scored"] for r in found)
    errs = [r["mean_err_px"] for r in found if r["mean_err_px"] != ""]
    maxes = [r["max_err_px"] for r in found if r["max_err_px"] != ""]
    out = {
        "images": len(rows),
        "positives": len(pos),
        "negatives": len(neg),
        "board_found_pct": pct(len(found), len(pos)),
        "false_positives": sum(r["board_found"] for r in neg),
        "false_positive_pct": pct(sum(r["board_found"] for r in neg), len(neg)),
        "cell_error_mean_px": round(float(np.mean(errs)), 2) if errs else None,
        "cell_error_max_px": round(float(np.max(maxes)), 2) if maxes else None,
        "occupancy_pct": pct(sum(r["occupancy_right"] for r in found), sum(r["cells_scored"] for r in found)),
        **{f"{a}_pct": pct(sum(r[f"{a}_right"] for r in found), attrs) for a in PIECE_ATTRIBUTES},
        "cells_right_pct": pct(sum(r["cells_right"] or 0 for r in pos), cells),
        "boards_right_pct": pct(sum(r["board_right"] or 0 for r in pos), len(pos)),
        "median_seconds": round(median(r["seconds"] for r in rows), 4) if rows else None,
    }
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}


#: camera tilt ranges (degrees from straight down) the summary is broken down by
TILT_BANDS = ((0.0, 15.0), (15.0, 30.0), (30.0, 90.0))


def breakdown(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """:func:`summarize` per piece material, piece set, board style, camera tilt band and
    the setup advice given on the found board (``view``: ``ok``, ``steep``, ``low``;
    ``vision.view_check``): ``{"material": {"wood": summary, ...}, "piece_set": ...,
    "board_style": ..., "tilt": ..., "view": ...}`` (scenes whose truth or row does not say
    are left out of that grouping)."""
    def band(r):
        if r.get("tilt_deg") in ("", None):
            return ""
        t = float(r["tilt_deg"])
        return next((f"{lo:.0f}-{hi:.0f} deg" if hi < 90 else f"{lo:.0f}+ deg")
                    for lo, hi in TILT_BANDS if lo <= t < hi)

    out = {}
    for key, of in (("material", lambda r: r.get("material", "")), ("piece_set", lambda r: r.get("piece_set", "")),
                    ("board_style", lambda r: r.get("board_style", "")), ("tilt", band),
                    ("view", lambda r: r.get("view", ""))):
        groups: dict[str, list] = {}
        for r in rows:
            k = of(r)
            if k:
                groups.setdefault(k, []).append(r)
        out[key] = {k: summarize(v) for k, v in sorted(groups.items())}
    return out


def truth_files(folder: str | os.PathLike) -> list[str]:
    """The truth files of a dataset folder, in name order (``NNNN.json``)."""
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise TruthError(f"not a folder: {folder!r}")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and not n.startswith("_"))
    out = []
    for n in names:
        p = os.path.join(folder, n)
        try:
            with open(p, encoding="utf-8") as f:
                head = json.load(f)
        except (OSError, json.JSONDecodeError):
            raise TruthError(f"truth file {p!r} is not valid JSON") from None
        if isinstance(head, dict) and "image" in head and "video" not in head:
            out.append(p)
    return out


def read_file_list(path: str | os.PathLike) -> list[str]:
    """The paths listed in a text file, one a line (blank lines skipped): the ``--files``
    and ``--keep-aside`` lists that pin a training or a measurement to exact images."""
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def listed_truth_files(folders, list_path: str | os.PathLike) -> list[str]:
    """The truth files under ``folders`` (:func:`truth_files_under`) that the text file
    ``list_path`` names (paths compared absolute): the same images on a later day, while
    the folders grow."""
    listed = {os.path.abspath(p) for p in read_file_list(list_path)}
    return [p for d in folders for p in truth_files_under(d) if os.path.abspath(p) in listed]


def truth_files_under(folder: str | os.PathLike) -> list[str]:
    """Truth files of ``folder`` and of its direct subfolders (calibration sets keep one
    session per subfolder), each once, in name order; folders without truth are skipped."""
    import glob

    folder = os.fspath(folder)
    out = []
    for d in [folder] + sorted(glob.glob(os.path.join(folder, "*/"))):
        try:
            out += truth_files(d)
        except (OSError, ValueError):
            pass
    return sorted(set(out))
