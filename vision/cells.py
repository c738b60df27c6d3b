"""Stage 1: cell-like blobs (gold rings, round recesses, drawn squares) in a grey image.

Nothing here knows about boards: it proposes every compact convex blob whose outline is
close to an ellipse (a circle or square seen at a tilt), at any size within bounds. The
lattice stage decides which of them form a 4x4 board.
"""

from __future__ import annotations

import cv2
import numpy as np
from scipy.spatial import cKDTree

#: columns of the blob array returned by :func:`find_blobs`
BLOB_COLUMNS = ("x", "y", "major", "minor", "angle_deg", "area")


def find_blobs(gray: np.ndarray, settings) -> np.ndarray:
    """Candidate cells in a grey image.

    ``gray``: ``(H, W)`` uint8. ``settings``: ``CellSettings``.
    Returns ``(N, 6)`` float array, columns ``BLOB_COLUMNS``: centre ``(x, y)`` in pixels
    (x right, y down), ellipse full axes (major >= minor) in pixels, angle in degrees, and
    the blob's area in square pixels. Concentric duplicates (a ring's outer and inner
    edge) are merged into one blob (mean centre, largest size).
    """
    h, w = gray.shape[:2]
    long_side = max(h, w)
    block = max(3, int(settings.block_fraction * long_side) | 1)
    min_area = settings.min_area_fraction * h * w
    max_area = settings.max_area_fraction * h * w
    if settings.blur_pixels > 1:
        gray = cv2.GaussianBlur(gray, (settings.blur_pixels | 1, settings.blur_pixels | 1), 0)
    binaries = []
    for c in settings.threshold_offsets:
        binaries.append(cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -c))
        binaries.append(cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c))
    if settings.use_edges:
        edges = cv2.Canny(gray, settings.canny_low, settings.canny_high)
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        binaries.append(255 - edges)
    found = []
    fragments = []
    for bi, b in enumerate(binaries):
        contours, _ = cv2.findContours(b, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        if len(contours) > settings.max_contours:
            # texture or noise, not a board's few dozen outlines: keep the longest
            contours = sorted(contours, key=len, reverse=True)[: settings.max_contours]
        for cnt in contours:
            if len(cnt) < 5:
                continue
            x0, y0, bw, bh = cv2.boundingRect(cnt)
            if bi == 0 and len(cnt) >= settings.fragment_min_points and bw * bh <= 2.5 * max_area:
                blob = _as_blob(cnt, min_area, max_area, settings)
                if blob is None:
                    fragments.append(cnt)
                else:
                    found.append(blob)
                continue
            if bw * bh < min_area or bw * bh > 2.5 * max_area:
                continue
            blob = _as_blob(cnt, min_area, max_area, settings)
            if blob is not None:
                found.append(blob)
    found.extend(_paired_arcs(fragments, min_area, max_area, settings))
    if not found:
        return np.zeros((0, 6))
    blobs = merge_blobs(np.array(found, float), settings.merge_fraction)
    return blobs[: settings.max_blobs]  # merge_blobs sorts by area, largest first


def _as_blob(cnt, min_area, max_area, settings):
    """One contour -> blob row (see ``BLOB_COLUMNS``) when it is a filled ellipse-like
    shape or an arc that traces most of an ellipse; else ``None``."""
    x0, y0, bw, bh = cv2.boundingRect(cnt)
    if bw * bh < min_area or bw * bh > 2.5 * max_area:
        return None
    (cx, cy), (a1, a2), ang = cv2.fitEllipse(cnt)
    e_area = _ellipse_area_if_cell_sized(a1, a2, min_area, max_area, settings)
    if e_area is None:
        return None
    area = cv2.contourArea(cnt)
    hull_area = cv2.contourArea(cv2.convexHull(cnt))
    solid = (
        hull_area > 0
        and area / hull_area >= settings.min_solidity
        and settings.min_fill <= area / e_area <= settings.max_fill
    )
    if not solid and not _is_arc(cnt, (cx, cy), (a1, a2), ang, settings):
        fit = _robust_arc(cnt, settings, ((cx, cy), (a1, a2), ang)) if len(cnt) >= settings.fragment_min_points else None
        if fit is None:
            return None
        (cx, cy), (a1, a2), ang = fit
        e_area = _ellipse_area_if_cell_sized(a1, a2, min_area, max_area, settings)
        if e_area is None:
            return None
    if a2 > a1:  # make the angle that of the major axis
        ang = ang + 90.0
    return (cx, cy, max(a1, a2), min(a1, a2), ang % 180.0, e_area)


def _ellipse_area_if_cell_sized(a1, a2, min_area, max_area, settings):
    """The area of an ellipse with axes ``a1``, ``a2`` (pixels) when it is round enough
    and of a cell's size, else ``None``."""
    major, minor = max(a1, a2), min(a1, a2)
    if minor <= 0 or minor / major < settings.min_axis_ratio:
        return None
    e_area = np.pi / 4 * major * minor
    return e_area if min_area <= e_area <= max_area else None


def _radial(pts, centre, axes, angle_deg):
    """Normalised radius and angle of points in an ellipse's frame (r = 1 on it)."""
    p = pts.astype(float) - centre
    t = np.radians(angle_deg)
    c, s = np.cos(t), np.sin(t)
    u = (p[:, 0] * c + p[:, 1] * s) / max(axes[0] / 2, 1e-6)
    v = (-p[:, 0] * s + p[:, 1] * c) / max(axes[1] / 2, 1e-6)
    return np.hypot(u, v), np.arctan2(v, u)


def _robust_arc(cnt, settings, first=None):
    """A cell outline with a bite out of it (a piece standing in a ring and overlapping
    it): fit, keep the points near the ellipse, refit. Returns the ellipse
    ``((cx, cy), (a1, a2), angle)`` when most of its turn is traced, else ``None``."""
    pts = cnt[:, 0, :]
    fit = first if first is not None else cv2.fitEllipse(pts)  # the caller's own fit of ``cnt``
    for tol in (0.2, 0.1, settings.arc_max_residual):
        r, _ = _radial(pts, fit[0], fit[1], fit[2])
        keep = np.abs(r - 1.0) < tol
        if keep.sum() < max(5, settings.arc_min_inliers * len(pts)):
            return None
        pts = pts[keep]
        fit = cv2.fitEllipse(pts)
    r, th = _radial(pts, fit[0], fit[1], fit[2])
    if np.mean(np.abs(r - 1.0)) > settings.arc_max_residual:
        return None
    bins = np.unique((th / (2 * np.pi) * 24).astype(int) % 24)
    return fit if len(bins) / 24.0 >= settings.arc_min_coverage else None


def _paired_arcs(fragments, min_area, max_area, settings) -> list[tuple]:
    """Rings lit from one side show as two crescents; fit an ellipse to each pair of
    nearby bright fragments and keep the pairs that together trace one ellipse."""
    if len(fragments) < 2:
        return []
    fragments = sorted(fragments, key=len, reverse=True)[: settings.max_fragments]
    boxes = np.array([cv2.boundingRect(c) for c in fragments], float)
    centre = boxes[:, :2] + boxes[:, 2:] / 2
    extent = np.hypot(boxes[:, 2], boxes[:, 3])
    d = np.hypot(centre[:, None, 0] - centre[None, :, 0], centre[:, None, 1] - centre[None, :, 1])
    ratio = np.maximum(extent[:, None], extent[None, :]) / np.maximum(np.minimum(extent[:, None], extent[None, :]), 1)
    near = (d < 0.9 * (extent[:, None] + extent[None, :])) & (ratio < 2.5)
    np.fill_diagonal(near, False)
    # each fragment pairs with its few nearest candidates only
    d = np.where(near, d, np.inf)
    k = min(settings.fragment_partners, len(d) - 1)
    partners = np.argsort(d, axis=1)[:, :k]
    pairs = {(min(i, j), max(i, j)) for i in range(len(d)) for j in partners[i] if np.isfinite(d[i, j])}
    out = []
    for i, j in sorted(pairs):
        pts = np.concatenate([fragments[i], fragments[j]])
        (cx, cy), (a1, a2), ang = cv2.fitEllipse(pts)
        e_area = _ellipse_area_if_cell_sized(a1, a2, min_area, max_area, settings)
        if e_area is None or not _is_arc(pts, (cx, cy), (a1, a2), ang, settings):
            continue
        if a2 > a1:
            ang = ang + 90.0
        out.append((cx, cy, max(a1, a2), min(a1, a2), ang % 180.0, e_area))
    return out


def _is_arc(cnt, centre, axes, angle_deg, settings) -> bool:
    """A partial outline (a ring lit only on its far side, a recess's shaded rim) lies on
    its fitted ellipse and covers enough of it."""
    pts = cnt[:, 0, :].astype(float) - centre
    t = np.radians(angle_deg)
    c, s = np.cos(t), np.sin(t)
    u = (pts[:, 0] * c + pts[:, 1] * s) / (axes[0] / 2)
    v = (-pts[:, 0] * s + pts[:, 1] * c) / (axes[1] / 2)
    r = np.hypot(u, v)
    if np.mean(np.abs(r - 1.0)) > settings.arc_max_residual:
        return False
    bins = np.unique((np.arctan2(v, u) / (2 * np.pi) * 24).astype(int) % 24)
    return len(bins) / 24.0 >= settings.arc_min_coverage


def merge_blobs(blobs: np.ndarray, fraction: float) -> np.ndarray:
    """Merge blobs whose centres lie within ``fraction`` of the smaller one's minor radius.

    ``blobs``: ``(N, 6)`` as in :func:`find_blobs`. Returns ``(M, 6)``, M <= N."""
    order = np.argsort(-blobs[:, 5])
    blobs = blobs[order]
    used = np.zeros(len(blobs), bool)
    out = []
    xy = blobs[:, :2]
    # candidates within merging distance from a k-d tree (thousands of blobs: all pairs
    # would be millions), then the exact test on those few
    reach = fraction * 0.5 * blobs[:, 3]
    candidates = cKDTree(xy).query_ball_point(xy, reach * (1 + 1e-9) + 1e-9)
    for i in range(len(blobs)):
        if used[i]:
            continue
        js = np.sort(np.asarray(candidates[i], int))
        js = js[~used[js]]
        d = np.hypot(xy[js, 0] - xy[i, 0], xy[js, 1] - xy[i, 1])
        near = js[d <= fraction * 0.5 * np.minimum(blobs[js, 3], blobs[i, 3])]
        used[near] = True
        group = blobs[near]
        row = blobs[i].copy()
        row[:2] = group[:, :2].mean(0)
        out.append(row)
    return np.array(out)
