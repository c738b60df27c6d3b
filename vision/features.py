"""Stage 3: what stands on each cell, measured with the board plane known.

Once the board's homography is known, a local camera model follows (``LocalView``), so a
piece can be stood up on its cell: every measurement is taken at points given in board
units (pitches across, pitches up), and so means the same thing at any distance, tilt or
board size. Per cell:

- a *strip*: points in the vertical plane through the cell centre facing the camera,
  ``u`` pitches sideways and ``h`` pitches up; it shows the piece's side and silhouette;
- a *top-face sweep*: the piece's round outline of radius ``piece_radius_pitch`` is
  projected at a range of heights; the height where the image's edges follow that outline
  best is where the top face is;
- the *top face* at that height: a dark centre is a cup (hollow), corners sticking out
  of the round outline on the far side mean a square piece.

``cell_features(image, reading, settings) -> (16, D)`` with columns ``FEATURE_NAMES``.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.camera_guess import reading_homography
from vision.crops import (BODY_COLOUR_NAMES, CROP_FEATURE_NAMES, cell_crops, cell_geometry, crop_features,
                          crop_stretch, front_weights, top_down_patches, vertical_directions, vertical_displacements)
from vision.geometry import PITCH, apply_homography, cell_grid, jacobians
from vision import set_size
from vision.net import NET_FEATURE_NAMES, NET_OUTPUTS, default_net, overhead_net, overhead_weights
from vision.lattice import sample

FEATURE_NAMES = [
    "occupancy",        # foot contrast against the board, squashed to ~0..1
    "foot_contrast",    # colour distance of the piece's foot from the bare board (contrast units)
    "column_contrast",  # centre of the strip vs its sides at low heights (contrast units)
    "height",           # height of the top face found by the sweep, in pitches
    "tall_band",        # strip contrast at tall-piece heights relative to low heights
    "column_top",       # top of the piece's silhouette up the strip, in pitches
    "column_top_rel",   # the same over the middle of this board's two silhouette heights
    "edge_top",         # top of the piece's side edges up the strip, in pitches
    "edge_top_rel",     # the same over the middle of this board's two edge heights
    "height_any",       # top-face height with the outline radius free (sets differ in width)
    "height_any_rel",   # the same over the middle of this board's two top heights
    "lightness",        # the piece side's lightness, relative to the frame's (contrast units)
    "lightness_top",    # top face lightness (outer ring of the face), relative
    "lightness_rel",    # side lightness against the middle of this board's two piece colours
    "squareness",       # far corners sticking out of the round outline
    "side_edges",       # sharp vertical edges on the piece's side (box faces)
    "top_fill",         # how much of the outline ring at the top matches the face
    "cup",              # top face ring minus its centre, lightness (contrast units)
    "cup_ratio",        # centre / ring lightness
    "sweep_peak",       # strength of the top-face edge at the found height
    "tilt",             # camera tilt in degrees (lets models allow for the view)
    "patch_var",        # lightness spread in the cell seen top-down (board plane), contrast units
    "patch_dev",        # top-down cell against the median of the 16 cells, contrast units
    "patch_edges",      # edge density in the top-down cell
    "outline_far",      # cell-outline evidence on the cell's far half (a piece hides it)
    "outline_near",     # ... and on its near half (visible in front of a piece)
    "outline_far_ratio",  # far over near: about 1 for an empty cell, low when occupied
    "colour_split",     # place between this board's two piece colours: -0.5 the lighter, +0.5 the darker
    "colour_split_gap",  # how far apart those two colours are, against their spread
] + CROP_FEATURE_NAMES + NET_FEATURE_NAMES + BODY_COLOUR_NAMES
# CROP_FEATURE_NAMES: learned-classifier inputs from upright cell crops (vision/crops.py);
# NET_FEATURE_NAMES: the convolutional piece network's logits on the same crops (vision/net.py);
# BODY_COLOUR_NAMES: the piece body's Lab colour as seen (no built-in model reads it: it is
# for calibration's set colours and the watch)
FEATURE_INDEX = {n: i for i, n in enumerate(FEATURE_NAMES)}
#: changes whenever what a feature measures changes (models and feature caches depend on it)
FEATURES_VERSION = 7  # 5: tall of large sets from a zoomed window (vision.set_size); 6: square through three windows;
#: 7: a board judged to hold a small set reads its attributes zoomed in (vision.set_size)
#: square is read as the piece network reads it through three windows: the plain one, one
#: zoomed in and one zoomed out by this factor, weighted WINDOW_WEIGHTS (plain, in, out).
#: Occupancy, tall, dark and hollow from the plain window alone: zoomed in, a typical set's
#: tall pieces lose their tops; the three windows' hollow read worse through the attribute
#: models, and their dark worse on the held-out calibration sessions (docs/vision.md,
#: "Session 35"). Weights (1, 0, 0): off
WINDOW_ZOOM = 1.3
WINDOW_WEIGHTS = (0.5, 0.25, 0.25)
#: the network's output columns read so (0 occupied, 1 tall, 2 dark, 3 square, 4 hollow)
WINDOW_COLUMNS = (3,)

_ANGLES = np.linspace(0, 2 * np.pi, 24, endpoint=False)


def cell_features(image: np.ndarray, reading, settings, only_net: bool = False) -> np.ndarray:
    """Per-cell features of a frame whose board is known.

    ``image``: ``(H, W, 3)`` uint8 BGR, the frame ``reading`` was made from (same pixels).
    ``reading``: a found ``BoardReading`` (its ``homography`` maps the board unit square to
    this image's pixels). ``settings``: ``VisionSettings``. ``only_net``: only the piece
    network's columns (:func:`features_from_work`). Returns ``(16, D)`` float64, columns
    ``FEATURE_NAMES``, cells in the reading's order.
    """
    if reading is None or reading.homography is None:
        raise ValueError("cell_features needs a reading with a board (homography is None)")
    work, S = work_image(image, settings)
    return features_from_work(work, S @ reading.homography, settings, only_net=only_net)


def work_image(image: np.ndarray, settings) -> tuple[np.ndarray, np.ndarray]:
    """The frame at working scale (long side at most ``settings.image.work_long_side``)
    and the ``(3, 3)`` scaling from frame to working pixels."""
    from vision.image import shrink

    scale, work = shrink(image, settings.image)
    return work, np.diag([scale, scale, 1.0])


def _piece_offsets(view, sampler, base, side, ps, contrast) -> np.ndarray:
    """``(16, 3)`` board-unit offsets of each piece's foot from its cell centre.

    Candidate foot positions on a small grid around the cell are scored by how much a
    short strip standing there differs in its middle from both its sides (a piece's
    silhouette centred on it), at low heights; the best wins, with a slight preference
    for the centre."""
    o = np.linspace(-ps.max_offset_pitch, ps.max_offset_pitch, ps.offset_steps)
    offs = np.array([(x, y) for y in o for x in o]) * PITCH  # (M, 2)
    hs = np.linspace(0.1, 0.45, 4) * PITCH
    us = np.array([-0.55, 0.0, 0.55]) * PITCH
    M = len(offs)
    pts = (base[:, None, None, None, :]
           + np.c_[offs, np.zeros(M)][None, :, None, None, :]
           + us[None, None, None, :, None] * side[:, None, None, None, :]
           + hs[None, None, :, None, None] * np.array([0.0, 0.0, 1.0]))  # (16, M, H, 3 u, 3)
    lab = sampler.lab(view.project(pts))
    c = lab[..., 1, :]
    d = np.minimum(np.linalg.norm(c - lab[..., 0, :], axis=-1), np.linalg.norm(c - lab[..., 2, :], axis=-1))
    score = d.mean(-1) / contrast - ps.offset_penalty * np.hypot(offs[:, 0], offs[:, 1])[None] / PITCH
    best = np.argmax(score, axis=1)
    return np.c_[offs[best], np.zeros(16)]


def _outline_halves(grey: np.ndarray, H: np.ndarray, view: "LocalView", ps):
    """Cell-outline evidence split into the half away from the camera and the half
    toward it. The board's cell outline (the circle or square that fits the 16 cells
    best) is fully visible on an empty cell; a piece standing in it hides the far half.
    Returns two ``(16,)`` arrays in units of the board region's contrast."""
    from vision.lattice import image_gradient, outline_points, sample

    # only the board's part of the picture matters (with a margin for the filters)
    corners = apply_homography(H, np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float))
    h_img, w_img = grey.shape[:2]
    x0, y0 = np.clip(np.floor(corners.min(0)).astype(int) - 8, 0, [w_img - 1, h_img - 1])
    x1, y1 = np.clip(np.ceil(corners.max(0)).astype(int) + 9, [x0 + 1, y0 + 1], [w_img, h_img])
    gray = grey[y0:y1, x0:x1]
    gx, gy, _ = image_gradient(gray)
    corners = corners - [x0, y0]
    H = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1.0]]) @ H
    mask = np.zeros(gray.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    mag = (np.abs(gx) + np.abs(gy))[mask.astype(bool)]
    scale = float(np.percentile(mag, 90)) + 1.0 if mag.size else 1.0
    g = cell_grid()
    best = None
    for radius in ps.outline_radii:
        pts = outline_points(radius * PITCH)  # (A, 2) board units
        src = g[:, None, :] + pts[None]
        p = apply_homography(H, src.reshape(-1, 2)).reshape(16, len(pts), 2)
        tangent = np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)
        normal = np.stack([tangent[..., 1], -tangent[..., 0]], -1)
        normal /= np.linalg.norm(normal, axis=-1, keepdims=True) + 1e-9
        flat = p.reshape(-1, 2)
        e = np.abs(sample(gx, flat) * normal.reshape(-1, 2)[:, 0] + sample(gy, flat) * normal.reshape(-1, 2)[:, 1])
        e = np.minimum(e.reshape(16, len(pts)) / scale, 4.0)
        along = ((pts / (np.linalg.norm(pts, axis=1, keepdims=True) + 1e-12)) @ view.away.T).T  # (16, A)
        far = along > 0.3
        near = along < -0.3
        f = (e * far).sum(1) / np.maximum(far.sum(1), 1)
        n = (e * near).sum(1) / np.maximum(near.sum(1), 1)
        total = float(e.mean())
        if best is None or total > best[0]:
            best = (total, f, n)
    return best[1], best[2]


