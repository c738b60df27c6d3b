"""Training the convolutional piece network (``vision/piece_net.onnx``) on rendered sets with truth.

    nice -n 10 python -m vision.net_training data/renders/dev-v0 data/renders/v1/train \\
        data/renders/v2/train data/renders/calib-dev [--out vision/piece_net.onnx]

Needs torch (a training-only extra; the shipped program runs the exported ONNX file
with ONNX Runtime or OpenCV, ``vision.net``). For every training image with a board, the board is taken
from truth (homography fitted to the true cell centres) and the upright crops of the
16 cells are cut exactly as at run time (``vision.crops.cell_crops`` on the frame at
working scale), once as is and in ``--variants`` - 1 copies on a board moved as the
board finder moves it (:func:`board_jitter`: a shift of the whole grid plus a smaller
bend, its size per board drawn from the error of the boards the pipeline found on the
training images, log-normal, median ``exp(--jitter-log-mean)`` pitches RMS). Every copy
also keeps its front weights (``vision.crops.front_weights``: which cells stand in front
of which in the picture), the network's second input, and its cells' geometry
(``vision.crops.cell_geometry``: how long a one-pitch vertical is in each crop, the
board's foreshortening, the slope of the line of sight; session 6), the third, computed
from the board and the image's size alone (:func:`gather_geometry`); such a network's crops
are stretched along the vertical near the point under the camera
(``vision.crops.crop_stretch``). That input is built only with ``--geometry`` (session 6:
not better on kept-aside images; the shipped network is built without it). While training, every board
is also changed at random as real use changes it (:func:`augment`): with ``--warp``,
its crops moved a little, new at every epoch (:func:`warp`: scale, turn and shift as a
found board and a guessed camera move them; session 5: the network had learned its
training crops far better than it read kept-aside ones, 89 against 78 % of cells, and
these moves closed half that gap on stills, but the watch lost placements with that
network, so the shipped one is trained without them), mirrored
left-right, hues turned, chroma, white balance, brightness, contrast and gamma changed
(one change for the whole board, a little more per cell), blurred or shrunk and blown
up again, noise, JPEG compression. One network gives the five logits (occupied, tall,
dark, square, hollow) of all 16 cells of a board; its loss is the cross-entropy of
occupancy on every visible cell and of the four attributes on the occupied ones.
Everything is seeded (``--seed``); one CPU thread. Only ever run on training sets.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import zlib

import cv2
import numpy as np

from vision.evaluation import listed_truth_files, read_file_list, truth_files_under
from vision.net import NET_FILE, NET_OUTPUTS

CACHE = "/tmp/net_crops_cache"
#: the board finder's error on the training images (session 4: 562 boards found within half
#: a pitch, RMS centre error in pitches: log mean -3.50, log sd 0.82, i.e. median 0.030,
#: 90 % below 0.085 pitch; most of it a shift of the whole grid)
JITTER_LOG_MEAN = -3.5
JITTER_LOG_SD = 0.82
#: share of the shift of the whole grid in the jitter (the rest bends it at its corners)
JITTER_SHIFT = 0.85
#: changes when the cut crops or the board jitter change (cache key). 3: the crops' pitch from
#: vision.geometry.jacobians (commit e9259d1) moved them slightly; the cache of version 2 no longer
#: matched what the code cuts (session 6: the trainer, same code, gave a different network on
#: freshly cut crops than on cached ones)
CROPS_VERSION = 3


def board_jitter(rng: np.random.Generator, log_mean: float = JITTER_LOG_MEAN, log_sd: float = JITTER_LOG_SD,
                 shift: float = JITTER_SHIFT) -> np.ndarray:
    """``(16, 2)`` offsets of the cell centres in pitches, in the board's own frame, as a
    board finder errs: one shift of the whole grid (weight ``shift``) plus the four
    corners moved independently and the cells in between moved bilinearly, scaled so the
    RMS over the 16 cells is ``exp(N(log_mean, log_sd))`` pitches (at most 0.25, the
    worst board found within half a pitch on the training images)."""
    from vision.geometry import cell_grid

    g = (cell_grid() - 0.125) / 0.75  # 0..1 across the cells
    c = rng.normal(0.0, 1.0, (4, 2))  # corners (0,0), (1,0), (0,1), (1,1)
    u, v = g[:, :1], g[:, 1:]
    bend = (1 - u) * (1 - v) * c[0] + u * (1 - v) * c[1] + (1 - u) * v * c[2] + u * v * c[3]
    bend = bend - bend.mean(0)
    field = shift * rng.normal(0.0, 1.0, 2)[None] / np.sqrt(2) \
        + np.sqrt(1 - shift ** 2) * bend / max(float(np.sqrt((bend ** 2).sum(1).mean())), 1e-9)
    rms = float(np.sqrt((field ** 2).sum(1).mean()))
    return field * (min(float(np.exp(rng.normal(log_mean, log_sd))), 0.25) / max(rms, 1e-9))


# --- data ---------------------------------------------------------------------------------
def truth_boards(truth: dict, path: str, S: float, variants: int = 1, jitter=(JITTER_LOG_MEAN, JITTER_LOG_SD)):
    """The ``variants`` homographies (board -> working pixels, scale ``S``) of the truth
    image ``path`` (its truth ``truth``): variant 0 fitted to the true cell centres,
    variant ``v`` > 0 moved by :func:`board_jitter` (seeded by ``v`` and the file's name)."""
    from vision.geometry import apply_homography, cell_grid

    centres0 = np.asarray(truth["cell_centers"], float) * S
    H0, _ = cv2.findHomography(cell_grid(), centres0)
    name = zlib.crc32("/".join(os.path.abspath(path).split(os.sep)[-3:]).encode())
    out = []
    for v in range(variants):
        H = H0
        if v:
            off = board_jitter(np.random.default_rng([v, name]), *jitter) * 0.25  # board units
            H, _ = cv2.findHomography(cell_grid(), apply_homography(H0, cell_grid() + off))
        out.append(H)
    return out


def truth_geometry(path: str, settings, variants: int = 1, jitter=(JITTER_LOG_MEAN, JITTER_LOG_SD)):
    """``(variants, 16, 3)`` float32 :func:`vision.crops.cell_geometry` of the boards of
    :func:`truth_crops` (the same jittered copies), from the truth and the image's size
    (read from the truth file, else from the image); ``None`` for an image without a board."""
    from vision.crops import cell_geometry
    from vision.evaluation import load_truth
    from vision.image import working_scale

    truth = load_truth(path)
    if not truth["board_found_expected"] or len(truth.get("cell_centers") or []) != 16:
        return None
    if truth.get("width") and truth.get("height"):
        shape = (int(truth["height"]), int(truth["width"]))
    else:
        from vision.image import load_image

        shape = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image).shape[:2]
    scale = working_scale(shape, settings.image)
    work = shape if scale >= 1.0 else (round(shape[0] * scale), round(shape[1] * scale))
    return np.stack([cell_geometry(H, work) for H in truth_boards(truth, path, scale, variants, jitter)])


