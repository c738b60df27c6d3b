"""The referee: placements and claims in, rulings out. Pure: the caller gives the time.

Official rules (shared/QUARTO.md): a placement that completes a group of four sharing a
counted value wins only when claimed ("Quarto!"). The placing player may claim until
handing over the next piece; then the opponent may claim; once play goes on (the next
piece is placed) an unclaimed group loses its value. The referee adds one thing: a
group that stands unclaimed ``grace`` seconds after the piece settled is announced
aloud (``grace = 0``: at once). Times are source seconds.

A camera can misread a piece, and a misread piece can make a line that is not there. So
the referee may be given a ``belief``: per cell, how sure the reading of each attribute of
the piece there is. An unclaimed group is announced only with the shared values the four
pieces have with probability ``min_confidence`` or more together; a group standing only by
less sure readings is reported as ``'unsure'`` (shown, not announced). A claim is judged by
the reading alone: the player and the camera agree.

Groups are cell masks (``engine.rules``); shared values are engine value masks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from engine.position import Position
from engine.rules import CLASSIC, Variant, mask_cells

PLACER = "placer"
OPPONENT = "opponent"


@dataclass
class Ruling:
    """``kind``: ``'quarto'`` (an unclaimed winning group announced), ``'unsure'`` (a group
    that stands unclaimed by the reading, but not surely enough to announce),
    ``'claimed'`` (a valid claim: the game is won), ``'false_claim'``, ``'line_lost'``
    (play went on past an announced group), ``'draw'`` (board full, nothing won).
    ``groups``: ``[(cell_mask, value_mask)]``. ``window``: who could claim when a claim
    came (``'placer'`` / ``'opponent'``). ``confidence``: for ``'quarto'`` and
    ``'unsure'``, how likely the best group truly shares its values (1.0 without a belief)."""

    t: float
    kind: str
    groups: list[tuple[int, int]] = field(default_factory=list)
    window: str | None = None
    confidence: float | None = None


def value_confidence(mask: int, value: int, belief: dict) -> float:
    """Probability that the pieces on the cells of ``mask`` all have one shared ``value``
    (an engine value mask with one bit), from ``belief``: cell -> (4,) probabilities that
    the piece's tall/short, dark/light, square/round, hollow/solid are as read. Cells
    without a belief are sure."""
    k = (value.bit_length() - 1) // 2  # value bits 2k (clear) and 2k+1 (set) are attribute k
    p = 1.0
    for c in mask_cells(mask):
        b = belief.get(c)
        if b is not None:
            p *= float(b[k])
    return p


@dataclass
class _Pending:
    groups: list[tuple[int, int]]
    placed_t: float
    due: float
    announced: bool = False
    doubted: bool = False  # reported as unsure, never announced


class Referee:
    def __init__(self, variant: Variant = CLASSIC, grace: float = 3.0, cells=None,
                 belief: Callable[[], dict] | None = None, min_confidence: float = 0.0):
        if grace < 0:
            raise ValueError(f"invalid grace period: {grace!r} (must be 0 or more seconds)")
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"invalid minimum confidence: {min_confidence!r} (must be 0 to 1)")
        self.variant = variant
        self.grace = float(grace)
        self.belief = belief
        self.min_confidence = float(min_confidence)
        self.cells: list[int | None] = list(cells) if cells is not None else [None] * 16
        self.pending: _Pending | None = None
        self.handed_over = False
        self.over = False
        self.result: Ruling | None = None

    @property
    def window(self) -> str:
        return OPPONENT if self.handed_over else PLACER

    def placed(self, t: float, cell: int, piece: int, settled_t: float | None = None) -> list[Ruling]:
        """A piece settled on ``cell`` (first seen settled at ``settled_t``, default ``t``)."""
        if self.over:
            return []
        out: list[Ruling] = []
        if self.pending is not None:  # play went on: an unclaimed group loses its value
            if not self.pending.doubted:
                out.append(Ruling(t, "line_lost", self.pending.groups))
            self.pending = None
        self.cells[cell] = piece
        self.handed_over = False
        groups = self._new_groups(cell)
        settled = t if settled_t is None else settled_t
        if groups:
            self.pending = _Pending(groups, settled, settled + self.grace)
            out.extend(self.tick(t))
        elif all(c is not None for c in self.cells):
            self.over = True
            self.result = Ruling(t, "draw")
            out.append(self.result)
        return out

    def hand_over(self, t: float) -> list[Ruling]:
        """The next piece is handed over: the opponent's claim window opens."""
        self.handed_over = True
        return []

    def claim(self, t: float) -> list[Ruling]:
        """Someone called "Quarto!"."""
        if self.over:
            return []
        if self.pending is None:
            return [Ruling(t, "false_claim")]
        r = Ruling(t, "claimed", self.pending.groups, self.window)
        self.pending = None
        self.over = True
        self.result = r
        return [r]

    def tick(self, t: float) -> list[Ruling]:
        """Announce a group left unclaimed past its grace period."""
        p = self.pending
        if p is None or p.announced or t < p.due - 1e-9:
            return []
        return [self._announce(t, p)]

    def finish(self, t: float) -> list[Ruling]:
        """The source ended: a pending announcement is still made."""
        p = self.pending
        if p is None or p.announced or self.over:
            return []
        return [self._announce(t, p)]

    def _announce(self, t: float, p: _Pending) -> Ruling:
        """The pending groups, each with only the values sure enough: ``'quarto'``, or
        ``'unsure'`` when no value of any group is."""
        p.announced = True
        if self.belief is None:
            return Ruling(t, "quarto", p.groups, self.window, 1.0)
        belief = self.belief()
        sure, best = [], 0.0
        for mask, values in p.groups:
            kept = 0
            for bit in range(8):
                if values >> bit & 1:
                    conf = value_confidence(mask, 1 << bit, belief)
                    best = max(best, conf)
                    if conf >= self.min_confidence:
                        kept |= 1 << bit
            if kept:
                sure.append((mask, kept))
        if sure:
            return Ruling(t, "quarto", sure, self.window, best)
        p.doubted = True
        return Ruling(t, "unsure", p.groups, self.window, best)

    def reset(self, cells, t: float | None = None, last_cell: int | None = None) -> list[Ruling]:
        """The board was corrected or a move undone: forget pending claims, and look again
        at the last placed cell (a corrected piece may complete a group)."""
        self.cells = list(cells)
        self.pending = None
        self.over = False
        self.result = None
        self.handed_over = False
        if last_cell is not None and self.cells[last_cell] is not None and t is not None:
            groups = self._new_groups(last_cell)
            if groups:
                self.pending = _Pending(groups, t, t + self.grace)
                return self.tick(t)
        return []

    def _new_groups(self, cell: int) -> list[tuple[int, int]]:
        pos = Position(self.cells)
        return [(m, v) for m, v in pos.winning_groups(self.variant) if m >> cell & 1]


