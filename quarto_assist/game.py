"""The game as watched: placements in order, written as an engine game record.

The camera sees placements, not hand-overs: the piece handed over after a placement is
known only when it is placed in turn. So the record holds every move whose give is
known, and the latest placement waits in a comment line until the next piece is seen::

    quarto-assist game 1
    variant classic
    start ..../..../..../.... -
    -:5
    b3:7
    # watch: placed a1, the piece handed over next not seen yet

The engine reads such a file as the game up to the last known move. A watched game can
also go on after a group nobody claimed (the group then no longer counts), which the
engine's strict records refuse; :func:`load_game` reads those too.

Saving is atomic (temporary file in the same folder, then rename): a crash at any moment
leaves the previous complete record.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

from engine.pieces import piece_symbol
from engine.position import Move, Position, PositionError
from engine.record import MAGIC, VERSION, GameRecord, RecordError
from engine.rules import CLASSIC, Variant, cell_name, parse_cell

PENDING_TAG = "# watch: placed "


@dataclass
class Placement:
    cell: int
    piece: int
    t: float = 0.0


@dataclass
class WatchedGame:
    variant: Variant = CLASSIC
    start: list = field(default_factory=lambda: [None] * 16)
    placements: list[Placement] = field(default_factory=list)
    ended: bool = False

    def board(self) -> list[int | None]:
        b = list(self.start)
        for p in self.placements:
            b[p.cell] = p.piece
        return b

    def place(self, cell: int, piece: int, t: float = 0.0) -> None:
        b = self.board()
        if b[cell] is not None:
            raise PositionError(f"cell {cell_name(cell)} is taken by {piece_symbol(b[cell])}")
        if piece in b:
            raise PositionError(f"piece {piece_symbol(piece)} is already on the board")
        self.placements.append(Placement(cell, piece, t))

    def undo(self) -> Placement | None:
        self.ended = False
        return self.placements.pop() if self.placements else None

    def set_cell(self, cell: int, piece: int | None) -> None:
        """Correct what stands on ``cell`` (a misread piece)."""
        b = self.board()
        if piece is not None and piece in b and b.index(piece) != cell:
            raise PositionError(f"piece {piece_symbol(piece)} is already on {cell_name(b.index(piece))}")
        for k, p in enumerate(self.placements):
            if p.cell == cell:
                if piece is None:
                    del self.placements[k]
                else:
                    p.piece = piece
                return
        if self.start[cell] is not None or piece is None:
            self.start[cell] = piece
        else:
            self.placements.append(Placement(cell, piece))

    def reread(self, changes: dict[int, int]) -> None:
        """Placed pieces read again: ``{cell: piece}`` all at once (two pieces may swap).
        Raises :class:`PositionError` and changes nothing if the board would not be valid."""
        b = self.board()
        for c, q in changes.items():
            if b[c] is None:
                raise PositionError(f"cell {cell_name(c)} is empty: nothing to read again")
            b[c] = q
        taken = [q for q in b if q is not None]
        if len(taken) != len(set(taken)):
            raise PositionError("re-reading would put one piece on two cells")
        for p in self.placements:
            if p.cell in changes:
                p.piece = changes[p.cell]
        for c, q in changes.items():
            if self.start[c] is not None and all(p.cell != c for p in self.placements):
                self.start[c] = q

    def relocate(self, cell: int, to: int, piece: int) -> None:
        """The piece placed on ``cell`` stands on ``to`` as ``piece`` (seen standing
        elsewhere, or read again there): its move is changed, its place in the game kept.
        Raises :class:`PositionError` and changes nothing if the board would not be valid."""
        b = self.board()
        if b[cell] is None:
            raise PositionError(f"cell {cell_name(cell)} is empty: no piece to move")
        if b[to] is not None:
            raise PositionError(f"cell {cell_name(to)} is taken by {piece_symbol(b[to])}")
        if piece in b and b.index(piece) != cell:
            raise PositionError(f"piece {piece_symbol(piece)} is already on {cell_name(b.index(piece))}")
        for p in self.placements:
            if p.cell == cell:
                p.cell, p.piece = to, piece
                return
        self.start[cell], self.start[to] = None, piece

    # --- record -----------------------------------------------------------------
    def start_text(self) -> str:
        return str(Position(self.start, None))

    def record(self) -> GameRecord:
        """The engine record of the moves known so far (without the pending placement)."""
        moves: list[Move] = []
        ps = self.placements
        if ps:
            moves.append(Move(None, ps[0].piece))
            for a, b in zip(ps, ps[1:]):
                moves.append(Move(a.cell, b.piece))
            if self.ended:
                moves.append(Move(ps[-1].cell, None))
        rec = GameRecord(variant=self.variant, start=self.start_text())
        rec.moves = moves  # written as seen: a watched game may go on past an unclaimed group
        return rec

    def to_text(self) -> str:
        text = self.record().to_text()
        if self.placements and not self.ended:
            text += f"{PENDING_TAG}{cell_name(self.placements[-1].cell)}, the piece handed over next not seen yet\n"
        return text

    def save(self, path: str) -> None:
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".record-", dir=d)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_text())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def game_from_text(text: str, source: str = "record") -> WatchedGame:
    """Read a record written by :meth:`WatchedGame.to_text` (or any engine record)."""
    raw = text.splitlines()
    lines = [(i + 1, ln.split("#", 1)[0].strip(), ln.strip()) for i, ln in enumerate(raw)]
    body = [(i, ln) for i, ln, _ in lines if ln]
    if not body or not body[0][1].startswith(MAGIC):
        raise RecordError(f"{source}: not a quarto-assist game record (first line should be '{MAGIC} {VERSION}')")
    version = body[0][1][len(MAGIC):].strip()
    if version != str(VERSION):
        raise RecordError(f"{source}: unsupported record version {version!r} (this program reads {VERSION})")
    game = WatchedGame()
    pos = Position()
    hand = None
    pending_cell = None
    for lineno, ln, full in lines[1:]:
        try:
            if full.startswith(PENDING_TAG):
                pending_cell = parse_cell(full[len(PENDING_TAG):].split(",")[0])
                continue
            if not ln:
                continue
            if ln.startswith("variant "):
                game.variant = Variant.parse(ln[8:])
            elif ln.startswith("start "):
                pos = Position.parse(ln[6:].strip(), game.variant, allow_won=True)
                game.start = pos.cells()
                hand = pos.hand
            else:
                m = Move.parse(ln)
                if m.place is not None:
                    if hand is None:
                        raise PositionError(f"move {ln!r}: there is no piece in hand to place")
                    game.place(m.place, hand)
                if m.give is not None:
                    b = game.board()
                    if m.give in b or m.give == hand and m.place is None:
                        raise PositionError(f"move {ln!r}: piece {piece_symbol(m.give)} is not available")
                    hand = m.give
                elif m.place is not None:
                    game.ended = True
        except ValueError as e:
            raise RecordError(f"{source}:{lineno}: {e}") from None
    if pending_cell is not None and not game.ended:
        if hand is None:
            raise RecordError(f"{source}: pending placement on {cell_name(pending_cell)} but no piece was handed over")
        try:
            game.place(pending_cell, hand)
        except ValueError as e:
            raise RecordError(f"{source}: pending placement: {e}") from None
    return game


def load_game(path: str) -> WatchedGame:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read game record {path!r}: {e}") from None
    return game_from_text(text, path)


def default_record_path() -> str:
    """``$XDG_DATA_HOME/quarto-assist/games/quarto-game-DATE-TIME.txt`` (by default under
    ``~/.local/share``): out of the way of the folder the command runs in."""
    import time

    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    folder = os.path.join(base, "quarto-assist", "games")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"quarto-game-{time.strftime('%Y%m%d-%H%M%S')}.txt")
