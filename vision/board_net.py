"""A learned board-keypoint detector: heatmaps of the 16 cell centres and the 4 playing-area
corners, turned into a board homography.

The network (trained by ``vision.board_net_training``, shipped as ``vision/board_net.onnx``,
run by ``vision.dnn``: no torch at run time) looks at the frame shrunk into a fixed
``INPUT_W x INPUT_H`` canvas (aspect kept, padded at the bottom/right) and gives, at half
that resolution, three maps in 0..1:

- channel 0: cell centres on the board surface (under a piece: the piece's foot),
- channel 1: the playing area's corners (the images of the board unit square's corners,
  half a pitch outside the outer cell centres),
- channel 2: the board region (inside the board's outline).

:func:`board_hypotheses` turns the peaks into homographies (unit square -> frame pixels):
four corner peaks give one directly, the convex hull of the cell peaks another; each is
refined on every peak it explains and scored by how well the whole 4x4 model explains the
maps (:func:`explain_score`). Cell numbering is left to ``vision.lattice.orient``.
"""

from __future__ import annotations

import itertools
import os
import threading

import cv2
import numpy as np

from vision.geometry import apply_homography, cell_grid, cell_pitch_px
from vision.dnn import NetworkError, OnnxNet

INPUT_W, INPUT_H = 320, 192
STRIDE = 2  # output pixels are STRIDE input pixels
OUT_W, OUT_H = INPUT_W // STRIDE, INPUT_H // STRIDE
MODEL_PATH = os.path.join(os.path.dirname(__file__), "board_net.onnx")
#: the second network, trained on views turned by any angle (tried when the first sees no board)
TURNED_MODEL_PATH = os.path.join(os.path.dirname(__file__), "board_net_turned.onnx")
#: the third, trained with full boards seen from low cameras drawn more often (tried when
#: neither of the others finds a board)
LOW_MODEL_PATH = os.path.join(os.path.dirname(__file__), "board_net_low.onnx")
UNIT_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
_GRID = cell_grid()
_MODEL_POINTS = np.vstack([_GRID, UNIT_CORNERS])  # 16 cell centres, 4 corners
#: the zoomed second pass places the board's playing area so that its bounding box fills
#: this share of the canvas width / height (the rest: the board's rim, pieces standing up)
ZOOM_FILL = (0.62, 0.66)


class BoardNetError(ValueError):
    """The board network file cannot be used (missing, corrupt, wrong shape)."""


# --- coordinates -------------------------------------------------------------------------
def input_scale(width: int, height: int) -> float:
    """Scale from frame pixels to network input pixels (aspect kept)."""
    return min(INPUT_W / width, INPUT_H / height)


def frame_to_input(width: int, height: int) -> np.ndarray:
    """``(2, 3)`` affine map from frame pixel centres to network input pixel centres, the
    same one ``cv2.resize`` to ``round(scale * size)`` applies."""
    s = input_scale(width, height)
    w2, h2 = max(1, round(width * s)), max(1, round(height * s))
    sx, sy = w2 / width, h2 / height
    return np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5]])


def zoom_affine(quad: np.ndarray, width: int, height: int, fill: tuple[float, float] = ZOOM_FILL,
                max_scale: float = 1.0) -> np.ndarray:
    """``(2, 3)`` frame -> input map of the zoomed second pass: the board whose playing
    area has the corners ``quad`` (frame pixels) in the middle of the canvas, as large as
    ``fill`` allows, but at most ``max_scale`` canvas pixels per frame pixel and never
    smaller than in the whole-frame view."""
    quad = np.asarray(quad, float).reshape(-1, 2)
    lo, hi = quad.min(0), quad.max(0)
    size = np.maximum(hi - lo, 1.0)
    s = min(fill[0] * INPUT_W / size[0], fill[1] * INPUT_H / size[1], max_scale)
    s = max(s, input_scale(width, height))
    c = (lo + hi) / 2
    return np.array([[s, 0, (INPUT_W - 1) / 2 - s * c[0]], [0, s, (INPUT_H - 1) / 2 - s * c[1]]])


def input_to_output(pts: np.ndarray) -> np.ndarray:
    """Input pixel centres -> output-map pixel coordinates."""
    return (np.asarray(pts, float) - (STRIDE - 1) / 2) / STRIDE


