"""Stage 2b: the board's outline, for boards whose cells are mostly hidden by pieces.

When too few cells show as blobs (a full board in a calibration photo), the board itself
is still a big four-sided region. This stage proposes such quadrilaterals, then places a
4x4 grid inside each (the grid's size relative to the board and its turn, 0° or 45° as on
the Gigamic board, are searched), scores each placement by the cell-outline evidence at
its 16 cells (see ``vision.lattice.outline_support``) plus the blobs it explains, and
refines the best by a local search on the grid's corners.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import apply_homography, cell_grid, square_view_error
from vision.lattice import outline_support_batch


def board_quads(gray: np.ndarray, settings, bgr: np.ndarray | None = None) -> list[np.ndarray]:
    """Candidate board outlines: list of ``(4, 2)`` float arrays (corners, any start,
    consistent turn) from global (Otsu) thresholds of brightness and, when the colour
    image ``bgr`` is given, of saturation and the Lab colour axes (a wooden board on a
    white table differs in colour more than in brightness), and coarse adaptive
    thresholds of brightness. ``gray`` ``(H, W)`` uint8; ``settings``: ``OutlineSettings``.

    Outlines are looked for in the working image and in copies shrunk to each of
    ``quad_long_sides`` pixels on the longer side (0 = the working image): a rim that
    one resolution breaks up (glare, a thin edge, a piece on it) another may close.
    Corners are returned in ``gray``'s pixels."""
    quads = []
    for side in settings.quad_long_sides:
        f = min(1.0, side / max(gray.shape)) if side > 0 else 1.0
        g, c = gray, bgr
        if f < 1.0:
            g = cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            c = None if bgr is None else cv2.resize(bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        # pixel centres: x_small = (x + 0.5) * f - 0.5
        quads += [(q + 0.5) / f - 0.5 for q in _quads_at(g, settings, c, f)]
    return _dedupe(quads)


def _odd_pixels(n: float) -> int:
    return max(3, int(n) | 1)


def _quads_at(gray: np.ndarray, settings, bgr: np.ndarray | None, f: float) -> list[np.ndarray]:
    """:func:`board_quads` on an image already shrunk by ``f`` (pixel sizes in
    ``settings`` are for the unshrunk working image)."""
    h, w = gray.shape
    area_img = float(h * w)
    b7 = _odd_pixels(7 * f)
    blur = cv2.GaussianBlur(gray, (b7, b7), 0)
    binaries = []
    channels = [blur]
    if bgr is not None:
        lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
        hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
        channels += [cv2.GaussianBlur(c, (b7, b7), 0) for c in (hsv[:, :, 1], lab[:, :, 1], lab[:, :, 2])]
    for ch in channels:
        _, otsu = cv2.threshold(ch, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        binaries += [otsu, 255 - otsu]
    if settings.fill_fraction > 0:
        # the board's region in brightness, with its engraved lines, light pieces and
        # highlights bridged: a board's rim broken by a glare or a ring line still
        # closes into one four-sided region
        k = max(3, int(settings.fill_fraction * max(h, w)) | 1)
        fill = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        binaries += [cv2.morphologyEx(b, cv2.MORPH_CLOSE, fill) for b in binaries[:2]]
    block = max(3, int(settings.block_fraction * max(h, w)) | 1)
    for sign in (1, -1):
        b = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                  cv2.THRESH_BINARY if sign > 0 else cv2.THRESH_BINARY_INV, block, -sign * 4)
        binaries.append(b)
    k_open = _odd_pixels(settings.close_pixels * f)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_open, k_open))
    quads = []
    for b in binaries:
        b = cv2.morphologyEx(b, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(b, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            a = cv2.contourArea(c)
            if not (settings.min_area_fraction * area_img <= a <= settings.max_area_fraction * area_img):
                continue
            hull = cv2.convexHull(c)
            if a / max(cv2.contourArea(hull), 1.0) < settings.min_solidity:
                continue
            x0, y0, bw, bh = cv2.boundingRect(c)
            if x0 <= 1 and y0 <= 1 and x0 + bw >= w - 1 and y0 + bh >= h - 1:
                continue  # the background around everything, not a board
            for q in (_quad_of(hull), _quad_by_lines(c, settings)):
                if q is not None:
                    quads.append(q)
    return _dedupe(quads)


def _quad_by_lines(contour: np.ndarray, settings) -> np.ndarray | None:
    """Four dominant straight sides of a region's outline (RANSAC, seeded), so that
    pieces sticking out over the board's far edge do not bend the quadrilateral.
    Returns ``(4, 2)`` corners in turn order, or ``None``."""
    pts = contour[:, 0, :].astype(float)
    # densify: CHAIN_APPROX_SIMPLE keeps only the ends of straight runs
    step = np.roll(pts, -1, axis=0) - pts
    n = np.maximum(1, (np.hypot(step[:, 0], step[:, 1]) // 3).astype(int))
    seg = np.repeat(np.arange(len(pts)), n)
    frac = (np.arange(len(seg)) - np.repeat(np.cumsum(n) - n, n)) / n[seg]
    pts = pts[seg] + step[seg] * frac[:, None]
    if len(pts) > settings.max_outline_points:
        pts = pts[:: int(np.ceil(len(pts) / settings.max_outline_points))]
    size = np.sqrt(cv2.contourArea(contour.astype(np.float32)))
    tol = settings.line_tolerance * size
    rng = np.random.default_rng(0)
    lines = []
    remaining = pts
    for _ in range(4):
        if len(remaining) < 10:
            return None
        i = rng.integers(0, len(remaining), settings.line_trials)
        j = rng.integers(0, len(remaining), settings.line_trials)
        d = remaining[j] - remaining[i]
        L = np.hypot(d[:, 0], d[:, 1])
        ok = L > 0.2 * size
        if not ok.any():
            return None
        n = np.stack([-d[ok, 1], d[ok, 0]], 1) / L[ok, None]
        base = remaining[i[ok]]
        dist = np.abs(np.einsum("kmd,kd->km", remaining[None, :, :] - base[:, None, :], n))
        counts = (dist < tol).sum(1)
        k = int(np.argmax(counts))
        if counts[k] < settings.min_side_fraction * len(pts) / 4:
            return None
        inl = dist[k] < tol
        seg = remaining[inl]
        mean = seg.mean(0)
        _, _, vt = np.linalg.svd(seg - mean, full_matrices=False)
        lines.append((mean, vt[0]))
        remaining = remaining[~inl]
    # order the lines around the centroid and intersect neighbours
    centre = pts.mean(0)
    order = np.argsort([np.arctan2(*(m - centre)[::-1]) for m, _ in lines])
    lines = [lines[k] for k in order]
    corners = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k], lines[(k + 1) % 4]
        A = np.array([d1, -d2]).T
        if abs(np.linalg.det(A)) < 0.2:
            return None
        t = np.linalg.solve(A, p2 - p1)
        corners.append(p1 + t[0] * d1)
    q = np.array(corners)
    if not cv2.isContourConvex(q.astype(np.float32)):
        return None
    if cv2.contourArea(q.astype(np.float32)) > 1.6 * cv2.contourArea(contour.astype(np.float32)):
        return None
    return q


def _quad_of(hull: np.ndarray) -> np.ndarray | None:
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.045, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx[:, 0, :].astype(float)
        if len(approx) < 4:
            return None
    return None


def _dedupe(quads: list[np.ndarray]) -> list[np.ndarray]:
    """Drop quadrilaterals whose corners all lie near another's."""
    out: list[np.ndarray] = []
    for q in quads:
        size = np.sqrt(cv2.contourArea(q.astype(np.float32)))
        same = False
        for o in out:
            d = np.hypot(q[:, None, 0] - o[None, :, 0], q[:, None, 1] - o[None, :, 1]).min(1)
            if d.max() < 0.03 * size:
                same = True
                break
        if not same:
            out.append(q)
    return out


def _grid_transform(scale: float, angle_deg: float) -> np.ndarray:
    """Board-unit-square (cells) -> outline-unit-square: a centred grid of side ``scale``
    turned by ``angle_deg``."""
    t = np.radians(angle_deg)
    c, s = np.cos(t), np.sin(t)
    T1 = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])
    S = np.diag([scale, scale, 1.0])
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    T2 = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    return T2 @ R @ S @ T1


def _cells_on_board(scale: float, angle_deg: float, margin_pitch: float) -> bool:
    """Do all 16 cell centres of a grid of side ``scale`` (board sides) turned by
    ``angle_deg`` lie at least ``margin_pitch`` pitches inside the board's edge? (A
    45-degree grid bigger than ~0.83 of the board would put its corner cells' rings
    off the board.)"""
    c = apply_homography(_grid_transform(scale, angle_deg), cell_grid())
    m = margin_pitch * scale / 4
    return bool(np.all((c >= m) & (c <= 1 - m)))


def cell_support(H: np.ndarray, radius: float, gradient) -> np.ndarray:
    """``(16,)`` outline evidence at the cells of a board homography ``H`` (board unit
    square -> pixels); ``radius`` in pitches; ``gradient`` ``(gx, gy, scale)``."""
    return outline_support_batch(H[None], cell_grid(), radius * 0.25, gradient)[0]


def region_scale(gradient, polygon: np.ndarray) -> float:
    """Typical strong gradient (90th percentile of |gx| + |gy|) inside ``polygon``
    ``(4, 2)`` pixels: outline evidence is measured against the board's own contrast,
    not against a busy tablecloth's."""
    gx, gy, scale = gradient
    h, w = gx.shape
    step = 4
    mask = np.zeros(((h + step - 1) // step, (w + step - 1) // step), np.uint8)
    cv2.fillConvexPoly(mask, np.round(polygon / step).astype(np.int32), 1)
    sel = mask.astype(bool)
    if sel.sum() < 20:
        return scale
    return float(np.percentile(_coarse_magnitude(gx, gy, step)[sel], 90)) + 1.0


_MAGNITUDE: list = [None]  # (gx, gy, step, coarse magnitude) of the last frame


def _coarse_magnitude(gx: np.ndarray, gy: np.ndarray, step: int) -> np.ndarray:
    """``|gx| + |gy|`` on every ``step``-th pixel, kept for the frame being analysed
    (hundreds of outline scores ask for it). The entry is one tuple, read and replaced
    whole, so recognisers in other threads never see a mixed one."""
    entry = _MAGNITUDE[0]
    if entry is None or entry[0] is not gx or entry[1] is not gy or entry[2] != step:
        entry = (gx, gy, step, np.abs(gx[::step, ::step]) + np.abs(gy[::step, ::step]))
        _MAGNITUDE[0] = entry
    return entry[3]


def board_support(H: np.ndarray, radius: float, gradient) -> float:
    """Mean outline evidence per cell of a board homography, in units of the board
    region's own contrast (see :func:`region_scale`)."""
    poly = apply_homography(H, np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float))
    sc = region_scale(gradient, poly)
    return float(cell_support(H, radius, (gradient[0], gradient[1], sc)).mean())


def _quad_centre(q: np.ndarray) -> np.ndarray:
    """Perspective-correct centre of a quadrilateral: where its diagonals cross."""
    p1, p2, p3, p4 = q
    d1, d2 = p3 - p1, p4 - p2
    A = np.array([d1, -d2]).T
    if abs(np.linalg.det(A)) < 1e-9:
        return q.mean(0)
    t = np.linalg.solve(A, p2 - p1)
    return p1 + t[0] * d1


def centre_on_board(H: np.ndarray, quads: list[np.ndarray], settings):
    """Shift a 4x4 grid by whole cells so that it sits in the middle of its board: the
    smallest outline (of ``quads``) that holds at least ``recentre_min_cells`` of the
    grid's cells and is 0.8 to ``recentre_max_area`` times the grid's area (a bigger
    region is the table, or a chance quadrilateral). A grid wholly inside it is moved by
    one cell when that brings it to the middle; a grid hanging over its edge is moved by
    up to two cells to lie wholly inside, nearest the middle. Returns ``(H, (di, dj) or
    None)``; unchanged when there is no such outline or no move fits."""
    g = cell_grid()
    cells = apply_homography(H, g)
    pitch = float(np.median(np.hypot(*(apply_homography(H, g + [0.25, 0]) - cells).T)))
    unit = apply_homography(H, np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])).astype(np.float32)
    grid_area = max(float(cv2.contourArea(unit)), 1.0)
    board = None
    for q in quads:
        poly = q.astype(np.float32).reshape(-1, 1, 2)
        area = float(cv2.contourArea(poly))
        if not 0.8 * grid_area <= area <= settings.recentre_max_area * grid_area:
            continue
        n = int(_inside(poly, cells).sum())
        if n >= settings.recentre_min_cells and (board is None or area < board[0]):
            board = (area, poly, n, q)
    if board is None:
        return H, None
    _, poly, n, q = board
    c = _quad_centre(q)
    reach = 1 if n == 16 else 2
    best = None
    for dj in range(-reach, reach + 1):
        for di in range(-reach, reach + 1):
            T = np.array([[1, 0, 0.25 * di], [0, 1, 0.25 * dj], [0, 0, 1.0]])
            if n < 16 and not _inside(poly, apply_homography(H @ T, g)).all():
                continue
            d = float(np.hypot(*(apply_homography(H @ T, np.array([[0.5, 0.5]]))[0] - c))) / pitch
            if best is None or d < best[0]:
                best = (d, di, dj, T)
    if best is None:
        return H, None
    d, di, dj, T = best
    if (di, dj) == (0, 0):
        return H, None
    if n == 16:
        here = float(np.hypot(*(apply_homography(H, np.array([[0.5, 0.5]]))[0] - c))) / pitch
        if d > settings.centre_tolerance or here < settings.off_centre:
            return H, None
    return H @ T, (di, dj)