def gather_geometry(paths, settings, variants: int = 1, jitter=(JITTER_LOG_MEAN, JITTER_LOG_SD)) -> np.ndarray:
    """``(N, variants, 16, 3)`` :func:`truth_geometry` of the truth files ``paths`` (those
    :func:`gather` kept: all with a board)."""
    return np.stack([truth_geometry(p, settings, variants, jitter) for p in paths])


def truth_crops(path: str, settings, variants: int = 1, jitter=(JITTER_LOG_MEAN, JITTER_LOG_SD),
                stretch: bool = False, zoom: float = 1.0):
    """Upright crops of one truth image with the board from truth: ``(crops (variants,
    16, H, W, 3) uint8, front weights (variants, 16, 16) float32, labels (16, 5) int8
    (-1 unknown: hidden cells, attributes of empty cells))`` or ``None`` for an image
    without a board. Variant 0 is exact; variant ``v`` > 0 moves the board by
    :func:`board_jitter` (``jitter``: its log mean and log sd; seeded by ``v`` and the
    file's name). ``stretch``: the crops of a network told the cells' geometry, stretched
    along the vertical (``vision.crops.crop_stretch``). ``zoom``: the crops' window spans
    that many times as many pitches (``vision.crops.crop_frames``)."""
    from vision.crops import cell_crops, cell_geometry, crop_stretch, front_weights, vertical_directions
    from vision.evaluation import _truth_piece, load_truth
    from vision.features import work_image
    from vision.image import load_image

    truth = load_truth(path)
    if not truth["board_found_expected"] or len(truth.get("cell_centers") or []) != 16:
        return None
    img = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image)
    work, S = work_image(img, settings)
    out, fronts = [], []
    for H in truth_boards(truth, path, S[0, 0], variants, jitter):
        factor = crop_stretch(cell_geometry(H, work.shape)) if stretch else None
        out.append(cell_crops(work, H, vertical_directions(H, work.shape), stretch=factor, zoom=zoom))
        fronts.append(front_weights(H, work.shape))
    pieces = [_truth_piece(c) for c in truth["cells"]]
    hidden = np.array(truth.get("hidden") or [False] * 16, bool)
    Y = np.array([[0 if p is None else 1] + [-1 if p is None else (p >> b) & 1 for b in range(4)] for p in pieces],
                 np.int8)
    Y[hidden] = -1
    return np.stack(out), np.stack(fronts), Y


