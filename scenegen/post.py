"""From a linear, undistorted, oversized render to a webcam-like frame.

Order follows the light path: lens (distortion warp), sensor exposure and white balance,
optics blur and vignetting, tone curve, then sensor noise and JPEG compression.
All random choices come from the scene's ``post`` dict (and a noise seed), so a frame
is reproducible.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from . import camera as cam  # noqa: E402


def read_exr(path: str) -> np.ndarray:
    """Linear RGB float32 (H, W, 3)."""
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise OSError(f"cannot read render {path!r}")
    return np.ascontiguousarray(img[..., :3][..., ::-1]).astype(np.float32)


def lens_warp(img: np.ndarray, spec: dict, margin: int) -> np.ndarray:
    """Undistorted render (see ``camera.render_geometry``) -> final distorted frame."""
    c = spec["camera"]
    K = np.asarray(c["K"], float)
    _, _, K_src = cam.render_geometry(K, spec["width"], spec["height"], margin, spec["render"].get("scale", 1.0))
    mx, my = cam.distortion_maps(K, c["dist"], spec["width"], spec["height"], K_src)
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def auto_exposure_gain(img: np.ndarray, ev: float = 0.0) -> float:
    """Gain that brings the log-average luminance of the central region to mid grey,
    like a webcam's auto exposure (``ev`` biases it)."""
    h, w = img.shape[:2]
    core = img[h // 5 : h - h // 5, w // 5 : w - w // 5]
    lum = core[..., 0] * 0.2126 + core[..., 1] * 0.7152 + core[..., 2] * 0.0722
    logavg = float(np.exp(np.mean(np.log(lum + 1e-4))))
    return float(0.16 / max(logavg, 1e-4) * 2.0 ** ev)


def develop(img: np.ndarray, spec: dict, gain: float | None = None) -> tuple[np.ndarray, float]:
    """Linear (already warped) -> display-referred float sRGB in [0, 1], without noise.
    Returns the image and the exposure gain used (pass it back to keep a video steady)."""
    p = spec["post"]
    if gain is None:
        gain = auto_exposure_gain(img, p["exposure_ev"])
    x = img * gain
    # auto white balance that only partly corrects the light's colour, then the camera's own error
    means = x.reshape(-1, 3).mean(axis=0) + 1e-6
    awb = p.get("awb", 0.5)
    x = x * ((means[1] / means) ** awb)[None, None, :]
    x = x * np.asarray(p["wb_gains"], np.float32)[None, None, :]
    h, w = x.shape[:2]
    if p["vignette"] > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        x = x * (1 - p["vignette"] * r2)[..., None]
    if p["blur_sigma"] > 0.05:
        x = cv2.GaussianBlur(x, (0, 0), p["blur_sigma"])
    # soft highlight roll-off, then sRGB encoding
    x = np.maximum(x, 0)
    x = np.where(x < 0.8, x, 0.8 + 0.2 * np.tanh((x - 0.8) / 0.2))
    x = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 1e-8), 1 / 2.4) - 0.055)
    x = (x - 0.5) * p["contrast"] + 0.5
    grey = x.mean(axis=2, keepdims=True)
    x = grey + (x - grey) * p["saturation"]
    return np.clip(x, 0, 1).astype(np.float32), gain


def add_noise(x: np.ndarray, spec: dict, seed: int) -> np.ndarray:
    """Sensor noise: read noise plus signal-dependent shot noise, a little of it chroma."""
    p = spec["post"]
    rng = np.random.default_rng(seed)
    sigma = np.sqrt(p["noise_sigma"] ** 2 + p["shot_noise"] * x)
    lum = rng.standard_normal(x.shape[:2], dtype=np.float32)[..., None]
    chroma = rng.standard_normal(x.shape, dtype=np.float32)
    n = sigma * (0.7 * lum + 0.5 * chroma)
    return np.clip(x + n, 0, 1)


def to_bgr8(x: np.ndarray) -> np.ndarray:
    return (np.clip(x, 0, 1)[..., ::-1] * 255 + 0.5).astype(np.uint8)


def write_jpeg(path: str, x: np.ndarray, quality: int) -> None:
    ok, buf = cv2.imencode(".jpg", to_bgr8(x), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise OSError(f"cannot encode {path!r}")
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(buf.tobytes())
    os.replace(tmp, path)


def finish_still(exr_path: str, spec: dict, margin: int, out_path: str) -> None:
    img = read_exr(exr_path)
    img = lens_warp(img, spec, margin)
    x, _ = develop(img, spec)
    x = add_noise(x, spec, spec["post"]["noise_seed"])
    write_jpeg(out_path, x, spec["post"]["jpeg_quality"])
