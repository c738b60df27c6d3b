"""A calibrated camera: intrinsics and lens distortion, and how analysis uses them.

Pixel coordinates are ``(x, y)``, x right, y down, in the image as the camera delivers
it (distorted). ``K`` is the 3x3 pinhole matrix, ``dist`` OpenCV's distortion vector
``(k1, k2, p1, p2[, k3[, ...]])``, ``image_size`` the ``(width, height)`` the camera was
calibrated at; frames of another size of the same aspect ratio are handled by scaling K.

Analysis runs on an undistorted frame (straight board edges make the homography exact)
and reports cell centres back in the original frame's pixels: :func:`prepare_frame`
returns the undistorted image and a :class:`FrameMapping` whose ``to_original`` maps
points found in it back to the frame as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np


class CameraError(ValueError):
    """Camera data in a profile that cannot be used."""


@dataclass(frozen=True)
class CameraModel:
    """Intrinsics ``K`` (3, 3) float64, ``dist`` (n,) float64, ``image_size`` (w, h),
    ``rms`` reprojection error in pixels of the fit (``None`` when unknown)."""

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    rms: float | None = None
    images_used: int = 0
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {
            "K": [[float(v) for v in row] for row in np.asarray(self.K, float)],
            "dist": [float(v) for v in np.asarray(self.dist, float).ravel()],
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "rms": None if self.rms is None else float(self.rms),
            "images_used": int(self.images_used),
        }
        d.update(self.extra)
        return d

    @classmethod
    def from_dict(cls, d: object) -> "CameraModel":
        """Parse and check; raises :class:`CameraError` saying which field is wrong."""
        if not isinstance(d, dict):
            raise CameraError(f"camera must be an object with K, dist, image_size, not {type(d).__name__}")
        missing = [k for k in ("K", "dist", "image_size") if k not in d]
        if missing:
            raise CameraError(f"camera lacks {', '.join(missing)}")
        try:
            K = np.asarray(d["K"], dtype=float)
        except (TypeError, ValueError):
            raise CameraError(f"camera K is not a 3x3 matrix of numbers: {d['K']!r}") from None
        if K.shape != (3, 3) or not np.all(np.isfinite(K)) or K[0, 0] <= 0 or K[1, 1] <= 0:
            raise CameraError(f"camera K is not a valid 3x3 camera matrix: {d['K']!r}")
        try:
            dist = np.asarray(d["dist"], dtype=float).ravel()
        except (TypeError, ValueError):
            raise CameraError(f"camera dist is not a list of numbers: {d['dist']!r}") from None
        if dist.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(dist)):
            raise CameraError(f"camera dist must hold 4, 5, 8, 12 or 14 numbers: {d['dist']!r}")
        size = d["image_size"]
        if (not isinstance(size, (list, tuple)) or len(size) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
            raise CameraError(f"camera image_size must be [width, height] in pixels: {size!r}")
        rms = d.get("rms")
        if rms is not None and (not isinstance(rms, (int, float)) or isinstance(rms, bool) or rms < 0):
            raise CameraError(f"camera rms must be a non-negative number: {rms!r}")
        extra = {k: v for k, v in d.items() if k not in ("K", "dist", "image_size", "rms", "images_used")}
        return cls(K=K, dist=dist, image_size=(int(size[0]), int(size[1])),
                   rms=None if rms is None else float(rms), images_used=int(d.get("images_used") or 0),
                   extra=extra)

    def matrix_for(self, width: int, height: int) -> np.ndarray:
        """K for a frame of ``width`` x ``height``: the same lens at another resolution.

        Raises :class:`CameraError` when the aspect ratio differs (a crop, not a scaling:
        the calibration does not apply).
        """
        w0, h0 = self.image_size
        if (width, height) == (w0, h0):
            return np.asarray(self.K, float)
        sx, sy = width / w0, height / h0
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise CameraError(
                f"frame is {width}x{height} but the camera was calibrated at {w0}x{h0} "
                "(another aspect ratio): calibrate the camera at this resolution")
        K = np.asarray(self.K, float).copy()
        K[0, :] *= sx
        K[1, :] *= sy
        return K


@dataclass
class FrameMapping:
    """How an analysed (undistorted) frame relates to the frame as given.

    ``to_original(points)`` maps (N, 2) pixel coordinates in the undistorted frame to
    the original frame; the identity when there is no camera model.
    """

    K: np.ndarray | None = None
    dist: np.ndarray | None = None

    @property
    def identity(self) -> bool:
        return self.K is None

    def to_original(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) float undistorted pixels -> (N, 2) float pixels in the original frame."""
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        if self.identity or len(pts) == 0:
            return pts.copy()
        return distort_points(pts, self.K, self.dist)

    def to_undistorted(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) float original pixels -> (N, 2) float pixels in the undistorted frame."""
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        if self.identity or len(pts) == 0:
            return pts.copy()
        out = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.K, self.dist, P=self.K)
        return out.reshape(-1, 2)


def distort_points(points: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """(N, 2) ideal (undistorted) pixels with camera matrix K -> (N, 2) distorted pixels."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    Kinv = np.linalg.inv(K)
    homog = np.column_stack([pts, np.ones(len(pts))]) @ Kinv.T
    obj = np.column_stack([homog[:, 0], homog[:, 1], np.ones(len(pts))])
    out, _ = cv2.projectPoints(obj.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), K, np.asarray(dist, float))
    return out.reshape(-1, 2)


