"""Solve the empty board: the value of Quarto's start position under perfect play.

    python bench/solve_start.py                  # classic game (known: a draw)
    python bench/solve_start.py --variant advanced --tt-bits 25

The first player only chooses a piece, and every piece is equivalent to 0 (flipping
attributes maps any piece to any other), so the start is worth minus the value of
"empty board, 0 in hand". The second player's placement is one of the cell classes
under the board's symmetries (2 for the classic game: the diagonal cells and the
others; 3 with 2x2 blocks), and the piece then handed over is one of 4 classes (0's
attribute permutations leave the number of attributes it differs in). That gives
8 (or 12) sub-problems with 15 empty cells; each is asked "can the side to move at
least draw?" (a null-window search) and, until one is found, "can it not win?".
The start is a draw when every sub-problem is at least a draw and one is exactly a
draw. The table is shared between sub-problems, so a sub-problem whose drawing reply
is a symmetric image of a position already proven (e.g. 0 on b1 with 1 placed on a1
mirrors 0 on a1 with 1 on b1, swapping the pieces by flipping "tall") is settled at
once; ``--independent`` gives each sub-problem a fresh table instead. Prints each
sub-problem with its nodes and time, and a progress line every ``--progress`` seconds
while searching. One core.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine import search as S  # noqa: E402
from engine.pieces import piece_symbol, piece_words  # noqa: E402
from engine.rules import Variant, cell_name  # noqa: E402
from engine.solver import Searcher  # noqa: E402
from engine.symmetry import cell_symmetries, piece_transforms, transform_piece  # noqa: E402


def subproblems(variant: Variant) -> list[tuple[int, int]]:
    """(cell for piece 0, piece handed over next): one per class under the symmetries
    that keep piece 0."""
    cell_classes = sorted({min(p[c] for p in cell_symmetries(variant.blocks)) for c in range(16)})
    keep0 = [t for t in piece_transforms(variant) if transform_piece(0, *t) == 0]
    piece_classes = sorted({min(transform_piece(q, *t) for t in keep0) for q in range(1, 16)})
    return [(c, q) for c in cell_classes for q in piece_classes]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--tt-bits", type=int, default=24, help="log2 of the table's slots (24: 400 MB)")
    ap.add_argument("--progress", type=int, default=30, help="seconds between progress lines")
    ap.add_argument("--independent", action="store_true",
                    help="a fresh table for every sub-problem (no results carried over between them)")
    args = ap.parse_args(argv)
    variant = Variant.parse(args.variant)
    t0 = time.perf_counter()
    c0 = time.process_time()
    sr = Searcher(variant, tt_bits=args.tt_bits, deadline=1e18)
    sr.W[S.PROGRESS] = args.progress
    subs = subproblems(variant)
    print(f"{variant}: start = -(empty board, 0 in hand); {len(subs)} sub-problems with 15 empty cells "
          f"(table set up in {time.perf_counter() - t0:.1f} s)", flush=True)
    all_at_least_draw = True
    exact_draw_found = False
    for i, (c, q) in enumerate(subs):
        cells = [None] * 16
        cells[c] = 0
        if args.independent:
            sr.W[S.AGE] = sr.tt.new_age()
        t1 = time.perf_counter()
        n1 = sr.nodes
        # from the side that receives q (the first player, who handed over 0):
        # r >= 0 means it at least draws. The start is worth the least of these.
        r = sr.negamax(cells, q, -1, 0, root=False)
        verdict = "first player at least draws" if r >= 0 else "first player loses (so the start is lost)"
        if sr.nodes - n1 < 100:
            verdict += " (settled by the table: a reply found earlier is the same position up to symmetry)"
        print(f"[{i + 1}/{len(subs)}] 0 on {cell_name(c)}, then {piece_symbol(q)} ({piece_words(q)}) handed over: "
              f"{verdict}; {sr.nodes - n1} nodes, {time.perf_counter() - t1:.1f} s, total {time.perf_counter() - t0:.1f} s "
              f"({time.process_time() - c0:.1f} s CPU)",
              flush=True)
        if r < 0:
            all_at_least_draw = False
            break
        if not exact_draw_found:
            t1 = time.perf_counter()
            n1 = sr.nodes
            r = sr.negamax(cells, q, 0, 1, root=False)
            exact_draw_found = r <= 0
            print(f"      ... and can the first player win here? {'no: exactly a draw' if r <= 0 else 'yes'}; "
                  f"{sr.nodes - n1} nodes, {time.perf_counter() - t1:.1f} s", flush=True)
    if not all_at_least_draw:
        value = "loss for the player who hands over the first piece"
    elif exact_draw_found:
        value = "draw"
    else:
        value = "win for the player who hands over the first piece"
    print(f"value of the start position ({variant}): {value}; {sr.nodes} nodes in {time.perf_counter() - t0:.1f} s "
          f"({time.process_time() - c0:.1f} s CPU; load average {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
