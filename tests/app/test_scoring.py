"""Scoring a watch's events against a rendered game's truth (quarto_assist.scoring)."""

from quarto_assist.scoring import score

CENTRES = [[100.0 + 50 * (i % 4), 100.0 + 50 * (i // 4)] for i in range(16)]


def truth_with_line(attributes):
    placements = [{"t": 1.0 + 2 * k, "piece": p, "cell": k, "cell_center": CENTRES[k], "settled_t": 2.0 + 2 * k}
                  for k, p in enumerate(["0", "4", "8", "C"])]
    return {"placements": placements, "cell_centers": CENTRES,
            "winning_lines": [{"t": 7.0, "after_placement": 3, "cells": [0, 1, 2, 3],
                               "cell_centers": CENTRES[:4], "attributes": attributes, "claimed": False}]}


def events(said):
    out = [{"t": 2.1 + 2 * k, "event": "placed", "piece": p, "cell_center": CENTRES[k]}
           for k, p in enumerate(["0", "4", "8", "C"])]
    out.append({"t": 11.2, "event": "quarto", "cells": CENTRES[:4], "attributes": said})
    return out


def test_a_piece_moved_by_a_later_event_counts_right_after_the_move_not_when_placed():
    truth = truth_with_line(["short"])
    evs = events(["short"])
    evs[1] = dict(evs[1], cell_center=CENTRES[5])  # "4" first put on the cell in front
    evs.insert(3, {"t": 6.5, "event": "relocated", "piece": "4", "cell_center": CENTRES[1],
                   "was_center": CENTRES[5]})
    s = score(truth, evs, grace=3.0, late=1.5)
    assert (s.found, s.located, s.final_right, s.invented) == (3, 3, 4, 1)


def test_a_line_announced_with_what_it_shares_is_right():
    s = score(truth_with_line(["short", "light"]), events(["short"]), grace=3.0, late=1.5)
    assert s.announced == 1 and s.wrong_reason == 0 and s.perfect


def test_a_line_announced_for_a_value_its_pieces_do_not_share_is_counted():
    # the right four cells, in time, but "all square" where two of them are round: the players
    # would look and find the call wrong
    s = score(truth_with_line(["short", "light"]), events(["short", "square"]), grace=3.0, late=1.5)
    assert s.announced == 1 and s.wrong_reason == 1 and not s.perfect
    assert any("announced as short, square" in p for p in s.problems)
