"""Coach mode: perfect-play advice computed off the video loop.

``Coach.ask(key, position, variant)`` queues a question; the engine
(:func:`engine.solver.suggest`, :func:`engine.coach.poison_pieces`) answers on a worker
thread within ``time_limit`` seconds; ``Coach.poll()`` hands back finished
:class:`Advice` values. The app turns advice into words and overlay marks.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field

from engine.position import Position
from engine.rules import Variant


@dataclass
class Advice:
    """``give``: piece to hand over (or ``None``); ``place``: cell for the piece in hand
    (or ``None``); ``value``: 'win'/'draw'/'loss'/'unknown'; ``poison``: pieces that let
    the opponent win at once; ``error``: why there is no advice."""

    key: object
    position: str
    give: int | None = None
    place: int | None = None
    hand: int | None = None
    value: str = "unknown"
    plies: int | None = None
    poison: list[int] = field(default_factory=list)
    available: list[int] = field(default_factory=list)
    error: str = ""


def advise(position: Position, variant: Variant, time_limit: float | None, key=None) -> Advice:
    """Synchronous advice for ``position`` (the side to move's point of view)."""
    from engine.coach import poison_pieces
    from engine.solver import suggest

    a = Advice(key, str(position), hand=position.hand)
    try:
        s = suggest(position, variant, time_limit=time_limit)
    except ValueError as e:  # game over, or a position the engine refuses
        a.error = str(e)
        return a
    a.give, a.place, a.value, a.plies = s.give, s.place, s.value, s.plies
    after = s.place if position.hand is not None else None
    a.poison = sorted(poison_pieces(position, variant, after_place=after))
    gone = {position.hand} if position.hand is not None else set()
    a.available = [p for p in position.available() if p not in gone]
    return a


class Coach:
    """Answers questions one at a time on a worker thread; newer questions replace
    older unanswered ones (the game has moved on)."""

    def __init__(self, time_limit: float = 3.0, advise_fn=advise):
        self.time_limit = time_limit
        self._advise = advise_fn
        self._in: queue.Queue = queue.Queue()
        self._out: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="coach", daemon=True)
        self._thread.start()

    def ask(self, key, position: Position, variant: Variant) -> None:
        self._in.put((key, position.copy(), variant))

    def _work(self) -> None:
        while True:
            item = self._in.get()
            if item is None:
                return
            while True:  # skip to the newest question
                try:
                    newer = self._in.get_nowait()
                except queue.Empty:
                    break
                if newer is None:
                    return
                item = newer
            key, pos, variant = item
            try:
                self._out.put(self._advise(pos, variant, self.time_limit, key))
            except Exception as e:  # the coach must never take the referee down
                self._out.put(Advice(key, str(pos), error=f"{type(e).__name__}: {e}"))

    def poll(self) -> list[Advice]:
        out = []
        while True:
            try:
                out.append(self._out.get_nowait())
            except queue.Empty:
                return out

    def wait(self, timeout: float) -> list[Advice]:
        """Block until one answer comes (or ``timeout``); for replays and tests."""
        try:
            first = self._out.get(timeout=timeout)
        except queue.Empty:
            return []
        return [first] + self.poll()

    def close(self) -> None:
        self._in.put(None)
        self._thread.join(1.0)
