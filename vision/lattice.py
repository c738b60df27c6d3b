"""Stage 2: a 4x4 lattice of cells among the blobs, as a homography.

Hypotheses are seeded from one blob and two of its neighbours (an affine lattice), then
grown: predict every lattice point, match the nearest blob within a fraction of the local
pitch, refit a homography to all matches, repeat. The 4x4 window holding the most matched
blobs is the board. Works for any grid orientation (the Gigamic grid is turned 45° against
its board; the lattice does not care about the board's outline).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import apply_homography

#: lattice indices considered around a seed: a 4x4 window containing the seed lies in
#: [-3, 3]; one more step on each side counts blobs just outside the window
_SPAN = 4
_IDX = np.array([(i, j) for j in range(-_SPAN, _SPAN + 1) for i in range(-_SPAN, _SPAN + 1)], float)
#: the lattice points, their right and their lower neighbours, in one array (one
#: projection gives positions and local steps)
_IDX3 = np.vstack([_IDX, _IDX + [1, 0], _IDX + [0, 1]])


@dataclass
class LatticeFit:
    """A 4x4 lattice found among blobs.

    ``H``        (3, 3): board unit square -> image pixels (cell i at
                 ((i % 4 + .5) / 4, (i // 4 + .5) / 4)), in the orientation the search
                 happened to produce (see ``orient``).
    ``matched``  (16,) int: index of the blob seen at each cell, -1 when none.
    ``inside``   number of cells with a blob; ``outside`` blobs on the lattice just
                 outside the 4x4 window; ``rms`` residual of matched blobs, in pitches; ``pitch`` median pitch in pixels;
                 ``cut_off``: the only lattice found leaves the image (the board is
                 cut off at the edge).
    """

    H: np.ndarray
    matched: np.ndarray
    inside: int
    outside: int
    rms: float
    pitch: float = 0.0
    cut_off: bool = False
    #: weighted outline evidence summed over the window's 16 cells (0 when not measured)
    support: float = 0.0

    @property
    def score(self) -> float:
        return self.inside + self.support - 1.5 * self.outside - 4.0 * self.rms


def _fit(idx: np.ndarray, pts: np.ndarray) -> np.ndarray | None:
    """Homography (or affine when only 3 points) from lattice indices to image points."""
    if len(idx) >= 4:
        H, _ = cv2.findHomography(idx.astype(np.float64), pts.astype(np.float64), 0)
        if H is not None and abs(np.linalg.det(H)) > 1e-12:
            return H
    if len(idx) >= 3:
        A = cv2.getAffineTransform(idx[:3].astype(np.float32), pts[:3].astype(np.float32))
        return np.vstack([A, [0, 0, 1]])
    return None


def _shape(axes_major, axes_minor, angle_deg):
    """Scale-free 2x2 shape matrices of ellipses (det 1)."""
    t = np.radians(angle_deg)
    c, s = np.cos(t), np.sin(t)
    a2, b2 = (axes_major / 2) ** 2, (axes_minor / 2) ** 2
    m = np.stack([np.stack([c * c * a2 + s * s * b2, c * s * (a2 - b2)], -1),
                  np.stack([c * s * (a2 - b2), s * s * a2 + c * c * b2], -1)], -2)
    det = np.sqrt(np.maximum(a2 * b2, 1e-12))  # det(m) = a2 * b2
    return m / det[..., None, None]


def _match(H: np.ndarray, blobs: np.ndarray, settings, rel_centre: float | None = None):
    """Predict all lattice points through ``H``; return (indices (M, 2), blob ids (M,),
    residuals in pitches (M,)).

    A blob may match a lattice point when it is near, its area relative to the cell's
    area there (pitch squared, perspective included) is that of a cell (and within
    ``size_factor`` of ``rel_centre`` once the lattice's cell size is known), and its
    shape is the shape a circle on the board takes there (a piece's side seen from the
    front is not). Among several, the one with the lowest combined cost wins."""
    empty = np.zeros((0, 2)), np.zeros(0, int), np.zeros(0)
    n = len(_IDX)
    p3 = apply_homography(H, _IDX3)
    pred = p3[:n]
    right = p3[n:2 * n] - pred
    down = p3[2 * n:] - pred
    pitch = 0.5 * (np.hypot(right[:, 0], right[:, 1]) + np.hypot(down[:, 0], down[:, 1]))
    # only near pairs go on (distance first: the cheapest test, and it leaves few pairs)
    dx = pred[:, None, 0] - blobs[None, :, 0]
    dy = pred[:, None, 1] - blobs[None, :, 1]
    reach = settings.match_tolerance * pitch
    good_pt = np.isfinite(pitch) & (pitch > 1.0)
    reach = np.where(good_pt, reach, -1.0)
    rows, cols = np.nonzero(dx * dx + dy * dy < (reach * reach * np.sign(reach))[:, None])
    if len(rows) == 0:
        return empty
    cell_area = np.abs(right[rows, 0] * down[rows, 1] - right[rows, 1] * down[rows, 0])
    dist = np.hypot(dx[rows, cols], dy[rows, cols]) / pitch[rows]
    rel = blobs[cols, 5] / np.maximum(cell_area, 1e-6)
    ok = (rel >= settings.min_cell_fill) & (rel <= settings.max_cell_fill)
    if rel_centre is not None:
        ok &= np.abs(np.log(rel / rel_centre)) < np.log(settings.size_factor)
    rows, cols, dist, rel = rows[ok], cols[ok], dist[ok], rel[ok]
    if len(rows) == 0:
        return empty
    J = np.stack([right[rows], down[rows]], -1)  # (K, 2, 2): lattice -> pixels
    S_cell = J @ np.transpose(J, (0, 2, 1))
    det = S_cell[:, 0, 0] * S_cell[:, 1, 1] - S_cell[:, 0, 1] * S_cell[:, 1, 0]
    S_cell = S_cell / np.sqrt(np.maximum(det, 1e-12))[:, None, None]
    S_blob = _shape(blobs[cols, 2], blobs[cols, 3], blobs[cols, 4])
    mismatch = np.sqrt(((S_cell - S_blob) ** 2).sum(axis=(1, 2)))
    good = mismatch < settings.max_shape_mismatch
    rows, cols, mismatch, dist, rel = rows[good], cols[good], mismatch[good], dist[good], rel[good]
    cost = dist + settings.shape_weight * mismatch
    if rel_centre is not None:
        cost = cost + settings.size_weight * np.abs(np.log(rel / rel_centre))
    # cheapest pairs first; each lattice point and each blob used once
    used_pt, used_blob = set(), set()
    out = []
    for k in np.argsort(cost, kind="stable").tolist():
        r, c = int(rows[k]), int(cols[k])
        if r in used_pt or c in used_blob:
            continue
        used_pt.add(r)
        used_blob.add(c)
        out.append((r, c, dist[k]))
    out.sort()
    ks = np.array([r for r, _, _ in out], int)
    ids = np.array([c for _, c, _ in out], int)
    return _IDX[ks], ids, np.array([e for _, _, e in out], float)


def match_cells(H: np.ndarray, blobs: np.ndarray, settings) -> np.ndarray:
    """``(16,)`` blob index seen at each cell of a board homography ``H`` (board unit
    square -> pixels), -1 where none; same rules as the lattice search."""
    out = -np.ones(16, int)
    if len(blobs) == 0:
        return out
    S = np.array([[0.25, 0, 0.125], [0, 0.25, 0.125], [0, 0, 1]])  # lattice index -> board
    idx, ids, _ = _match(H @ S, blobs, settings)
    for (i, j), b in zip(idx.astype(int), ids):
        if 0 <= i < 4 and 0 <= j < 4:
            out[j * 4 + i] = b
    return out


def _grow(a: int, b: int, c: int, blobs: np.ndarray, settings, diagonal: bool = False):
    """Grow a lattice from blob ``a`` and its neighbours ``b``, ``c``. ``diagonal``: the
    neighbours are diagonal ones (a checkered board shows only its light squares)."""
    idx = np.array([[0, 0], [1, 1], [1, -1]], float) if diagonal else np.array([[0, 0], [1, 0], [0, 1]], float)
    ids = np.array([a, b, c])
    prev = None
    H = None
    rel_centre = None
    for _ in range(settings.grow_iterations):
        H = _fit(idx, blobs[ids, :2])
        if H is None:
            return None
        if len(ids) >= 6 and prev is not None:
            # robust refit (from the second round on, once the lattice has grown): a
            # piece's top near a lattice point must not bend the lattice
            pitch = np.median(np.hypot(*(apply_homography(H, idx + [1, 0]) - apply_homography(H, idx)).T))
            Hr, inl = cv2.findHomography(idx, blobs[ids, :2].astype(np.float64), cv2.RANSAC,
                                         settings.ransac_pitch * pitch, maxIters=200, confidence=0.99)
            if Hr is not None and inl is not None and inl.sum() >= 5:
                inl = inl.ravel().astype(bool)
                H = _fit(idx[inl], blobs[ids[inl], :2])
        idx, ids, res = _match(H, blobs, settings, rel_centre)
        if len(ids) < 4:
            return None
        if len(ids) >= 4:
            # the lattice's own cell size: pieces' tops and other blobs of another size
            # drop out in the next round
            right = apply_homography(H, idx + [1, 0]) - apply_homography(H, idx)
            down = apply_homography(H, idx + [0, 1]) - apply_homography(H, idx)
            area = np.abs(right[:, 0] * down[:, 1] - right[:, 1] * down[:, 0])
            rel_centre = float(np.median(blobs[ids, 5] / np.maximum(area, 1e-6)))
        key = tuple(ids.tolist())
        if key == prev:
            break
        prev = key
    return idx, ids, H


def _best_window(idx: np.ndarray, ids: np.ndarray, support: np.ndarray | None = None, weight: float = 0.0):
    """Choose the 4x4 window of lattice indices with most matches (fewest just outside),
    adding ``weight`` times the outline support (``(81,)`` per lattice point of ``_IDX``,
    see :func:`outline_support`) of its 16 points when given: a row of cells hidden
    behind pieces still shows parts of its outlines, the table beyond the board does not."""
    best = None
    for oj in range(-3, 1):
        for oi in range(-3, 1):
            inside = (idx[:, 0] >= oi) & (idx[:, 0] < oi + 4) & (idx[:, 1] >= oj) & (idx[:, 1] < oj + 4)
            ring = (idx[:, 0] >= oi - 1) & (idx[:, 0] < oi + 5) & (idx[:, 1] >= oj - 1) & (idx[:, 1] < oj + 5) & ~inside
            score = float(inside.sum())
            if support is not None:
                win = (_IDX[:, 0] >= oi) & (_IDX[:, 0] < oi + 4) & (_IDX[:, 1] >= oj) & (_IDX[:, 1] < oj + 4)
                score += weight * float(support[win].sum())
            key = (score, -int(ring.sum()))
            if best is None or key > best[0]:
                best = (key, oi, oj, inside)
    (score, neg_ring), oi, oj, inside = best
    return (int(inside.sum()), neg_ring), oi, oj, inside


def sample(img: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``img`` (``(H, W)`` or ``(H, W, C)``) at ``xy`` ``(N, 2)``
    pixels; returns ``(N,)`` or ``(N, C)`` (same dtype as ``img``)."""
    n = len(xy)
    width = 4096
    rows = max(1, -(-n // width))
    pad = np.zeros((rows * width, 2), np.float32)
    pad[:n] = xy
    m = pad.reshape(rows, width, 2)
    out = cv2.remap(img, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape((rows * width,) + img.shape[2:])[:n]


def outline_support(H: np.ndarray, radius: float, grad: tuple[np.ndarray, np.ndarray], scale: float) -> np.ndarray:
    """Edge evidence for a cell outline at every lattice point of ``_IDX``.

    ``H`` maps lattice indices to pixels; ``radius`` is the cells' outline radius in
    pitches; ``grad`` the image's (gx, gy) float32 arrays; ``scale`` a typical gradient
    magnitude of the image. Returns ``(81,)`` (see :func:`outline_support_batch`).
    """
    return outline_support_batch(H[None], _IDX, radius, (grad[0], grad[1], scale))[0]


def outline_support_at(H: np.ndarray, centres: np.ndarray, radius: float, gradient) -> np.ndarray:
    """``(N,)`` outline evidence at ``centres`` ``(N, 2)`` given in ``H``'s source units
    (``radius`` in the same units); ``gradient`` ``(gx, gy, scale)``."""
    return outline_support_batch(H[None], centres, radius, gradient)[0]


@functools.lru_cache(maxsize=256)
def outline_points(radius: float, n: int = 32) -> np.ndarray:
    """``(n, 2)`` points of a cell outline around the origin: a circle of ``radius``, or
    for a negative ``radius`` an axis-aligned square of half side ``-radius``. Cached
    (the same few outlines are asked for thousands of times a frame): read-only."""
    out = _outline_points(radius, n)
    out.flags.writeable = False
    return out


def _outline_points(radius: float, n: int) -> np.ndarray:
    if radius >= 0:
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        return np.stack([np.cos(ang), np.sin(ang)], 1) * radius
    r = -radius
    t = np.linspace(0, 4, n, endpoint=False)
    side, f = np.floor(t).astype(int), (t % 1) * 2 - 1
    x = np.select([side == 0, side == 1, side == 2, side == 3], [f, np.ones_like(f), -f, -np.ones_like(f)])
    y = np.select([side == 0, side == 1, side == 2, side == 3], [-np.ones_like(f), f, np.ones_like(f), -f])
    return np.stack([x, y], 1) * r


def outline_support_batch(Hs: np.ndarray, centres: np.ndarray, radius: float, gradient, samples: int = 32) -> np.ndarray:
    """Outline evidence for many homographies at once.

    ``Hs`` ``(K, 3, 3)`` map source coordinates to pixels; ``centres`` ``(N, 2)`` cell
    centres and ``radius`` the outline radius, in source units; ``gradient`` ``(gx, gy,
    scale)`` as from :func:`image_gradient`; a negative ``radius`` means a square outline
    of that half side (drawn or checkered cells). Returns ``(K, N)``: the mean gradient
    across each projected outline (``samples`` points), in units of ``scale``, each sample capped
    so that a piece's strong edge cannot outweigh a missing outline; samples outside the
    image count 0.
    """
    gx, gy, scale = gradient
    circ = outline_points(radius, samples)
    m = len(circ)
    k, n = len(Hs), len(centres)
    src = (centres[:, None, :] + circ[None]).reshape(-1, 2)
    q = Hs[:, :, :2] @ src.T + Hs[:, :, 2:3]  # (K, 3, N * samples), homogeneous
    z = q[:, 2].reshape(k, n, m)
    x = (q[:, 0] / q[:, 2]).reshape(k, n, m)
    y = (q[:, 1] / q[:, 2]).reshape(k, n, m)
    # the outline's tangent at each sample: from the sample before to the one after
    tx = np.roll(x, -1, 2) - np.roll(x, 1, 2)
    ty = np.roll(y, -1, 2) - np.roll(y, 1, 2)
    length = np.hypot(tx, ty) + 1e-9
    h, w = gx.shape
    inside = (x >= 0) & (x < w - 1) & (y >= 0) & (y < h - 1) & (z > 0)
    mx = np.where(inside, x, 0).astype(np.float32).reshape(k * n, m)
    my = np.where(inside, y, 0).astype(np.float32).reshape(k * n, m)
    # (one remap of a two-channel stack would be faster, but OpenCV then interpolates
    # with coarse fixed-point weights)
    if k * n < 32767:
        sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(k, n, m)
        sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(k, n, m)
    else:  # maps of more rows than OpenCV takes
        xy = np.stack([mx.reshape(-1), my.reshape(-1)], 1)
        sx, sy = sample(gx, xy).reshape(k, n, m), sample(gy, xy).reshape(k, n, m)
    # the gradient across the outline: its component along the normal (t_y, -t_x) / |t|
    g = np.abs(sx * ty - sy * tx) / (length * max(scale, 1e-6))
    g = np.where(inside, np.minimum(g, 4.0), 0.0)
    return g.mean(axis=2)


def _spacing_ok(blob: np.ndarray, step: np.ndarray, settings) -> bool:
    """Is ``step`` (pixels) a plausible pitch for cells like ``blob`` (a row of the blob
    array)? Compares the step with the blob's width along the step's direction."""
    n = step / (np.linalg.norm(step) + 1e-9)
    t = np.radians(blob[4])
    e1 = np.array([np.cos(t), np.sin(t)])
    e2 = np.array([-e1[1], e1[0]])
    width = 2 * np.sqrt((blob[2] / 2 * (n @ e1)) ** 2 + (blob[3] / 2 * (n @ e2)) ** 2)
    ratio = np.linalg.norm(step) / max(width, 1e-6)
    return settings.min_spacing_ratio <= ratio <= settings.max_spacing_ratio


def fit_lattice(blobs: np.ndarray, settings, image_size: tuple[int, int] | None = None,
                gradient: tuple | None = None, memo: dict | None = None) -> LatticeFit | None:
    """Find the best 4x4 lattice among ``blobs`` (``(N, 6)`` from ``vision.cells``).

    ``settings``: ``LatticeSettings``; ``image_size`` ``(w, h)`` lets lattices too small
    to be a board in view (``min_pitch_fraction``) be skipped. Returns ``None`` when no
    lattice has at least ``min_cells`` matched cells. ``gradient``: ``(gx, gy, scale)``
    of the grey image (see :func:`image_gradient`); when given, the outline evidence at
    every lattice point helps choose which 4x4 window of a lattice is the board.
    ``memo``: a dict kept by the caller between searches on the same blobs and image
    with the same settings but for ``max_hypotheses`` (a wider second search regrows
    nothing the first one grew).
    """
    memo = {} if memo is None else memo
    min_pitch = settings.min_pitch_fraction * min(image_size) if image_size else 0.0
    n = len(blobs)
    if n < 3:
        return None
    xy = blobs[:, :2]
    size = np.sqrt(blobs[:, 2] * blobs[:, 3])
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    # seeds: blobs with many similar-sized blobs nearby first
    area = blobs[:, 5]
    ratio = np.maximum(area[:, None], area[None, :]) / np.maximum(np.minimum(area[:, None], area[None, :]), 1e-9)
    similar = (ratio < settings.area_ratio) & (d < 4.0 * size[:, None]) & (d > 0.5 * size[:, None])
    order = np.argsort(-similar.sum(1), kind="stable")[: settings.max_seeds]
    best: LatticeFit | None = None
    covered = np.zeros(n, bool)
    tried = set()
    grown_count = 0
    # blobs already explained by a lattice grown the same way: a seed made of three of
    # them regrows that lattice (it still counts against ``max_hypotheses``, so the
    # search explores the same seeds, only faster)
    in_lattice = {False: np.zeros(n, bool), True: np.zeros(n, bool)}
    cut: LatticeFit | None = None
    for a in order:
        if covered[a]:
            continue
        cand = np.flatnonzero(similar[a])
        cand = cand[np.argsort(d[a, cand])][: settings.seed_neighbours]
        for bi in range(len(cand)):
            for ci in range(bi + 1, len(cand)):
                b, c = cand[bi], cand[ci]
                u, v = xy[b] - xy[a], xy[c] - xy[a]
                cos = float(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9)
                lr = np.linalg.norm(u) / (np.linalg.norm(v) + 1e-9)
                if abs(cos) > 0.8 or not (0.3 < lr < 3.3):
                    continue
                # neighbouring cells lie about one cell diameter apart along each
                # direction (pitch / diameter is ~1.05 for drawn squares, ~1.2-1.4 for
                # rings and round cells); a piece's top beside a ring is not a neighbour
                if not (_spacing_ok(blobs[a], u, settings) and _spacing_ok(blobs[a], v, settings)):
                    continue
                for diagonal in (False, True):
                    if grown_count >= settings.max_hypotheses:
                        break
                    grown_count += 1
                    if in_lattice[diagonal][[a, b, c]].all():
                        continue
                    seed = (int(a), int(b), int(c), diagonal)
                    if seed not in memo:
                        memo[seed] = _grow(a, b, c, blobs, settings, diagonal)
                    grown = memo[seed]
                    if grown is None:
                        continue
                    idx, ids, H_idx = grown
                    in_lattice[diagonal][ids] = True
                    key = tuple(sorted(ids.tolist()))
                    if key in tried:
                        continue
                    tried.add(key)
                    support = None
                    if gradient is not None and len(ids) >= settings.min_cells - 2:
                        if ("support", key) not in memo:
                            memo["support", key] = outline_support(
                                H_idx, _outline_radius(H_idx, idx, ids, blobs), gradient[:2], gradient[2])
                        support = memo["support", key]
                    fit = _window_fit(idx, ids, blobs, settings, support)
                    if fit is None or fit.pitch < min_pitch:
                        continue
                    if fit.inside >= settings.min_cells:
                        covered[ids] = True
                    # a lattice that runs on beyond its 4x4 window is a texture (a checked
                    # tablecloth, tiles), not a board; one with a poor fit is no lattice
                    if fit.outside > settings.max_outside or fit.rms > settings.max_rms_pitch:
                        continue
                    if image_size is not None and _cut_off(fit.H, image_size, settings):
                        if fit.inside >= settings.min_cells and (cut is None or fit.score > cut.score):
                            cut = fit
                        continue
                    if best is None or fit.score > best.score:
                        best = fit
                    if best.inside >= settings.early_stop_cells and best.outside == 0 and best.rms < settings.early_stop_rms:
                        return best
    if best is None or best.inside < settings.min_cells:
        if cut is not None:
            cut.cut_off = True
            return cut
        return None
    return best


def _cut_off(H: np.ndarray, image_size, settings) -> bool:
    """Does some cell (its centre +- ``inside_margin_pitch``) leave the image?"""
    w, h = image_size
    g = np.array([((i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4) for i in range(16)])
    c = apply_homography(H, g)
    pitch = np.hypot(*(apply_homography(H, g + [0.25, 0]) - c).T)
    m = settings.inside_margin_pitch * pitch
    return bool(np.any(c[:, 0] - m < 0) or np.any(c[:, 1] - m < 0) or np.any(c[:, 0] + m > w - 1) or np.any(c[:, 1] + m > h - 1))


def _outline_radius(H, idx, ids, blobs) -> float:
    """The cells' outline radius in pitches, from the matched blobs' areas."""
    right = apply_homography(H, idx + [1, 0]) - apply_homography(H, idx)
    down = apply_homography(H, idx + [0, 1]) - apply_homography(H, idx)
    area = np.abs(right[:, 0] * down[:, 1] - right[:, 1] * down[:, 0])
    rel = float(np.median(blobs[ids, 5] / np.maximum(area, 1e-6)))
    return float(np.clip(np.sqrt(rel / np.pi), 0.2, 0.55))


def image_gradient(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(gx, gy, scale)`` of a grey image for :func:`outline_support`: Sobel gradients
    (float32) and the 90th percentile of the gradient magnitude."""
    g = gray.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.abs(gx[::4, ::4]) + np.abs(gy[::4, ::4])
    return gx, gy, float(np.percentile(mag, 90)) + 1.0


def _window_fit(idx, ids, blobs, settings, support=None) -> LatticeFit | None:
    (inside_n, neg_ring), oi, oj, inside = _best_window(idx, ids, support, settings.window_support_weight)
    win_support = 0.0
    if support is not None:
        win = (_IDX[:, 0] >= oi) & (_IDX[:, 0] < oi + 4) & (_IDX[:, 1] >= oj) & (_IDX[:, 1] < oj + 4)
        win_support = settings.window_support_weight * float(support[win].sum())
    if inside_n < 4:
        return None
    win_idx = idx[inside] - [oi, oj]
    board = (win_idx + 0.5) / 4.0
    pts = blobs[ids[inside], :2]
    H, _ = cv2.findHomography(board, pts, 0)
    if H is None:
        return None
    res = np.hypot(*(apply_homography(H, board) - pts).T)
    # pitch in pixels near each matched point
    right = apply_homography(H, board + [0.25, 0])
    pitch = np.hypot(*(right - apply_homography(H, board)).T)
    rms = float(np.sqrt(np.mean((res / np.maximum(pitch, 1e-6)) ** 2)))
    matched = -np.ones(16, int)
    cells = (win_idx[:, 1] * 4 + win_idx[:, 0]).astype(int)
    matched[cells] = ids[inside]
    return LatticeFit(H=H, matched=matched, inside=int(inside_n), outside=int(-neg_ring), rms=rms,
                      pitch=float(np.median(pitch)), support=win_support)


#: the 8 symmetries of the square as maps of board coordinates
_SYMMETRIES = [
    np.array(m, float)
    for m in (
        [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        [[-1, 0, 1], [0, 1, 0], [0, 0, 1]],
        [[1, 0, 0], [0, -1, 1], [0, 0, 1]],
        [[-1, 0, 1], [0, -1, 1], [0, 0, 1]],
        [[0, 1, 0], [1, 0, 0], [0, 0, 1]],
        [[0, -1, 1], [1, 0, 0], [0, 0, 1]],
        [[0, 1, 0], [-1, 0, 1], [0, 0, 1]],
        [[0, -1, 1], [-1, 0, 1], [0, 0, 1]],
    )
]


def orient(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Renumber the cells by the documented convention.

    Row 0 is the row farthest from the camera (rows run down the image, toward the
    camera), columns run left to right in the image: of the square's 8 symmetries, the
    one whose row direction points most nearly down the image and whose column direction
    then points right. Returns ``(H', perm)``: the new homography and ``perm`` (16,) int
    with ``new cell i == old cell perm[i]``.
    """
    best = None
    for S in _SYMMETRIES:
        Hs = H @ S
        p = apply_homography(Hs, np.array([[0.5, 0.5], [0.5, 0.6], [0.6, 0.5]]))
        row = p[1] - p[0]
        col = p[2] - p[0]
        row_down = row[1] / (np.linalg.norm(row) + 1e-9)
        col_right = col[0] / (np.linalg.norm(col) + 1e-9)
        # rows toward the camera first; ties (a diamond seen corner-on) go to the choice
        # whose rows lean left, so numbering is stable; the column direction then fixes
        # the mirror image
        key = (round(row_down, 2), col_right > 0, -row[0] / (np.linalg.norm(row) + 1e-9))
        if best is None or key > best[0]:
            best = (key, Hs, S)
    _, Hs, S = best
    grid = np.array([((i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4) for i in range(16)])
    mapped = apply_homography(S, grid)  # new board coords -> old board coords
    old = (np.floor(mapped[:, 1] * 4) * 4 + np.floor(mapped[:, 0] * 4)).astype(int)
    return Hs, old