def prepare_input(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Frame -> ``(1, 3, INPUT_H, INPUT_W)`` float32 blob (RGB, 0..1) and the ``(2, 3)``
    frame -> input affine map."""
    h, w = bgr.shape[:2]
    A = frame_to_input(w, h)
    s = input_scale(w, h)
    w2, h2 = max(1, round(w * s)), max(1, round(h * s))
    small = cv2.resize(bgr, (w2, h2), interpolation=cv2.INTER_AREA)
    canvas = np.zeros((INPUT_H, INPUT_W, 3), np.uint8)
    canvas[:h2, :w2] = small
    return canvas_to_blob(canvas), A


def prepare_zoomed(bgr: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Frame -> blob of the part of the frame that the frame -> input map ``A`` (from
    :func:`zoom_affine`) puts in the canvas, and the exact map used. Only the part of the
    frame the canvas shows (and two pixels around it) is scaled, by area averaging when
    shrinking as the whole-frame view is, then placed at whole canvas pixels: scaling the
    whole frame cost three times as much (docs/vision.md, "Session 25")."""
    h, w = bgr.shape[:2]
    s = float(A[0, 0])
    x0 = min(w, max(0, int(np.floor(-A[0, 2] / s)) - 2))
    y0 = min(h, max(0, int(np.floor(-A[1, 2] / s)) - 2))
    x1 = max(x0, min(w, int(np.ceil((INPUT_W - A[0, 2]) / s)) + 2))
    y1 = max(y0, min(h, int(np.ceil((INPUT_H - A[1, 2]) / s)) + 2))
    part = bgr[y0:y1, x0:x1]
    pw, ph = max(1, x1 - x0), max(1, y1 - y0)
    w2, h2 = max(1, round(pw * s)), max(1, round(ph * s))
    sx, sy = w2 / pw, h2 / ph
    canvas = np.zeros((INPUT_H, INPUT_W, 3), np.uint8)
    # part pixel q = sx * (p - x0) + 0.5 sx - 0.5; canvas pixel = q + (ox, oy)
    ox = int(round(A[0, 2] + sx * x0 - (0.5 * sx - 0.5)))
    oy = int(round(A[1, 2] + sy * y0 - (0.5 * sy - 0.5)))
    if part.size:
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        small = cv2.resize(part, (w2, h2), interpolation=interp) if (w2, h2) != (pw, ph) else part
        cx0, cy0 = max(0, ox), max(0, oy)
        cx1, cy1 = min(INPUT_W, ox + w2), min(INPUT_H, oy + h2)
        if cx1 > cx0 and cy1 > cy0:
            canvas[cy0:cy1, cx0:cx1] = small[cy0 - oy:cy1 - oy, cx0 - ox:cx1 - ox]
    used = np.array([[sx, 0, 0.5 * sx - 0.5 - sx * x0 + ox], [0, sy, 0.5 * sy - 0.5 - sy * y0 + oy]])
    return canvas_to_blob(canvas), used


def canvas_to_blob(canvas: np.ndarray) -> np.ndarray:
    """``(INPUT_H, INPUT_W, 3)`` uint8 BGR -> ``(1, 3, H, W)`` float32 RGB in 0..1."""
    return (canvas[:, :, ::-1].astype(np.float32) / 255.0).transpose(2, 0, 1)[None].copy()


# --- the network -------------------------------------------------------------------------
class BoardNet:
    """The ONNX board network (``vision.dnn.OnnxNet``) run on one frame at a time (calls
    from several threads take turns: a ``cv2.dnn`` net keeps its input and outputs between
    calls)."""

    def __init__(self, path: str = MODEL_PATH):
        try:
            size = os.path.getsize(path)
        except OSError as e:
            raise BoardNetError(f"board network file {path!r} cannot be read: {e.strerror}") from None
        if size < 1000:
            raise BoardNetError(f"board network file {path!r} is not a network ({size} bytes)")
        try:
            self.net = OnnxNet(path)
        except NetworkError:
            raise BoardNetError(f"board network file {path!r} is corrupt (it cannot be read as ONNX)") from None
        if len(self.net.inputs) != 1:
            raise BoardNetError(f"board network file {path!r} takes {len(self.net.inputs)} inputs, not one image")
        self._input = self.net.inputs[0]
        self._lock = threading.Lock()
        try:
            out = self._forward(np.zeros((1, 3, INPUT_H, INPUT_W), np.float32))
        except NetworkError:
            raise BoardNetError(f"board network file {path!r} does not run on a {INPUT_W}x{INPUT_H} input") from None
        if out.shape != (3, OUT_H, OUT_W):
            raise BoardNetError(f"board network file {path!r} gives maps of shape {out.shape}, "
                                f"expected {(3, OUT_H, OUT_W)}")

    def _forward(self, blob: np.ndarray) -> np.ndarray:
        with self._lock:
            return self.net.run({self._input: blob})[0]

    def heatmaps(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(3, OUT_H, OUT_W)`` maps in 0..1 and the frame -> input affine map."""
        blob, A = prepare_input(bgr)
        return self._forward(blob), A

    def mirrored_heatmaps(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The maps of the frame mirrored left to right, mirrored back onto the frame's
        (output pixel ``u`` of ``OUT_W`` lies over input pixels ``STRIDE * u`` .. ``STRIDE * u +
        STRIDE - 1``, so mirroring the canvas mirrors the maps exactly), and the frame ->
        input map."""
        blob, A = prepare_input(bgr)
        return self._forward(blob[:, :, :, ::-1].copy())[:, :, ::-1].copy(), A

    def zoomed_heatmaps(self, bgr: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The maps of the zoomed view ``A`` (see :func:`zoom_affine`) and the exact frame ->
        input map used."""
        blob, used = prepare_zoomed(bgr, A)
        return self._forward(blob), used


# --- from maps to boards -----------------------------------------------------------------
def peaks(heat: np.ndarray, threshold: float, max_peaks: int) -> np.ndarray:
    """``(N, 3)``: x, y (output-map pixels, sub-pixel by a parabola through the logarithms
    of the peak and its two neighbours in x and in y: exact for a Gaussian peak), value
    of the local maxima of ``heat`` above ``threshold``, strongest first."""
    dil = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dil) & (heat >= threshold))
    if len(xs) == 0:
        return np.zeros((0, 3))
    v = heat[ys, xs]
    order = np.argsort(-v)[:max_peaks]
    ys, xs, v = ys[order], xs[order], v[order]
    h, w = heat.shape
    lg = lambda yy, xx: np.log(heat[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)].astype(float) + 1e-6)  # noqa: E731

    def offset(l, c, r):
        curv = l - 2 * c + r
        with np.errstate(divide="ignore", invalid="ignore"):
            o = np.where(curv < -1e-9, 0.5 * (l - r) / curv, 0.0)
        return np.clip(o, -0.5, 0.5)

    centre = lg(ys, xs)
    px = xs + offset(lg(ys, xs - 1), centre, lg(ys, xs + 1))
    py = ys + offset(lg(ys - 1, xs), centre, lg(ys + 1, xs))
    return np.stack([px, py, v], 1)


def sample(heat: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear values of ``heat`` at ``(N, 2)`` output-map points (0 outside)."""
    pts = np.asarray(pts, np.float32).reshape(-1, 1, 2)
    m = cv2.remap(heat, pts[:, :, 0], pts[:, :, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    out = m.reshape(-1).astype(float)
    out[~np.isfinite(pts.reshape(-1, 2)).all(1)] = 0.0
    return out


def explain_score(H: np.ndarray, maps: np.ndarray, region: bool = False):
    """How well the board model ``H`` (unit square -> output-map pixels) explains the maps:
    ``(score, cells, corners)`` with ``cells`` the mean cell-map value at its 16 centres,
    ``corners`` the mean corner-map value at its 4 corners, ``score`` their weighted mean;
    with ``region``, also the board-region map's mean at the 16 centres."""
    p = apply_homography(H, _MODEL_POINTS)
    c = sample(maps[0], p[:16])
    k = sample(maps[1], p[16:])
    cells, corners = float(c.mean()), float(k.mean())
    out = ((16 * cells + 8 * corners) / 24, cells, corners)
    if region:
        out += (float(sample(maps[2], p[:16]).mean()),)
    return out


def _explain_scores(Hs: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """``(K,)`` scores of :func:`explain_score` for ``(K, 3, 3)`` homographies at once."""
    q = _MODEL_POINTS @ Hs[:, :, :2].transpose(0, 2, 1) + Hs[:, None, :, 2]  # (K, 20, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = q[..., :2] / q[..., 2:3]
    c = sample(maps[0], p[:, :16].reshape(-1, 2)).reshape(len(Hs), 16)
    k = sample(maps[1], p[:, 16:].reshape(-1, 2)).reshape(len(Hs), 4)
    return (16 * c.mean(1) + 8 * k.mean(1)) / 24


def _quad_order(pts: np.ndarray) -> np.ndarray | None:
    """Four points in order around their centroid, or None when not a convex quad."""
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    q = pts[np.argsort(ang)]
    cross = []
    for i in range(4):
        a, b, d = q[i], q[(i + 1) % 4], q[(i + 2) % 4]
        cross.append((b[0] - a[0]) * (d[1] - b[1]) - (b[1] - a[1]) * (d[0] - b[0]))
    cross = np.array(cross)
    if not (np.all(cross > 0) or np.all(cross < 0)):
        return None
    return q


def _hull_quad(pts: np.ndarray) -> np.ndarray | None:
    """The 4-vertex polygon that best approximates the convex hull of ``pts``."""
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    if len(hull) < 4:
        return None
    peri = cv2.arcLength(hull.reshape(-1, 1, 2), True)
    for eps in (0.02, 0.04, 0.06, 0.08, 0.1, 0.13, 0.16):
        approx = cv2.approxPolyDP(hull.reshape(-1, 1, 2), eps * peri, True).reshape(-1, 2)
        if len(approx) == 4:
            return _quad_order(approx.astype(float))
        if len(approx) < 4:
            return None
    return None


def lattice_starts(cells: np.ndarray, maps: np.ndarray, keep: int = 8, neighbours: int = 4) -> list[np.ndarray]:
    """Affine 4x4 grids (unit square -> output map) seeded by a cell peak and two of its
    nearest peaks taken as the next cells along the rows and the columns, the seed at
    every place in the grid where both fit; the ``keep`` best by the maps' values at
    their 16 centres (the refit on all peaks then takes perspective in)."""
    n = len(cells)
    if n < 3:
        return []
    pts = cells[:, :2]
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    np.fill_diagonal(d, np.inf)
    neighbours = min(neighbours, n - 1)
    near = np.argsort(d, 1)[:, :neighbours]
    ii = np.repeat(np.arange(n), neighbours * neighbours)
    aa = np.repeat(near, neighbours, axis=1).reshape(-1)
    bb = np.tile(near, (1, neighbours)).reshape(-1)
    u, v = pts[aa] - pts[ii], pts[bb] - pts[ii]
    nu, nv = np.hypot(*u.T), np.hypot(*v.T)
    cross = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (aa != bb) & np.isfinite(nu + nv) & (nu >= 2) & (nv >= 2) & \
            (np.maximum(nu, nv) <= 2.5 * np.minimum(nu, nv)) & (cross > 0.5 * nu * nv)  # one handedness, not too skewed
    src_p, src_a, src_b = ii[ok], aa[ok], bb[ok]
    if len(src_p) == 0:
        return []
    P, U, V = pts[src_p], pts[src_a] - pts[src_p], pts[src_b] - pts[src_p]
    grid = cell_grid()  # (16, 2) board coordinates; one pitch = 0.25
    cands, scores = [], []
    for gi in range(3):
        for gj in range(3):
            # seed at column gi, row gj: image = P + (x - x_i) / 0.25 * U + (y - y_j) / 0.25 * V
            dx = (grid[:, 0] - (gi + 0.5) / 4) / 0.25
            dy = (grid[:, 1] - (gj + 0.5) / 4) / 0.25
            proj = P[:, None, :] + dx[None, :, None] * U[:, None, :] + dy[None, :, None] * V[:, None, :]
            val = sample(maps[0], proj.reshape(-1, 2)).reshape(len(P), 16).mean(1)
            A = np.zeros((len(P), 3, 3))
            A[:, :2, 0] = U * 4
            A[:, :2, 1] = V * 4
            A[:, :2, 2] = P - ((gi + 0.5) / 4) * 4 * U - ((gj + 0.5) / 4) * 4 * V
            A[:, 2, 2] = 1
            cands.append(A)
            scores.append(val)
    A = np.concatenate(cands)
    val = np.concatenate(scores)
    best = np.argsort(-val)[: keep * 4]
    out = []
    for k in best:
        p = apply_homography(A[k], UNIT_CORNERS)
        if any(np.abs(p - apply_homography(B, UNIT_CORNERS)).max() < 1.5 for B in out):
            continue
        out.append(A[k])
        if len(out) >= keep:
            break
    return out


def refine(H: np.ndarray, cell_peaks: np.ndarray, corner_peaks: np.ndarray, tolerance: float = 0.35,
           rounds: int = 3, cell_weight: int = 1) -> tuple[np.ndarray, int]:
    """Refit ``H`` (unit square -> output map) to every cell / corner peak within
    ``tolerance`` pitch of where it puts a cell centre / corner, each cell peak counting
    ``cell_weight`` times a corner peak in the least-squares fit. Returns ``(H, inliers)``
    (inliers: the peaks matched, each once)."""
    grid = _MODEL_POINTS
    n = 0
    for _ in range(rounds):
        pred = apply_homography(H, grid)
        if not np.isfinite(pred).all():
            return H, 0
        pitch = cell_pitch_px(H)
        tol = tolerance * np.r_[pitch, pitch[[0, 3, 15, 12]]]
        src, dst, n = [], [], 0
        for pk, rows in ((cell_peaks, slice(0, 16)), (corner_peaks, slice(16, 20))):
            if len(pk) == 0:
                continue
            d = np.hypot(pred[rows, None, 0] - pk[None, :, 0], pred[rows, None, 1] - pk[None, :, 1])
            j = d.argmin(1)
            ok = d[np.arange(len(j)), j] <= tol[rows]
            k = cell_weight if rows.start == 0 else 1
            src.append(np.repeat(grid[rows][ok], k, 0))
            dst.append(np.repeat(pk[j[ok], :2], k, 0))
            n += int(ok.sum())
        src = np.vstack(src) if src else np.zeros((0, 2))
        dst = np.vstack(dst) if dst else np.zeros((0, 2))
        if n < 6:
            return H, n
        H2, _ = cv2.findHomography(src, dst, 0)
        if H2 is None or abs(H2[2, 2]) < 1e-12:
            return H, n
        H = H2 / H2[2, 2]
    return H, n


def board_hypotheses(maps: np.ndarray, settings) -> list[tuple[float, np.ndarray, dict]]:
    """Board homographies (unit square -> output-map pixels) explaining ``maps``, best
    first: ``(score, H, info)``. ``settings``: ``BoardNetSettings``."""
    cells = peaks(maps[0], settings.peak_threshold, settings.max_cell_peaks)
    corners = peaks(maps[1], settings.peak_threshold, settings.max_corner_peaks)
    starts = []
    if len(corners) >= 4:
        for combo in itertools.combinations(range(len(corners)), 4):
            q = _quad_order(corners[list(combo), :2])
            if q is not None:
                starts.append(cv2.getPerspectiveTransform(UNIT_CORNERS.astype(np.float32), q.astype(np.float32)))
    if len(cells) >= 4:
        q = _hull_quad(cells[:, :2])
        if q is not None:
            outer = np.array([[0.125, 0.125], [0.875, 0.125], [0.875, 0.875], [0.125, 0.875]], np.float32)
            starts.append(cv2.getPerspectiveTransform(outer, q.astype(np.float32)))
    starts = [H / H[2, 2] for H in starts]
    starts += lattice_starts(cells, maps, settings.lattice_starts)
    # best first by how well they explain the maps as they are; a start close to one
    # already refined (all corners within half a pitch) would refine to the same board
    pre = _explain_scores(np.array(starts), maps) if starts else []
    out, done = [], []
    for i in np.argsort(pre)[::-1]:
        H = starts[i]
        p = apply_homography(H, UNIT_CORNERS)
        tol = 0.5 * 0.25 * float(np.hypot(*(p - np.roll(p, 1, 0)).T).mean())  # half a pitch
        if any(np.abs(p - q).max() < tol for q in done):
            continue
        done.append(p)
        if len(done) > settings.refine_starts:
            break
        H, n = refine(H, cells, corners, settings.match_tolerance, settings.refine_rounds)
        if not np.isfinite(H).all():
            continue
        score, c, k, r = explain_score(H, maps, region=True)
        out.append((score, H, {"net_cells": round(c, 3), "net_corners": round(k, 3), "net_region": round(r, 3),
                               "net_inliers": n}))
    out.sort(key=lambda t: -t[0])
    # drop near-duplicates (the same board reached from several starts)
    kept = []
    for s, H, info in out:
        p = apply_homography(H, UNIT_CORNERS)
        if any(np.abs(p - apply_homography(H2, UNIT_CORNERS)).max() < 1.0 for _, H2, _ in kept):
            continue
        kept.append((s, H, info))
    return kept


def output_to_frame(A: np.ndarray) -> np.ndarray:
    """``(3, 3)`` projective map from output-map pixels to frame pixels, for the frame ->
    input map ``A``."""
    O = np.array([[STRIDE, 0, (STRIDE - 1) / 2], [0, STRIDE, (STRIDE - 1) / 2], [0, 0, 1.0]])
    Ai = np.linalg.inv(np.vstack([A, [0, 0, 1]]))
    return Ai @ O
