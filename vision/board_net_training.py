"""Train the board-keypoint network (``vision/board_net.onnx``) on rendered scenes with truth.

    python -m vision.board_net_training data/renders/dev-v0 data/renders/v1/train \\
        data/renders/v2/train data/renders/calib-dev --epochs 24 \\
        --files vision/board_net_files.txt --out vision/board_net.onnx

Training folders only (never the holdout sets). The defaults are the recipe (36 epochs,
30 seeded images kept aside to report on and to choose thresholds with); ``--files LIST``
trains on exactly the truth files listed. The shipped first network (session 7) was
trained on 1032 truth files (every training image present at 02:41 UTC on 1 Dec less 80
kept aside to compare with) for 24 epochs, about as many steps as 36 epochs on the
earlier ~630 files: 68 minutes on one core of a loaded machine.
Needs torch and onnx (development dependencies); the shipped program runs the exported
ONNX file with ONNX Runtime (``vision.dnn``; OpenCV's ``cv2.dnn`` where that is missing).

Each truth file gives the 16 cell centres on the board surface, from which the playing
area's corners follow (a homography fitted to the centres, evaluated at the unit square's
corners), and the board's outline. Every training step draws fresh augmented copies: the
frame scaled, rotated (up to 25 degrees) and shifted into the network's canvas (parts of
the board may leave it: only what is in view is labelled), colours turned (hue, saturation, gamma, channel
order, grey), blurred, noised and JPEG-compressed. Images without a board are negatives
(all maps zero). Everything random is seeded (``--seed``).

``--turned`` trains the second network (``vision/board_net_turned.onnx``, tried when the
first finds no board): a third of its views turned by any angle (a camera at the
table's corner or side, a photo taken turned or upright; the maps mark cells and corners
without their order, so the numbering is decided after the fit as for the first), the
zoomed views too, and low camera views (tilt 30 degrees or more, where pieces and hands
hide most of the board) drawn 1.5 times as often and occluded more::

    python -m vision.board_net_training data/renders/dev-v0 data/renders/v1/train \\
        data/renders/v2/train data/renders/calib-dev --turned --epochs 40 \\
        --files vision/board_net_turned_files.txt --out vision/board_net_turned.onnx

``--low`` trains the third network (``vision/board_net_low.onnx``, tried when neither of
the others finds a board): the first network's recipe, with low camera views drawn 1.5
times as often (full ones, 12 or more pieces, twice) and occluded as the turned recipe
occludes them (session 6: the boards missed at low cameras are lost in the maps, where
pieces hide most cell feet)::

    python -m vision.board_net_training data/renders/dev-v0 data/renders/v1/train \\
        data/renders/v2/train data/renders/calib-dev --low \\
        --files vision/board_net_low_files.txt --out vision/board_net_low.onnx
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import cv2
import numpy as np

from vision.board_net import (INPUT_H, INPUT_W, OUT_H, OUT_W, UNIT_CORNERS, ZOOM_FILL, canvas_to_blob,
                              input_to_output, zoom_affine)
from vision.geometry import apply_homography, cell_grid

PRE_LONG_SIDE = 480  # frames are kept in memory at this size (scale augmentation headroom) ...
# ... and at twice that, for the zoomed views (the second pass sees the board at up to ~2.5x)
ZOOM_RATE = 0.3  # share of training views placed as the zoomed second pass places a board
HAND_RATE = 0.45  # share of training views with synthetic hands / objects pasted over the board
HAND_WEIGHT = 2.0  # images with a rendered hand are drawn this many times as often
# the turned network's recipe (--turned):
TURN_ANY_RATE = 0.35  # share of views turned by any angle (also in the zoomed placement) ...
TURN_SMALL_RATE = 0.45  # ... and turned by at most TURN_SMALL degrees; the rest are upright
TURN_SMALL = 25.0
LOW_TILT = 30.0  # camera tilt (degrees from straight down) from which a view counts as low
LOW_WEIGHT = 1.5  # low views are drawn this many times as often ...
LOW_HAND_RATE = 0.6  # ... get synthetic occluders this often ...
LOW_TWO_RATE = 0.45  # ... and two of them this often (else 0.25)
# the --low recipe (the first network's, upright, with low views drawn and occluded as the
# turned recipe draws them, and full low views -- most of the lattice hidden -- more still)
FULL_PIECES = 12  # a board with this many pieces or more counts as full
FULL_LOW_WEIGHT = 2.0  # a full board seen low is drawn this many times as often (not 1.5)
# skin tones (BGR), light to dark; each hand varies its own
SKIN = np.array([[189, 214, 241], [160, 190, 230], [130, 170, 224], [115, 150, 198], [90, 125, 175],
                 [70, 100, 150], [50, 75, 115], [40, 55, 85]], float)


def truth_files(folders: list[str]) -> list[str]:
    """The truth files of still images in ``folders`` and their direct subfolders."""
    from vision.evaluation import truth_files_under

    return [p for f in folders for p in truth_files_under(f)]


def load_example(path: str) -> dict | None:
    """One truth file -> image (shrunk to ``PRE_LONG_SIDE``) and keypoints in its pixels."""
    with open(path, encoding="utf-8") as f:
        t = json.load(f)
    if "image" not in t or "video" in t:
        return None
    img = cv2.imread(os.path.join(os.path.dirname(path), t["image"]))
    if img is None:
        return None
    h, w = img.shape[:2]
    s = PRE_LONG_SIDE / max(w, h)
    w2, h2 = round(w * s), round(h * s)
    small = cv2.resize(img, (w2, h2), interpolation=cv2.INTER_AREA)
    big = cv2.resize(img, (2 * w2, 2 * h2), interpolation=cv2.INTER_AREA)
    sx, sy = w2 / w, h2 / h
    to_small = lambda p: np.asarray(p, float).reshape(-1, 2) * [sx, sy] + [0.5 * sx - 0.5, 0.5 * sy - 0.5]  # noqa: E731
    cells = np.asarray(t.get("cell_centers") or [], float).reshape(-1, 2)
    ex = {"path": path, "image": small, "big": big, "cells": np.zeros((0, 2)), "corners": np.zeros((0, 2)),
          "outline": np.zeros((0, 2)), "pitch": 0.0, "hand": bool(t.get("hand")),
          "low": float((t.get("camera") or {}).get("tilt_deg") or 0.0) >= LOW_TILT,
          "pieces": sum(c is not None for c in t.get("cells") or [])}
    if len(cells) == 16:
        H, _ = cv2.findHomography(cell_grid(), cells, 0)
        corners = apply_homography(H, UNIT_CORNERS)
        d = np.hypot(*(cells[:, None] - cells[None]).transpose(2, 0, 1))
        d[d == 0] = np.inf
        outline = t.get("board_outline") or t.get("board_corners") or []
        ex.update(cells=to_small(cells), corners=to_small(corners),
                  outline=to_small(outline) if len(outline) >= 3 else np.zeros((0, 2)),
                  pitch=float(np.median(d.min(1))) * sx)
    return ex


def _gauss(maps: np.ndarray, ch: int, pts: np.ndarray, sigma: float) -> None:
    yy, xx = np.mgrid[0:OUT_H, 0:OUT_W]
    for x, y in pts:
        if -3 * sigma <= x < OUT_W + 3 * sigma and -3 * sigma <= y < OUT_H + 3 * sigma:
            r = int(3 * sigma) + 1
            x0, x1 = max(0, int(x) - r), min(OUT_W, int(x) + r + 2)
            y0, y1 = max(0, int(y) - r), min(OUT_H, int(y) + r + 2)
            if x0 >= x1 or y0 >= y1:
                continue
            g = np.exp(-((xx[y0:y1, x0:x1] - x) ** 2 + (yy[y0:y1, x0:x1] - y) ** 2) / (2 * sigma ** 2))
            np.maximum(maps[ch, y0:y1, x0:x1], g, out=maps[ch, y0:y1, x0:x1])
            xi, yi = int(round(x)), int(round(y))
            if 0 <= xi < OUT_W and 0 <= yi < OUT_H:
                maps[ch, yi, xi] = 1.0  # the focal loss's positive: the keypoint's nearest pixel


def augment(ex: dict, rng: np.random.Generator, plain: bool = False, turned: bool = False, low: bool = False) \
        -> tuple[np.ndarray, np.ndarray]:
    """One training pair: ``(3, INPUT_H, INPUT_W)`` float32 input and ``(3, OUT_H, OUT_W)``
    target maps. ``plain``: no augmentation (the frame placed as at run time);
    ``turned``: the turned network's recipe (see the module's doc); ``low``: low views
    occluded as in the turned recipe (the views themselves stay upright)."""
    img = ex["image"]
    h, w = img.shape[:2]
    base = min(INPUT_W / w, INPUT_H / h)  # as vision.board_net.prepare_input places a frame
    if plain:
        M = np.array([[base, 0, 0.5 * base - 0.5], [0, base, 0.5 * base - 0.5]])
    elif len(ex["cells"]) and rng.random() < ZOOM_RATE:
        # as the second pass places a found board: centred, as large as ZOOM_FILL allows
        # (the first pass's board is a few pixels off: so is this one); turned: in a
        # frame that may show the board turned
        T = np.eye(3)
        if turned and rng.random() < TURN_ANY_RATE:
            T[:2] = _turn(rng.uniform(-180, 180), (w - 1) / 2, (h - 1) / 2)
        Z = zoom_affine(ex["corners"] @ T[:2, :2].T + T[:2, 2], w, h,
                        fill=tuple(f * rng.uniform(0.85, 1.12) for f in ZOOM_FILL), max_scale=np.inf)
        Z[:, 2] += rng.normal(0, 0.03, 2) * [INPUT_W, INPUT_H]
        a = np.deg2rad(rng.uniform(-8, 8))
        c = np.array([(INPUT_W - 1) / 2, (INPUT_H - 1) / 2])
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        M = np.c_[R @ Z[:, :2], R @ (Z[:, 2] - c) + c] if not turned else \
            (np.vstack([np.c_[R, c - R @ c], [0, 0, 1]]) @ np.vstack([Z, [0, 0, 1]]) @ T)[:2]
    else:
        fw, fh = w, h
        if turned:
            u = rng.random()
            ang = float(rng.uniform(-180, 180)) if u < TURN_ANY_RATE else \
                float(rng.uniform(-TURN_SMALL, TURN_SMALL)) if u < TURN_ANY_RATE + TURN_SMALL_RATE else 0.0
            a = np.deg2rad(ang)
            if abs(ang) > TURN_SMALL and rng.random() < 0.5:
                # the whole turned frame fitted into the canvas, as a photo taken turned
                # (or upright: a portrait frame) is shrunk into it at run time
                fw = abs(np.cos(a)) * w + abs(np.sin(a)) * h
                fh = abs(np.sin(a)) * w + abs(np.cos(a)) * h
            fit = min(INPUT_W / fw, INPUT_H / fh)
            s = fit * float(np.exp(rng.uniform(np.log(0.7), np.log(1.45))))
        else:
            fit = base
            s = base * float(np.exp(rng.uniform(np.log(0.7), np.log(1.45))))
            ang = float(rng.uniform(-25, 25)) if rng.random() < 0.7 else 0.0
        shift = rng.uniform(-0.22, 0.22, 2) * [INPUT_W, INPUT_H]
        # frame centre -> the placed frame's centre (top left, as at run time; shifted),
        # scaled and turned about it
        c_src = np.array([(w - 1) / 2, (h - 1) / 2])
        c_dst = (np.array([fw * fit, fh * fit]) - 1) / 2 + shift
        a = np.deg2rad(ang)
        R = s * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        M = np.c_[R, c_dst - R @ c_src]
    border = (0, 0, 0) if plain or rng.random() < 0.5 else tuple(int(v) for v in rng.integers(0, 256, 3))
    scale = float(np.sqrt(abs(np.linalg.det(M[:, :2]))))
    if scale >= 1.0:
        # enlarged: sample the twice-as-large copy (big pixel p -> small pixel p / 2 - 1/4)
        src, Ms = ex["big"], M @ np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])
    else:
        src, Ms = img, M
    canvas = cv2.warpAffine(src, Ms, (INPUT_W, INPUT_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=border)
    tf_in = lambda p: p @ M[:, :2].T + M[:, 2]  # noqa: E731
    if not plain:
        low = (turned or low) and ex["low"]
        if rng.random() < (LOW_HAND_RATE if low else HAND_RATE):
            pitch_in = ex["pitch"] * scale if len(ex["cells"]) else float(rng.uniform(8, 30))
            target = tf_in(ex["cells"]) if len(ex["cells"]) else \
                rng.uniform([0, 0], [INPUT_W, INPUT_H], (16, 2))
            canvas = paste_occluders(canvas, target, pitch_in, rng, LOW_TWO_RATE if low else 0.25, turned or low)
        canvas = _colour(canvas, rng)
    maps = np.zeros((3, OUT_H, OUT_W), np.float32)
    if len(ex["cells"]):
        tf = lambda p: input_to_output(tf_in(p))  # noqa: E731
        pitch_out = ex["pitch"] * scale / 2.0
        sigma = float(np.clip(0.15 * pitch_out, 0.8, 2.5))
        _gauss(maps, 0, tf(ex["cells"]), sigma)
        _gauss(maps, 1, tf(ex["corners"]), sigma)
        if len(ex["outline"]):
            poly = np.round(tf(ex["outline"]) * 8).astype(np.int32)
            region = np.zeros((OUT_H, OUT_W), np.uint8)
            cv2.fillPoly(region, [poly], 1, shift=3)
            maps[2] = region
    return canvas_to_blob(canvas)[0], maps


def _turn(degrees: float, cx: float, cy: float) -> np.ndarray:
    """``(2, 3)`` rotation by ``degrees`` about ``(cx, cy)``."""
    a = np.deg2rad(degrees)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return np.c_[R, np.array([cx, cy]) - R @ [cx, cy]]


def _capsule(mask: np.ndarray, a, b, width: float, sub: int = 4) -> None:
    """Draw a thick segment with round ends into ``mask`` (sub-pixel, ``sub`` = 2**shift)."""
    k = 1 << sub
    p = (int(round(a[0] * k)), int(round(a[1] * k)))
    q = (int(round(b[0] * k)), int(round(b[1] * k)))
    cv2.line(mask, p, q, 255, max(1, int(round(width))), cv2.LINE_AA, sub)
    r = int(round(width / 2 * k))
    cv2.circle(mask, p, r, 255, -1, cv2.LINE_AA, sub)
    cv2.circle(mask, q, r, 255, -1, cv2.LINE_AA, sub)


def _shade(mask: np.ndarray, colour: np.ndarray, axis: np.ndarray, origin: np.ndarray, half: float,
           rng: np.random.Generator) -> np.ndarray:
    """A colour layer shaded like a cylinder along ``axis`` (light from one side), with a
    little low-frequency texture."""
    h, w = mask.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    nrm = np.array([-axis[1], axis[0]])
    d = ((xx - origin[0]) * nrm[0] + (yy - origin[1]) * nrm[1]) / max(half, 1.0)
    d = np.clip(d, -1, 1)
    light = float(rng.uniform(-0.8, 0.8))
    f = rng.uniform(0.45, 0.7) + rng.uniform(0.35, 0.6) * np.clip(np.sqrt(1 - d ** 2) + light * d, 0, 1.2)
    tex = cv2.resize(rng.normal(1, 0.06, (max(2, h // 16), max(2, w // 16))).astype(np.float32), (w, h))
    return colour[None, None, :] * (f * tex)[:, :, None]


def paste_occluders(canvas: np.ndarray, cells: np.ndarray, pitch: float, rng: np.random.Generator,
                    two_rate: float = 0.25, turned: bool = False) -> np.ndarray:
    """Paste 1-2 synthetic occluders (2 at ``two_rate`` with the turned recipe, else 0.25)
    over the board (``cells``: its
    cell centres in canvas pixels, ``pitch``: a cell's size there): an arm reaching in from a frame edge with a
    hand and fingers over a cell (skin tones, sometimes a sleeve), or an object (a mug, a
    phone: a shaded ellipse or box of any colour); soft edges, a soft shadow. The targets
    stay: the network learns where the cells are under them."""
    h, w = canvas.shape[:2]
    out = canvas.astype(np.float32)
    pitch = max(float(pitch), 4.0)
    r = rng.random()
    # (the first network's recipe drew one occluder below 0.75, the turned one two below
    # its rate: kept so that each rebuild gives its shipped file)
    for _ in range((2 if r < two_rate else 1) if turned else (1 if r < 0.75 else 2)):
        mask = np.zeros((h, w), np.uint8)
        tip = cells[rng.integers(len(cells))] + rng.normal(0, 0.5 * pitch, 2)
        if rng.random() < 0.7:
            # an arm from outside the frame edge to a hand over a cell
            side = rng.integers(4)
            t = rng.uniform(0.1, 0.9)
            start = [np.array([t * w, -pitch]), np.array([w + pitch, t * h]), np.array([t * w, h + pitch]),
                     np.array([-pitch, t * h])][side] if rng.random() < 0.85 else \
                tip + rng.normal(0, 4 * pitch, 2)
            axis = tip - start
            length = float(np.hypot(*axis)) + 1e-6
            axis = axis / length
            arm_w = pitch * rng.uniform(1.0, 1.7)
            palm_at = tip - axis * pitch * rng.uniform(0.8, 1.3)
            _capsule(mask, start, palm_at, arm_w)
            arm = mask.copy()
            skin = SKIN[rng.integers(len(SKIN))] * rng.uniform(0.85, 1.15, 3)
            sleeve = rng.random() < 0.5
            hand = np.zeros_like(mask)
            cv2.ellipse(hand, (int(palm_at[0] * 16), int(palm_at[1] * 16)),
                        (int(pitch * rng.uniform(0.9, 1.2) * 16), int(pitch * rng.uniform(0.8, 1.1) * 16)),
                        float(np.degrees(np.arctan2(axis[1], axis[0]))), 0, 360, 255, -1, cv2.LINE_AA, 4)
            nrm = np.array([-axis[1], axis[0]])
            spread = rng.uniform(0.1, 0.5)
            for k in range(rng.integers(2, 6)):
                off = (k - 1.5) * 0.35 * pitch
                direction = axis + nrm * (k - 1.5) * spread * 0.5
                direction /= np.hypot(*direction)
                base = palm_at + axis * 0.6 * pitch + nrm * off
                _capsule(hand, base, base + direction * pitch * rng.uniform(0.6, 1.3), 0.3 * pitch)
            if rng.random() < 0.3:  # a thumb
                side_s = 1 if rng.random() < 0.5 else -1
                base = palm_at + nrm * side_s * 0.7 * pitch
                _capsule(hand, base, base + (axis + nrm * side_s) * 0.6 * pitch, 0.35 * pitch)
            mask = np.maximum(mask, hand)
            layer = _shade(mask, skin, axis, palm_at, arm_w / 2, rng)
            if sleeve:
                cloth = rng.uniform(10, 245, 3)
                cut = np.zeros_like(mask)
                cuff = palm_at - axis * pitch * rng.uniform(0.8, 2.5)
                _capsule(cut, start, cuff, arm_w * 1.15)
                sl = _shade(cut, cloth, axis, palm_at, arm_w / 2, rng)
                m = cut.astype(np.float32)[:, :, None] / 255
                layer = layer * (1 - m) + sl * m
                mask = np.maximum(mask, np.where(arm > 0, cut, 0))
        else:
            # an object standing on or beside the board
            colour = rng.uniform(10, 245, 3)
            r = pitch * rng.uniform(0.5, 1.5)
            ang = float(rng.uniform(0, 180))
            if rng.random() < 0.5:
                cv2.ellipse(mask, (int(tip[0] * 16), int(tip[1] * 16)), (int(r * 16), int(r * rng.uniform(0.5, 1) * 16)),
                            ang, 0, 360, 255, -1, cv2.LINE_AA, 4)
            else:
                box = cv2.boxPoints(((float(tip[0]), float(tip[1])), (r * 2, r * rng.uniform(0.6, 2.4)), ang))
                cv2.fillConvexPoly(mask, np.round(box * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
            axis = np.array([np.cos(np.deg2rad(ang)), np.sin(np.deg2rad(ang))])
            layer = _shade(mask, colour, axis, tip, r, rng)
        soft = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(0.4, 1.8))).astype(np.float32) / 255
        # a soft shadow cast away from the light
        shift = rng.normal(0, 0.4 * pitch, 2)
        sh = cv2.warpAffine(soft, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (w, h))
        sh = cv2.GaussianBlur(sh, (0, 0), float(0.2 * pitch + 1))
        out *= (1 - rng.uniform(0.2, 0.55) * sh)[:, :, None]
        out = out * (1 - soft[:, :, None]) + layer * soft[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _colour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = img
    if rng.random() < 0.6:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV).astype(np.float32)
        if rng.random() < 0.5:
            hsv[:, :, 0] = (hsv[:, :, 0] + rng.uniform(0, 180)) % 180
        hsv[:, :, 1] = np.clip(hsv[:, :, 1] * rng.uniform(0.5, 1.5), 0, 255)
        out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    if rng.random() < 0.15:
        out = out[:, :, rng.permutation(3)]
    if rng.random() < 0.1:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    f = out.astype(np.float32) / 255.0
    f = f ** float(np.exp(rng.uniform(-0.5, 0.5)))
    f = (f - 0.5) * rng.uniform(0.6, 1.3) + 0.5 + rng.uniform(-0.15, 0.15)
    f = f * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    out = np.clip(f * 255, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        k = float(rng.uniform(0.4, 1.4))
        out = cv2.GaussianBlur(out, (0, 0), k)
    if rng.random() < 0.4:
        noise = rng.normal(0, rng.uniform(2, 10), out.shape)
        out = np.clip(out + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def build_model():
    import torch
    from torch import nn

    def block(i, o, stride=1, dil=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, padding=dil, dilation=dil, bias=False),
                             nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.e1 = nn.Sequential(block(3, 16, 2), block(16, 16))            # 1/2
            self.e2 = nn.Sequential(block(16, 32, 2), block(32, 32))           # 1/4
            self.e3 = nn.Sequential(block(32, 48, 2), block(48, 48))           # 1/8
            self.e4 = nn.Sequential(block(48, 64, 2), block(64, 64, dil=2), block(64, 64, dil=4))  # 1/16
            self.d3 = block(64 + 48, 48)
            self.d2 = block(48 + 32, 32)
            self.d1 = nn.Sequential(block(32 + 16, 24), block(24, 24))
            self.head = nn.Conv2d(24, 3, 1)
            self.head.bias.data[:] = -4.0

        def forward(self, x):
            up = lambda t: nn.functional.interpolate(t, scale_factor=2.0, mode="nearest")  # noqa: E731
            x1 = self.e1(x)
            x2 = self.e2(x1)
            x3 = self.e3(x2)
            x4 = self.e4(x3)
            y = self.d3(torch.cat([up(x4), x3], 1))
            y = self.d2(torch.cat([up(y), x2], 1))
            y = self.d1(torch.cat([up(y), x1], 1))
            return torch.sigmoid(self.head(y))

    return Net()


def focal_loss(pred, target):
    """CenterNet's penalty-reduced focal loss on Gaussian peak maps."""
    import torch

    p = pred.clamp(1e-4, 1 - 1e-4)
    pos = target.ge(0.99).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    n = pos.sum()
    return -(pos_loss.sum() + neg_loss.sum()) / torch.clamp(n, min=1.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="training folders (NNNN.jpg + NNNN.json)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "board_net.onnx"))
    ap.add_argument("--epochs", type=int, default=36)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--files", help="a text file listing the truth files to use (one a line) instead of all in FOLDERS")
    ap.add_argument("--turned", action="store_true",
                    help="the turned network's recipe: views turned by any angle, low views occluded more")
    ap.add_argument("--low", action="store_true",
                    help="low views (tilt 30+) drawn 1.5x (full ones, 12+ pieces, 2x) and occluded more, upright")
    ap.add_argument("--val", type=int, default=30, help="keep this many images aside (seeded) to report on")
    ap.add_argument("--init", metavar="ONNX",
                    help="go on training this exported network (e.g. vision/board_net.onnx) instead of starting from "
                         "random weights (use a lower --lr and fewer --epochs); what it started from is recorded in "
                         "the new network's .json")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("ERROR training the board network needs torch (a development dependency)", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    if args.files:
        with open(args.files, encoding="utf-8") as f:
            files = [ln.strip() for ln in f if ln.strip()]
    else:
        files = truth_files(args.folders)
    t0 = time.time()
    examples = [e for e in (load_example(p) for p in files) if e is not None]
    if not examples:
        print(f"ERROR no truth files in {args.folders}", file=sys.stderr)
        return 2
    order = rng.permutation(len(examples))
    val = [examples[i] for i in order[: args.val]]
    train = [examples[i] for i in order[args.val:]]
    print(f"{len(train)} training images ({sum(len(e['cells']) == 0 for e in train)} without a board), "
          f"{len(val)} kept aside; loaded in {time.time() - t0:.0f} s", flush=True)
    model = build_model()
    started_from = None
    if args.init:
        from vision.warm_start import init_record, load_exported

        started_from = init_record(args.init)  # before the first export may overwrite it
        try:
            load_exported(model, args.init)
        except (OSError, ValueError) as e:
            print(f"ERROR --init {args.init}: {e}", file=sys.stderr)
            return 2
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps_per_epoch = max(1, len(train) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * steps_per_epoch,
                                                pct_start=0.15)
    bce = torch.nn.BCELoss()
    # images with a rendered hand are drawn more often (the hardest case) ...
    # ... and so are low views, where pieces hide most of the board
    weight = np.array([(HAND_WEIGHT if e["hand"] else 1.0) * _low_weight(e, args.turned, args.low) for e in train])
    from vision.warm_start import freeze_batch_norm

    for epoch in range(args.epochs):
        model.train()
        freeze_batch_norm(model)
        perm = rng.choice(len(train), size=steps_per_epoch * args.batch, p=weight / weight.sum())
        tot, t_ep = 0.0, time.time()
        for b in range(steps_per_epoch):
            batch = [augment(train[i], rng, turned=args.turned, low=args.low)
                     for i in perm[b * args.batch:(b + 1) * args.batch]]
            x = torch.from_numpy(np.stack([p[0] for p in batch]))
            y = torch.from_numpy(np.stack([p[1] for p in batch]))
            pred = model(x)
            loss = focal_loss(pred[:, 0], y[:, 0]) + focal_loss(pred[:, 1], y[:, 1]) + 2.0 * bce(pred[:, 2], y[:, 2])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
        msg = f"epoch {epoch + 1}/{args.epochs} loss {tot / steps_per_epoch:.3f} ({time.time() - t_ep:.0f} s)"
        if val:
            model.eval()
            with torch.no_grad():
                vb = [augment(e, rng, plain=True) for e in val]
                vp = model(torch.from_numpy(np.stack([p[0] for p in vb])))
                vy = torch.from_numpy(np.stack([p[1] for p in vb]))
                vl = focal_loss(vp[:, 0], vy[:, 0]) + focal_loss(vp[:, 1], vy[:, 1]) + 2.0 * bce(vp[:, 2], vy[:, 2])
            msg += f" val {float(vl):.3f}"
        print(msg, flush=True)
        export(model, args.out)
    # what was trained on and how, beside the network (``--files`` repeats the training)
    base = os.path.splitext(args.out)[0]
    with open(base + "_files.txt", "w", encoding="utf-8") as f:
        f.write("".join(os.path.relpath(p) + "\n" for p in files))
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump({"images": len(files), "epochs": args.epochs, "lr": args.lr, "seed": args.seed,
                   "turned": args.turned, "low": args.low, "init": started_from}, f, indent=1)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB) in {(time.time() - t0) / 60:.1f} min")
    return 0


def _low_weight(ex: dict, turned: bool, low: bool) -> float:
    """How much more often a training view is drawn for being low (and full)."""
    if not ex["low"] or not (turned or low):
        return 1.0
    return FULL_LOW_WEIGHT if low and ex["pieces"] >= FULL_PIECES else LOW_WEIGHT


def export(model, path: str) -> None:
    import torch

    model.eval()
    tmp = path + ".tmp"
    torch.onnx.export(model, torch.zeros(1, 3, INPUT_H, INPUT_W), tmp, input_names=["image"], output_names=["maps"],
                      opset_version=13, dynamo=False)
    os.replace(tmp, path)
    model.train()


if __name__ == "__main__":
    sys.exit(main())