def _top_down_cells(grey: np.ndarray, H: np.ndarray, px: int, contrast: float):
    """The board plane seen from straight above (``px`` pixels per pitch); per cell the
    lightness spread, the distance from the median cell (an empty cell looks like the
    others' design; a piece covers it) and the edge density. Returns three ``(16,)``."""
    size = 4 * px
    A = np.array([[1.0 / size, 0, 0], [0, 1.0 / size, 0], [0, 0, 1]])  # view px -> board
    view = cv2.warpPerspective(grey, H @ A, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32) * (100.0 / 255.0)
    cells = view.reshape(4, px, 4, px).transpose(0, 2, 1, 3).reshape(16, px, px)
    median = np.median(cells, axis=0)
    var = cells.reshape(16, -1).std(1) / contrast
    dev = np.abs(cells - median).reshape(16, -1).mean(1) / contrast
    gx = np.abs(np.diff(cells, axis=2)).mean((1, 2))
    gy = np.abs(np.diff(cells, axis=1)).mean((1, 2))
    return var, dev, (gx + gy) / contrast


def _first_gap(on: np.ndarray, heights: np.ndarray, start: float) -> np.ndarray:
    """``(16, K)`` bool -> ``(16,)`` height (pitches) of the last ``True`` before the first
    run of two ``False`` at or above ``start``."""
    out = np.zeros(len(on))
    for c in range(len(on)):
        top = start
        for k in range(len(heights)):
            if heights[k] < start:
                continue
            if on[c, k]:
                top = heights[k]
            elif k + 1 < len(heights) and not on[c, k + 1]:
                break
        out[c] = top
    return out


