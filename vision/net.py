"""The convolutional piece network at run time: upright cell crops in, five logits per cell out.

One small network (``vision/piece_net.onnx``, trained by ``vision.net_training``) reads
the 16 upright crops of a board (``vision.crops.cell_crops``, the same crops the HOG
features describe) and gives per cell the log-odds of occupied, tall, dark, square,
hollow. It sees the whole board at once: each cell's description is compared with the
mean over the board's 16 cells before the last layer, so "dark" can mean the darker of
this set's two colours, and each cell also gets the descriptions of the cells in front
of it (towards the camera), weighted by how much a piece there covers it in the picture
(``vision.crops.front_weights``, the network's second input): a cell behind a tall piece
at a low camera angle shows that piece's body. Since session 6 a third input gives per cell
what the board's geometry says about its crop (``vision.crops.cell_geometry``: how many
crop pitches a one-pitch vertical spans there, the board's foreshortening, the slope of the
line of sight): the crops are scaled by the board's pitch, so a piece's height in the crop
alone mixes its true height with the view. The logits become the features ``net_occupied`` ..
``net_hollow`` (``vision.features``) on which the attribute models build.

It runs with ONNX Runtime (OpenCV's ``cv2.dnn`` where that is not installed:
``vision.dnn``); torch is needed only to train it.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from vision.dnn import NetworkError, OnnxNet

#: the shipped network
NET_FILE = os.path.join(os.path.dirname(__file__), "piece_net.onnx")
#: a partner trained from scratch on other renders (session 41: general views and views from
#: above; docs/vision.md "Sessions 41-44"), averaged with the shipped one where present
PARTNER_NET_FILE = os.path.join(os.path.dirname(__file__), "piece_net_partner.onnx")
#: the networks read at run time, their logits averaged (:class:`PieceNets`); the first one
#: leads: the set-size judges were fitted to its logits (``vision.features``)
NET_FILES = (NET_FILE,) + ((PARTNER_NET_FILE,) if os.path.exists(PARTNER_NET_FILE) else ())
#: a second network for views from above (session 39): the shipped one trained further on
#: renders whose camera looks down within 18 degrees of the vertical, where a tall and a
#: short piece differ by a thin band of side; read only at cells whose one-pitch vertical is
#: short in the picture (``vision.settings.PieceSettings.overhead_lean``). Not shipped when
#: the file is absent
OVERHEAD_NET_FILE = os.path.join(os.path.dirname(__file__), "piece_net_overhead.onnx")
#: output columns, in order
NET_OUTPUTS = ("occupied", "tall", "dark", "square", "hollow")
NET_FEATURE_NAMES = [f"net_{n}" for n in NET_OUTPUTS]


class PieceNetError(ValueError):
    """A piece-network file that cannot be read or run."""


def prepare(crops: np.ndarray) -> np.ndarray:
    """``(N, H, W, 3)`` uint8 BGR crops -> ``(N, 3, H, W)`` float32 network input (BGR, -0.5..0.5)."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) * (1.0 / 255.0) - 0.5


class PieceNet:
    """The network of ``path`` (``vision.dnn.OnnxNet``); :meth:`logits` is thread-safe."""

    def __init__(self, path: str = NET_FILE, engine: str | None = None):
        self.path = path
        if not os.path.isfile(path):
            raise PieceNetError(f"piece network file {path!r} not found (rebuild it with python -m vision.net_training)")
        try:
            self._net = OnnxNet(path, engine)
        except NetworkError as e:
            raise PieceNetError(f"piece network file {path!r} cannot be read: {e}") from None
        self._lock = threading.Lock()
        inputs = self._net.inputs
        if "crops" not in inputs:
            raise PieceNetError(f"piece network file {path!r} takes no crops (its inputs: {', '.join(inputs)})")
        #: whether the network has the second input (front weights; networks before
        #: session 4 read the crops alone) and the third (the cells' geometry, session 6);
        #: read from the graph's inputs, so the file is read once whatever its format
        self.has_front = "front" in inputs
        self.has_geometry = "geom" in inputs

    def logits(self, crops: np.ndarray, front: np.ndarray | None = None,
               geometry: np.ndarray | None = None) -> np.ndarray:
        """``(16, H, W, 3)`` uint8 BGR crops of one board, their ``(16, 16)`` front
        weights (``vision.crops.front_weights``; none: no cell covers another, as seen
        from straight above) and ``(16, 3)`` geometry (``vision.crops.cell_geometry``;
        needed by a network that takes it) -> ``(16, 5)`` float64 logits, columns
        :data:`NET_OUTPUTS`."""
        blob = prepare(crops)
        if front is None:
            front = np.zeros((len(crops), len(crops)), np.float32)
        front = np.ascontiguousarray(np.asarray(front, np.float32).reshape(1, len(crops), len(crops)))
        if self.has_geometry:
            if geometry is None:
                raise PieceNetError(f"piece network {self.path!r} needs the cells' geometry "
                                    "(vision.crops.cell_geometry) beside the crops")
            geometry = np.ascontiguousarray(np.asarray(geometry, np.float32).reshape(len(crops), -1))
        feeds = {"crops": blob}
        if self.has_front:
            feeds["front"] = front
        if self.has_geometry:
            feeds["geom"] = geometry
        try:
            with self._lock:
                out = np.asarray(self._net.run(feeds), np.float64)
        except NetworkError as e:
            raise PieceNetError(f"piece network {self.path!r} failed on crops of shape {crops.shape}: {e}") from None
        if out.shape != (len(crops), len(NET_OUTPUTS)):
            raise PieceNetError(f"piece network {self.path!r} gave output of shape {out.shape}, "
                                f"expected ({len(crops)}, {len(NET_OUTPUTS)})")
        return out

    def each(self, crops: np.ndarray, front: np.ndarray | None = None,
             geometry: np.ndarray | None = None) -> list[np.ndarray]:
        """:meth:`logits` as a list of one, as :meth:`PieceNets.each` gives every network's."""
        return [self.logits(crops, front, geometry)]


