"""A game record: the start position and the moves (gives and placements), as text.

File form, one item per line, ``#`` starts a comment::

    quarto-assist game 1
    variant classic
    start ..../..../..../.... -
    -:5
    b3:7
    a1:-
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

from .position import Move, Position, PositionError
from .rules import CLASSIC, Variant

MAGIC = "quarto-assist game"
VERSION = 1
EMPTY_START = "..../..../..../.... -"


class RecordError(ValueError):
    """A record file that cannot be read: the message names the line."""


@dataclass
class GameRecord:
    variant: Variant = CLASSIC
    start: str = EMPTY_START
    moves: list[Move] = field(default_factory=list)

    def position(self) -> Position:
        """The position after all moves."""
        pos = Position.parse(self.start, self.variant)
        for m in self.moves:
            pos.push(m)
        return pos

    def append(self, move: Move) -> None:
        """Add ``move`` after checking it is legal; raise :class:`PositionError` if not.

        A record holds the game as played: it may go on past a line nobody claimed."""
        pos = self.position()
        reason = pos.illegal_reason(move, self.variant, unclaimed=True)
        if reason:
            raise PositionError(f"illegal move {str(move)!r} in {str(pos)!r}: {reason}")
        self.moves.append(move)

    def undo(self) -> Move | None:
        return self.moves.pop() if self.moves else None

    def to_text(self) -> str:
        lines = [f"{MAGIC} {VERSION}", f"variant {self.variant}", f"start {self.start}"]
        lines += [str(m) for m in self.moves]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str, source: str = "record") -> "GameRecord":
        lines = [(i + 1, ln.split("#", 1)[0].strip()) for i, ln in enumerate(text.splitlines())]
        lines = [(i, ln) for i, ln in lines if ln]
        if not lines or not lines[0][1].startswith(MAGIC):
            raise RecordError(f"{source}: not a quarto-assist game record (first line should be '{MAGIC} {VERSION}')")
        version = lines[0][1][len(MAGIC) :].strip()
        if version != str(VERSION):
            raise RecordError(f"{source}: unsupported record version {version!r} (this program reads {VERSION})")
        rec = cls()
        for lineno, ln in lines[1:]:
            try:
                if ln.startswith("variant "):
                    rec.variant = Variant.parse(ln[8:])
                elif ln.startswith("start "):
                    rec.start = ln[6:].strip()
                    Position.parse(rec.start, rec.variant)
                else:
                    rec.append(Move.parse(ln))
            except ValueError as e:
                raise RecordError(f"{source}:{lineno}: {e}") from None
        return rec

    def save(self, path: str) -> None:
        """Write atomically: a crash mid-write leaves the previous file intact."""
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".record-", dir=d)
        with os.fdopen(fd, "w") as f:
            f.write(self.to_text())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str) -> "GameRecord":
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise RecordError(f"cannot read game record {path!r}: {e}") from None
        return cls.from_text(text, path)
