"""Coach mode: perfect-play advice computed off the video loop.

``Coach.ask(key, position, variant)`` queues a question; the engine
(:func:`engine.solver.suggest`, :func:`engine.coach.poison_pieces`) answers in a worker
process within ``time_limit`` seconds; ``Coach.poll()`` hands back finished
:class:`Advice` values. The app turns advice into words and overlay marks.
"""

from __future__ import annotations

import queue
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
    """Synchronous advice for ``position`` (the side to move's point of view). The watch
    asks only while no line can be claimed, so a winning line already on the board is one
    nobody claimed: it lost its value and play goes on (``engine.solver.suggest``'s
    ``dead_lines``)."""
    from engine.coach import poison_pieces
    from engine.solver import suggest

    a = Advice(key, str(position), hand=position.hand)
    try:
        s = suggest(position, variant, time_limit=time_limit, dead_lines=True)
    except ValueError as e:  # game over, or a position the engine refuses
        a.error = str(e)
        return a
    a.give, a.place, a.value, a.plies = s.give, s.place, s.value, s.plies
    after = s.place if position.hand is not None else None
    a.poison = sorted(poison_pieces(position, variant, after_place=after))
    gone = {position.hand} if position.hand is not None else set()
    a.available = [p for p in position.available() if p not in gone]
    return a


def _serve(inq, outq, time_limit: float) -> None:
    """The coach process: answers questions, newest first, until told ``None``."""
    import queue as _queue

    from engine.rules import Variant as _Variant

    while True:
        item = inq.get()
        if item is None:
            return
        while True:  # skip to the newest question: the game has moved on
            try:
                newer = inq.get_nowait()
            except _queue.Empty:
                break
            if newer is None:
                return
            item = newer
        key, pos_text, variant_text = item
        try:
            variant = _Variant.parse(variant_text)
            outq.put(advise(Position.parse(pos_text, variant, allow_won=True), variant, time_limit, key))
        except Exception as e:  # the coach must never take the referee down
            outq.put(Advice(key, pos_text, error=f"{type(e).__name__}: {e}"))


class Coach:
    """Answers questions in a separate process: the engine's compiled search holds the
    interpreter lock while it thinks, so on a thread it would stall the video loop for
    seconds. Newer questions replace older unanswered ones."""

    def __init__(self, time_limit: float = 3.0):
        import multiprocessing as mp

        self.time_limit = time_limit
        ctx = mp.get_context("spawn")  # no fork of a process that holds camera and window
        self._in = ctx.Queue()
        self._out = ctx.Queue()
        self._proc = ctx.Process(target=_serve, args=(self._in, self._out, time_limit), name="coach", daemon=True)
        self._proc.start()

    def ask(self, key, position: Position, variant: Variant) -> None:
        self._in.put((key, str(position), str(variant)))

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
        try:
            self._in.put(None)
            self._proc.join(2.0)
        finally:
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join(1.0)