def _two_group_middle(values: np.ndarray, use: np.ndarray, fallback: float, min_gap: float) -> float:
    """Middle between the means of the best split of ``values[use]`` into a lower and an
    upper group (largest between-group variance); ``fallback`` when fewer than two
    values or the groups lie closer than ``min_gap``."""
    v = np.sort(values[use])
    if len(v) < 2:
        return fallback
    # every split at once from running sums (a loop of means cost ~2 ms a frame); of
    # splits that score the same but for rounding (values on a grid, such as heights,
    # tie often) the lowest
    k = np.arange(1, len(v))
    c = np.cumsum(v, dtype=float)
    score = k * (len(v) - k) * ((c[-1] - c[:-1]) / (len(v) - k) - c[:-1] / k) ** 2
    best = int(np.argmax(score >= score.max() * (1.0 - 1e-9))) + 1
    lo, hi = v[:best].mean(), v[best:].mean()
    return float(0.5 * (lo + hi)) if hi - lo >= min_gap else fallback


def _colour_split(lab: np.ndarray, use: np.ndarray, iterations: int = 8) -> tuple[np.ndarray, float]:
    """A set has two colours, of any hue: split the piece colours seen on this board
    (``lab`` (16, 3) CIE Lab, ``use`` the cells that seem to hold a piece) into two
    groups by 2-means in Lab, and place every cell along the line from the lighter
    group's centre (-0.5) to the darker one's (+0.5). Also returns the distance between
    the two centres over their pooled spread (small: one colour only, or no pieces)."""
    pts = lab[use]
    if len(pts) < 2:
        return np.zeros(16), 0.0
    split = pts[:, 0] < np.median(pts[:, 0])  # start: darker half by lightness
    if split.all() or not split.any():
        split = pts[:, 0] <= np.median(pts[:, 0])
    if split.all() or not split.any():
        return np.zeros(16), 0.0
    for _ in range(iterations):
        dark, light = pts[split].mean(0), pts[~split].mean(0)
        new = np.linalg.norm(pts - dark, axis=1) < np.linalg.norm(pts - light, axis=1)
        if new.all() or not new.any() or (new == split).all():
            break
        split = new
    dark, light = pts[split].mean(0), pts[~split].mean(0)
    if dark[0] > light[0]:
        dark, light = light, dark
        split = ~split
    axis = dark - light
    n2 = float(axis @ axis)
    if n2 < 1e-6:
        return np.zeros(16), 0.0
    t = (lab - light) @ axis / n2 - 0.5
    spread = np.sqrt((((pts[split] - dark) ** 2).sum() + ((pts[~split] - light) ** 2).sum()) / len(pts))
    return np.clip(t, -2.0, 2.0), float(np.sqrt(n2) / (spread + 2.0))


