"""The overhead network's share of a cell's reading (vision.net.overhead_weights) and its
blend into the plain window's logits (vision.features._overhead_blend)."""

import numpy as np

import vision.net
from vision.features import _overhead_blend
from vision.settings import PieceSettings


def test_the_overhead_share_is_whole_below_low_none_above_high_and_linear_between():
    w = vision.net.overhead_weights(np.array([0.0, 0.2, 0.275, 0.35, 0.9]), 0.2, 0.35)
    assert np.allclose(w, [1.0, 1.0, 0.5, 0.0, 0.0])


class _Constant:
    has_geometry = False

    def logits(self, crops, front=None, geometry=None):
        return np.full((16, 5), 7.0)


def _top_down_board(shape=(720, 1280)):
    # the board seen straight down, centred: every cell's vertical is short in the picture
    s, (h, w) = 400.0, shape
    return np.array([[s, 0, w / 2 - s / 2], [0, s, h / 2 - s / 2], [0, 0, 1.0]])


def test_only_the_named_columns_change_and_only_with_a_network(monkeypatch):
    H = _top_down_board()
    crops = np.zeros((16, 64, 32, 3), np.uint8)
    lean = np.zeros((16, 2))
    ps = PieceSettings()
    monkeypatch.setattr(vision.net, "_overhead", None)
    logits = np.zeros((16, 5))
    _overhead_blend(logits, crops, None, (720, 1280), H, lean, ps, twice=True)
    assert not logits.any()  # no overhead network: nothing changes
    monkeypatch.setattr("vision.features.overhead_net", lambda: _Constant())
    _overhead_blend(logits, crops, None, (720, 1280), H, lean, ps, twice=True)
    assert np.allclose(logits[:, 1], 7.0) and not np.delete(logits, 1, axis=1).any()