def _inside(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return np.array([cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 for x, y in pts])


def cut_off_by_outline(H: np.ndarray, quads: list[np.ndarray], image_size, settings) -> bool:
    """Is the board around this grid cut off at the image edge? The smallest board
    outline (of ``quads``) that holds at least ``cut_off_min_cells`` of the 16 cells, if
    it is no bigger than ``cut_off_max_area`` times the grid, reaches the image border
    (within ``cut_off_border_px``): the board runs on out of the picture, so cells (or
    the true grid, when the one found is a part of it) may lie outside."""
    w, h = image_size
    cells = apply_homography(H, cell_grid())
    grid = apply_homography(H, np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])).astype(np.float32)
    grid_area = max(float(cv2.contourArea(grid)), 1.0)
    best = None
    for q in quads:
        poly = q.astype(np.float32).reshape(-1, 1, 2)
        n = sum(cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 for x, y in cells)
        area = float(cv2.contourArea(poly))
        if n >= settings.cut_off_min_cells and (best is None or area < best[0]):
            best = (area, q)
    if best is None or best[0] > settings.cut_off_max_area * grid_area:
        return False
    q = best[1]
    border = min(q[:, 0].min(), q[:, 1].min(), w - 1 - q[:, 0].max(), h - 1 - q[:, 1].max())
    return bool(border <= settings.cut_off_border_px)


