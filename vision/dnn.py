"""Reading the learned networks with OpenCV's ``cv2.dnn`` (no torch at run time)."""

from __future__ import annotations

import cv2


def read_onnx(path: str):
    """``cv2.dnn`` net of an ONNX file, on OpenCV's classic engine where there is a choice.
    OpenCV 5's new engine is slower on these small networks: the board network's forward
    pass takes ~12 instead of ~15 ms on the classic one, 16 crops through the piece network
    ~3.4 instead of ~3.7 ms, the same outputs to 1e-5."""
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is not None:
        try:
            return cv2.dnn.readNetFromONNX(path, engine=engine)
        except TypeError:
            pass  # an OpenCV without the choice
    return cv2.dnn.readNetFromONNX(path)
