"""Render one still scene: Blender render, lens warp + webcam post, truth JSON.

Runs inside ``scenegen/.venv`` (needs ``bpy``).
"""

from __future__ import annotations

import json
import os
import tempfile
import time

from . import camera as cam
from .post import finish_still
from .truth import scene_truth


def margin_for(spec: dict) -> int:
    c = spec["camera"]
    return cam.required_margin(c["K"], c["dist"], spec["width"], spec["height"])


def render_still(spec: dict, out_jpg: str, threads: int = 2) -> float:
    """Render ``spec`` to ``out_jpg`` and its truth to the ``.json`` beside it; returns seconds."""
    from .blender_scene import SceneBuilder

    t0 = time.time()
    margin = margin_for(spec)
    sb = SceneBuilder(spec, margin, threads)
    sb.set_dynamic(spec["pieces"], spec.get("hand"))
    with tempfile.TemporaryDirectory(prefix="scenegen-") as td:
        exr = os.path.join(td, "render.exr")
        sb.render(exr)
        finish_still(exr, spec, margin, out_jpg)
    truth = scene_truth(spec, os.path.basename(out_jpg))
    js = os.path.splitext(out_jpg)[0] + ".json"
    with open(js + ".part", "w") as f:
        json.dump(truth, f, indent=1)
    os.replace(js + ".part", js)
    return time.time() - t0