def refine_board(H: np.ndarray, gradient, settings):
    """Polish a board homography by its cell-outline evidence: choose the cell outline
    (``settings.cell_radii``) that fits best, then search locally. Returns ``(H,
    support, radius)`` with support as in :func:`board_support`."""
    poly = apply_homography(H, np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float))
    g = (gradient[0], gradient[1], region_scale(gradient, poly))
    radius = max(settings.cell_radii, key=lambda r: float(cell_support(H, r, g).mean()))
    H2, _ = _refine(H, radius, g, settings)
    return H2, board_support(H2, radius, gradient), radius


def fit_outline(gray: np.ndarray, blobs: np.ndarray, gradient, settings, bgr: np.ndarray | None = None,
                quads: list[np.ndarray] | None = None):
    """Best board homography (board unit square -> pixels) from the board's outline, or
    ``None``. Returns ``(H, support, radius)``: support is the mean outline evidence per
    cell in the board region's contrast units (:func:`board_support`), radius the cell
    outline that fitted best (pitches; negative = square). ``quads``: the outlines of
    :func:`board_quads` when the caller already has them."""
    if quads is None:
        quads = board_quads(gray, settings, bgr)
    if not quads:
        return None
    scales = np.arange(settings.min_grid_scale, settings.max_grid_scale + 1e-9, settings.grid_scale_step)
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    cands = []
    size = (gray.shape[1], gray.shape[0])
    for qi, q in enumerate(quads):
        Hq = cv2.getPerspectiveTransform(src, q.astype(np.float32)).astype(np.float64)
        if square_view_error(Hq, size) > settings.max_square_error:
            continue  # the board is square: this outline is no view of one
        Hs = np.array([Hq @ _grid_transform(sc, angle) for angle in settings.grid_angles for sc in scales
                       if _cells_on_board(sc, angle, settings.cell_margin_pitch)])
        g_q = (gradient[0], gradient[1], region_scale(gradient, q))
        for radius in settings.cell_radii:
            sup = outline_support_batch(Hs, cell_grid(), radius * 0.25, g_q, settings.scan_samples).mean(1)
            for k in np.argsort(-sup)[: settings.refine_starts]:
                cands.append((float(sup[k]), Hs[k], radius, g_q, qi))
    cands.sort(key=lambda c: -c[0])
    # the best few placements, and the best placement in each of the best few outlines:
    # a textured patch (a printed box, a tablecloth) can outscore the board's own grid
    # on support alone, so the winner is chosen by support x sharpness of its peak
    starts, seen_q = list(cands[: settings.refine_starts]), set()
    for c in cands:
        if len(seen_q) >= settings.refine_quads:
            break
        if c[4] not in seen_q:
            seen_q.add(c[4])
            if not any(c is d for d in starts):
                starts.append(c)
    best = None
    for s0, H0, radius, g_q, _ in starts:
        H, _ = _refine(H0, radius, g_q, settings)
        if square_view_error(H, size) > settings.max_square_error:
            continue  # the refined grid is no view of a square (squeezed, sheared)
        s = board_support(H, radius, gradient)
        score = s * min(peak_ratio_at(H, radius, gradient, s), settings.peak_cap)
        if best is None or score > best[0]:
            best = (score, H, radius, s)
    if best is None:
        return None
    _, H, radius, s = best
    return H, s, radius


