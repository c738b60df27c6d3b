"""Learned-classifier inputs: an upright image crop of every cell, described by HOG and colour.

For each cell a window is cut around the cell centre, its vertical axis along the
projected vertical of the board plane (``LocalView``'s up direction; image-up when the
camera looks straight down), sized in units of the cell pitch as seen across the view
(the larger singular value of the homography's Jacobian, so a piece's image height
in the crop depends on the tilt only, not on the distance). The window spans
``CROP_SPAN`` pitches across and ``CROP_BELOW`` .. ``CROP_ABOVE`` pitches along the
vertical and is resampled to ``CROP_W`` x ``CROP_H`` pixels.

Features per cell (names ``crop_*``, appended to ``vision.features.FEATURE_NAMES``):

- HOG of the grey crop (own NumPy implementation; OpenCV 5 has no HOGDescriptor), as
  is and relative to the median over this board's 16 cells (the board's pattern and
  the set's typical piece cancel out); (shape: silhouette height, square corners, cup rim);
- HOG of a top-down patch of the cell rectified by the homography (the top face's
  outline and cup), as is and relative to the board's median cell;
- the crop's lightness on a coarse grid, relative to the median and spread of the same
  grid over this board's 16 cells (an empty cell looks like the board's typical cell; a
  dark piece is darker than the board's other pieces);
- Lab colour of the piece's body (the crop's lower middle), relative to the board's
  median and as a z-score among the 16 cells, so "dark" means the darker of this
  set's colours whatever the set.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import Remembered

CROP_W, CROP_H = 32, 64
CROP_SPAN = 1.0       # pitches across (a piece and little of its neighbours)
CROP_BELOW = 0.4      # pitches below the cell centre (towards the camera)
CROP_ABOVE = 1.7      # pitches above it (tall pieces reach ~1.1 pitch)
GRID_W, GRID_H = 4, 8  # coarse lightness grid
#: the piece network's crops (session 6) are stretched along the vertical where a pitch of
#: height is short in the picture (near the point under the camera), so that the image of
#: a tall piece (~1.3 pitch) plus its top face (~0.5 pitch) fills the crop's height above
#: the cell centre: stretch ``CROP_ABOVE / (STRETCH_HEIGHT * lean + STRETCH_TOP)``, within
#: 1 .. ``STRETCH_MAX``
STRETCH_HEIGHT = 1.3
STRETCH_TOP = 0.5
STRETCH_MAX = 3.0

CELL = 8   # HOG cell size in crop pixels
BINS = 9   # unsigned orientation bins
_NCX, _NCY = CROP_W // CELL, CROP_H // CELL
N_HOG = (_NCX - 1) * (_NCY - 1) * 4 * BINS
TOP_PX = 24           # top-down patch size (pixels)
TOP_SPAN = 1.2        # pitches across the top-down patch
N_TOP = (TOP_PX // CELL - 1) ** 2 * 4 * BINS


def _magnitude_and_bin(gx: np.ndarray, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient length and orientation in bins (float, ``-0.5 .. BINS - 0.5``)."""
    return np.hypot(gx, gy), np.mod(np.arctan2(gy, gx), np.pi) * (BINS / np.pi) - 0.5


_GRADIENT_TABLES: tuple[np.ndarray, np.ndarray] | None = None


def _gradient_tables() -> tuple[np.ndarray, np.ndarray]:
    """:func:`_magnitude_and_bin` of every float32 gradient ``(gx, gy)`` in -255..255,
    flat at ``(gy + 255) * 511 + gx + 255`` (made once, 2 MB)."""
    global _GRADIENT_TABLES
    if _GRADIENT_TABLES is None:
        v = np.arange(-255, 256, dtype=np.float32)
        gy, gx = np.meshgrid(v, v, indexing="ij")
        _GRADIENT_TABLES = tuple(a.ravel() for a in _magnitude_and_bin(gx, gy))
    return _GRADIENT_TABLES