_MAP_CACHE: dict = {}


def undistort_image(image: np.ndarray, camera: CameraModel) -> tuple[np.ndarray, FrameMapping]:
    """Undistort ``image`` (H, W[, C]) with the same K (no crop, no zoom).

    Returns the undistorted image, same shape and dtype, and the mapping back to the
    original pixels. The remap tables are cached per (camera, size): a video costs one
    ``cv2.remap`` per frame.
    """
    h, w = image.shape[:2]
    K = camera.matrix_for(w, h)
    key = (id(camera), w, h)
    maps = _MAP_CACHE.get(key)
    if maps is None or maps[0] is not camera:
        m1, m2 = cv2.initUndistortRectifyMap(K, camera.dist, None, K, (w, h), cv2.CV_16SC2)
        if len(_MAP_CACHE) > 8:
            _MAP_CACHE.clear()
        maps = (camera, m1, m2)
        _MAP_CACHE[key] = maps
    out = cv2.remap(image, maps[1], maps[2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out, FrameMapping(K=K, dist=np.asarray(camera.dist, float))


def prepare_frame(profile, image: np.ndarray) -> tuple[np.ndarray, FrameMapping]:
    """The frame analysis should run on, and how to map its points back.

    ``profile`` is a :class:`calibration.profile.Profile` (or ``None``). Without a camera
    model the image is returned as is with an identity mapping. Typical use::

        frame, mapping = prepare_frame(profile, image)
        reading = recognizer.analyze(frame)
        reading = undistort_reading_back(reading, mapping)   # centres in original pixels
    """
    camera = getattr(profile, "camera", None) if profile is not None else None
    if camera is None:
        return image, FrameMapping()
    return undistort_image(image, camera)


def reading_to_original(reading, mapping: FrameMapping):
    """Return ``reading`` with ``cell_centers`` and ``corners`` mapped to the original frame.

    The homography stays as found (board -> undistorted pixels, as
    :class:`vision.reading.BoardReading` documents). The reading is modified in place
    and returned.
    """
    if mapping.identity or not getattr(reading, "found", False):
        return reading
    if getattr(reading, "cell_centers", None) is not None:
        reading.cell_centers = mapping.to_original(reading.cell_centers)
    if getattr(reading, "corners", None) is not None:
        reading.corners = mapping.to_original(reading.corners)
    return reading


def analyze_with_profile(recognizer, profile, image: np.ndarray):
    """Undistort (when the profile has a camera), analyse, map the centres back."""
    frame, mapping = prepare_frame(profile, image)
    return reading_to_original(recognizer.analyze(frame), mapping)
