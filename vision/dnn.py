"""Running the learned networks (ONNX files; no torch at run time).

:class:`OnnxNet` runs a network with ONNX Runtime on one thread, or, where ONNX Runtime is
not installed, with OpenCV's ``cv2.dnn``. Both give the same outputs to ~1e-5. ONNX Runtime
is the faster: on one core of this project's machine (2026-12-01) the board network's
forward pass takes 16.5 instead of 25-28 ms, 16 crops through the piece network 1.6
instead of 5.8 ms.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

try:
    import onnxruntime as _ort
except ImportError:  # cv2.dnn runs the networks (tests force it with engine="cv2.dnn")
    _ort = None


#: input names of the project's networks (the board network's ``image``; the piece
#: network's ``crops``, ``front``, ``geom``)
KNOWN_INPUTS = ("image", "crops", "front", "geom")


def engines() -> list[str]:
    """The engines installed here, the one :class:`OnnxNet` uses by default first."""
    return (["onnxruntime"] if _ort is not None else []) + ["cv2.dnn"]


class NetworkError(ValueError):
    """A network file that cannot be read, or a network that fails on its input. The
    message is one line, without the engine's own traceback."""


def _one_line(e: Exception) -> str:
    text = str(e).strip()
    return (text.splitlines()[-1] if text else type(e).__name__)[:200]


class OnnxNet:
    """The network of an ONNX file. ``inputs``: its input names; :meth:`run` takes a
    dict of float32 arrays by name and returns the first output. ``engine`` is
    ``"onnxruntime"`` or ``"cv2.dnn"`` (``None``: the first available)."""

    def __init__(self, path: str, engine: str | None = None):
        self.path = path
        self.engine = engine or engines()[0]
        if self.engine == "onnxruntime":
            if _ort is None:
                raise NetworkError("onnxruntime is not installed")
            opts = _ort.SessionOptions()
            # one core, as the per-frame budget is counted; the app's other work runs beside it
            opts.intra_op_num_threads = 1
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3  # no warnings on stderr
            try:
                self._session = _ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
            except Exception as e:  # onnxruntime raises its own exception classes
                raise NetworkError(_one_line(e)) from None
            self.inputs = [i.name for i in self._session.get_inputs()]
        elif self.engine == "cv2.dnn":
            try:
                self._net = _read_cv2(path)
            except cv2.error as e:
                raise NetworkError(_one_line(e)) from None
            if self._net.empty():
                raise NetworkError("the file holds no network")
            self.inputs = _cv2_inputs(self._net)
        else:
            raise ValueError(f"unknown engine {engine!r}")

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """The first output for ``feeds`` (input name -> array)."""
        try:
            if self.engine == "onnxruntime":
                return self._session.run(None, {k: np.ascontiguousarray(v, np.float32) for k, v in feeds.items()})[0]
            for name, value in feeds.items():
                self._net.setInput(np.ascontiguousarray(value, np.float32), name)
            return np.array(self._net.forward())
        except Exception as e:  # cv2.error, or onnxruntime's own classes
            raise NetworkError(_one_line(e)) from None


def _read_cv2(path: str):
    """``cv2.dnn`` net of an ONNX file, on OpenCV's classic engine where there is a choice
    (OpenCV 5's new engine is slower on these small networks)."""
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is not None:
        try:
            return cv2.dnn.readNetFromONNX(path, engine=engine)
        except TypeError:
            pass  # an OpenCV without the choice
    return cv2.dnn.readNetFromONNX(path)


def _cv2_inputs(net) -> list[str]:
    """Input names of a ``cv2.dnn`` network read from ONNX (classic engine: the outputs
    of its input layer; OpenCV 5's new engine: the ``inputs: [...]`` block that
    ``Net.dump`` opens its main graph with)."""
    first = net.getLayer(0)
    if first.name == "_input":
        # the layer does not list its outputs: ask for the names this project's networks use
        return [n for n in KNOWN_INPUTS if first.outputNameToIndex(n) >= 0]
    text = net.dump()
    start = text.find("inputs: [")
    if start < 0:
        return []
    return re.findall(r'"([^"]+)"\s*,?\s*//\s*<Input>', text[start:text.find("outputs:", start)])