class LocalView:
    """Standing pieces up without a full camera model: around each cell the camera is
    treated as weak-perspective. The homography's local Jacobian at the cell (pixels per
    board unit) has singular values s1 >= s2; the board is foreshortened by s2 / s1 =
    cos(tilt) along the direction pointing away from the camera, and a vertical segment
    of length z (board units) appears as ``z * s1 * sin(tilt)`` pixels along that
    direction's image, pointing up the picture. Unlike a pose decomposed from the
    homography this stays sound under lens distortion and for near-square-on views.

    ``tilt_deg`` (16,), ``away`` (16, 2) board-plane unit vectors away from the camera,
    ``up`` (16, 2) image vectors of one board unit of height.
    """

    def __init__(self, H: np.ndarray, image_shape=None, low_tilt: tuple[float, float] = (8.0, 24.0),
                 lean: np.ndarray | None = None):
        self.H = np.asarray(H, float)
        g = cell_grid()
        J = jacobians(H, g)  # (16, 2, 2): columns are d(image)/d(board x, y)
        U, S, Vt = np.linalg.svd(J)
        ratio = np.clip(S[:, 1] / np.maximum(S[:, 0], 1e-9), 0.0, 1.0)
        self.tilt_deg = np.degrees(np.arccos(ratio))
        minor_img = U[:, :, 1]  # image direction of the foreshortened board direction
        sign = np.where(minor_img[:, 1] > 0, -1.0, 1.0)  # make it point up the picture
        minor_img = minor_img * sign[:, None]
        self.away = Vt[:, 1, :] * sign[:, None]  # J @ away = s2 * minor_img
        self.up = minor_img * (S[:, 0] * np.sin(np.radians(self.tilt_deg)))[:, None]
        if image_shape is not None:
            # near a top-down view the weak-perspective vertical vanishes, but pieces still
            # lean away from the principal point (perspective): below ``low_tilt[1]``
            # degrees blend in the vertical of a guessed pinhole camera (all of it below
            # ``low_tilt[0]``), and let "away" follow the lean
            # (16, 2) pixels per board unit up (``lean``: already computed by the caller)
            persp = vertical_displacements(H, image_shape) if lean is None else np.asarray(lean, float)
            w = np.clip((self.tilt_deg - low_tilt[0]) / (low_tilt[1] - low_tilt[0]), 0.0, 1.0)[:, None]
            self.up = w * self.up + (1.0 - w) * persp
            away_p = np.linalg.solve(J, persp[:, :, None])[:, :, 0]
            n = np.linalg.norm(away_p, axis=1, keepdims=True)
            away_p = np.where(n > 1e-9, away_p / np.maximum(n, 1e-9), self.away)
            blend = w * self.away + (1.0 - w) * away_p
            bn = np.linalg.norm(blend, axis=1, keepdims=True)
            self.away = np.where(bn > 1e-9, blend / np.maximum(bn, 1e-9), self.away)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """``(16, ..., 3)`` board points (x, y, z in board units; first axis = the cell
        whose local camera applies) -> ``(16, ..., 2)`` pixels."""
        flat = pts.reshape(16, -1, 3)
        # the homography written out per coordinate: ~3x faster than a (N, 2) @ (2, 3)
        # product for the ~10^5 points a frame projects (same values to rounding)
        H = self.H
        x, y = flat[..., 0], flat[..., 1]
        w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            px = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
            py = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
        xy = np.stack([px, py], -1) + flat[..., 2:3] * self.up[:, None, :]
        return xy.reshape(pts.shape[:-1] + (2,))


#: the part of the picture the per-frame step reads: the board grown by this many pitches,
#: and every cell raised by this height (board units; a tall piece is about 0.4) with the
#: same margin around it
REGION_MARGIN_PITCH = 1.5
REGION_HEIGHT = 0.75


def board_region(H: np.ndarray, shape, lean: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """Box (x0, y0, x1, y1) of pixels of an image of ``shape`` that reading the pieces of
    the board ``H`` (unit square -> pixels) can look at: the board grown by
    ``REGION_MARGIN_PITCH`` pitches, and every cell raised by ``REGION_HEIGHT`` with that
    margin around it (not clipped to the image). ``lean``: ``vision.crops.vertical_displacements``
    of ``H`` on ``shape`` when the caller has it."""
    m = REGION_MARGIN_PITCH * 0.25
    ring = apply_homography(H, np.array([[-m, -m], [1 + m, -m], [1 + m, 1 + m], [-m, 1 + m]]))
    pitch = float(np.max(np.linalg.norm(np.diff(ring, axis=0), axis=1))) / (4 + 8 * m)
    lean = vertical_displacements(H, shape) if lean is None else lean
    tops = apply_homography(H, cell_grid()) + REGION_HEIGHT * lean
    pts = np.vstack([ring, tops - REGION_MARGIN_PITCH * pitch, tops + REGION_MARGIN_PITCH * pitch])
    return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())


def _region_pixels(box, shape) -> tuple[int, int, int, int]:
    """``box`` as whole pixels inside an image of ``shape`` (never empty)."""
    h, w = shape[:2]
    x0 = int(np.clip(np.floor(box[0]), 0, w - 1))
    y0 = int(np.clip(np.floor(box[1]), 0, h - 1))
    x1 = int(np.clip(np.ceil(box[2]), x0 + 1, w))
    y1 = int(np.clip(np.ceil(box[3]), y0 + 1, h))
    return x0, y0, x1, y1


