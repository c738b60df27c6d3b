"""The events file: one JSON object per line, appended and flushed as things happen.

Keys always present: ``t`` (source seconds, rounded to milliseconds) and ``event``.
The ``placed`` and ``quarto`` events are part of the public interface
(shared/INTERFACE.md); the others are listed in docs/watch.md.
"""

from __future__ import annotations

import json
from typing import Any, TextIO


def _plain(value: Any) -> Any:
    """numpy scalars/arrays and tuples -> JSON-ready Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def point(xy) -> list[float]:
    """An (x, y) pixel point as a JSON pair rounded to 0.1 px."""
    return [round(float(xy[0]), 1), round(float(xy[1]), 1)]


class EventLog:
    """Writes events to a file (or nowhere) and keeps them in memory for the window."""

    def __init__(self, path: str | None = None, stream: TextIO | None = None):
        self.path = path
        self._f = stream
        if path is not None and stream is None:
            self._f = open(path, "a", encoding="utf-8")
        self.events: list[dict] = []

    def emit(self, t: float, event: str, **fields: Any) -> dict:
        obj = {"t": round(float(t), 3), "event": event}
        obj.update({k: _plain(v) for k, v in fields.items()})
        self.events.append(obj)
        if self._f is not None:
            self._f.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self._f.flush()
        return obj

    def close(self) -> None:
        if self._f is not None and self.path is not None:
            self._f.close()
        self._f = None
