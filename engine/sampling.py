"""Seeded random positions for tests and benchmarks.

A position is *reachable* when it can arise in a game: no group on the board wins
(the game would have ended) and a piece is in hand.
"""

from __future__ import annotations

import random

from .coach import counted_values, poison_values
from .pieces import value_mask
from .position import Position
from .rules import CLASSIC, Variant


def random_position(rng: random.Random, empties: int, variant: Variant = CLASSIC,
                    safe_hand: bool = True, tries: int = 1000) -> Position:
    """A reachable position with ``empties`` empty cells (1-15) and a piece in hand.

    Pieces go on random cells in random order, skipping placements that would win.
    With ``safe_hand`` the piece in hand cannot complete a group at once whenever such
    a piece exists (as in real play, where handing over a winning piece is a blunder).
    """
    if not 1 <= empties <= 15:
        raise ValueError(f"invalid number of empty cells: {empties!r} (expected 1-15)")
    for _ in range(tries):
        pieces = list(range(16))
        rng.shuffle(pieces)
        cells_order = list(range(16))
        rng.shuffle(cells_order)
        pos = Position()
        ok = True
        for _ in range(16 - empties):
            placed = False
            for p in list(pieces):
                for c in cells_order:
                    if pos.occupied >> c & 1:
                        continue
                    pos._put(c, p)
                    if pos.is_won(variant):
                        pos._take(c)
                        continue
                    pieces.remove(p)
                    cells_order.remove(c)
                    rng.shuffle(cells_order)
                    placed = True
                    break
                if placed:
                    break
            if not placed:
                ok = False
                break
        if not ok:
            continue
        pos.hand = None
        avail = pieces
        if safe_hand:
            threats = poison_values(pos, variant) & counted_values(variant)
            safe = [p for p in avail if not (value_mask(p) & threats)]
            if safe:
                avail = safe
        pos.hand = rng.choice(avail)
        return pos
    raise ValueError(f"no reachable position with {empties} empty cells found in {tries} tries")