class _Sampler:
    """Bilinear samples of a BGR image at many points at once, returned as Lab (L 0-100)."""

    def __init__(self, img: np.ndarray):
        self.img = img

    def lab(self, pts: np.ndarray) -> np.ndarray:
        shape = pts.shape[:-1]
        s = sample(self.img, pts.reshape(-1, 2)).reshape(1, -1, 3)
        lab = cv2.cvtColor(s.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
        return lab.reshape(*shape, 3).astype(np.float64)


def features_from_work(work: np.ndarray, H: np.ndarray, settings, grey: np.ndarray | None = None,
                       mirror: bool | None = None, only_net: bool = False, info: dict | None = None,
                       windows: bool = True) -> np.ndarray:
    """:func:`cell_features` on an image already at working scale, ``H`` board -> ``work``
    pixels (``grey``: its grey copy, when the caller has one; ``mirror``: whether the piece
    network also reads the board mirrored, default ``settings.pieces.mirror_average``;
    ``only_net``: only the network's logits, every other column 0, for models that read
    the networks alone: the hand-made measurements are most of the per-frame cost;
    ``info``: a dict given gets ``"large_set"``: whether tall was read as of a large set,
    ``None`` when not judged: too few pieces, or ``settings.pieces.set_size`` "typical";
    and ``"small_set"``: whether the attributes were read as of a small set (the full
    analysis judges it, ``windows``), ``None`` when not judged; ``vision.set_size``;
    ``windows``: square read through the three windows (:data:`WINDOW_ZOOM`), else through
    the plain one: the per-frame step, whose square the watch names no piece by).
    Returns ``(16, D)``."""
    ps = settings.pieces
    if settings.camera.pinhole:
        # the pieces stand up on the board as a real camera sees it: a free homography's
        # two extra degrees of freedom carry the board finder's errors into every cell's
        # view (docs/vision.md, "Session 25: the board as a camera sees it")
        H = reading_homography(H, work.shape, settings.camera.pinhole_max_rms_pitch)
    # how far up the picture a unit of height goes at every cell: computed once, used by
    # the local view, the region, the crops and the front weights
    lean = vertical_displacements(H, work.shape)
    if only_net:
        out = np.zeros((16, len(FEATURE_NAMES)))
        _net_logits(out, work, H, lean, ps, mirror, info, windows)
        return np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)
    view = LocalView(H, work.shape, lean=lean)
    tilt = float(np.median(view.tilt_deg))
    sampler = _Sampler(work)

    cells = cell_grid()  # (16, 2)
    base = np.c_[cells, np.zeros(16)]
    away = np.c_[view.away, np.zeros(16)]
    side = np.c_[away[:, 1], -away[:, 0], np.zeros(16)]
    up = np.array([0.0, 0.0, 1.0])

    # --- reference: the bare board between cells ------------------------------------
    corners = np.array([(i / 4, j / 4, 0.0) for j in range(5) for i in range(5)])
    board_lab = np.median(sampler.lab(apply_homography(H, corners[:, :2])), axis=0)
    # one grey copy for every measurement below
    frame_grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY) if grey is None else grey
    # the light's contrast, over the part of the picture the board and its pieces take
    # (not the whole frame: what lies far from the board says nothing about the pieces, and
    # the per-frame step shrinks only this part of the frame)
    x0, y0, x1, y1 = _region_pixels(board_region(H, work.shape, lean), work.shape)
    lo, mid, hi = np.percentile(frame_grey[y0:y1:4, x0:x1:4], [5, 50, 95]) * (100.0 / 255.0)
    contrast = max(hi - lo, 10.0)

    # --- where the piece stands: pieces sit up to a third of a pitch off centre ---------
    base = base + _piece_offsets(view, sampler, base, side, ps, contrast)

    # --- strip --------------------------------------------------------------------------
    heights = np.linspace(0.0, ps.max_height_pitch, ps.height_steps)
    us = np.linspace(-0.6, 0.6, 9)
    P = (base[:, None, None, :]
         + PITCH * us[None, None, :, None] * side[:, None, None, :]
         + PITCH * heights[None, :, None, None] * up)
    strip = sampler.lab(view.project(P))
    centre = strip[:, :, 3:6].mean(2)  # (16, K, 3)
    sides = np.concatenate([strip[:, :, :2], strip[:, :, -2:]], 2).mean(2)
    low = (heights >= 0.08) & (heights <= 0.4)
    foot = np.linalg.norm(centre[:, low] - board_lab, axis=2).mean(1) / contrast
    col = np.linalg.norm(centre - sides, axis=2) / contrast  # (16, K)
    column_contrast = col[:, low].mean(1)
    band = (heights >= 1.0) & (heights <= 1.45)
    tall_band = col[:, band].mean(1) / (column_contrast + 0.05)
    piece_lab = np.median(centre[:, low], axis=1)  # (16, 3)
    # the silhouette: the strip's centre differs from what lies beside the piece (the
    # nearer of the two sides, so a piece standing behind on one side does not count)
    left = strip[:, :, :2].mean(2)
    right = strip[:, :, -2:].mean(2)
    sil = np.minimum(np.linalg.norm(centre - left, axis=2), np.linalg.norm(centre - right, axis=2)) / contrast
    column_top = _first_gap(sil > ps.silhouette_threshold, heights, ps.silhouette_start_pitch)
    # the piece's two side edges (across-strip lightness steps near |u| = radius) run up
    # to its top; their strength up the strip, against that at the foot
    Ls = strip[..., 0]
    step = np.abs(np.diff(Ls, axis=2))  # (16, K, 8) between neighbouring u samples
    edge = np.maximum(step[:, :, 1:4].max(2), step[:, :, 4:7].max(2)) / contrast  # both sides' best
    edge_ref = np.median(edge[:, low], axis=1)[:, None] + 1e-3
    edge_on = (edge / edge_ref) > ps.edge_keep_fraction
    edge_top = _first_gap(edge_on, heights, ps.silhouette_start_pitch)
    lightness = (piece_lab[:, 0] - mid) / contrast
    # "dark" is the darker of the set's two colours: split the pieces seen on this board
    # into two lightness groups and measure against the middle of the two
    is_piece = foot > ps.piece_foot_contrast
    # likewise "tall" is the taller of the set's two heights (about twice the other)
    top_mid = _two_group_middle(column_top, is_piece, float(np.median(column_top)), ps.min_height_gap)
    column_top_rel = column_top / max(top_mid, 0.1)
    edge_mid = _two_group_middle(edge_top, is_piece, float(np.median(edge_top)), ps.min_height_gap)
    edge_top_rel = edge_top / max(edge_mid, 0.1)
    lightness_rel = (piece_lab[:, 0] - _two_group_middle(piece_lab[:, 0], foot > ps.piece_foot_contrast,
                                                          mid, ps.min_group_gap * contrast)) / contrast
    # sharp vertical edges on the side: second difference across the strip
    side_rows = (heights >= 0.15) & (heights <= 0.5)
    Lside = strip[:, side_rows][:, :, 2:7, 0]  # (16, k, 5) u in [-0.3, 0.3]
    second = np.abs(Lside[:, :, :-2] - 2 * Lside[:, :, 1:-1] + Lside[:, :, 2:])
    side_edges = np.median(second.max(2), axis=1) / contrast

    # --- top-face sweep -------------------------------------------------------------
    r = ps.piece_radius_pitch * PITCH
    sweep_h = np.arange(0.25, ps.max_height_pitch - 0.1, 0.05)
    circ = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], 1)  # (A, 2) board-plane directions
    # a point at height z projects to the homography of its foot plus z times the cell's
    # up direction: the outline's feet are projected once, not once per height
    lift = (PITCH * sweep_h)[None, :, None, None] * view.up[:, None, None, :]  # (16, S, 1, 2)
    flat0 = np.zeros((16, 1, len(_ANGLES), 1))
    # the far half of the outline is the silhouette against what lies behind: the edge
    # that shows where the top is, whatever the tilt
    awayxy = away[:, :2]
    w_far = np.clip(circ @ awayxy.T, 0.0, None).T  # (16, A): 1 at the farthest point
    w_far = w_far + 0.35  # the whole outline counts a little (square-on views)

    def outline_px(radius: float) -> np.ndarray:
        """(16, S, A, 2) pixels of the outline of ``radius`` at each sweep height."""
        feet = base[:, None, None, :2] + radius * circ[None, None, :, :]
        return view.project(np.concatenate([feet, flat0], -1)) + lift

    def sweep_at(rf: float) -> np.ndarray:
        """(16, S) edge strength across the outline of radius ``rf * r`` at each height."""
        e = np.abs(sampler.lab(outline_px(1.12 * rf * r))[..., 0] - sampler.lab(outline_px(0.88 * rf * r))[..., 0]) / contrast
        return (e * w_far[:, None, :]).sum(2) / w_far.sum(1)[:, None]

    sweep = sweep_at(1.0)
    # the same with the outline radius left free (piece sets differ in width)
    sweeps = [sweep] + [sweep_at(rf) for rf in ps.sweep_radius_factors]
    sweep_any = np.max(sweeps, axis=0)
    height_any = sweep_h[np.argmax(sweep_any, axis=1)]
    k_best = np.argmax(sweep, axis=1)
    top_h = sweep_h[k_best]
    h_mid = _two_group_middle(height_any, is_piece, float(np.median(height_any)), ps.min_height_gap)
    height_any_rel = height_any / max(h_mid, 0.1)
    sweep_peak = sweep[np.arange(16), k_best]

    # --- top face at the found height -------------------------------------------------
    zt = PITCH * top_h[:, None]
    def at(radius, angles=_ANGLES):
        d = np.stack([np.cos(angles), np.sin(angles)], 1)
        xy = base[:, None, :2] + radius * d[None]
        pts = np.concatenate([xy, np.broadcast_to(zt[:, :, None], xy.shape[:2] + (1,))], -1)
        return sampler.lab(view.project(pts))

    face_ring = at(0.7 * r)
    face_centre = at(0.2 * r)
    L_ring = np.median(face_ring[..., 0], axis=1)
    L_centre = np.median(face_centre[..., 0], axis=1)
    cup = (L_ring - L_centre) / contrast
    cup_ratio = (L_centre + 5.0) / (L_ring + 5.0)
    lightness_top = (L_ring - mid) / contrast
    # corners of a square piece stick out to sqrt(2) r; on the far side they are seen
    # against the background, so compare the outline ring at 1.3 r with the face colour
    diag = at(1.3 * r)
    face_lab = np.median(face_ring, axis=1)
    far_w = np.clip(circ @ awayxy.T, 0.0, None).T > 0.3  # (16, A)
    dist_face = np.linalg.norm(diag - face_lab[:, None], axis=2) / contrast
    match = dist_face < 0.2
    top_fill = (match & far_w).sum(1) / far_w.sum(1)
    # the corners: alternating match along the far half (4-fold pattern)
    Ldiag = diag[..., 0]
    four = np.abs((Ldiag * np.exp(4j * _ANGLES)[None] * far_w).sum(1)) / (far_w.sum(1) * contrast)
    squareness = four + 0.5 * top_fill

    colour_split, colour_split_gap = _colour_split(piece_lab, is_piece)
    occupancy = 1.0 - np.exp(-3.0 * foot)
    patch_var, patch_dev, patch_edges = _top_down_cells(frame_grey, H, ps.top_down_pixels, contrast)
    outline_far, outline_near = _outline_halves(frame_grey, H, view, ps)
    out = np.zeros((16, len(FEATURE_NAMES)))
    cols = {
        "occupancy": occupancy, "foot_contrast": foot, "column_contrast": column_contrast,
        "height": top_h, "tall_band": tall_band, "column_top": column_top, "column_top_rel": column_top_rel,
        "edge_top": edge_top, "edge_top_rel": edge_top_rel,
        "height_any": height_any, "height_any_rel": height_any_rel,
        "lightness": lightness, "lightness_top": lightness_top, "lightness_rel": lightness_rel,
        "squareness": squareness, "side_edges": side_edges, "top_fill": top_fill,
        "cup": cup, "cup_ratio": cup_ratio, "sweep_peak": sweep_peak, "tilt": np.full(16, tilt),
        "patch_var": patch_var, "patch_dev": patch_dev, "patch_edges": patch_edges,
        "outline_far": outline_far, "outline_near": outline_near,
        "outline_far_ratio": outline_far / (outline_near + 0.05),
        "colour_split": colour_split, "colour_split_gap": np.full(16, colour_split_gap),
    }
    for name, v in cols.items():
        out[:, FEATURE_INDEX[name]] = v
    k0 = FEATURE_INDEX[CROP_FEATURE_NAMES[0]]
    crops, look = _net_logits(out, work, H, lean, ps, mirror, info, windows)
    k2 = FEATURE_INDEX[BODY_COLOUR_NAMES[0]]
    out[:, k0:k0 + len(CROP_FEATURE_NAMES)], out[:, k2:k2 + len(BODY_COLOUR_NAMES)] = crop_features(
        crops, top_down_patches(frame_grey, H))
    out = np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)
    if windows and ps.set_size == "auto" and look is not None:
        _judge_small(out, look, info)
    return out


