"""The referee's rulings, by the official claiming rules, on source time."""

from engine.rules import ADVANCED, BLOCKS, ROWS, Variant

from quarto_assist.referee import Referee

TALL_VALUE = 1 << 1  # value mask bit for "tall" (see engine.pieces.value_mask)


def fill_row(ref: Referee, t: float, pieces=(1, 3, 5, 15), cells=(12, 13, 14, 15)):
    out = []
    for k, (c, p) in enumerate(zip(cells, pieces)):
        out += ref.placed(t + k, c, p)
    return out


def test_unclaimed_line_is_announced_after_the_grace_period():
    ref = Referee(grace=3.0)
    rulings = fill_row(ref, 0.0)  # last piece placed at t=3
    assert rulings == []
    assert ref.tick(5.9) == []
    (r,) = ref.tick(6.0)
    assert r.kind == "quarto" and r.groups == [(ROWS[3], TALL_VALUE)]
    assert ref.tick(7.0) == []  # said once


def test_claim_in_time_means_no_announcement_and_the_game_is_won():
    ref = Referee(grace=3.0)
    fill_row(ref, 0.0)
    (r,) = ref.claim(4.0)
    assert r.kind == "claimed" and r.window == "placer"
    assert ref.tick(10.0) == [] and ref.over
    assert ref.placed(11.0, 0, 0) == []  # nothing counts after the win


def test_the_opponent_may_claim_once_the_next_piece_is_handed_over():
    ref = Referee(grace=3.0)
    fill_row(ref, 0.0)
    ref.tick(6.0)
    ref.hand_over(7.0)
    (r,) = ref.claim(7.5)
    assert r.kind == "claimed" and r.window == "opponent"


def test_a_line_nobody_claimed_loses_its_value_when_play_goes_on():
    ref = Referee(grace=3.0)
    fill_row(ref, 0.0)
    ref.tick(6.0)
    ref.hand_over(7.0)
    (lost,) = ref.placed(9.0, 0, 0)
    assert lost.kind == "line_lost" and lost.groups[0][0] == ROWS[3]
    (false,) = ref.claim(9.5)  # too late: the line no longer counts
    assert false.kind == "false_claim" and not ref.over


def test_grace_zero_announces_at_once():
    ref = Referee(grace=0.0)
    rulings = fill_row(ref, 0.0)
    assert [r.kind for r in rulings] == ["quarto"] and rulings[0].t == 3.0


def test_grace_counts_from_when_the_piece_settled():
    ref = Referee(grace=2.0)
    fill_row(ref, 0.0, cells=(12, 13, 14, 8))
    assert ref.placed(10.4, 15, 9, settled_t=10.0) == []  # 1, 3, 5, 9: all tall
    assert ref.tick(11.9) == []
    assert ref.tick(12.0)[0].kind == "quarto"


def test_source_end_makes_a_pending_announcement():
    ref = Referee(grace=3.0)
    fill_row(ref, 0.0)
    (r,) = ref.finish(4.0)
    assert r.kind == "quarto" and r.t == 4.0


def test_a_false_claim_changes_nothing():
    ref = Referee(grace=3.0)
    ref.placed(0.0, 0, 1)
    (r,) = ref.claim(1.0)
    assert r.kind == "false_claim" and not ref.over


def test_full_board_without_a_line_is_a_draw():
    # a known drawn full board: no row, column or diagonal shares a value
    from engine.position import Position

    pos = Position.parse("C827/50A4/BE93/1D6F -")
    ref = Referee(grace=3.0)
    rulings = []
    for c, p in enumerate(pos.cells()):
        rulings += ref.placed(float(c), c, p)
    assert rulings[-1].kind == "draw" and ref.over


def test_variants_beginner_and_advanced():
    beginner = Referee(Variant.parse("classic:dark"), grace=0.0)
    assert fill_row(beginner, 0.0) == []  # four tall, but only dark counts
    adv = Referee(ADVANCED, grace=0.0)
    rulings = []
    for t, (c, p) in enumerate(zip((0, 1, 4, 5), (1, 3, 5, 15))):
        rulings += adv.placed(float(t), c, p)
    assert rulings and rulings[0].groups[0][0] == BLOCKS[0]


def test_reset_after_a_correction_looks_again_at_the_last_cell():
    ref = Referee(grace=0.0)
    cells = [None] * 16
    cells[12:16] = [1, 3, 5, 8]
    rulings = ref.reset(cells, 5.0, last_cell=15)
    assert rulings == []
    cells[15] = 15
    rulings = ref.reset(cells, 6.0, last_cell=15)
    assert rulings[0].kind == "quarto"


def sure_except(cell: int, attribute: int, p: float):
    """A belief: every piece read surely, but ``attribute`` (0 tall .. 3 hollow) of the piece
    on ``cell`` only with probability ``p``."""
    def belief():
        out = {c: [0.99, 0.99, 0.99, 0.99] for c in range(16)}
        out[cell] = [p if k == attribute else 0.99 for k in range(4)]
        return out
    return belief


def test_a_line_resting_on_an_unsure_reading_is_shown_as_unsure_not_announced():
    ref = Referee(grace=3.0, belief=sure_except(15, 0, 0.4), min_confidence=0.5)
    fill_row(ref, 0.0)  # all tall, but the last piece may well be short
    (r,) = ref.tick(6.0)
    assert r.kind == "unsure" and r.groups == [(ROWS[3], TALL_VALUE)] and r.confidence < 0.5
    assert ref.tick(8.0) == []  # reported once
    assert ref.placed(9.0, 0, 0) == []  # nothing was announced: nothing is said to be lost
    assert not ref.over


def test_a_sure_line_is_announced_with_its_confidence():
    ref = Referee(grace=3.0, belief=sure_except(15, 0, 0.9), min_confidence=0.5)
    fill_row(ref, 0.0)
    (r,) = ref.tick(6.0)
    assert r.kind == "quarto" and r.groups == [(ROWS[3], TALL_VALUE)]
    assert 0.85 < r.confidence < 0.9


def test_only_the_sure_shared_values_of_a_line_are_named():
    # 3 (tall dark), 7, 11, 15: all tall and all dark; dark of the last piece unsure
    ref = Referee(grace=0.0, belief=sure_except(15, 1, 0.3), min_confidence=0.5)
    (r,) = fill_row(ref, 0.0, pieces=(3, 7, 11, 15))
    assert r.kind == "quarto" and r.groups == [(ROWS[3], TALL_VALUE)]


def test_a_claim_on_an_unsure_line_is_still_valid():
    ref = Referee(grace=3.0, belief=sure_except(12, 0, 0.2), min_confidence=0.5)
    fill_row(ref, 0.0)
    assert ref.tick(6.0)[0].kind == "unsure"
    (r,) = ref.claim(6.5)  # the player and the camera's reading agree
    assert r.kind == "claimed" and ref.over
