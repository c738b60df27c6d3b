"""A Quarto position: the board, the piece in hand, and its one text form.

Text form (shared/INTERFACE.md): four rows of four cells separated by ``/``, a cell
being a piece digit or ``.``, then a space and the piece in hand, or ``-`` when the
side to move has no piece yet and must choose one to hand over::

    0.3./..../..A./F... 5

The board is kept as bitboards: ``occupied`` (cell mask) and ``attrs[k]`` (cells whose
piece has attribute bit ``k`` set).
"""

from __future__ import annotations

from dataclasses import dataclass

from .pieces import ALL_PIECES, Piece, PieceError, parse_piece, piece_symbol
from .rules import CLASSIC, FULL, CellError, Cell, Variant, cell_name, mask_cells, parse_cell, shared_attributes


class PositionError(ValueError):
    """A position or move that cannot be: the message quotes the input."""


class AlreadyWonError(PositionError):
    """A position refused because a line on it already wins (``Position.parse`` without
    ``allow_won``): legal if nobody claimed that line in its move and play went on."""


@dataclass(frozen=True)
class Move:
    """One ply: place the piece in hand on ``place`` (``None`` at the very start, when
    there is nothing to place), then hand ``give`` to the opponent (``None`` when the
    game ends with this placement).

    Text form ``b3:7``; ``-:7`` for the opening give, ``b3:-`` for a last placement.
    """

    place: Cell | None
    give: Piece | None

    @classmethod
    def parse(cls, text: str) -> "Move":
        left, sep, right = text.strip().partition(":")
        if not sep:
            raise PositionError(f"invalid move: {text!r} (expected CELL:PIECE, e.g. 'b3:7', '-:7' or 'b3:-')")
        try:
            place = None if left == "-" else parse_cell(left)
            give = None if right == "-" else parse_piece(right)
        except (CellError, PieceError) as e:
            raise PositionError(f"invalid move: {text!r} ({e})") from None
        if place is None and give is None:
            raise PositionError(f"invalid move: {text!r} (a move places or gives something)")
        return cls(place, give)

    def __str__(self) -> str:
        left = "-" if self.place is None else cell_name(self.place)
        right = "-" if self.give is None else piece_symbol(self.give)
        return f"{left}:{right}"