def _judge_small(out: np.ndarray, look, info: dict | None) -> None:
    """A board of enough pieces judged to hold a small set (``vision.set_size``, from the
    network's three windows and the pieces' widths read from every feature): its attributes
    are read through the window zoomed in to its size, as for a set known to be small, and
    ``out``'s network columns changed so. ``info`` gets ``"small_set"`` (``None``: not
    judged) and, for training, ``"small_statistics"``; a board judged small is not a large
    set's (``"large_set"`` False)."""
    plain = look(1.0)
    occupied = plain[:, 0] > 0
    model = set_size.default_small_model()
    stats = None
    if model is not None and occupied.sum() >= set_size.SMALL_MIN_PIECES:
        stats = set_size.small_statistics(occupied, plain, look(set_size.SMALL_ZOOM), look(set_size.LARGE_ZOOM),
                                          set_size.piece_widths(out, model))
    small = None if stats is None else bool(set_size.small_set_probability(stats, model) > set_size.SMALL_THRESHOLD)
    if info is not None and stats is not None:
        info["small_statistics"] = stats
    if small:
        k1 = FEATURE_INDEX[NET_FEATURE_NAMES[0]]
        out[:, k1 + 1:k1 + len(NET_FEATURE_NAMES)] = look(set_size.SMALL_ZOOM, lead=False)[:, 1:]
    if info is not None:
        info["small_set"] = small
        if small:
            info["large_set"] = False


