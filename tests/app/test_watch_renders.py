"""`watch` on the rendered game video (samples/game01.mp4 with its truth): every
placement found, none invented, the unclaimed Quarto announced within 1.5 s after the
piece settled plus the grace period.

The app's share is checked with real frames, real board geometry and real hand
detection, the pieces named from the truth in place of vision's attribute probabilities
(what the tracker and referee do with a correct identity). The whole chain with vision
naming the pieces is checked too: placements, their count and the announcement must hold;
the pieces' names are an expected failure while vision's attribute accuracy on this video
is below perfect (figures: `python bench/watch_eval.py`).
"""

import glob
import json
import os

import numpy as np
import pytest

from quarto_assist import cli
from quarto_assist.commands import watch as watch_cmd
from quarto_assist.scoring import read_events, score

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAMES = [v for v in sorted(glob.glob(os.path.join(ROOT, "samples", "*.mp4")))
         if os.path.exists(os.path.splitext(v)[0] + ".json")]
needs_game = pytest.mark.skipif(not GAMES, reason="no rendered game video with truth in samples/")


class TruthNames:
    """The real recogniser, with the attribute probabilities of the pieces standing on
    the board (by the truth, at the frame's time) set to what the truth says."""

    def __init__(self, recognizer, truth):
        self.r = recognizer
        self.truth = truth
        self.centres = np.asarray(truth["cell_centers"], float)
        self.t = 0.0  # set from outside to the time of the frame being read

    def _name(self, reading):
        if reading.found and reading.probabilities is not None:
            m = np.linalg.norm(np.asarray(reading.cell_centers)[:, None] - self.centres[None], axis=2).argmin(1)
            on = {p["cell"]: int(p["piece"], 16) for p in self.truth["placements"] if p["t"] <= self.t}
            probs = np.array(reading.probabilities, float)
            for i in range(16):
                q = on.get(int(m[i]))
                if q is not None:
                    probs[i, 1:] = [0.9 if q >> k & 1 else 0.1 for k in range(4)]
            reading.probabilities = probs
        return reading

    def analyze(self, frame):
        return self._name(self.r.analyze(frame))

    def track(self, frame, previous):
        return self._name(self.r.track(frame, previous))


def _run(video, tmp_path, monkeypatch=None, truth=None):
    if monkeypatch is not None:
        from quarto_assist import vision_step

        real = watch_cmd.build_recognizer
        names = []

        def named(profile):
            rec, prof = real(profile)
            names.append(TruthNames(rec, truth))
            return names[-1], prof

        step = vision_step.VisionStep.__call__

        def timed(self, image, t=0.0):  # the stand-in learns the frame's time here
            if names:
                names[-1].t = t
            return step(self, image, t)

        monkeypatch.setattr(watch_cmd, "build_recognizer", named)
        monkeypatch.setattr(vision_step.VisionStep, "__call__", timed)
    events = tmp_path / "events.jsonl"
    rc = cli.main(["watch", video, "--no-window", "--no-speech", "--events", str(events),
                   "--record", str(tmp_path / "game.txt")])
    assert rc == 0
    return read_events(str(events))


@needs_game
@pytest.mark.parametrize("video", GAMES, ids=[os.path.basename(v) for v in GAMES])
def test_rendered_game_followed_and_missed_quarto_announced(video, tmp_path, monkeypatch):
    truth = json.load(open(os.path.splitext(video)[0] + ".json"))
    s = score(truth, _run(video, tmp_path, monkeypatch, truth), grace=3.0, late=1.5)
    assert s.problems == []
    assert s.found == s.placements and s.invented == 0
    assert s.lines >= 1 and s.announced == s.lines


@needs_game
@pytest.mark.parametrize("video", GAMES, ids=[os.path.basename(v) for v in GAMES])
def test_rendered_game_with_vision_naming_the_pieces(video, tmp_path):
    truth = json.load(open(os.path.splitext(video)[0] + ".json"))
    events = _run(video, tmp_path)
    s = score(truth, events, grace=3.0, late=1.5)
    # the tracker's share, with vision's own readings: every placement at its cell and time,
    # none more, the unclaimed Quarto called in time
    assert s.located == s.placements
    assert len([e for e in events if e["event"] == "placed"]) == s.placements
    assert s.lines >= 1 and s.announced == s.lines
    assert s.wrong_reason == 0  # "all short" where a piece is tall: the table would find the call wrong
    # what the pieces' heights and colours in the picture (quarto_assist.silhouette) brought:
    # no false call, and most pieces named (session 5: game01 12 of 12, game04 9 of 12; session
    # 4 without them: 11 and 6, with a false call on game04; session 9, with vision's closer look
    # at each placement: 12 and 12); one piece of room for a retrained network, so that losing
    # the measurement fails here rather than only moving an xfail
    assert s.false_quartos == 0
    assert s.flags == {}, s.flags  # a fairly played game: any flag would be a false alarm at the table
    assert s.found >= NAMED_MIN.get(os.path.basename(video), 0), s.found
    if s.problems:  # vision's share: naming every piece right (a misread line can also be called falsely)
        pytest.xfail(f"vision names {s.found} of {s.placements} pieces right when placed, {s.final_right} after "
                     f"re-reading, {s.false_quartos} false Quarto call(s) from misread pieces "
                     f"(bench/watch_eval.py): {s.problems}")