def _cache_key(path: str, variants: int, jitter, stretch: bool = False) -> str:
    from vision import crops

    layout = (f"v{CROPS_VERSION}:{crops.CROP_SPAN}:{crops.CROP_BELOW}:{crops.CROP_ABOVE}:{crops.CROP_W}x{crops.CROP_H}:"
              f"{variants}:{tuple(jitter)}")
    if stretch:
        layout += f":stretch{crops.STRETCH_HEIGHT}:{crops.STRETCH_TOP}:{crops.STRETCH_MAX}"
    return hashlib.sha1(f"{os.path.abspath(path)}:{os.path.getmtime(path)}:{layout}".encode()).hexdigest()


def gather(folders, settings, variants: int = 1, jitter=(JITTER_LOG_MEAN, JITTER_LOG_SD), progress: bool = True,
           files: list[str] | None = None, stretch: bool = False):
    """Crops and labels of every truth image (with a board) under ``folders`` (and their
    direct subfolders), or of ``files``: ``(crops (N, variants, 16, H, W, 3) uint8, front
    weights (N, variants, 16, 16) float32, labels (N, 16, 5) int8, paths)``; cached in
    ``/tmp/net_crops_cache``. ``stretch``: :func:`truth_crops`'s."""
    if files is None:
        files = [f for d in folders for f in truth_files_under(d)]
    C, F, Y, paths = [], [], [], []
    t0 = time.time()
    os.makedirs(CACHE, exist_ok=True)
    for k, path in enumerate(files):
        cache = os.path.join(CACHE, _cache_key(path, variants, jitter, stretch) + ".npz")
        if os.path.exists(cache):
            z = np.load(cache)
            r = (z["crops"], z["fronts"], z["labels"]) if z["crops"].size else None
        else:
            r = truth_crops(path, settings, variants, jitter, stretch)
            if r is None:
                np.savez(cache, crops=np.zeros(0, np.uint8), fronts=np.zeros(0, np.float32),
                         labels=np.zeros(0, np.int8))
            else:
                np.savez(cache, crops=r[0], fronts=r[1], labels=r[2])
        if r is not None:
            C.append(r[0])
            F.append(r[1])
            Y.append(r[2])
            paths.append(path)
        if progress and (k + 1) % 100 == 0:
            print(f"crops: {k + 1}/{len(files)} images ({time.time() - t0:.0f} s)", file=sys.stderr)
    return np.stack(C), np.stack(F), np.stack(Y), paths


# --- augmentation -------------------------------------------------------------------------
def _hue_matrix(angle: float, chroma: float) -> np.ndarray:
    """3x3 matrix on BGR turning hues by ``angle`` and scaling chroma, keeping luma
    (Y = 0.299 R + 0.587 G + 0.114 B)."""
    to = np.array([[0.114, 0.587, 0.299],      # Y
                   [1 - 0.114, -0.587, -0.299],  # B - Y
                   [-0.114, -0.587, 1 - 0.299]])  # R - Y
    c, s = np.cos(angle) * chroma, np.sin(angle) * chroma
    rot = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.linalg.inv(to) @ rot @ to