def body_colours(features) -> np.ndarray:
    """``(N, 3)``: the Lab body colour of each cell's piece as the camera sees it, from
    ``(N, D)`` features (the ``BODY_COLOUR_NAMES`` columns; zeros where they were not measured)."""
    k = FEATURE_INDEX[BODY_COLOUR_NAMES[0]]
    return np.asarray(features, float)[:, k:k + len(BODY_COLOUR_NAMES)]


def _overhead_blend(logits: np.ndarray, crops: np.ndarray, front, shape, H: np.ndarray, lean, ps,
                    twice: bool) -> None:
    """Where a one-pitch vertical is short in the picture (a camera above the board), the
    columns ``ps.overhead_columns`` of the plain window's ``logits`` are taken, in part or
    whole (``vision.net.overhead_weights``), from the network trained on such views
    (``vision.net.overhead_net``; nothing changes without it). In place."""
    columns = [c for c in ps.overhead_columns.split(",") if c]
    net = overhead_net() if columns else None
    if net is None or net.has_geometry:
        return
    w = overhead_weights(cell_geometry(H, shape, lean=lean)[:, 0], *ps.overhead_lean)
    if not w.any():
        return
    o = net.logits(crops, front)
    if twice:
        o = 0.5 * (o + net.logits(np.ascontiguousarray(crops[:, :, ::-1]), front))
    k = [NET_OUTPUTS.index(c) for c in columns]
    logits[:, k] = (1.0 - w[:, None]) * logits[:, k] + w[:, None] * o[:, k]


