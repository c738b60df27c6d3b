"""Coaching in plain words: which pieces are poison to hand over, which line each
would complete, and why the suggested move is good.

The threat rule is the one the solver prunes with: a group of four with three pieces
and one empty cell is a *threat* on the values its three pieces share; a piece with
one of those values is *poison*: handed over, it lets the opponent complete the
group at once.
"""

from __future__ import annotations

from .pieces import Piece, describe_values, piece_symbol, piece_words, value_mask
from .position import Position
from .rules import BLOCKS, CLASSIC, COLUMNS, DIAGONALS, ROWS, Cell, Variant, cell_name, mask_cells

Threat = tuple[Cell, int, int]  # (empty cell, group mask, shared value mask)


def group_name(mask: int) -> str:
    """A winning group in words: 'row 2', 'column c', 'the diagonal a1-d4',
    '2x2 block b2-c3'."""
    if mask in ROWS:
        return f"row {ROWS.index(mask) + 1}"
    if mask in COLUMNS:
        return f"column {'abcd'[COLUMNS.index(mask)]}"
    cells = mask_cells(mask)
    if mask in DIAGONALS:
        return f"the diagonal {cell_name(cells[0])}-{cell_name(cells[-1])}"
    if mask in BLOCKS:
        return f"2x2 block {cell_name(cells[0])}-{cell_name(cells[-1])}"
    return "-".join(cell_name(c) for c in cells)


def counted_values(variant: Variant) -> int:
    """The 8-bit value mask of the attributes that count in ``variant``."""
    m = 0
    for k in range(4):
        if variant.attributes >> k & 1:
            m |= 3 << (2 * k)
    return m


def threats(position: Position, variant: Variant = CLASSIC) -> list[Threat]:
    """Groups with three pieces sharing a counted value and one empty cell."""
    counted = counted_values(variant)
    out = []
    for g in variant.groups:
        cells = mask_cells(g)
        empty = [c for c in cells if not position.occupied >> c & 1]
        if len(empty) != 1:
            continue
        shared = counted
        for c in cells:
            if c != empty[0]:
                shared &= value_mask(position.piece_at(c))
        if shared:
            out.append((empty[0], g, shared))
    return out


def poison_values(position: Position, variant: Variant = CLASSIC) -> int:
    """The 8-bit value mask (see ``pieces.value_mask``) that completes some group."""
    m = 0
    for _, _, shared in threats(position, variant):
        m |= shared
    return m


def _after(position: Position, after_place: Cell | None) -> Position:
    if after_place is None:
        return position
    if position.hand is None or position.occupied >> after_place & 1:
        raise ValueError(f"cannot place the piece in hand on {cell_name(after_place)!r} in {str(position)!r}")
    cells = position.cells()
    cells[after_place] = position.hand
    return Position(cells, None)


def poison_pieces(position: Position, variant: Variant = CLASSIC,
                  after_place: Cell | None = None) -> dict[Piece, list[Threat]]:
    """Pieces that would let the opponent complete a winning group at once, each
    with the ``(cell, group_mask, shared_value_mask)`` it would complete.

    Looks at the board after the piece in hand goes on ``after_place`` (if given);
    only pieces that can still be handed over are listed.
    """
    board = _after(position, after_place)
    avail = position.available()  # neither on the board nor in hand
    counted = counted_values(variant)
    out: dict[Piece, list[Threat]] = {}
    ts = threats(board, variant)
    for q in avail:
        vq = value_mask(q) & counted
        hits = [(c, g, s & vq) for c, g, s in ts if s & vq]
        if hits:
            out[q] = hits
    return out