class Position:
    """Mutable board plus piece in hand. ``push`` trusts its caller; ``is_legal`` checks."""

    __slots__ = ("occupied", "attrs", "hand", "_stack")

    def __init__(self, cells: list[Piece | None] | None = None, hand: Piece | None = None):
        self.occupied = 0
        self.attrs = [0, 0, 0, 0]
        self.hand = hand
        self._stack: list[tuple[Move, Piece | None]] = []
        for c, p in enumerate(cells or [None] * 16):
            if p is not None:
                self._put(c, p)

    # --- text -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, variant: Variant = CLASSIC, allow_won: bool = False) -> "Position":
        """Parse the text form; raise :class:`PositionError` quoting ``text`` when it is
        malformed, lists a piece twice, holds in hand a piece already on the board, or
        (unless ``allow_won``) shows a line that already wins."""
        parts = text.strip().split()
        if len(parts) != 2:
            raise PositionError(f"invalid position: {text!r} (expected 'ROWS HAND', e.g. '..../..../..../.... -')")
        rows = parts[0].split("/")
        if len(rows) != 4 or any(len(r) != 4 for r in rows):
            raise PositionError(f"invalid position: {text!r} (expected four rows of four cells separated by '/')")
        cells: list[Piece | None] = []
        for ch in "".join(rows):
            if ch == ".":
                cells.append(None)
                continue
            try:
                cells.append(parse_piece(ch))
            except PieceError:
                raise PositionError(f"invalid position: {text!r} (unknown character {ch!r})") from None
        seen: dict[Piece, int] = {}
        for c, p in enumerate(cells):
            if p is None:
                continue
            if p in seen:
                raise PositionError(
                    f"invalid position: {text!r} (piece {piece_symbol(p)} is on both {cell_name(seen[p])} and {cell_name(c)})"
                )
            seen[p] = c
        if parts[1] == "-":
            hand = None
        else:
            try:
                hand = parse_piece(parts[1])
            except PieceError:
                raise PositionError(f"invalid position: {text!r} (piece in hand {parts[1]!r} is not 0-F or '-')") from None
            if hand in seen:
                raise PositionError(
                    f"invalid position: {text!r} (piece in hand {piece_symbol(hand)} is already on {cell_name(seen[hand])})"
                )
        if hand is not None and len(seen) == 16:
            raise PositionError(f"invalid position: {text!r} (board is full but a piece is in hand)")
        pos = cls(cells, hand)
        if not allow_won:
            wins = pos.winning_groups(variant)
            if wins:
                names = ", ".join("-".join(cell_name(c) for c in mask_cells(m)) for m, _ in wins)
                raise AlreadyWonError(f"invalid position: {text!r} (already won: {names})")
        return pos

    def board_text(self) -> str:
        cells = "".join("." if p is None else piece_symbol(p) for p in self.cells())
        return "/".join(cells[i : i + 4] for i in range(0, 16, 4))

    def __str__(self) -> str:
        return f"{self.board_text()} {'-' if self.hand is None else piece_symbol(self.hand)}"

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r}, allow_won=True)"

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def copy(self) -> "Position":
        p = Position(self.cells(), self.hand)
        return p

    # --- board ------------------------------------------------------------------
    def _put(self, cell: Cell, piece: Piece) -> None:
        bit = 1 << cell
        self.occupied |= bit
        for k in range(4):
            if piece >> k & 1:
                self.attrs[k] |= bit

    def _take(self, cell: Cell) -> None:
        bit = ~(1 << cell)
        self.occupied &= bit
        for k in range(4):
            self.attrs[k] &= bit

    def piece_at(self, cell: Cell) -> Piece | None:
        if not self.occupied >> cell & 1:
            return None
        return sum(1 << k for k in range(4) if self.attrs[k] >> cell & 1)

    def cells(self) -> list[Piece | None]:
        return [self.piece_at(c) for c in range(16)]

    def empty_cells(self) -> list[Cell]:
        return mask_cells(FULL & ~self.occupied)

    def on_board(self) -> set[Piece]:
        return {p for p in self.cells() if p is not None}

    def available(self) -> list[Piece]:
        """Pieces neither on the board nor in hand: the ones that can still be handed over."""
        used = self.on_board()
        if self.hand is not None:
            used.add(self.hand)
        return [p for p in ALL_PIECES if p not in used]

    def is_full(self) -> bool:
        return self.occupied == FULL

    # --- rules ------------------------------------------------------------------
    def winning_groups(self, variant: Variant = CLASSIC) -> list[tuple[int, int]]:
        """Full groups of four that share a counted value: ``[(cell_mask, value_mask)]``."""
        out = []
        for g in variant.groups:
            if self.occupied & g == g:
                shared = shared_attributes([self.piece_at(c) for c in mask_cells(g)], variant.attributes)
                if shared:
                    out.append((g, shared))
        return out

    def is_won(self, variant: Variant = CLASSIC) -> bool:
        return bool(self.winning_groups(variant))

    def is_over(self, variant: Variant = CLASSIC) -> bool:
        return self.is_full() or self.is_won(variant)

    def is_legal(self, move: Move, variant: Variant = CLASSIC) -> bool:
        return self.illegal_reason(move, variant) is None

    def illegal_reason(self, move: Move, variant: Variant = CLASSIC, unclaimed: bool = False) -> str | None:
        """Why ``move`` cannot be played here, or ``None`` when it can.

        By default a winning placement ends the game (it is claimed), as the solver
        assumes. With ``unclaimed=True`` play may go on past a line nobody claimed, as at
        a real table: the placer may still hand a piece over, and a line already standing
        does not stop the game (a game record is checked this way).
        """
        if not unclaimed and self.is_won(variant):
            return "the game is already won"
        if self.hand is None:
            if move.place is not None:
                return "there is no piece in hand to place"
        else:
            if move.place is None:
                return f"piece {piece_symbol(self.hand)} in hand must be placed"
            if self.occupied >> move.place & 1:
                return f"cell {cell_name(move.place)} is taken"
        full = (self.occupied | (0 if move.place is None else 1 << move.place)) == FULL
        completes = False
        if move.place is not None:
            self._put(move.place, self.hand)
            completes = any(g >> move.place & 1 for g, _ in self.winning_groups(variant))
            self._take(move.place)
        if move.give is None:
            return None if full or completes else "a piece must be handed over"
        if full:
            return "the board is full; nothing is handed over"
        if completes and not unclaimed:
            return "the game ends with this placement; nothing is handed over"
        if move.give == self.hand or move.give in self.on_board():
            return f"piece {piece_symbol(move.give)} is not available"
        return None

    def legal_moves(self, variant: Variant = CLASSIC) -> list[Move]:
        return [m for m in self._candidate_moves() if self.is_legal(m, variant)]

    def _candidate_moves(self):
        avail = self.available()
        if self.hand is None:
            return [Move(None, q) for q in avail]
        out = []
        for c in self.empty_cells():
            out.append(Move(c, None))
            out.extend(Move(c, q) for q in avail)
        return out

    def push(self, move: Move) -> None:
        """Play ``move`` without checking it (see :meth:`is_legal`)."""
        self._stack.append((move, self.hand))
        if move.place is not None:
            self._put(move.place, self.hand)
        self.hand = move.give

    def pop(self) -> Move:
        move, hand = self._stack.pop()
        if move.place is not None:
            self._take(move.place)
        self.hand = hand
        return move