def _net_logits(out: np.ndarray, work: np.ndarray, H: np.ndarray, lean, ps, mirror: bool | None,
                info: dict | None = None, windows: bool = True):
    """The piece network's logits of every cell written into ``out``'s ``net_*`` columns;
    returns the plain upright crops (``vision.crops.cell_crops``, not stretched for a
    network told the geometry), which the hand-made crop features measure, and where the
    set's size is to be judged (``"auto"``) the network's look through a window
    (``zoom -> (16, 5)`` logits, each window read once), else ``None``."""
    vertical = vertical_directions(H, work.shape, lean=lean)
    crops = plain = cell_crops(work, H, vertical)
    k1 = FEATURE_INDEX[NET_FEATURE_NAMES[0]]
    net, front = default_net(), front_weights(H, work.shape, lean=lean)
    geometry = None
    if net.has_geometry:
        # a network told the cells' geometry reads crops stretched along the vertical
        # where a pitch of height is short in the picture (vision.crops.crop_stretch)
        geometry = cell_geometry(H, work.shape, lean=lean)
        crops = cell_crops(work, H, vertical, stretch=crop_stretch(geometry))
    twice = ps.mirror_average if mirror is None else mirror

    def read(crops) -> list[np.ndarray]:
        """Every network's logits of the crops (a list of one with one network)."""
        each = net.each(crops, front, geometry)
        if twice:
            # which cells stand in front of which, and their geometry, do not change in a
            # mirror; the network was trained on mirrored boards too, so two looks average
            # out its handedness
            mirrored = net.each(np.ascontiguousarray(crops[:, :, ::-1]), front, geometry)
            each = [0.5 * (a + b) for a, b in zip(each, mirrored)]
        return each

    looks: dict[float, list[np.ndarray]] = {}  # zoom -> every network's logits through that window

    def look(zoom: float, lead: bool = True) -> np.ndarray:
        """The logits through the window zoomed by ``zoom``, read once (``vision.crops``): the
        lead network's (what the set-size judges were fitted to; ``vision.net.NET_FILES``),
        or with ``lead=False`` all the networks' averaged, which the reading takes (the
        same with one network; docs/vision.md "Sessions 41-44")."""
        if zoom not in looks:
            looks[zoom] = read(crops if zoom == 1.0 else cell_crops(work, H, vertical, zoom=zoom))
            if zoom == 1.0:
                for logits in looks[zoom]:
                    _overhead_blend(logits, crops, front, work.shape, H, lean, ps, twice)
        each = looks[zoom]
        return each[0] if lead or len(each) == 1 else np.mean(each, axis=0)

    logits = look(1.0, lead=False).copy()
    # a large set's short pieces fill the plain window as a typical set's tall ones do: when
    # the set is large (known, or judged from a board of enough pieces), tall is read from a
    # window zoomed out to its size (vision.set_size); occupancy and the rest stay as read
    large = None
    judge = ps.set_size == "auto" and (look(1.0)[:, 0] > 0).sum() >= set_size.MIN_PIECES
    if windows and not net.has_geometry and ps.set_size != "small" and WINDOW_WEIGHTS[0] < 1.0:
        # square as the three windows (plain, zoomed in, zoomed out) read it together: one
        # window's misreading of a piece seen a little too large or too small is outvoted
        # (docs/vision.md, "Session 35"); the other attributes stay plain
        w0, w_in, w_out = WINDOW_WEIGHTS
        k = list(WINDOW_COLUMNS)
        logits[:, k] = (w0 * logits[:, k] + w_in * look(1.0 / WINDOW_ZOOM, lead=False)[:, k]
                        + w_out * look(WINDOW_ZOOM, lead=False)[:, k])
    if not net.has_geometry and ps.set_size == "small":
        # a small set's pieces are narrow and its tall ones stand as high as a typical set's
        # short ones: its attributes are read from a window zoomed in to its size (known from
        # calibration or the user); occupancy stays as read
        logits[:, 1:] = look(set_size.SMALL_ZOOM, lead=False)[:, 1:]
        large = False
    elif not net.has_geometry and (judge or ps.set_size == "large"):
        led = look(1.0)
        stats = set_size.board_statistics(led[:, 0] > 0, led[:, 1],
                                          look(set_size.LARGE_ZOOM)[:, 1]) if judge else None
        large = not judge or bool(set_size.large_set_probability(stats) > set_size.THRESHOLD)
        if large:
            logits[:, 1] = look(set_size.LARGE_ZOOM, lead=False)[:, 1]
    if info is not None:
        info["large_set"] = large
    out[:, k1:k1 + len(NET_FEATURE_NAMES)] = logits
    # the windows a set known to be small or typical were not read through: no judging it
    return plain, (look if not net.has_geometry and ps.set_size == "auto" else None)
