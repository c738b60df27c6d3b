"""The board plane and the camera: from a homography to a pose, so pieces can stand up.

Board coordinates: the unit square, x along cell columns, y along cell rows, cell ``i``
centred at ``((i % 4 + .5) / 4, (i // 4 + .5) / 4)``; so one pitch (distance between
neighbouring cell centres) is 0.25 board units. Heights above the board are given in
pitches. Image coordinates are pixels ``(x, y)``, x right, y down.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

PITCH = 0.25  # board units per pitch


_CELL_GRID = np.stack([(np.arange(16) % 4 + 0.5) / 4, (np.arange(16) // 4 + 0.5) / 4], 1)


def cell_grid() -> np.ndarray:
    """``(16, 2)`` board coordinates of the cell centres, row-major (a fresh copy: the
    board search asks for it thousands of times a frame)."""
    return _CELL_GRID.copy()


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """``(N, 2)`` points -> ``(N, 2)`` points through the 3x3 ``H``."""
    pts = np.asarray(pts, float).reshape(-1, 2)
    H = np.asarray(H, float)
    q = pts @ H[:, :2].T + H[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        # points on the horizon line map to infinity: callers see inf/nan, not warnings
        return q[:, :2] / q[:, 2:3]


def jacobians(H: np.ndarray, pts: np.ndarray, e: float = 1e-3) -> np.ndarray:
    """``(N, 2, 2)`` local Jacobians of ``H`` at the board points ``pts`` (N, 2): columns
    are the image displacement per board unit along board x and y (forward differences)."""
    pts = np.asarray(pts, float).reshape(-1, 2)
    p0 = apply_homography(H, pts)
    dx = (apply_homography(H, pts + [e, 0]) - p0) / e
    dy = (apply_homography(H, pts + [0, e]) - p0) / e
    return np.stack([dx, dy], -1)


def estimate_focal(H: np.ndarray, size: tuple[int, int], settings) -> tuple[float, bool]:
    """Focal length (pixels) of a camera seeing the board square through ``H``
    (board -> image), principal point at the image centre, square pixels.

    Returns ``(f, estimated)``: falls back to ``default_focal_factor * max(size)`` when
    the view is too square-on for the homography to tell (``estimated`` False).
    ``size`` is ``(width, height)``; ``settings`` a ``CameraSettings``.
    """
    w, h = size
    long_side = max(w, h)
    T = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], float)
    Hc = T @ H
    Hc = Hc / np.linalg.norm(Hc[:, :2])
    h1, h2 = Hc[:, 0], Hc[:, 1]
    a = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    b = np.array([-(h1[0] * h2[0] + h1[1] * h2[1]), h2[0] ** 2 + h2[1] ** 2 - h1[0] ** 2 - h1[1] ** 2])
    denom = float(a @ a)
    if denom > 1e-18:
        f2 = float(a @ b) / denom
        if f2 > 0:
            f = float(np.sqrt(f2))
            if settings.min_focal_factor * long_side <= f <= settings.max_focal_factor * long_side:
                return f, True
    return settings.default_focal_factor * long_side, False


@dataclass
class Pose:
    """Camera looking at the board. ``K`` (3, 3) intrinsics; ``R`` (3, 3), ``t`` (3,)
    map board coordinates ``(x, y, z)`` (z in board units, up = toward the camera) to
    camera coordinates."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray

    @classmethod
    def from_homography(cls, H: np.ndarray, K: np.ndarray) -> "Pose":
        """``H`` maps board (x, y) to undistorted image pixels."""
        M = np.linalg.inv(K) @ H
        lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        M = M * lam
        if M[2, 2] < 0:  # the board lies in front of the camera
            M = -M
        r1, r2, t = M[:, 0], M[:, 1], M[:, 2]
        r3 = np.cross(r1, r2)
        U, _, Vt = np.linalg.svd(np.c_[r1, r2, r3])
        R = U @ Vt
        if np.linalg.det(R) < 0:
            R[:, 2] = -R[:, 2]
        # "up" must point to the camera's side of the board
        centre = -R.T @ t
        if centre[2] < 0:
            R[:, 2] = -R[:, 2]
        return cls(K=K, R=R, t=t)

    def project(self, pts3: np.ndarray) -> np.ndarray:
        """``(N, 3)`` board points (z in board units) -> ``(N, 2)`` undistorted pixels."""
        P = np.asarray(pts3, float) @ self.R.T + self.t
        q = P @ self.K.T
        return q[:, :2] / q[:, 2:3]

    def camera_centre(self) -> np.ndarray:
        return -self.R.T @ self.t

    def tilt_deg(self) -> float:
        """Angle between the camera's optical axis and the board's normal (0 = straight down)."""
        return float(np.degrees(np.arccos(abs(self.R[2, 2]))))


def square_view_error(H: np.ndarray, size: tuple[int, int], focal_factors=(0.5, 0.7, 1.0, 1.4, 2.0, 2.8, 4.0)) -> float:
    """How far ``H`` (board unit square -> image) is from any view of a square by a
    pinhole camera with square pixels, the principal point at the image centre and a
    focal length of ``focal_factors`` times the longer image side: the smallest, over
    those focal lengths, of the larger of |cos| of the angle between the board's two
    axes seen in 3-D and |log| of their length ratio (0 for a true square view). A grid
    squeezed onto a line, or a sheared one, is far from every square view."""
    w, h = size
    T = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], float)
    Hc = T @ H
    best = np.inf
    for k in focal_factors:
        f = k * max(w, h)
        r1 = Hc[:, 0] * [1 / f, 1 / f, 1.0]
        r2 = Hc[:, 1] * [1 / f, 1 / f, 1.0]
        n1, n2 = np.linalg.norm(r1), np.linalg.norm(r2)
        if n1 <= 0 or n2 <= 0 or not np.isfinite(n1 + n2):
            continue
        err = max(abs(float(r1 @ r2)) / (n1 * n2), abs(float(np.log(n1 / n2))))
        best = min(best, err)
    return float(best)


def cell_pitch_px(H: np.ndarray) -> np.ndarray:
    """``(16,)`` pixels from each cell centre to the next cell along a row and along a
    column, averaged, for the board ``H`` (unit square -> pixels)."""
    g = cell_grid()
    q = apply_homography(H, np.vstack([g, g + [0.25, 0], g + [0, 0.25]]))
    a, b, c = q[:16], q[16:32], q[32:]
    return 0.5 * (np.hypot(*(b - a).T) + np.hypot(*(c - a).T))


class Remembered:
    """The last ``kept`` results of a computation, by key, shared between threads (the
    recognisers of several threads share them): :meth:`get` returns the one remembered for
    ``key`` or computes, remembers and returns it. Results are tuples of arrays or arrays,
    made read-only."""

    def __init__(self, kept: int):
        self.kept = kept
        self._items: dict = {}
        self._lock = threading.Lock()

    def get(self, key, compute):
        with self._lock:
            out = self._items.get(key)
        if out is None:
            out = compute()
            for a in (out if isinstance(out, tuple) else (out,)):
                a.flags.writeable = False
            with self._lock:
                while len(self._items) >= self.kept:
                    del self._items[next(iter(self._items))]  # the oldest
                self._items[key] = out
        return out

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
