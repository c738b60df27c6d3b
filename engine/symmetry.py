"""Symmetries of Quarto: cell permutations that keep the winning groups, and piece
transforms (attribute permutations and complements).

The cell permutations are *found*, not written down: :func:`cell_symmetries` searches
all permutations of the 16 cells that map every winning group onto a winning group,
and the result is checked to be closed under composition. For the 10 lines there are
32 (the 8 rotations/reflections of the square, times swapping the two middle rows and
columns, times turning the board "inside out"); keeping the 9 2x2 blocks as well
leaves 8.

A piece transform is ``(order, flips)``: new attribute bit ``i`` is old attribute bit
``order[i]`` xor ``flips >> i & 1``. With every attribute counted there are
4! * 16 = 384 of them; in the beginner variant only transforms that keep the set of
counted attributes are symmetries.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

from .pieces import Piece
from .rules import BLOCKS, LINES, Variant

CellPerm = tuple[int, ...]  # perm[c] = image of cell c


def _search_perms(groups: tuple[int, ...]) -> list[CellPerm]:
    """All permutations of the 16 cells mapping the set of ``groups`` onto itself.

    Backtracking: cells get images one by one; a group whose cells all have images
    must land on a group. Complete, so nothing is guessed. Pruned with a necessary
    condition: two cells share as many groups as their images do.
    """
    group_set = set(groups)
    cells_of = [[c for c in range(16) if g >> c & 1] for g in groups]
    # groups that become fully assigned once cell c (in order 0..15) is assigned
    done_at: list[list[list[int]]] = [[] for _ in range(16)]
    for cells in cells_of:
        done_at[max(cells)].append(cells)
    together = [[sum(1 for g in groups if g >> x & 1 and g >> y & 1) for y in range(16)] for x in range(16)]
    out: list[CellPerm] = []
    image = [-1] * 16
    used = [False] * 16

    def extend(c: int) -> None:
        if c == 16:
            out.append(tuple(image))
            return
        for t in range(16):
            if used[t] or together[c][c] != together[t][t] or any(
                together[c][x] != together[t][image[x]] for x in range(c)
            ):
                continue
            image[c] = t
            ok = True
            for cells in done_at[c]:
                m = 0
                for x in cells:
                    m |= 1 << image[x]
                if m not in group_set:
                    ok = False
                    break
            if ok:
                used[t] = True
                extend(c + 1)
                used[t] = False
            image[c] = -1

    extend(0)
    return out


def _check_group(perms: list[CellPerm]) -> None:
    s = set(perms)
    identity = tuple(range(16))
    if identity not in s:
        raise AssertionError("symmetry search lost the identity")
    for p in perms:
        for q in perms:
            if tuple(p[q[c]] for c in range(16)) not in s:
                raise AssertionError("cell symmetries are not closed under composition")


@lru_cache(maxsize=None)
def cell_symmetries(blocks: bool = False) -> tuple[CellPerm, ...]:
    """The cell permutations keeping the 10 lines (and, with ``blocks``, the 9 2x2
    blocks); identity first."""
    groups = LINES + BLOCKS if blocks else LINES
    perms = _search_perms(groups)
    _check_group(perms)
    perms.sort(key=lambda p: p != tuple(range(16)))
    return tuple(perms)


def piece_transforms(variant: Variant) -> list[tuple[tuple[int, int, int, int], int]]:
    """All ``(order, flips)`` piece transforms that are symmetries of ``variant``."""
    counted = variant.attributes
    out = []
    for order in permutations(range(4)):
        if any((counted >> order[i] & 1) != (counted >> i & 1) for i in range(4)):
            continue
        for flips in range(16):
            out.append((order, flips))
    return out


def transform_piece(piece: Piece, order, flips: int) -> Piece:
    q = 0
    for i in range(4):
        q |= (piece >> order[i] & 1) << i
    return q ^ flips


def transform_cells(cells: list, perm: CellPerm) -> list:
    """Board as a 16-list moved by ``perm``: the piece on cell c goes to ``perm[c]``."""
    out = [None] * 16
    for c, p in enumerate(cells):
        out[perm[c]] = p
    return out
