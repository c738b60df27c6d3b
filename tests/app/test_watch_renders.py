"""`watch` on the rendered game videos, through the real vision: every placement found,
none invented, each unclaimed Quarto announced within 1.5 s after the piece settled plus
the grace period. Uses the bundled sample (samples/*.mp4) and, when present, rendered
games under data/renders/ (at most three, to keep the suite short)."""

import glob
import json
import os

import pytest

from quarto_assist import cli
from quarto_assist.scoring import read_events, score

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _games():
    vids = sorted(glob.glob(os.path.join(ROOT, "samples", "*.mp4")))
    vids += sorted(glob.glob(os.path.join(ROOT, "data", "renders", "**", "*.mp4"), recursive=True))[:3]
    return [v for v in vids if os.path.exists(os.path.splitext(v)[0] + ".json")]


GAMES = _games()


@pytest.mark.skipif(not GAMES, reason="no rendered game video with truth (samples/*.mp4, data/renders/)")
@pytest.mark.parametrize("video", GAMES, ids=[os.path.basename(v) for v in GAMES])
def test_rendered_game_followed_and_missed_quarto_announced(video, tmp_path, capsys):
    truth = json.load(open(os.path.splitext(video)[0] + ".json"))
    events = tmp_path / "events.jsonl"
    rc = cli.main(["watch", video, "--no-window", "--no-speech", "--events", str(events),
                   "--record", str(tmp_path / "game.txt")])
    assert rc == 0
    s = score(truth, read_events(str(events)), grace=3.0, late=1.5)
    assert s.problems == []
    assert s.found == s.placements and s.invented == 0
    assert s.announced == s.lines
    if s.lines:
        assert "Quarto!" in capsys.readouterr().out
