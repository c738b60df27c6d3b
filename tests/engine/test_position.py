import pytest

from engine import Move, Position, PositionError, Variant
from engine.record import GameRecord, RecordError


@pytest.mark.parametrize(
    "text",
    ["..../..../..../.... -", "0.3./..../..A./F... 5", "0123/4567/89AB/CDE. F"],
)
def test_text_round_trips(text):
    assert str(Position.parse(text, allow_won=True)) == text


def test_repr_pastes_back():
    p = Position.parse("0.3./..../..A./F... 5")
    assert eval(repr(p)) == p


@pytest.mark.parametrize(
    "text, says",
    [
        ("0.3./..../..A./F...", "expected 'ROWS HAND'"),
        ("0.3./..../..A/F... 5", "four rows of four"),
        ("0.3./..x./..A./F... 5", "unknown character 'x'"),
        ("0.3./..../..0./F... 5", "piece 0 is on both"),
        ("0.3./..../..A./F... A", "already on c3"),
        ("0123/..../..../.... 4", "already won"),
        ("0.3./..../..A./F... G", "not 0-F"),
    ],
)
def test_bad_text_is_quoted_and_explained(text, says):
    with pytest.raises(PositionError) as e:
        Position.parse(text)
    assert repr(text) in str(e.value) and says in str(e.value)


def test_advanced_variant_wins_on_blocks_only_when_asked():
    text = "01../23../..../.... 4"  # a 2x2 block of short pieces
    Position.parse(text)  # fine in the classic game
    with pytest.raises(PositionError, match="already won"):
        Position.parse(text, Variant.parse("advanced"))


def test_beginner_variant_counts_only_chosen_attributes():
    text = "0246/..../..../.... -"  # four short pieces, mixed in every other way but hollow
    with pytest.raises(PositionError):
        Position.parse(text)
    Position.parse(text, Variant.parse("classic:dark,square"))


def test_push_pop_and_legality():
    p = Position.parse("..../..../..../.... -")
    assert not p.is_legal(Move.parse("a1:3"))
    m = Move.parse("-:3")
    p.push(m)
    assert str(p) == "..../..../..../.... 3"
    assert p.illegal_reason(Move.parse("a1:3")) == "piece 3 is not available"
    p.push(Move.parse("a1:5"))
    assert str(p) == "3.../..../..../.... 5"
    assert p.pop() == Move.parse("a1:5") and p.pop() == m


def test_winning_placement_gives_nothing():
    p = Position.parse("012./..../..../.... 4")
    assert p.is_legal(Move.parse("d1:-"))
    assert "nothing is handed over" in p.illegal_reason(Move.parse("d1:5"))


def test_record_saves_and_loads(tmp_path):
    rec = GameRecord()
    for m in ["-:3", "a1:5", "b2:7"]:
        rec.append(Move.parse(m))
    path = tmp_path / "game.txt"
    rec.save(str(path))
    back = GameRecord.load(str(path))
    assert back.moves == rec.moves and str(back.position()) == "3.../.5../..../.... 7"


def test_record_rejects_illegal_move_with_line_number(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("quarto-assist game 1\nvariant classic\n-:3\na1:3\n")
    with pytest.raises(RecordError, match=r"bad.txt:4: illegal move 'a1:3'"):
        GameRecord.load(str(path))


def test_record_goes_on_past_a_line_nobody_claimed():
    # pieces 0, 2, 4 are short; placing 6 (short) on d1 completes row 1
    rec = GameRecord(start="024./..../..../.... 6")
    rec.append(Move.parse("d1:1"))  # nobody claims: the placer hands 1 over
    rec.append(Move.parse("a2:3"))  # play goes on with the dead line standing
    assert str(rec.position()) == "0246/1.../..../.... 3"
    assert GameRecord.from_text(rec.to_text()).moves == rec.moves
    # the claimed win ends the game: nothing may follow it
    done = GameRecord(start="024./..../..../.... 6")
    done.append(Move.parse("d1:-"))
    with pytest.raises(PositionError, match="a piece must be handed over|no piece in hand"):
        done.append(Move.parse("a2:3"))


def test_solver_rules_still_end_the_game_at_a_line():
    p = Position.parse("024./..../..../.... 6")
    assert "nothing is handed over" in p.illegal_reason(Move.parse("d1:1"))
    assert p.illegal_reason(Move.parse("d1:1"), unclaimed=True) is None
