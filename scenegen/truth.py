"""Ground truth of a scene (see /work/briefs/truth.md), computed from the scene dict alone.

Everything here is geometry: points on the board are projected through the same camera
and lens model the image is warped with, and hidden cells are found by casting rays
from the camera centre at the hand's capsules.
"""

from __future__ import annotations

import math

import numpy as np

from . import camera as cam
from .catalog import BOARDS, outline_xy, piece_set_for, playing_area_xy
from .hand import occluded
from .sampling import board_to_world, cell_world, piece_height

HEX = "0123456789ABCDEF"
#: a cell counts as hidden when at least this share of its sample points is blocked
HIDDEN_SHARE = 0.4


def position_text(cells: list) -> str:
    t = "".join("." if c is None else c for c in cells)
    return "/".join(t[i : i + 4] for i in range(0, 16, 4)) + " -"


def camera_center(c: dict) -> np.ndarray:
    R = np.asarray(c["R"], float)
    return -R.T @ np.asarray(c["t"], float)


def cell_sample_points(spec: dict, cell: int, piece: dict | None) -> np.ndarray:
    """Points whose visibility decides whether ``cell`` is hidden: the cell's surface
    disc and, when a piece stands there, its body and top."""
    b = BOARDS[spec["board"]["id"]]
    cx, cy, cz = cell_world(spec, cell)
    pts = [[cx, cy, cz]]
    r = b.pitch * 0.3
    for k in range(8):
        a = 2 * math.pi * k / 8
        pts.append([cx + r * math.cos(a), cy + r * math.sin(a), cz])
    if piece is not None:
        ps = piece_set_for(spec["piece_set"])
        h = piece_height(ps, piece["piece"])
        z0 = piece["z"]
        for f in (0.35, 0.7, 1.0):
            pts.append([piece["x"], piece["y"], z0 + h * f + 0.001])
        for k in range(6):
            a = 2 * math.pi * k / 6
            pts.append([piece["x"] + ps.width * 0.45 * math.cos(a), piece["y"] + ps.width * 0.45 * math.sin(a), z0 + h + 0.001])
    return np.array(pts)


def hidden_cells(spec: dict) -> list[bool]:
    if not spec.get("hand") or not spec["board"]["present"]:
        return [False] * 16
    on = {p["cell"]: p for p in spec["pieces"] if p["cell"] is not None}
    C = camera_center(spec["camera"])
    caps = spec["hand"]["capsules"]
    out = []
    for cell in range(16):
        pts = cell_sample_points(spec, cell, on.get(cell))
        blocked = occluded(C, pts, caps)
        out.append(bool(blocked.mean() >= HIDDEN_SHARE))
    return out


def _r(a, nd=2):
    return [[round(float(v), nd) for v in row] for row in np.asarray(a)]


def scene_truth(spec: dict, image_name: str) -> dict:
    """The truth JSON of a rendered still image."""
    c = spec["camera"]
    K, dist, R, t = c["K"], c["dist"], c["R"], c["t"]
    present = spec["board"]["present"]
    b = BOARDS[spec["board"]["id"]]
    ps = piece_set_for(spec["piece_set"])
    cells: list = [None] * 16
    for p in spec["pieces"]:
        if p["cell"] is not None:
            cells[p["cell"]] = HEX[p["piece"]]
    hidden = hidden_cells(spec)
    # a board with every cell hidden from the camera (the hand or arm right in front of
    # the lens) is not one a camera can find: a negative of its own kind
    negative = spec["negative"] or ("board-hidden" if present and all(hidden) else None)
    truth = {
        "image": image_name, "width": spec["width"], "height": spec["height"], "seed": spec["seed"],
        "board": {"id": b.id, "style": b.style, "grid_angle_deg": b.grid_angle_deg, "size_cm": round(b.size * 100, 2),
                  "pitch_cm": round(b.pitch * 100, 2)},
        "piece_set": {"id": ps.id, "light": ps.light, "dark": ps.dark, "material": ps.material, "groove": ps.groove,
                      "width_cm": round(ps.width * 100, 2), "short_cm": round(ps.short_h * 100, 2),
                      "tall_cm": round(ps.tall_h * 100, 2)},
        "board_found_expected": bool(present and not negative),
        "negative": negative,
        "cell_centers": [], "board_corners": [], "board_outline": [],
        "cells": cells if present else [None] * 16,
        "position": position_text(cells if present else [None] * 16),
        "hidden": hidden,
        "hand": bool(spec.get("hand")),
    }
    if "params" in spec["piece_set"]:
        truth["piece_set"].update(procedural=True, light_rgb=list(ps.light_rgb), dark_rgb=list(ps.dark_rgb))
    if "colors" in spec["board"]:
        truth["board"]["colors"] = spec["board"]["colors"]
    if present:
        zt = b.thickness
        centers = np.array([cell_world(spec, i) for i in range(16)])
        corners = np.array([[*board_to_world(spec["board"], xy), zt] for xy in playing_area_xy(b)])
        outline = np.array([[*board_to_world(spec["board"], xy), zt] for xy in outline_xy(b)])
        truth["cell_centers"] = _r(cam.project(centers, K, dist, R, t))
        truth["board_corners"] = _r(cam.project(corners, K, dist, R, t))
        truth["board_outline"] = _r(cam.project(outline, K, dist, R, t))
    spares = []
    W, H = spec["width"], spec["height"]
    for p in spec["pieces"]:
        if p["cell"] is not None:
            continue
        h = piece_height(ps, p["piece"])
        base, top = cam.project(np.array([[p["x"], p["y"], 0.0], [p["x"], p["y"], h]]), K, dist, R, t)
        if 0 <= base[0] < W and 0 <= base[1] < H:
            spares.append({"piece": HEX[p["piece"]], "center": [round(float(base[0]), 2), round(float(base[1]), 2)],
                           "top_center": [round(float(top[0]), 2), round(float(top[1]), 2)]})
    truth["spares"] = spares
    if spec.get("hand") and spec["hand"].get("held"):
        truth["held_piece"] = HEX[spec["hand"]["held"]["piece"]]
    truth["camera"] = {"K": _r(K, 3), "dist": [round(float(v), 6) for v in dist], "tilt_deg": round(c["tilt_deg"], 2),
                       "distance_cm": round(c["distance_cm"], 2), "azimuth_deg": round(c["azimuth_deg"], 2),
                       "R": _r(R, 6), "t": [round(float(v), 6) for v in t]}
    L = spec["light"]
    truth["light"] = {"kind": L["kind"], "kelvin": L["kelvin"]}
    truth["table"] = spec["table"]["kind"]
    truth["clutter"] = [o["kind"] for o in spec["clutter"]]
    truth["post"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in spec["post"].items() if k != "noise_seed"}
    return truth