def peak_ratio(H: np.ndarray, radius: float, gradient, shift: float = 0.125) -> float:
    """How much better the cells' outline evidence is at ``H`` than with the grid moved
    half a pitch (``shift`` board units) either way along either axis. A real grid is a
    sharp peak; a grid laid over a table or a shadow is not."""
    return peak_ratio_at(H, radius, gradient, board_support(H, radius, gradient), shift)


def peak_ratio_at(H: np.ndarray, radius: float, gradient, here: float, shift: float = 0.125) -> float:
    """:func:`peak_ratio` with the support at ``H`` already known (``here``)."""
    around = []
    for dx, dy in ((shift, 0), (-shift, 0), (0, shift), (0, -shift)):
        T = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
        around.append(board_support(H @ T, radius, gradient))
    return float(here / max(np.mean(around), 1e-6))


def _refine(H: np.ndarray, radius: float, gradient, settings):
    """Local search on the grid's four corners (pixels) to maximise outline support:
    each round tries moving every corner coordinate by +-step (all 16 candidates in one
    batch), keeps the best, and halves the step when nothing improves."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    x = apply_homography(H, unit).ravel()
    best_s = float(cell_support(H, radius, gradient).mean())
    best_H = H
    pitch = np.median(np.hypot(*np.diff(np.vstack([x.reshape(4, 2), x[:2]]), axis=0).T)) / 4
    step = settings.refine_step_pitch * pitch
    for _ in range(settings.refine_rounds):
        cands = np.repeat(x[None], 16, axis=0)
        for k in range(8):
            cands[2 * k, k] += step
            cands[2 * k + 1, k] -= step
        Hs = np.array([cv2.getPerspectiveTransform(unit, c.reshape(4, 2).astype(np.float32)) for c in cands], float)
        sup = outline_support_batch(Hs, cell_grid(), radius * 0.25, gradient).mean(1)
        k = int(np.argmax(sup))
        if sup[k] > best_s:
            best_s, best_H, x = float(sup[k]), Hs[k], cands[k]
        else:
            step /= 2
            if step < 0.25:
                break
    return best_H, best_s
