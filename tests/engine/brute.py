"""An independent brute-force solver for checking the real one: plain Python, every
move (also handing over pieces that lose at once), no pruning, no table, no symmetry.

Only for positions with few empty cells (6 empties: about 10^5 leaves).
"""

from __future__ import annotations

from engine.rules import BLOCKS, LINES, Variant


def _wins(cells, variant: Variant, at: int | None = None) -> bool:
    """Whether a group of ``cells`` is complete and shares a counted value (``at``: only
    the groups through that cell)."""
    groups = LINES + BLOCKS if variant.blocks else LINES
    for g in groups:
        if at is not None and not g >> at & 1:
            continue
        members = [cells[c] for c in range(16) if g >> c & 1]
        if any(p is None for p in members):
            continue
        for k in range(4):
            if not variant.attributes >> k & 1:
                continue
            bits = {p >> k & 1 for p in members}
            if len(bits) == 1:
                return True
    return False


def _key(outcome: int, plies: int) -> tuple[int, int]:
    """Order: faster win > slower win > draw > slower loss > faster loss."""
    if outcome > 0:
        return (2, -plies)
    if outcome == 0:
        return (1, 0)
    return (0, plies)


def solve(cells: list, hand: int, variant: Variant, dead_lines: bool = False):
    """``(outcome, plies, best_moves)`` for the side to move placing ``hand``:
    outcome +1/0/-1, best_moves a set of (cell, give or None). ``dead_lines``: groups
    complete before do not count, only those a placement completes."""
    avail = [p for p in range(16) if p != hand and p not in cells]
    results = {}
    for c in range(16):
        if cells[c] is not None:
            continue
        cells[c] = hand
        if _wins(cells, variant, c if dead_lines else None):
            results[(c, None)] = (1, 1)
        elif not avail:
            results[(c, None)] = (0, 1)
        else:
            for q in avail:
                o, n, _ = solve(cells, q, variant, dead_lines)
                results[(c, q)] = (-o, n + 1)
        cells[c] = None
    best = max(results.values(), key=lambda r: _key(*r))
    moves = {m for m, r in results.items() if _key(*r) == _key(*best)}
    return best[0], best[1], moves
