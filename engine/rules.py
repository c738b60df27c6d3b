"""Cells, lines and variants.

Cells are ints 0-15, row-major as a position is written::

     0  1  2  3      row 1 (the first row written)
     4  5  6  7
     8  9 10 11
    12 13 14 15      row 4

A cell's name is its column letter and row number: ``a1`` is cell 0, ``d4`` cell 15.
A set of cells is a 16-bit mask, bit ``i`` for cell ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .pieces import ALL_ATTRIBUTES, ATTRIBUTE_BY_NAME, ATTRIBUTE_NAMES, Piece

Cell = int
CELLS = tuple(range(16))
FULL = 0xFFFF


class CellError(ValueError):
    """A cell written wrongly."""


def cell_name(cell: Cell) -> str:
    return "abcd"[cell % 4] + str(cell // 4 + 1)


def parse_cell(text: str) -> Cell:
    """``'b3'`` -> ``9``; a plain index ``'9'`` is accepted too."""
    t = text.strip().lower()
    if t.isdigit() and 0 <= int(t) <= 15:
        return int(t)
    if len(t) == 2 and t[0] in "abcd" and t[1] in "1234":
        return (int(t[1]) - 1) * 4 + "abcd".index(t[0])
    raise CellError(f"invalid cell: {text!r} (expected a1-d4 or 0-15)")


def _mask(cells) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


ROWS = tuple(_mask(range(4 * r, 4 * r + 4)) for r in range(4))
COLUMNS = tuple(_mask(range(c, 16, 4)) for c in range(4))
DIAGONALS = (_mask((0, 5, 10, 15)), _mask((3, 6, 9, 12)))
#: the 10 lines of the classic game: rows, columns, diagonals
LINES = ROWS + COLUMNS + DIAGONALS
#: the 9 2x2 blocks that also win in the advanced variant
BLOCKS = tuple(_mask((4 * r + c, 4 * r + c + 1, 4 * r + c + 4, 4 * r + c + 5)) for r in range(3) for c in range(3))


def mask_cells(mask: int) -> list[Cell]:
    return [c for c in CELLS if mask >> c & 1]


@dataclass(frozen=True)
class Variant:
    """Which groups of four win and which attributes count.

    ``blocks``: the advanced variant, where the 9 2x2 blocks win as well as lines.
    ``attributes``: mask of the attribute bits that count (beginner variant: 1-3 of them).
    """

    blocks: bool = False
    attributes: int = ALL_ATTRIBUTES

    def __post_init__(self):
        if not 0 < self.attributes <= ALL_ATTRIBUTES:
            raise ValueError(f"invalid attribute mask: {self.attributes!r}")

    @property
    def groups(self) -> tuple[int, ...]:
        """The winning groups of four cells, as cell masks."""
        return LINES + BLOCKS if self.blocks else LINES

    @property
    def name(self) -> str:
        base = "advanced" if self.blocks else "classic"
        if self.attributes == ALL_ATTRIBUTES:
            return base
        names = ",".join(n for b, n in ATTRIBUTE_NAMES.items() if self.attributes & b)
        return f"{base}:{names}"

    @classmethod
    def parse(cls, text: str) -> "Variant":
        """``'classic'``, ``'advanced'``, or either with counted attributes:
        ``'classic:tall,dark'`` (the beginner variant)."""
        base, _, attrs = text.strip().lower().partition(":")
        if base not in ("classic", "advanced"):
            raise ValueError(f"invalid variant: {text!r} (expected classic or advanced, optionally :tall,dark,...)")
        mask = ALL_ATTRIBUTES
        if attrs:
            mask = 0
            for a in attrs.split(","):
                if a not in ATTRIBUTE_BY_NAME:
                    raise ValueError(f"invalid variant: {text!r} (unknown attribute {a!r})")
                mask |= ATTRIBUTE_BY_NAME[a]
        return cls(blocks=base == "advanced", attributes=mask)

    def __str__(self) -> str:
        return self.name


CLASSIC = Variant()
ADVANCED = Variant(blocks=True)


def shared_attributes(pieces: list[Piece], attributes: int = ALL_ATTRIBUTES) -> int:
    """The values four pieces share, as an 8-bit value mask (see ``pieces.value_mask``).

    Only attributes in ``attributes`` count. 0 when they share nothing.
    """
    common = 0xFF
    for p in pieces:
        vm = 0
        for k in range(4):
            vm |= 1 << (2 * k + ((p >> k) & 1))
        common &= vm
    counted = 0
    for k in range(4):
        if attributes >> k & 1:
            counted |= 3 << (2 * k)
    return common & counted