class PieceNets:
    """Several piece networks read as one: their logits averaged. Meant for networks
    trained on different renders (the shipped network's renders are gone; a new one
    trained from scratch can join it this way; docs/vision.md "Session 11"). Same interface as
    :class:`PieceNet`. All must agree on whether they take the cells' geometry, since
    that changes the crops they are given."""

    def __init__(self, paths):
        self.nets = [PieceNet(p) for p in paths]
        if not self.nets:
            raise PieceNetError("no piece network files given")
        if len({n.has_geometry for n in self.nets}) > 1:
            raise PieceNetError("piece networks " + ", ".join(repr(n.path) for n in self.nets)
                                + " differ in whether they take the cells' geometry: they cannot be averaged")
        self.path = "+".join(n.path for n in self.nets)
        self.has_front = any(n.has_front for n in self.nets)
        self.has_geometry = self.nets[0].has_geometry

    def each(self, crops: np.ndarray, front: np.ndarray | None = None,
             geometry: np.ndarray | None = None) -> list[np.ndarray]:
        """Every network's :meth:`PieceNet.logits`, in order (the first is the lead)."""
        return [n.logits(crops, front, geometry) for n in self.nets]

    def logits(self, crops: np.ndarray, front: np.ndarray | None = None,
               geometry: np.ndarray | None = None) -> np.ndarray:
        """The mean of the networks' :meth:`PieceNet.logits`."""
        return np.mean(self.each(crops, front, geometry), axis=0)


def read_nets(spec: str) -> PieceNet | PieceNets:
    """The network file ``spec``, or the networks of ``"a.onnx+b.onnx"`` averaged."""
    paths = [p for p in spec.split("+") if p]
    return PieceNet(paths[0]) if len(paths) == 1 else PieceNets(paths)


_default: PieceNet | PieceNets | None = None
_default_lock = threading.Lock()
#: the overhead network as read (False: not read yet; None: there is none)
_overhead: PieceNet | None | bool = False


def default_net() -> PieceNet | PieceNets:
    """The shipped network(s) (:data:`NET_FILES`), read once."""
    global _default
    with _default_lock:
        if _default is None:
            _default = PieceNet(NET_FILES[0]) if len(NET_FILES) == 1 else PieceNets(NET_FILES)
        return _default


def overhead_net() -> PieceNet | None:
    """The network for views from above (:data:`OVERHEAD_NET_FILE`), read once; ``None``
    when it is not there (then every cell is read by :func:`default_net` alone)."""
    global _overhead
    with _default_lock:
        if _overhead is False:
            _overhead = PieceNet(OVERHEAD_NET_FILE) if os.path.isfile(OVERHEAD_NET_FILE) else None
        return _overhead


def overhead_weights(lean_length: np.ndarray, low: float, high: float) -> np.ndarray:
    """``(16,)`` how much of each cell's logits the overhead network gives: 1 where a
    one-pitch vertical is at most ``low`` pitches long in the picture (``lean_length``,
    ``vision.crops.cell_geometry``'s first column), 0 from ``high`` on, linear between."""
    return np.clip((high - np.asarray(lean_length, float)) / max(high - low, 1e-9), 0.0, 1.0)
