"""Shared fixtures."""

import pytest


@pytest.fixture
def lead_network_alone(monkeypatch):
    """The piece reading with the shipped network alone (``vision/piece_net.onnx``), without
    the partner that reads beside it by default (``vision.net.NET_FILES``): the mechanisms
    that were measured with that network alone (the windows, the colour kinds, the set-size
    readings) show their effect on their test stills this way."""
    import vision.net

    monkeypatch.setattr(vision.net, "_default", vision.net.PieceNet(vision.net.NET_FILE))
    yield