#: pieces named right when placed, at least (see test_rendered_game_with_vision_naming_the_pieces)
NAMED_MIN = {"game01.mp4": 11, "game04.mp4": 11}


def test_the_placement_log_follows_what_the_tracker_weighed():
    """bench/placement_log.py wraps the pixel tracker's naming of each new piece (a private
    method: a rename must fail here, not leave the tool logging nothing): on the sample game
    every placement is logged once, matched to its own true piece, with vision's four
    probabilities and the combined log odds."""
    tool = _bench("placement_log")
    log_video, summary = tool.log_video, tool.summary

    video = os.path.join(ROOT, "samples", "game01.mp4")
    records = log_video(video)
    truth = json.load(open(os.path.splitext(video)[0] + ".json"))
    assert sorted(r["truth"] for r in records) == sorted(int(p["piece"], 16) for p in truth["placements"])
    assert all(len(r["vision"]) == 4 and len(r["combined"]) == 4 for r in records)
    assert summary(records)[0].startswith("12 placements")


def _bench(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "bench", name + ".py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def _watch_disturbed(tmp_path, kind: str, moved: bool, **how) -> None:
    """Watch samples/game01.mp4 changed by ``bench/watch_eval.disturbed(kind, **how)`` and
    check the game came through: every placement at its cell and time, none more, the
    unclaimed Quarto called for the right reason, no false call, no flag; ``moved``: the
    board was followed to a new place in the picture."""
    video = os.path.join(ROOT, "samples", "game01.mp4")
    truth = json.load(open(os.path.splitext(video)[0] + ".json"))
    if how.pop("mid_game", False):
        middle = truth["placements"][len(truth["placements"]) // 2 - 1]
        how["at"] = middle["settled_t"] + 0.3
    changed = str(tmp_path / "changed.mp4")
    truth = _bench("watch_eval").disturbed(video, truth, kind, changed, **how)
    events = _run(changed, tmp_path)
    s = score(truth, events, grace=3.0, late=1.5)
    if moved:
        assert any(e["event"] == "board_moved" for e in events)
    assert s.located == s.placements, s.problems
    assert len([e for e in events if e["event"] == "placed"]) == s.placements
    assert s.lines >= 1 and s.announced == s.lines and s.wrong_reason == 0
    assert s.false_quartos == 0 and s.flags == {}, s.problems


@needs_game
@pytest.mark.parametrize("kind", ["bump", "light"])
def test_a_camera_knocked_or_a_lamp_switched_off_mid_game(kind, tmp_path):
    """Mid-game, 0.3 s after a piece has settled and before the watch has taken it in,
    someone knocks the camera (``bump``: a turn of 3 degrees and a shift, the cells move by a
    third of a pitch) or the room's light drops to 70 % (``light``). The watch follows the
    board where it now is and in the new light: every placement at its cell and time, none
    more, the unclaimed Quarto called, no false call, no flag. Before session 16, after a
    knock the cells were read where they used to be (two pieces lost, one invented, the
    Quarto called for a wrong reason), and the light's drop was taken for a hand until the
    next hand came, which lost the piece set down just before."""
    _watch_disturbed(tmp_path, kind, moved=kind == "bump", mid_game=True)


@needs_game
def test_a_camera_creeping_all_game(tmp_path):
    """The camera's clamp sags all game long: by the end the picture has turned 6 degrees
    and shifted 40 and 24 pixels (the cells move by more than half a pitch), a little at a
    time, never enough between two still views to look like a knock. The watch follows the
    board as it creeps. Before session 17 the cells were read where they had been (four
    placements lost, the Quarto missed, a false one called and a flag)."""
    _watch_disturbed(tmp_path, "drift", moved=True, size=2.0)


@needs_game
@pytest.mark.parametrize("size", [3.0, 6.0])
def test_a_hard_knock_mid_game(size, tmp_path):
    """Mid-game someone knocks the camera hard: it turns 9 degrees and the picture shifts by
    60 and 36 pixels (``size`` 3), so the cells move by more than a pitch, or 18 degrees
    and 120 and 72 pixels (``size`` 6: nearly three pitches). The watch follows the
    board (the move is registered from matched corners when registering from no move
    fails). Before session 17 a move of more than a pitch was left to the full analyses:
    four placements lost, the Quarto missed, eight flags; before session 18 one of more
    than 2.5 pitches was: the game stopped at the knock, as vision read the cells where
    they used to be and the board was never matched again."""
    _watch_disturbed(tmp_path, "bump", moved=True, size=size)


@needs_game
def test_a_webcam_exposure_swinging_as_arms_come_and_go(tmp_path):
    """The webcam's automatic exposure brightens the picture by up to half as much again
    while an arm is in view (bright pieces clip at white) and takes half a second to come
    back after it. The watch waits for the light to settle instead of judging views in the
    middle of the ramp. Before session 17 each frame of the ramp was taken for a lamp
    switched on or off: five placements lost or misnamed, the Quarto missed, 19 flags."""
    _watch_disturbed(tmp_path, "exposure", moved=False, size=2.0)
