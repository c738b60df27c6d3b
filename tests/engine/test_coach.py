from engine import Position, Variant
from engine.coach import explain, group_name, poison_pieces
from engine.rules import BLOCKS, COLUMNS, DIAGONALS, ROWS
from engine.solver import suggest


def test_groups_are_named_in_words():
    assert group_name(ROWS[1]) == "row 2"
    assert group_name(COLUMNS[2]) == "column c"
    assert group_name(DIAGONALS[0]) == "the diagonal a1-d4"
    assert group_name(DIAGONALS[1]) == "the diagonal d1-a4"
    assert group_name(BLOCKS[4]) == "2x2 block b2-c3"


def test_poison_pieces_name_the_cell_and_the_line():
    # row 1 holds three short solid pieces 0, 2, 4 (short light round / short dark round /
    # short light square, all solid): any short or solid piece completes it on d1
    pos = Position.parse("024./..../..../.... F")
    poison = poison_pieces(pos, Variant())
    assert 0xF not in poison  # in hand, not available to hand over
    assert set(poison) == {q for q in range(16) if q not in (0, 2, 4, 0xF) and (not q & 1 or not q & 8)}
    cell, group, shared = poison[1][0]  # 1 is tall light round solid: shares 'solid'
    assert cell == 3 and group == ROWS[0] and shared == 1 << 6


def test_poison_after_placing_counts_the_new_lines():
    pos = Position.parse("02../..../..../.... 4")
    assert poison_pieces(pos, Variant()) == {}
    after = poison_pieces(pos, Variant(), after_place=2)
    assert 6 in after and after[6][0][:2] == (3, ROWS[0])


def test_explain_a_won_game_says_call_quarto():
    pos = Position.parse("024./..../..../.... 6")
    s = suggest(pos)
    text = " ".join(explain(pos, Variant(), s))
    assert s.value == "win" and s.plies == 1 and s.place == 3
    assert "win right now" in text and "row 1" in text and "Quarto" in text


def test_explain_names_poison_and_a_safe_gift():
    pos = Position.parse("0.3./..../.8A./F... 5")
    s = suggest(pos)
    lines = explain(pos, Variant(), s)
    assert any(line.startswith("Do not hand over") and "row 1" in line for line in lines)
    assert any(line.startswith("Hand over") and "cannot complete a line" in line for line in lines)
    assert lines[0].startswith("With the best play on both sides") and s.value == "draw"


def test_explain_a_lost_game():
    pos = Position.parse("01../23../.8../.... 4")
    s = suggest(pos)
    assert s.value == "loss"
    assert f"lose in {s.plies} plies" in explain(pos, Variant(), s)[0]
