import json
import random

import pytest

from engine import Position, Variant
from quarto_assist.cli import main


def test_json_has_the_interface_keys(capsys):
    assert main(["suggest", "0.3./..../.8A./F... 5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == "draw" and out["plies"] == 11
    assert isinstance(out["place"], int) and 0 <= out["place"] <= 15
    assert isinstance(out["give"], str) and len(out["give"]) == 1 and out["give"] in "0123456789ABCDEF"
    assert out["explanation"]


def test_json_game_ending_move_gives_null(capsys):
    assert main(["suggest", "024./..../..../.... 6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {**out, "value": "win", "place": 3, "give": None, "plies": 1}


def test_advanced_variant_sees_blocks(capsys):
    # 0, 2, 4 are short; in the advanced game 6 on b2 completes the 2x2 block a1-b2
    assert main(["suggest", "02../4.../..../.... 6", "--variant", "advanced", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["value"], out["place"], out["plies"]) == ("win", 5, 1)
    assert main(["suggest", "02../4.../..../.... 6", "--json", "--time-limit", "0.5"]) == 0
    assert json.loads(capsys.readouterr().out)["plies"] != 1  # no block wins in the classic game


def test_human_text(capsys):
    assert main(["suggest", "0.3./..../.8A./F... 5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("draw in 11 plies: place 5 on ")
    assert "Do not hand over" in out


@pytest.mark.parametrize("text", ["0.3./..../..A./F...", "0.3./..x./..A./F... 5", "0123/..../..../.... 4"])
def test_bad_position_exits_2_quoting_it(capsys, text):
    assert main(["suggest", text]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR") and repr(text) in err


def test_bad_variant_exits_2(capsys):
    assert main(["suggest", "..../..../..../.... 0", "--variant", "expert"]) == 2
    assert "'expert'" in capsys.readouterr().err


def test_full_board_says_the_game_is_over(capsys):
    rng = random.Random(0)
    while True:  # a full board without a winning line
        cells = list(range(16))
        rng.shuffle(cells)
        if not Position(cells).is_won(Variant()):
            break
    text = str(Position(cells))
    assert main(["suggest", text]) == 2
    assert "game is over" in capsys.readouterr().err


def test_a_line_nobody_claimed_is_played_on_with_played_on(capsys):
    """samples/game01.mp4's first Quarto (column a, all tall) went by unclaimed and play
    went on: the position is refused as won, with the way to say so; with --played-on
    the coach plays on and does not take the old line for the new placement's Quarto."""
    text = "F..6/924./B.8./1A.. C"
    assert main(["suggest", text]) == 2
    err = capsys.readouterr().err
    assert "already won" in err and "--played-on" in err
    assert main(["suggest", text, "--played-on"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("draw in 7 plies: place C on d2")
    assert "column a" not in out and "Quarto" not in out.split("\n", 1)[1].replace("without a Quarto", "")
    assert "Do not hand over" in out  # the traps of the board played on are still seen
