"""The solver against an independent brute force, under symmetries, and with a clock."""

import random
import time

import pytest

from engine import Position, Variant
from engine.coach import poison_pieces
from engine.sampling import random_position
from engine.solver import Searcher, Suggestion, suggest
from engine.symmetry import cell_symmetries, piece_transforms, transform_cells, transform_piece

import brute  # tests/engine/brute.py (pytest puts this folder on sys.path)

VARIANTS = ["classic", "advanced", "classic:tall,dark", "advanced:square,hollow"]
VALUE = {1: "win", 0: "draw", -1: "loss"}


def _cases(variant_text, seed, sizes):
    rng = random.Random(seed)
    var = Variant.parse(variant_text)
    out = []
    for empties, count in sizes:
        for _ in range(count):
            out.append(random_position(rng, empties, var, safe_hand=rng.random() < 0.75))
    return var, out


@pytest.mark.parametrize("variant_text", VARIANTS)
def test_matches_brute_force(variant_text):
    sizes = [(1, 5), (2, 15), (3, 30), (4, 30), (5, 30), (6, 6 if ":" not in variant_text else 1)]
    var, positions = _cases(variant_text, 17, sizes)
    for pos in positions:
        outcome, plies, moves = brute.solve(pos.cells(), pos.hand, var)
        s = suggest(pos, var)
        assert (s.value, s.plies) == (VALUE[outcome], plies), str(pos)
        assert (s.place, s.give) in moves, str(pos)


@pytest.mark.parametrize("variant_text", ["classic", "advanced:tall,square"])
def test_table_and_symmetry_keys_do_not_change_results(variant_text):
    # with the table, the canonical keys and the move sorting used at every node
    # (not only near the root)
    var, positions = _cases(variant_text, 23, [(4, 20), (5, 20), (6, 4 if ":" not in variant_text else 1)])
    for pos in positions:
        outcome, plies, moves = brute.solve(pos.cells(), pos.hand, var)
        score, move = Searcher(var, tt_min=2, canon_min=2, order_min=3).solve(pos.cells(), pos.hand)
        e = pos.cells().count(None)
        assert (score > 0) - (score < 0) == outcome, str(pos)
        assert (e if score == 0 else e + 1 - abs(score)) == plies, str(pos)
        assert move in moves, str(pos)


@pytest.mark.parametrize("variant_text", ["classic", "advanced", "classic:dark,hollow"])
def test_value_is_the_same_under_every_symmetry(variant_text):
    rng = random.Random(99)
    var = Variant.parse(variant_text)
    perms = cell_symmetries(var.blocks)
    transforms = piece_transforms(var)
    for empties in (7, 8, 9):
        pos = random_position(rng, empties, var)
        ref = suggest(pos, var)
        for perm in perms:
            order, flips = rng.choice(transforms)
            cells = [None if p is None else transform_piece(p, order, flips) for p in pos.cells()]
            moved = Position(transform_cells(cells, perm), transform_piece(pos.hand, order, flips))
            s = suggest(moved, var)
            assert (s.value, s.plies) == (ref.value, ref.plies), f"{pos} -> {moved}"


def test_symmetry_groups_have_the_known_sizes():
    assert len(cell_symmetries(False)) == 32
    assert len(cell_symmetries(True)) == 8
    assert len(piece_transforms(Variant())) == 384


def test_time_limit_answers_promptly_without_giving_poison():
    rng = random.Random(3)
    suggest(random_position(rng, 8, Variant()), Variant())  # compile outside the clock
    hard = Position.parse("..../..../.5../.... 0")  # 14 empty cells: minutes to solve exactly
    t0 = time.perf_counter()
    s = suggest(hard, Variant(), time_limit=0.2)
    took = time.perf_counter() - t0
    assert took < 2.0
    assert s.value in ("unknown", "win", "draw", "loss")
    assert s.place is not None and hard.piece_at(s.place) is None
    assert s.give is not None and s.give not in (0, 5)
    assert s.give not in poison_pieces(hard, Variant(), after_place=s.place)


def test_time_limit_never_hands_over_poison_when_a_safe_piece_exists():
    rng = random.Random(8)
    var = Variant()
    checked = 0
    for _ in range(20):
        pos = random_position(rng, 11, var)
        s = suggest(pos, var, time_limit=0.01)
        if s.give is None:
            continue
        poison = poison_pieces(pos, var, after_place=s.place)
        safe_exists = any(q not in poison for q in pos.available() if q != pos.hand)
        if safe_exists:
            assert s.give not in poison, str(pos)
            checked += 1
    assert checked > 10


def test_time_limit_gives_the_exact_answer_when_there_is_time():
    rng = random.Random(4)
    var = Variant()
    for _ in range(10):
        pos = random_position(rng, 7, var)
        exact = suggest(pos, var)
        limited = suggest(pos, var, time_limit=30)
        assert (limited.value, limited.plies) == (exact.value, exact.plies), str(pos)


def test_suggestion_is_a_frozen_value():
    s = suggest(random_position(random.Random(1), 6, Variant()))
    assert isinstance(s, Suggestion)
    with pytest.raises(Exception):
        s.value = "x"


@pytest.mark.parametrize("seed", range(8))
def test_hand_dash_suggests_a_piece_only(seed):
    pos = Position(random_position(random.Random(seed), 5, Variant()).cells(), None)
    s = suggest(pos)
    outcome_by_give = {}
    for q in pos.available():
        o, n, _ = brute.solve(pos.cells(), q, Variant())
        outcome_by_give[q] = (-o, n + 1)  # handing the piece over is a ply too
    best = max(outcome_by_give.values(), key=lambda r: brute._key(*r))
    assert s.place is None and s.give in outcome_by_give
    assert (s.value, s.plies) == (VALUE[best[0]], best[1])
    assert brute._key(*outcome_by_give[s.give]) == brute._key(*best)


@pytest.mark.parametrize("variant_text", ["classic", "advanced"])
def test_a_line_nobody_claimed_is_played_on_as_the_rules_say(variant_text):
    """A line completed and not claimed in its move loses its value and play goes on
    (QUARTO.md): with ``dead_lines`` the solver plays such positions, and only lines
    completed later win, as an independent brute force says; without, they are over."""
    var = Variant.parse(variant_text)
    rng = random.Random(5)
    checked = 0
    while checked < 40:
        empties = rng.choice([2, 3, 4, 5])
        pieces = rng.sample(range(16), 16 - empties + 1)
        cells = [None] * 16
        for c, p in zip(rng.sample(range(16), 16 - empties), pieces):
            cells[c] = p
        hand = pieces[-1]
        pos = Position(cells, hand)
        if not pos.is_won(var):
            continue
        outcome, plies, moves = brute.solve(list(cells), hand, var, dead_lines=True)
        s = suggest(pos, var, dead_lines=True)
        assert (s.value, s.plies) == (VALUE[outcome], plies), str(pos)
        assert (s.place, s.give) in moves, str(pos)
        with pytest.raises(ValueError, match="game is over"):
            suggest(pos, var)
        checked += 1


def test_game_over_is_refused_with_a_clear_message():
    full = Position.parse("0123/4567/89AB/CDEF -", allow_won=True)
    with pytest.raises(ValueError, match="game is over"):
        suggest(full)
