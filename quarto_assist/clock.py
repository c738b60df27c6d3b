"""Clocks: the app's only way to read or wait for wall time.

``WallClock`` is the real one; ``FakeClock`` advances only when told, so tests of the
camera retry loop and the speech queue run without waiting.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds, monotonic, from an arbitrary origin."""

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (or pretend to)."""


class WallClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock that moves only by ``sleep`` and ``advance``; records every sleep."""

    def __init__(self, start: float = 0.0):
        self.t = float(start)
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        self.t += seconds
