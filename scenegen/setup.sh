#!/usr/bin/env bash
# Creates scenegen/.venv: the renderer's own environment (bpy pins numpy<2, which the
# main install's opencv-python refuses, so the two never share a venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON311:-python3.11}"
if [ ! -x "$here/.venv/bin/python" ]; then
    "$py" -m venv "$here/.venv"
fi
"$here/.venv/bin/python" -m pip install --quiet --upgrade pip
# opencv-python-headless 4.x still accepts numpy<2; it does the lens warp and JPEG in post.
# imageio-ffmpeg brings an ffmpeg with x264 for the game videos when the system has none.
"$here/.venv/bin/python" -m pip install --quiet "bpy==5.0.1" "numpy<2" "opencv-python-headless<4.11" imageio-ffmpeg
"$here/.venv/bin/python" -c "import bpy, cv2, numpy; print('scenegen venv ok: bpy', bpy.app.version_string, 'cv2', cv2.__version__, 'numpy', numpy.__version__)"