def _trap_cells(position: Position, variant: Variant, exclude: Cell) -> list[Cell]:
    """Cells where placing the piece in hand leaves only poison pieces to hand over."""
    avail = [q for q in position.available() if q != position.hand]
    if not avail:
        return []
    out = []
    for c in position.empty_cells():
        if c == exclude:
            continue
        cells = position.cells()
        cells[c] = position.hand
        board = Position(cells, None)
        if any(g >> c & 1 for g, _ in board.winning_groups(variant)):
            continue  # that placement wins (a line complete before, nobody claimed, is past)
        counted = counted_values(variant)
        threat = poison_values(board, variant)
        if all(value_mask(q) & counted & threat for q in avail):
            out.append(c)
    return out


def _values_text(mask: int) -> str:
    words = describe_values(mask)
    return " and ".join(f"all {w}" for w in words)


def _piece_text(q: Piece) -> str:
    return f"{piece_symbol(q)} ({piece_words(q)})"


def explain(position: Position, variant: Variant, suggestion) -> list[str]:
    """Plain-English sentences for a beginner about ``suggestion`` (an
    :class:`engine.solver.Suggestion` for ``position``)."""
    s = suggestion
    out: list[str] = []
    plies = s.plies
    if s.value == "win":
        if plies == 1:
            out.append("You can win right now.")
        else:
            out.append(f"You win in {plies} plies whatever they do, if you keep playing the best moves.")
    elif s.value == "loss":
        if plies == 2:
            out.append("Whatever you do, they can win with their next placement: the game is lost against perfect play.")
        else:
            out.append(f"Against perfect play you lose in {plies} plies; this move makes them work longest for it "
                       "and gives them the most chances to go wrong.")
    elif s.value == "draw":
        out.append("With the best play on both sides this game ends in a draw (the board fills up without a Quarto).")
    else:
        out.append("The search ran out of time before proving the result; this is the best move it found, "
                   "and it gives nothing away at once.")

    if s.place is not None and position.hand is not None:
        cell = s.place
        hand = position.hand
        out.append(f"Place {_piece_text(hand)} on {cell_name(cell)}.")
        cells = position.cells()
        cells[cell] = hand
        after = Position(cells, None)
        # the groups this placement completes (a line already complete nobody claimed is past)
        wins = [(g, shared) for g, shared in after.winning_groups(variant) if g >> cell & 1]
        if wins:
            for g, shared in wins:
                out.append(f"That completes {group_name(g)} ({_values_text(shared)}): call \"Quarto!\".")
            return out
        blocked = [(g, sh) for c, g, sh in threats(position, variant) if c == cell]
        for g, sh in blocked:
            out.append(f"It fills the gap in {group_name(g)}, so its three {' '.join(describe_values(sh))} pieces "
                       "can no longer make a line.")
        for c, g, sh in threats(after, variant):
            if g >> cell & 1:
                words = " or ".join(describe_values(sh))
                out.append(f"It makes {group_name(g)} a trap: three pieces share {' and '.join(describe_values(sh))}, "
                           f"so from now on any {words} piece is poison (it would win on {cell_name(c)}).")
        if after.is_full():
            out.append("That fills the board: the game is a draw.")
            return out
        poison = poison_pieces(position, variant, after_place=cell)
        traps = _trap_cells(position, variant, exclude=cell)
        if traps:
            names = ", ".join(cell_name(c) for c in traps)
            out.append(f"Avoid {names}: after placing it there every piece left would be poison.")
    else:
        poison = poison_pieces(position, variant)
    safe = [q for q in position.available() if q not in poison]
    if poison:
        for q, hits in sorted(poison.items()):
            where = "; ".join(f"on {cell_name(c)} it completes {group_name(g)} ({_values_text(sh)})"
                              for c, g, sh in hits[:2])
            out.append(f"Do not hand over {_piece_text(q)}: {where}.")
    if s.give is not None:
        if s.give in poison:
            out.append(f"Every piece left is poison; hand over {_piece_text(s.give)} and hope they miss it.")
        else:
            n = len(safe)
            others = f" ({n} safe pieces to choose from)" if n > 1 else " (the only safe piece)"
            out.append(f"Hand over {_piece_text(s.give)}: it cannot complete a line{others}.")
    return out
