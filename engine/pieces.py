"""Pieces: 4-bit ints with named attribute bits.

Bit layout (as in shared/INTERFACE.md)::

    bit 0 (1)  tall    / short
    bit 1 (2)  dark    / light
    bit 2 (4)  square  / round
    bit 3 (8)  hollow  / solid

A set bit means the first word. ``0`` is the short light round solid piece,
``15`` (``F``) the tall dark square hollow one. A piece prints as one upper-case
hexadecimal digit.
"""

from __future__ import annotations

Piece = int

TALL = 1
DARK = 2
SQUARE = 4
HOLLOW = 8

ALL_PIECES = tuple(range(16))
ALL_ATTRIBUTES = TALL | DARK | SQUARE | HOLLOW

#: attribute bit -> (word when set, word when clear)
ATTRIBUTE_WORDS = {
    TALL: ("tall", "short"),
    DARK: ("dark", "light"),
    SQUARE: ("square", "round"),
    HOLLOW: ("hollow", "solid"),
}
ATTRIBUTE_NAMES = {TALL: "tall", DARK: "dark", SQUARE: "square", HOLLOW: "hollow"}
ATTRIBUTE_BY_NAME = {name: bit for bit, name in ATTRIBUTE_NAMES.items()}
#: value word -> (attribute bit, value 0/1), e.g. "short" -> (1, 0)
VALUE_BY_WORD = {
    word: (bit, 1 - i) for bit, words in ATTRIBUTE_WORDS.items() for i, word in enumerate(words)
}


class PieceError(ValueError):
    """A piece written wrongly."""


def parse_piece(text: str) -> Piece:
    """``'A'`` -> ``10``. Raises :class:`PieceError` quoting the text."""
    if len(text) != 1 or text.upper() not in "0123456789ABCDEF":
        raise PieceError(f"invalid piece: {text!r} (expected one hex digit 0-F)")
    return int(text, 16)


def piece_symbol(piece: Piece) -> str:
    """``10`` -> ``'A'``."""
    return "0123456789ABCDEF"[piece]


def piece_words(piece: Piece) -> str:
    """``10`` -> ``'short dark round hollow'``."""
    return " ".join(ATTRIBUTE_WORDS[bit][0 if piece & bit else 1] for bit in (TALL, DARK, SQUARE, HOLLOW))


def piece_from_attributes(tall: bool, dark: bool, square: bool, hollow: bool) -> Piece:
    return (TALL if tall else 0) | (DARK if dark else 0) | (SQUARE if square else 0) | (HOLLOW if hollow else 0)


def piece_attributes(piece: Piece) -> dict[str, bool]:
    """``15`` -> ``{"tall": True, "dark": True, "square": True, "hollow": True}``."""
    return {name: bool(piece & bit) for bit, name in ATTRIBUTE_NAMES.items()}


def value_mask(piece: Piece) -> int:
    """The piece's four attribute values as an 8-bit mask.

    Value bit ``2*k + 1`` is set when attribute ``k`` is set, bit ``2*k`` when it is
    clear; two pieces share a value iff ``value_mask(a) & value_mask(b)``.
    """
    mask = 0
    for k in range(4):
        mask |= 1 << (2 * k + ((piece >> k) & 1))
    return mask


def describe_values(mask: int) -> list[str]:
    """An 8-bit value mask (see :func:`value_mask`) as words: ``['tall', 'light']``."""
    words = []
    for k, bit in enumerate((TALL, DARK, SQUARE, HOLLOW)):
        if mask >> (2 * k + 1) & 1:
            words.append(ATTRIBUTE_WORDS[bit][0])
        if mask >> (2 * k) & 1:
            words.append(ATTRIBUTE_WORDS[bit][1])
    return words
