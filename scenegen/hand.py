"""A hand and forearm made of capsules, and which cells it hides from the camera.

Capsules keep both the rendered geometry and the occlusion test exact and simple: the
renderer builds each capsule as a mesh, and :func:`occluded` tests camera rays against
the same segments and radii (a ray is blocked when it passes within a capsule's radius
of its axis segment).
"""

from __future__ import annotations

import math

import numpy as np


def _v(*a):
    return np.array(a, dtype=np.float64)


def hand_capsules(target, reach_deg: float, lift: float = 0.0, spread: float = 0.0, side: int = 1,
                  scale: float = 1.0) -> list[dict]:
    """Capsules of a right (``side=1``) or left (``side=-1``) hand whose fingertips meet
    around ``target`` (x, y, z in m), the arm coming from direction ``reach_deg``
    (world angle of the vector from the player towards the board).

    Returns dicts ``{"p0": [x,y,z], "p1": [x,y,z], "r": m, "part": "skin"|"sleeve"}``.
    """
    s = scale
    u = _v(math.cos(math.radians(reach_deg)), math.sin(math.radians(reach_deg)), 0.0)
    v = _v(-u[1], u[0], 0.0) * side
    z = _v(0.0, 0.0, 1.0)
    tgt = _v(*target)
    wrist = tgt - u * 0.085 * s + z * (0.075 + lift) * s
    elbow = wrist - u * 0.25 * s + z * 0.12 * s
    shoulder = elbow - u * 0.28 * s + z * 0.22 * s
    caps = []

    def cap(p0, p1, r, part="skin"):
        caps.append({"p0": [float(c) for c in p0], "p1": [float(c) for c in p1], "r": float(r * s), "part": part})

    cap(elbow - (elbow - wrist) * 0.02, wrist, 0.027)                     # forearm
    cap(elbow + (elbow - wrist) * 0.05, wrist + (elbow - wrist) * 0.45, 0.036, "sleeve")
    cap(shoulder, elbow + (elbow - wrist) * 0.05, 0.045, "sleeve")        # upper arm
    palm_end = wrist + u * 0.075 * s - z * 0.03 * s
    for k in (-1, 0, 1):
        off = v * (0.021 * k * s)
        cap(wrist + off * 0.8, palm_end + off, 0.0135)
    # four fingers from the palm's front edge bending down to the target
    for k, length in zip((-1.5, -0.5, 0.5, 1.5), (0.040, 0.046, 0.044, 0.036)):
        off = v * ((0.017 + spread * 0.01) * k * s)
        base = palm_end + off * 0.95
        mid = base + u * 0.035 * s - z * 0.012 * s + off * 0.15
        tip = mid + u * 0.010 * s - z * (length - 0.008) * s + off * 0.1
        cap(base, mid, 0.0088)
        cap(mid, tip, 0.0078)
    # thumb from the palm's inner side towards the fingertips
    tb = wrist + u * 0.02 * s - v * 0.032 * s - z * 0.012 * s
    tm = tb + u * 0.035 * s - v * 0.012 * s - z * 0.025 * s
    tt = tm + u * 0.020 * s + v * 0.010 * s - z * 0.025 * s
    cap(tb, tm, 0.011)
    cap(tm, tt, 0.0095)
    return caps


def _segment_distance(a0, a1, b0, b1):
    """Shortest distances between segments a0-a1 ``(N, 3)`` and one segment b0-b1 ``(3,)``."""
    d1 = a1 - a0
    d2 = (b1 - b0)[None, :]
    r = a0 - b0[None, :]
    a = np.einsum("ij,ij->i", d1, d1)
    e = float(np.dot(d2[0], d2[0]))
    f = r @ d2[0]
    c = np.einsum("ij,ij->i", d1, r)
    b = d1 @ d2[0]
    denom = a * e - b * b
    s = np.where(denom > 1e-12, np.clip((b * f - c * e) / np.where(denom > 1e-12, denom, 1), 0, 1), 0.0)
    t = (b * s + f) / max(e, 1e-12)
    t_clip = np.clip(t, 0, 1)
    s = np.where(t < 0, np.clip(-c / np.maximum(a, 1e-12), 0, 1), np.where(t > 1, np.clip((b - c) / np.maximum(a, 1e-12), 0, 1), s))
    p = a0 + d1 * s[:, None]
    q = b0[None, :] + d2 * t_clip[:, None]
    return np.linalg.norm(p - q, axis=1)


def occluded(camera_center, points, capsules) -> np.ndarray:
    """``(N,)`` bool: the straight line from the camera centre to each of ``points``
    ``(N, 3)`` passes through one of ``capsules``."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    c = np.asarray(camera_center, dtype=np.float64)
    # stop the ray a hair before the point so the surface it sits on does not count
    ends = c + (pts - c) * 0.999
    starts = np.repeat(c[None, :], len(pts), axis=0)
    out = np.zeros(len(pts), dtype=bool)
    for cap in capsules:
        d = _segment_distance(starts, ends, np.asarray(cap["p0"], float), np.asarray(cap["p1"], float))
        out |= d < cap["r"]
    return out
