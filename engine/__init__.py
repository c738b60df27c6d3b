"""Quarto rules, position text, game records, solver and coaching. Knows no pixels."""

from .pieces import ALL_PIECES, DARK, HOLLOW, SQUARE, TALL, Piece, PieceError, parse_piece, piece_symbol, piece_words
from .position import Move, Position, PositionError
from .record import GameRecord, RecordError
from .rules import ADVANCED, BLOCKS, CLASSIC, LINES, Cell, Variant, cell_name, parse_cell

__all__ = [
    "ALL_PIECES", "DARK", "HOLLOW", "SQUARE", "TALL", "Piece", "PieceError", "parse_piece", "piece_symbol",
    "piece_words", "Move", "Position", "PositionError", "GameRecord", "RecordError", "ADVANCED", "BLOCKS",
    "CLASSIC", "LINES", "Cell", "Variant", "cell_name", "parse_cell", "suggest", "Suggestion",
]


def __getattr__(name):
    # The solver pulls in numpy and numba: loaded on first use, so the rules stay light.
    if name in ("suggest", "Suggestion"):
        from . import solver

        return getattr(solver, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