def warp(crops: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """One board's ``(16, H, W, 3)`` crops moved a little as a found board and a guessed
    camera move them: one change of scale for the board (the pitch, s.d. 5 %) and per
    cell a little more scale (3 %), a turn about the cell centre (the vertical's
    direction, 3 degrees) and a shift (4 % of the width across, 3 % of the height
    along); all times ``strength``. The jittered boards of :func:`truth_crops` are
    only a few fixed copies per image; these moves are new at every epoch."""
    from vision.crops import CROP_ABOVE, CROP_BELOW

    n, h, w = crops.shape[:3]
    centre = (w / 2.0, CROP_ABOVE / (CROP_ABOVE + CROP_BELOW) * h)
    s0 = np.exp(rng.normal(0.0, 0.05 * strength))
    out = np.empty_like(crops)
    for k in range(n):
        M = cv2.getRotationMatrix2D(centre, float(rng.normal(0.0, 3.0 * strength)),
                                    float(s0 * np.exp(rng.normal(0.0, 0.03 * strength))))
        M[:, 2] += (rng.normal(0.0, 0.04 * strength * w), rng.normal(0.0, 0.03 * strength * h))
        out[k] = cv2.warpAffine(crops[k], M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def augment(crops: np.ndarray, rng: np.random.Generator, geometry: float = 0.0) -> np.ndarray:
    """One board's ``(16, H, W, 3)`` uint8 BGR crops changed as real use changes them
    (see the module docstring; ``geometry`` > 0: first moved by :func:`warp` of that
    strength, 4 boards in 5); returns uint8 of the same shape."""
    if geometry > 0 and rng.random() < 0.8:
        crops = warp(crops, rng, geometry)
    x = crops.astype(np.float32) / 255.0
    if rng.random() < 0.5:
        x = x[:, :, ::-1]
    # colour: one change for the board (one light, one set), a little per cell
    angle = rng.uniform(0, 2 * np.pi) if rng.random() < 0.7 else rng.normal(0, 0.2)
    M = _hue_matrix(angle, rng.uniform(0.5, 1.5)) * np.exp(rng.normal(0, 0.08, 3))[:, None]
    x = x @ M.T.astype(np.float32)
    x = x * np.float32(np.exp(rng.uniform(-0.6, 0.35)))
    x = x * np.exp(rng.normal(0, 0.05, (len(x), 1, 1, 1))).astype(np.float32)
    mean = x.mean()
    x = (x - mean) * np.float32(rng.uniform(0.7, 1.3)) + mean
    x = np.clip(x, 0.0, 1.0) ** np.float32(rng.uniform(0.7, 1.4))
    out = np.clip(x * 255.0 + 0.5, 0, 255).astype(np.uint8)
    h, w = out.shape[1:3]
    r = rng.random()
    if r < 0.25:  # focus / motion softness
        s = rng.uniform(0.4, 1.2)
        out = np.stack([cv2.GaussianBlur(c, (0, 0), s, borderType=cv2.BORDER_REPLICATE) for c in out])
    elif r < 0.5:  # a board far away: fewer pixels per piece
        f = rng.uniform(0.35, 0.8)
        small = (max(4, round(w * f)), max(8, round(h * f)))
        out = np.stack([cv2.resize(cv2.resize(c, small, interpolation=cv2.INTER_AREA), (w, h),
                                   interpolation=cv2.INTER_LINEAR) for c in out])
    if rng.random() < 0.5:
        out = np.clip(out + rng.normal(0, rng.uniform(1, 8), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.35:  # JPEG: the 16 crops side by side, compressed once
        tiled = np.ascontiguousarray(out.transpose(1, 0, 2, 3).reshape(h, -1, 3))
        ok, buf = cv2.imencode(".jpg", tiled, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR).reshape(h, len(out), w, 3).transpose(1, 0, 2, 3)
    return np.ascontiguousarray(out)


# --- the network ----------------------------------------------------------------------------
def build_model(width: int = 32, embed: int = 64, front: bool = True, late: int | None = None, extra: int = 0,
                geometry: int = 0):
    """The network (torch module): per crop 6 convolutions (3x3, batch norm, ReLU; four of
    them halve the size: 64x32 -> 4x2; the last three with ``late`` channels, default
    ``2 * width``, and ``extra`` more at 8x4 before the last halving), a fully connected
    layer to ``embed`` units; per
    board those units, their difference from the board's mean and the units of the cells
    in front (the front weights times the board's units) go to a linear layer of 5
    logits. Inputs ``(16 k, 3, 64, 32)`` crops (k boards of 16 cells) and ``(k, 16, 16)``
    front weights (``front=False``: the crops alone, as before session 4); with
    ``geometry`` > 0 also ``(16 k, geometry)`` numbers per cell (``vision.crops.cell_geometry``),
    fed to the fully connected layer beside the convolutions' output (so the units can
    weigh a piece's height in the crop by how long a pitch of height is there) and to the
    last layer."""
    import torch
    from torch import nn

    def block(i, o, stride):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    w = width
    lw = 2 * w if late is None else late

    class PieceCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(block(3, w // 2, 2), block(w // 2, w, 2), block(w, w, 1),
                                          block(w, lw, 2), block(lw, lw, 1),
                                          *[block(lw, lw, 1) for _ in range(extra)], block(lw, lw, 2))
            self.fc = nn.Linear(lw * 4 * 2 + geometry, embed)
            self.drop = nn.Dropout(0.2)
            self.use_front = front
            self.geometry = geometry
            self.head = nn.Linear((3 if front else 2) * embed + geometry, len(NET_OUTPUTS))

        def forward(self, x, front=None, geom=None):
            flat = self.features(x).flatten(1)
            if self.geometry:
                flat = torch.cat([flat, geom], 1)
            e = torch.relu(self.fc(flat))
            e = self.drop(e)
            b = e.reshape(-1, 16, e.shape[1])
            parts = [b, b - b.mean(1, keepdim=True)]
            if self.use_front:
                parts.append(torch.matmul(front, b))
            if self.geometry:
                parts.append(geom.reshape(-1, 16, self.geometry))
            both = torch.cat(parts, 2)
            return self.head(both).reshape(-1, len(NET_OUTPUTS))

    return PieceCNN()


def _loss(logits, Y):
    import torch
    import torch.nn.functional as F

    known = Y >= 0
    occ_known = known[:, 0]
    loss = F.binary_cross_entropy_with_logits(logits[:, 0][occ_known], Y[:, 0][occ_known].float())
    att = known[:, 1:] & (Y[:, :1] == 1)
    if att.any():
        loss = loss + F.binary_cross_entropy_with_logits(logits[:, 1:][att], Y[:, 1:][att].float())
    return loss if torch.isfinite(loss) else logits.sum() * 0


def predict(model, crops: np.ndarray, fronts: np.ndarray, geoms: np.ndarray | None = None,
            batch_boards: int = 32) -> np.ndarray:
    """``(N, 16, H, W, 3)`` uint8 crops, ``(N, 16, 16)`` front weights and ``(N, 16, G)``
    geometry (for a model that reads it) -> ``(N, 16, 5)`` logits with a torch model."""
    import torch

    from vision.net import prepare

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch_boards):
            c = crops[i:i + batch_boards]
            x = torch.from_numpy(prepare(c.reshape((-1,) + c.shape[2:])))
            g = None if geoms is None else torch.from_numpy(geoms[i:i + batch_boards].reshape(-1, geoms.shape[-1])
                                                              .astype(np.float32))
            out.append(model(x, torch.from_numpy(fronts[i:i + batch_boards].astype(np.float32)), g)
                       .numpy().reshape(len(c), 16, -1))
    return np.concatenate(out)


def board_scores(logits: np.ndarray, Y: np.ndarray, threshold: float = 0.0) -> dict:
    """Accuracy of ``(N, 16, 5)`` logits against labels, with the joint assignment:
    occupancy, per attribute, cells fully right, boards fully right."""
    from vision.assign import assign_pieces

    occ = cells = full = boards = att_n = 0
    att = np.zeros(4)
    for lg, y in zip(logits, Y):
        probs = 1 / (1 + np.exp(-lg))
        pred = assign_pieces(lg[:, 0] > threshold, probs[:, 1:])
        ok_board = True
        for i in range(16):
            if y[i, 0] < 0:
                continue
            cells += 1
            t = None if y[i, 0] == 0 else int(sum(int(y[i, 1 + b]) << b for b in range(4)))
            occ += (pred[i] is None) == (t is None)
            if pred[i] is not None and t is not None:
                att_n += 1
                att += [((pred[i] >> b) & 1) == ((t >> b) & 1) for b in range(4)]
            full += pred[i] == t
            ok_board &= pred[i] == t
        boards += ok_board
    return {"occupancy": occ / max(cells, 1), **{a: att[k] / max(att_n, 1) for k, a in enumerate(NET_OUTPUTS[1:])},
            "cells_right": full / max(cells, 1), "boards_right": boards / max(len(Y), 1)}


def train(crops: np.ndarray, fronts: np.ndarray, Y: np.ndarray, epochs: int = 40, seed: int = 0, width: int = 32,
          embed: int = 64, boards_per_batch: int = 16, lr: float = 3e-3, val=None, log=print, front: bool = True,
          seen=None, late: int | None = None, extra: int = 0, geometry: float = 0.0, weight_decay: float = 1e-3,
          ema: float = 0.0, geoms: np.ndarray | None = None, init: str | None = None):
    """Train on ``(N, V, 16, H, W, 3)`` crops (V jittered variants per image), their ``(N,
    V, 16, 16)`` front weights, ``(N, V, 16, G)`` cell geometry (``geoms``; none: a network
    without that input) and ``(N, 16, 5)`` labels; returns the torch model (``geometry``
    is the strength of :func:`warp`, not this input). ``val``:
    optional ``(crops (M, 16, ...), fronts (M, 16, 16), labels[, geoms (M, 16, G)])`` scored after every few
    epochs (for development only); ``seen``: the same for some of the training images
    (not augmented), scored alongside to tell overfitting (seen >> val) from underfitting.
    ``ema`` > 0: the model returned (and scored) is the exponential moving average of the
    weights over the steps, with that decay per step (batch-norm statistics averaged too).
    ``init``: an exported network (ONNX) to go on training from (``vision.warm_start``)
    instead of random weights: the way a session adds its new renders to what earlier
    sessions' renders taught, when those renders are gone."""
    import torch

    from vision.net import prepare
    from vision.warm_start import freeze_batch_norm, load_exported

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = build_model(width, embed, front, late, extra, 0 if geoms is None else geoms.shape[-1])
    if init:
        load_exported(model, init)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    steps = epochs * int(np.ceil(len(crops) / boards_per_batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    Yt = torch.from_numpy(Y.astype(np.int64))
    avg = None
    if ema > 0:
        import copy

        avg = copy.deepcopy(model)
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        freeze_batch_norm(model)
        order = rng.permutation(len(crops))
        total = 0.0
        for i in range(0, len(order), boards_per_batch):
            idx = order[i:i + boards_per_batch]
            var = rng.integers(crops.shape[1], size=len(idx))
            batch = np.stack([augment(crops[j, v], rng, geometry) for j, v in zip(idx, var)])
            x = torch.from_numpy(prepare(batch.reshape((-1,) + batch.shape[2:])))
            f = torch.from_numpy(fronts[idx, var].astype(np.float32))
            g = None if geoms is None else torch.from_numpy(geoms[idx, var].reshape(-1, geoms.shape[-1]))
            y = Yt[idx].reshape(-1, Y.shape[2])
            loss = _loss(model(x, f, g), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if avg is not None:
                with torch.no_grad():
                    for a, m in zip(avg.state_dict().values(), model.state_dict().values()):
                        if a.dtype.is_floating_point:
                            a.mul_(ema).add_(m, alpha=1.0 - ema)
                        else:
                            a.copy_(m)
            total += float(loss.detach()) * len(idx)
        msg = f"epoch {ep + 1}/{epochs} loss {total / len(crops):.4f} ({time.time() - t0:.0f} s)"
        if val is not None and ((ep + 1) % 5 == 0 or ep + 1 == epochs):
            s = board_scores(predict(model if avg is None else avg, val[0], val[1], *val[3:]), val[2])
            msg += "  val " + " ".join(f"{k} {100 * v:.1f}" for k, v in s.items())
            if seen is not None:
                s = board_scores(predict(model if avg is None else avg, seen[0], seen[1], *seen[3:]), seen[2])
                msg += "  | seen " + " ".join(f"{k} {100 * v:.1f}" for k, v in s.items())
        log(msg)
    if avg is not None:
        model = avg
    model.eval()
    return model


def export(model, path: str, crop_shape) -> float:
    """Write ``model`` as ONNX (one board: input ``(16, 3, H, W)``) and check that every
    engine installed (``vision.dnn.engines``: ONNX Runtime, OpenCV's ``cv2.dnn``) reads it
    and gives the same logits; returns the largest difference."""
    import torch

    from vision.dnn import engines
    from vision.net import PieceNet, prepare

    model.eval()
    h, w = crop_shape
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 256, (16, h, w, 3), dtype=np.uint8)
    front = rng.uniform(0, 1.5, (16, 16)).astype(np.float32)
    geom = rng.uniform(0, 1, (16, max(model.geometry, 1))).astype(np.float32)[:, :model.geometry]
    x = torch.from_numpy(prepare(crops))
    f = torch.from_numpy(front[None])
    g = torch.from_numpy(geom) if model.geometry else None
    tmp = path + ".tmp"
    names, args = ["crops"], [x]
    if model.use_front or model.geometry:  # forward's second argument
        names.append("front")
        args.append(f)
    if model.geometry:
        names.append("geom")
        args.append(g)
    torch.onnx.export(model, tuple(args), tmp, input_names=names, output_names=["logits"], opset_version=17,
                      dynamo=False)
    with torch.no_grad():
        ref = model(x, f, g).numpy()
    diff = 0.0
    for engine in engines():
        got = PieceNet(tmp, engine).logits(crops, front, geom if model.geometry else None)
        diff = max(diff, float(np.abs(got - ref).max()))
        if diff > 1e-3:
            os.remove(tmp)
            raise RuntimeError(f"{engine}'s reading of the exported network differs from torch by {diff}")
    os.replace(tmp, path)
    return diff


def stack_models(path: str, weight: float | None = None) -> None:
    """Rewrite the models file ``path`` so every model averages its score with the
    network's logit (:func:`vision.attributes.with_net`; idempotent)."""
    from vision.attributes import NET_WEIGHT, with_net

    weight = NET_WEIGHT if weight is None else weight
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    doc["models"] = with_net(doc["models"], weight)
    doc["net_weight"] = weight
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    print(f"{path}: models averaged with the network's logits (weight {weight})")


def kept_aside(paths: list[str], listed: list[str] | None = None, fraction: float = 0.0) -> np.ndarray | None:
    """Which of the training images ``paths`` a development run keeps aside: those in
    ``listed`` (paths, compared absolute; the same images whatever else is listed for
    training, so runs on different training lists are scored on the very same images),
    else a ``fraction`` drawn with a fixed seed (the same images whatever ``--seed``, but
    they change with the list), else ``None``."""
    if listed is not None:
        aside = {os.path.abspath(p) for p in listed}
        return np.array([os.path.abspath(p) in aside for p in paths], bool)
    if fraction > 0:
        return np.random.default_rng(1).random(len(paths)) < fraction
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="train the convolutional piece network on rendered training sets")
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", default=NET_FILE)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--variants", type=int, default=7, help="crops per image: exact + jittered copies (default 7)")
    ap.add_argument("--jitter-log-mean", type=float, default=JITTER_LOG_MEAN,
                    help=f"board jitter: log of the median RMS centre error in pitches (default {JITTER_LOG_MEAN})")
    ap.add_argument("--jitter-log-sd", type=float, default=JITTER_LOG_SD,
                    help=f"board jitter: spread of that log over boards (default {JITTER_LOG_SD})")
    ap.add_argument("--width", type=int, default=32, help="channels of the middle convolutions (default 32)")
    ap.add_argument("--late", type=int, default=None,
                    help="channels of the last convolutions, at 8x4 and 4x2 (default: twice --width)")
    ap.add_argument("--extra", type=int, default=0, help="extra convolutions at 8x4 (default 0)")
    ap.add_argument("--embed", type=int, default=64)
    ap.add_argument("--warp", type=float, default=0.0,
                    help="strength of the crops' random moves while training (vision.net_training.warp; default 0: "
                         "none, the shipped network; 1: tried in session 5, better on stills kept aside, not "
                         "shipped: the watch lost placements with it)")
    ap.add_argument("--weight-decay", type=float, default=1e-3)
    ap.add_argument("--ema", type=float, default=0.0,
                    help="keep the moving average of the weights with this decay per step (0: the last weights)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (default 3e-3)")
    ap.add_argument("--init", metavar="ONNX",
                    help="go on training this exported network (e.g. vision/piece_net.onnx) on the folders' images "
                         "instead of starting from random weights (use a lower --lr and fewer --epochs); its "
                         "metadata file is kept in the new one's as 'init'")
    ap.add_argument("--files", metavar="LIST", help="train only on the truth files listed (one path a line) that lie "
                    "under the folders (to repeat a training on the images present on an earlier day)")
    ap.add_argument("--stack", metavar="MODELS_JSON",
                    help="also make the attribute models in this file (e.g. vision/default_models.json) average "
                         "their scores with the network's logits (vision.attributes.with_net)")
    ap.add_argument("--net-weight", type=float, default=None, help="weight of the network's logit with --stack "
                    "(default: vision.attributes.NET_WEIGHT)")
    ap.add_argument("--geometry", action="store_true",
                    help="a network also told the cells' geometry (vision.crops.cell_geometry), reading crops "
                         "stretched along the vertical near the point under the camera (vision.crops.crop_stretch); "
                         "tried in session 6, not better on kept-aside images, not shipped (default: without)")
    ap.add_argument("--no-front", action="store_true",
                    help="a network without the front weights (each cell sees the board's mean only, as before)")
    ap.add_argument("--val-fraction", type=float, default=0.0,
                    help="development only: hold out this fraction of the images and score them every 5 epochs")
    ap.add_argument("--keep-aside", metavar="LIST",
                    help="development only: hold out the truth files listed (one path a line) instead of a random "
                         "fraction, so runs on different training lists are scored on the very same images")
    args = ap.parse_args(argv)

    import torch

    from vision.settings import VisionSettings
    from vision.warm_start import init_record

    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    t0 = time.time()
    files = None
    if args.files:
        files = listed_truth_files(args.folders, args.files)
    jitter = (args.jitter_log_mean, args.jitter_log_sd)
    settings = VisionSettings()
    crops, fronts, Y, paths = gather(args.folders, settings, args.variants, jitter, files=files,
                                     stretch=args.geometry)
    geoms = gather_geometry(paths, settings, args.variants, jitter) if args.geometry else None
    counts = {}
    for p in paths:
        counts[os.path.relpath(os.path.dirname(p))] = counts.get(os.path.relpath(os.path.dirname(p)), 0) + 1
    print(f"{len(paths)} images ({time.time() - t0:.0f} s): " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    val = seen = None
    if args.val_fraction > 0 and args.keep_aside:
        print("--val-fraction and --keep-aside exclude each other", file=sys.stderr)
        return 2
    aside = read_file_list(args.keep_aside) if args.keep_aside else None
    is_val = kept_aside(paths, aside, args.val_fraction)
    if is_val is not None:
        # validation on a jittered variant: the pipeline's boards are never exact
        v1 = min(1, crops.shape[1] - 1)
        val = (crops[is_val, v1], fronts[is_val, v1], Y[is_val]) + (() if geoms is None else (geoms[is_val, v1],))
        crops, fronts, Y = crops[~is_val], fronts[~is_val], Y[~is_val]
        if geoms is not None:
            geoms = geoms[~is_val]
        # as many training images, scored the same way: seen >> val is overfitting
        pick = np.random.default_rng(2).choice(len(Y), min(len(Y), int(is_val.sum())), replace=False)
        seen = (crops[pick, v1], fronts[pick, v1], Y[pick]) + (() if geoms is None else (geoms[pick, v1],))
        print(f"development run: {int(is_val.sum())} images held back for validation")
        with open(os.path.splitext(args.out)[0] + "_val_files.txt", "w", encoding="utf-8") as f:
            f.write("".join(os.path.relpath(p) + "\n" for p, v in zip(paths, is_val) if v))
    # read before the export, which may overwrite the network it starts from
    started_from = init_record(args.init) if args.init else None
    model = train(crops, fronts, Y, epochs=args.epochs, seed=args.seed, width=args.width, embed=args.embed, val=val,
                  front=not args.no_front, seen=seen, late=args.late, extra=args.extra,
                  geometry=args.warp, weight_decay=args.weight_decay, ema=args.ema, geoms=geoms, lr=args.lr,
                  init=args.init)
    diff = export(model, args.out, crops.shape[3:5])
    meta = {"trained_on": counts, "images": len(Y), "epochs": args.epochs, "variants": args.variants,
            "jitter_log_mean": args.jitter_log_mean, "jitter_log_sd": args.jitter_log_sd, "width": args.width, "late": args.late, "extra": args.extra,
            "warp": args.warp, "weight_decay": args.weight_decay, "ema": args.ema,
            "embed": args.embed, "seed": args.seed,
            "val_fraction": args.val_fraction, "keep_aside": args.keep_aside, "no_front": args.no_front, "geometry": args.geometry,
            "lr": args.lr, "seconds": round(time.time() - t0)}
    if started_from:
        meta["init"] = started_from
    with open(os.path.splitext(args.out)[0] + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    with open(os.path.splitext(args.out)[0] + "_files.txt", "w", encoding="utf-8") as f:
        f.write("".join(os.path.relpath(p) + "\n" for p in paths))  # for --files: the same training again
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.2f} MB, run time vs torch {diff:.1e}) "
          f"in {time.time() - t0:.0f} s")
    if args.stack:
        stack_models(args.stack, args.net_weight)
    return 0


if __name__ == "__main__":
    sys.exit(main())