def hog(grey: np.ndarray) -> np.ndarray:
    """Histograms of oriented gradients of ``(N, CROP_H, CROP_W)`` crops: unsigned
    orientation in ``BINS`` bins (linear vote between the two nearest), per ``CELL`` x
    ``CELL`` cell, L2-Hys normalised over 2x2-cell blocks. Returns ``(N, N_HOG)``."""
    g = grey.astype(np.float32)
    gx = np.zeros_like(g)
    gy = np.zeros_like(g)
    gx[:, :, 1:-1] = g[:, :, 2:] - g[:, :, :-2]
    gy[:, 1:-1, :] = g[:, 2:, :] - g[:, :-2, :]
    n, h, w = g.shape
    if grey.dtype == np.uint8:
        # the gradients of 8-bit crops are whole numbers in -255..255: look their length
        # and bin position up (the same float32 values; arctan2 took ~1.5 ms a frame)
        mag_t, ang_t = _gradient_tables()
        i = (gy.astype(np.int32) + 255) * 511 + (gx.astype(np.int32) + 255)
        mag, ang = mag_t[i], ang_t[i]
    else:
        mag, ang = _magnitude_and_bin(gx, gy)
    lo = np.floor(ang).astype(np.int64)
    w_hi = ang - lo
    # every pixel votes straight into its HOG cell's histogram: flat index of
    # (crop, cell row, cell column, bin)
    cy, cx = h // CELL, w // CELL
    base = ((np.arange(n)[:, None, None] * cy + (np.arange(h) // CELL)[None, :, None]) * cx
            + (np.arange(w) // CELL)[None, None, :]) * BINS
    size = n * cy * cx * BINS
    cells = (np.bincount((base + lo % BINS).ravel(), (mag * (1 - w_hi)).ravel(), size)
             + np.bincount((base + (lo + 1) % BINS).ravel(), (mag * w_hi).ravel(), size))
    cells = cells.reshape(n, cy, cx, BINS).astype(np.float32)  # (n, cy, cx, B)
    blocks = np.concatenate([cells[:, :-1, :-1], cells[:, 1:, :-1], cells[:, :-1, 1:], cells[:, 1:, 1:]], -1)
    blocks = blocks / np.sqrt((blocks ** 2).sum(-1, keepdims=True) + 1e-3)
    blocks = np.minimum(blocks, 0.2)
    blocks = blocks / np.sqrt((blocks ** 2).sum(-1, keepdims=True) + 1e-3)
    return blocks.reshape(n, -1)


#: the body's colour as seen (:func:`crop_features`), features after the network's logits
BODY_COLOUR_NAMES = ["body_L", "body_a", "body_b"]
BODY_NAMES = ["L_rel", "a_rel", "b_rel", "L_z", "a_z", "b_z", "L_rank", "top_L_rel", "top_L_z"]
CROP_FEATURE_NAMES = (
    [f"crop_hog{i}" for i in range(N_HOG)]
    + [f"crop_hogrel{i}" for i in range(N_HOG)]
    + [f"crop_top{i}" for i in range(N_TOP)]
    + [f"crop_toprel{i}" for i in range(N_TOP)]
    + [f"crop_L{i}" for i in range(GRID_W * GRID_H)]
    + [f"crop_Lz{i}" for i in range(GRID_W * GRID_H)]
    + [f"crop_{n}" for n in BODY_NAMES]
)


def crop_frames(H: np.ndarray, centres: np.ndarray, up: np.ndarray,
                stretch: np.ndarray | None = None, zoom: float = 1.0) -> list[np.ndarray]:
    """Per cell the 2x3 affine map from crop pixels to image pixels.

    ``centres`` (16, 2) image points of the cell centres, ``up`` (16, 2) image directions
    of the vertical (any length; zero -> image up). The scale is the cell pitch along
    the view's least foreshortened direction; ``stretch`` (16,): the vertical magnified
    that much more (:func:`crop_stretch`); ``zoom``: the window spans that many times
    as many pitches, the cell centre where it was in the crop (a large set's pieces then
    fill the crop as a typical set's do; ``bench/zoom_oracle.py``, session 27)."""
    from vision.geometry import cell_grid, jacobians

    J = jacobians(H, cell_grid())
    s1 = np.linalg.svd(J, compute_uv=False)[:, 0] * 0.25 * zoom  # pixels per (zoomed) pitch
    out = []
    for k in range(16):
        u = np.asarray(up[k], float)
        n = np.hypot(*u)
        u = u / n if n > 1e-6 else np.array([0.0, -1.0])
        r = np.array([-u[1], u[0]])  # right of up (image x when up = -y)
        if r[0] < 0:
            r = -r
        # crop x in [0, W): -span/2 .. span/2 pitches; crop y in [0, H): above .. -below
        sx = CROP_SPAN * s1[k] / CROP_W
        v = s1[k] if stretch is None else s1[k] / float(stretch[k])  # image pixels per crop pitch along up
        sy = (CROP_ABOVE + CROP_BELOW) * v / CROP_H
        origin = centres[k] - r * (CROP_SPAN / 2) * s1[k] + u * CROP_ABOVE * v
        A = np.c_[r * sx, -u * sy, origin]
        out.append(A)
    return out


#: the last few guessed cameras, by homography, image size and focal length: the per-frame
#: step keeps its board's homography, and each frame asked for the same camera 2-3 times
#: (~0.7 ms each, mostly the focal length)
_POSES = Remembered(8)


def _pose(H: np.ndarray, image_shape, focal: float | None = None):
    """The guessed camera of :func:`vertical_displacements`: ``(K, r1, r2, r3, t)`` with
    ``H ~ K [r1 r2 t]`` and the board normal ``r3`` turned towards the camera (read-only
    arrays: they are remembered for the next call with the same board)."""
    H = np.asarray(H, float)
    return _POSES.get((H.tobytes(), tuple(image_shape[:2]), focal), lambda: _guess_pose(H, image_shape, focal))


def _guess_pose(H: np.ndarray, image_shape, focal: float | None = None):
    """:func:`_pose`, computed."""
    from vision.camera_guess import guess_focal

    h, w = image_shape[:2]
    f = guess_focal(H, image_shape) if focal is None else focal * w
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    B = np.linalg.solve(K, H)
    lam = 2.0 / (np.linalg.norm(B[:, 0]) + np.linalg.norm(B[:, 1]))
    if B[2, 2] * lam < 0:
        lam = -lam
    r1, r2, t = B[:, 0] * lam, B[:, 1] * lam, B[:, 2] * lam
    r3 = np.cross(r1, r2)
    r3 /= np.linalg.norm(r3) + 1e-12
    if np.dot(r3, t) > 0:
        r3 = -r3
    return K, r1, r2, r3, t


def vertical_displacements(H: np.ndarray, image_shape, focal: float | None = None) -> np.ndarray:
    """``(16, 2)`` image displacement (pixels) of a point raised by one board unit above
    each cell centre, to first order, with the guessed camera of
    :func:`vertical_directions`."""
    from vision.geometry import cell_grid

    K, r1, r2, r3, t = _pose(H, image_shape, focal)
    g = cell_grid()
    P = r1[None] * g[:, :1] + r2[None] * g[:, 1:2] + t[None]  # (16, 3) camera coordinates
    eps = 1e-3
    q = (K @ (P + eps * r3[None]).T).T
    p = (K @ P.T).T
    return (q[:, :2] / q[:, 2:3] - p[:, :2] / p[:, 2:3]) / eps


#: columns of :func:`cell_geometry`
GEOMETRY_NAMES = ("lean", "foreshortening", "view_slope")


def cell_geometry(H: np.ndarray, image_shape, lean: np.ndarray | None = None) -> np.ndarray:
    """``(16, 3)`` float32: what the board's geometry says at each cell about the
    upright crop (:func:`cell_crops`), columns :data:`GEOMETRY_NAMES`:

    - ``lean``: the image length of a one-pitch vertical at the cell, in the crop's
      pitches (the larger singular value of the homography's Jacobian): a piece one pitch
      tall is that many pitches long in its crop (0 straight under the camera, ~0.9 at a
      low camera). The crop is scaled by the board's pitch, so without this a piece's
      height in the crop mixes its true height with the view;
    - ``foreshortening``: the smaller over the larger singular value of that Jacobian (1
      seen straight on, towards 0 at a grazing view);
    - ``view_slope``: the cell's distance from the point under the camera over the
      camera's height (the tangent of the angle between the line of sight and the
      vertical; capped at 4), with the guessed camera of :func:`vertical_displacements`.

    ``lean``: :func:`vertical_displacements` already computed for this board and image.
    The piece network's third input."""
    from vision.geometry import cell_grid, jacobians

    g = cell_grid()
    d = vertical_displacements(H, image_shape) if lean is None else np.asarray(lean, float)
    sv = np.linalg.svd(jacobians(H, g), compute_uv=False)  # (16, 2) pixels per board unit
    length = np.hypot(d[:, 0], d[:, 1]) / np.maximum(sv[:, 0], 1e-9)
    fore = sv[:, 1] / np.maximum(sv[:, 0], 1e-9)
    _, r1, r2, r3, t = _pose(H, image_shape)
    R = np.c_[r1 / (np.linalg.norm(r1) + 1e-12), r2 / (np.linalg.norm(r2) + 1e-12), r3]
    cam = -np.linalg.lstsq(R, t, rcond=None)[0]  # camera centre in board units (z: height)
    slope = np.hypot(g[:, 0] - cam[0], g[:, 1] - cam[1]) / max(abs(float(cam[2])), 1e-9)
    out = np.c_[np.clip(length, 0.0, 3.0), np.clip(fore, 0.0, 1.0), np.clip(slope, 0.0, 4.0)]
    return np.nan_to_num(out, nan=0.0).astype(np.float32)


def vertical_directions(H: np.ndarray, image_shape, focal: float | None = None,
                        lean: np.ndarray | None = None) -> np.ndarray:
    """``(16, 2)`` unit image directions of the vertical (up from the board) at each cell.

    The pose is decomposed from ``H`` with a guessed camera (principal point at the
    centre; focal length from the board's own shape, ``vision.camera_guess.guess_focal``,
    or ``focal`` x the image width when given): ``H ~ K [r1 r2 t]``, the board normal
    ``r3 = r1 x r2`` turned towards the camera, and a short vertical segment at each cell
    projected (:func:`vertical_displacements`). Near a top-down view pieces then lean
    away from the principal point, as they do in the picture. A fixed share of the width
    (0.75, sessions 1-3) put the vertical 20-50 degrees off in a 3:4 photo cut from a
    wide camera's; the board's own focal length keeps it within a few degrees. ``lean``:
    :func:`vertical_displacements` already computed for this board and image."""
    from vision.geometry import apply_homography, cell_grid

    d = (vertical_displacements(H, image_shape, focal) if lean is None else np.asarray(lean, float)) * 0.05
    p0 = apply_homography(H, cell_grid())
    n = np.hypot(d[:, 0], d[:, 1])
    out = np.where(n[:, None] > 1e-9, d / np.maximum(n, 1e-9)[:, None], np.array([0.0, -1.0]))
    # a pure top-down view at the principal point: fall back to image up
    small = n < 1e-3 * np.linalg.norm(p0[0] - p0[15])
    out[small] = [0.0, -1.0]
    return out


def front_weights(H: np.ndarray, image_shape, reach: float = 2.0, lean: np.ndarray | None = None) -> np.ndarray:
    """``(16, 16)`` float32: how much the piece on cell ``j`` may stand in front of cell
    ``i`` in the picture (row ``i``, column ``j``; neighbours only, 0 elsewhere).

    A piece leans in the picture along the projected vertical of its cell
    (:func:`vertical_displacements`); it covers a neighbour ``i`` that lies in that
    direction, the more so the longer the piece's image per pitch of height is against
    the neighbour's distance in the image (low cameras). Weight: ``max(0, 2 cos - 1)``
    of the angle between the lean and the step from ``j`` to ``i``, times that length
    ratio (capped at ``reach``). The piece network reads each cell with the description
    of the cells in front of it weighted so (a cell behind a tall piece is covered by it).
    ``lean``: :func:`vertical_displacements` already computed for this board and image."""
    from vision.geometry import apply_homography, cell_grid

    g = cell_grid()
    p = apply_homography(H, g)
    lean = (vertical_displacements(H, image_shape) if lean is None else np.asarray(lean, float)) * 0.25  # px per pitch
    d = p[:, None, :] - p[None, :, :]  # [i, j]: from j to i
    dist = np.hypot(d[..., 0], d[..., 1])
    ln = np.hypot(lean[:, 0], lean[:, 1])  # per j
    cos = (d * lean[None, :, :]).sum(-1) / np.maximum(dist * ln[None, :], 1e-9)
    near = np.hypot(*(g[:, None] - g[None]).T).T < 0.25 * 1.5 + 1e-9
    np.fill_diagonal(near, False)
    w = np.clip(2 * cos - 1, 0, None) * np.minimum(ln[None, :] / np.maximum(dist, 1e-9), reach)
    return np.where(near, w, 0.0).astype(np.float32)


def crop_stretch(geometry: np.ndarray) -> np.ndarray:
    """``(16,)`` the piece network's vertical stretch of each crop from its
    :func:`cell_geometry` (see :data:`STRETCH_MAX`): 1 where a tall piece fills the crop
    anyway (lean above ~0.9), up to 3 straight under the camera, where its side shows only
    as a thin band above its top face."""
    lean = np.asarray(geometry, float)[:, 0]
    return np.clip(CROP_ABOVE / (STRETCH_HEIGHT * lean + STRETCH_TOP), 1.0, STRETCH_MAX)


def cell_crops(image: np.ndarray, H: np.ndarray, up: np.ndarray, centres: np.ndarray | None = None,
               stretch: np.ndarray | None = None, zoom: float = 1.0) -> np.ndarray:
    """``(16, CROP_H, CROP_W, 3)`` uint8 BGR upright crops of the cells (``stretch``: the
    vertical magnified per cell, :func:`crop_stretch`; ``zoom``: see :func:`crop_frames`)."""
    from vision.geometry import apply_homography, cell_grid

    if centres is None:
        centres = apply_homography(H, cell_grid())
    crops = np.empty((16, CROP_H, CROP_W, 3), np.uint8)
    for k, A in enumerate(crop_frames(H, centres, up, stretch, zoom)):
        # dst(x, y) = src(A @ [x, y, 1]); WARP_INVERSE_MAP takes the dst -> src map
        crops[k] = cv2.warpAffine(image, A, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
    return crops


def top_down_patches(image: np.ndarray, H: np.ndarray) -> np.ndarray:
    """``(16, TOP_PX, TOP_PX)`` grey patches of the board plane around each cell seen from
    above (rectified by ``H``): the top face's outline (square / round) and cup."""
    from vision.geometry import cell_grid

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    half = TOP_SPAN / 2 * 0.25
    out = np.empty((16, TOP_PX, TOP_PX), np.uint8)
    for k, (cx, cy) in enumerate(cell_grid()):
        # patch pixel (u, v) -> board (cx - half + u * step, cy - half + v * step) -> image
        step = 2 * half / TOP_PX
        A = np.array([[step, 0, cx - half], [0, step, cy - half], [0, 0, 1.0]])
        out[k] = cv2.warpPerspective(grey, H @ A, (TOP_PX, TOP_PX), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


#: the piece's body in an upright crop: middle third across, rows from ~0.6 pitch above the
#: cell centre down to it
_BODY_ROWS = (int(round((CROP_ABOVE - 0.6) / (CROP_ABOVE + CROP_BELOW) * CROP_H)),
              int(round(CROP_ABOVE / (CROP_ABOVE + CROP_BELOW) * CROP_H)))


def _lab(crops: np.ndarray) -> np.ndarray:
    """``(N, CROP_H, CROP_W, 3)`` uint8 BGR crops in CIE Lab (float32: L 0-100)."""
    return cv2.cvtColor(crops.reshape(-1, CROP_W, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(crops.shape)


def _body(lab: np.ndarray) -> np.ndarray:
    """``(N, 3)``: the median Lab colour of each crop's body region (crops in Lab)."""
    y0, y1 = _BODY_ROWS
    return np.median(lab[:, y0:y1, CROP_W // 3: 2 * CROP_W // 3].reshape(len(lab), -1, 3), axis=1)


def crop_features(crops: np.ndarray, top_down: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(16, CROP_H, CROP_W, 3)`` crops of one board (and ``(16, TOP_PX, TOP_PX)``
    top-down patches, :func:`top_down_patches`) -> ``(16, len(CROP_FEATURE_NAMES))``
    features, and ``(16, 3)`` the CIE Lab colour of each piece's body as the camera sees it
    (not relative to the board's other cells: ``BODY_COLOUR_NAMES``, what calibration learns
    a set's two colours from and the watch compares a new piece with)."""
    n = len(crops)
    grey = cv2.cvtColor(crops.reshape(-1, CROP_W, 3), cv2.COLOR_BGR2GRAY).reshape(crops.shape[:3])  # one call for all
    H_ = hog(grey)
    lab = _lab(crops)
    L = lab[..., 0]
    grid = L.reshape(n, GRID_H, CROP_H // GRID_H, GRID_W, CROP_W // GRID_W).mean((2, 4)).reshape(n, -1)
    med = np.median(grid, 0)
    spread = max(float(np.percentile(L, 95) - np.percentile(L, 5)), 10.0)
    L_rel = (grid - med) / spread
    sd = grid.std(0) + 0.05 * spread
    L_z = (grid - grid.mean(0)) / sd
    body = _body(lab)
    y_b = _BODY_ROWS[0]
    y_t = int(round((CROP_ABOVE - 1.3) / (CROP_ABOVE + CROP_BELOW) * CROP_H))
    top = np.median(lab[:, y_t:y_b, CROP_W // 3: 2 * CROP_W // 3, 0].reshape(n, -1), axis=1)
    bmed = np.median(body, 0)
    body_rel = (body - bmed) / np.array([spread, 20.0, 20.0])
    body_z = (body - body.mean(0)) / (body.std(0) + np.array([2.0, 1.0, 1.0]))
    rank = (np.argsort(np.argsort(body[:, 0])) + 0.5) / n
    top_rel = (top - np.median(top)) / spread
    top_z = (top - top.mean()) / (top.std() + 2.0)
    extra = np.c_[body_rel, body_z, rank, top_rel, top_z]
    T = hog(top_down) if top_down is not None else np.zeros((n, N_TOP))
    out = np.hstack([H_, H_ - np.median(H_, 0), T, T - np.median(T, 0), L_rel, L_z, extra])
    return np.nan_to_num(out.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0), body.astype(np.float64)
