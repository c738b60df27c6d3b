"""Game scripts for the videos: legal play with one Quarto nobody claims."""

import pytest

from engine import Position
from scenegen.script import missed_quarto_game, new_lines


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_missed_quarto_game_is_legal_and_goes_on_after_the_miss(seed):
    s = missed_quarto_game(seed)
    assert s.missed_after is not None and s.missed_after >= 7
    pos = Position()
    lines_at = []
    moves = iter(s.record.moves)
    pos.push(next(moves))                    # the opening give
    for k, m in enumerate(moves):
        sp = s.placements[k]
        assert (m.place, pos.hand) == (sp.cell, sp.piece)
        if k < s.missed_after:
            # before the missed line the engine's own rules accept every move (from the miss on
            # they say the game is won: the engine does not model an unclaimed line)
            assert pos.is_legal(m), (k, str(m), str(pos))
        made = new_lines(pos, m.place, pos.hand)
        assert [c for c, _ in made] == [c for c, _ in sp.new_lines]
        if made:
            lines_at.append(k)
        pos.push(m)
    assert lines_at[0] == s.missed_after and not s.placements[s.missed_after].claimed
    # play continued: more placements after the miss, and any later line ends the game claimed
    assert len(s.placements) > s.missed_after + 3
    for k in lines_at[1:]:
        assert s.placements[k].claimed and k == len(s.placements) - 1


def test_same_seed_same_game():
    assert missed_quarto_game(4).record.to_text() == missed_quarto_game(4).record.to_text()
