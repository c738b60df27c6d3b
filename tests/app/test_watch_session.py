"""The watch session end to end with a scripted camera, fake speech and a fake clock:
what a player hears, what the events file says, what the record holds."""

import json

import numpy as np
import pytest

from engine.record import GameRecord
from quarto_assist.clock import FakeClock
from quarto_assist.events import EventLog
from quarto_assist.game import load_game
from quarto_assist.session import ResumeMismatch, Watcher, WatchOptions
from quarto_assist.speech import FakeSpeaker
from quarto_assist.tracker import GRID_PERMS
from watch_fakes import GRID, Script, ScriptedSource, ScriptedStep, board

# four tall pieces (1, 3, 5, F share only "tall") go into the row nearest the camera
MOVES = [(12, "1"), (0, "8"), (13, "3"), (2, "6"), (14, "5"), (5, "0"), (15, "F")]


def game_script(moves=MOVES, hand=1.0, still=4.0, tail=5.0) -> Script:
    s = Script(fps=10)
    cells = [None] * 16
    s.hold(cells, 1.0)
    for i, (c, p) in enumerate(moves):
        s.hand(hand, cells)
        cells = list(cells)
        cells[c] = int(p, 16)
        s.hold(cells, tail if i == len(moves) - 1 else still)
    return s


def watch(script, tmp_path, options=None, game=None, source=None, clock=None, actions=None):
    speaker = FakeSpeaker()
    events = tmp_path / f"events{len(list(tmp_path.glob('events*')))}.jsonl"  # the log appends
    log = EventLog(str(events))
    opts = options or WatchOptions(record_path=str(tmp_path / "game.txt"))
    opts.pixels = False  # scripted readings come with blank frames: judge by the readings
    lines = []
    w = Watcher(source or ScriptedSource(script), ScriptedStep(script), speaker, log, opts,
                clock=clock or FakeClock(), game=game, out=lines.append)
    if actions:  # (t, action): act when the loop reaches t
        orig = w.process

        def process(t, reading, image=None):
            orig(t, reading, image)
            while actions and actions[0][0] <= t + 1e-9:
                w.act(actions.pop(0)[1])

        w.process = process
    w.run()
    log.close()
    evs = [json.loads(ln) for ln in events.read_text().splitlines()]
    return w, speaker, evs, lines


def of(evs, kind):
    return [e for e in evs if e["event"] == kind]


def test_a_missed_quarto_is_announced_aloud_after_the_grace_period(tmp_path):
    s = game_script()
    w, speaker, evs, _ = watch(s, tmp_path)
    placed = of(evs, "placed")
    assert [e["piece"] for e in placed] == ["1", "8", "3", "6", "5", "0", "F"]
    last = placed[-1]
    assert last["cell_center"] == list(GRID[15])
    (q,) = of(evs, "quarto")
    assert q["attributes"] == ["tall"]
    assert sorted(map(tuple, q["cells"])) == sorted(tuple(GRID[c]) for c in (12, 13, 14, 15))
    assert last["t"] <= q["t"] <= last["t"] + 3.0 + 0.5
    assert "Quarto! The row nearest the camera: all tall." in speaker.said
    assert speaker.closed


def test_events_file_has_one_json_object_per_line_with_the_interface_keys(tmp_path):
    _, _, evs, _ = watch(game_script(), tmp_path)
    for e in evs:
        assert isinstance(e["t"], (int, float)) and isinstance(e["event"], str)
    for e in of(evs, "placed"):
        assert set(e) >= {"t", "event", "piece", "cell_center"}
        assert len(e["piece"]) == 1 and e["piece"] in "0123456789ABCDEF"
        assert len(e["cell_center"]) == 2
    for e in of(evs, "quarto"):
        assert len(e["cells"]) == 4 and all(len(c) == 2 for c in e["cells"])
    assert evs[0]["event"] == "started" and evs[-1]["event"] == "ended"


def test_a_claim_in_time_means_no_announcement(tmp_path):
    s = game_script()
    settle_last = s.t - 5.0 + 0.0  # the last piece appears when the tail begins
    w, speaker, evs, _ = watch(s, tmp_path, actions=[(settle_last + 1.5, ("claim",))])
    assert of(evs, "quarto") == []
    (claim,) = of(evs, "claim")
    assert claim["valid"] and claim["window"] == "placer"
    assert any(t.startswith("Quarto claimed!") for t in speaker.said)
    assert of(evs, "ended")[0]["result"] == "won"
    rec = load_game(str(tmp_path / "game.txt"))
    assert rec.ended and len(rec.placements) == 7


def test_grace_zero_announces_as_soon_as_the_piece_has_settled(tmp_path):
    s = game_script()
    opts = WatchOptions(grace=0.0, record_path=str(tmp_path / "g.txt"))
    _, _, evs, _ = watch(s, tmp_path, options=opts)
    (q,) = of(evs, "quarto")
    assert q["t"] - of(evs, "placed")[-1]["t"] <= 0.5


def test_when_play_goes_on_the_unclaimed_line_loses_its_value(tmp_path):
    moves = MOVES + [(6, "2")]
    _, speaker, evs, _ = watch(game_script(moves), tmp_path)
    assert len(of(evs, "quarto")) == 1 and len(of(evs, "line_lost")) == 1
    assert of(evs, "line_lost")[0]["t"] >= of(evs, "quarto")[0]["t"]
    assert "Play went on: that Quarto no longer counts." in speaker.said
    rec = load_game(str(tmp_path / "game.txt"))
    assert len(rec.placements) == 8  # the game goes on, and is recorded


def test_source_end_still_makes_the_pending_announcement(tmp_path):
    s = game_script(tail=1.0)  # the video stops 1 s after the last piece, grace is 3 s
    _, speaker, evs, _ = watch(s, tmp_path)
    (q,) = of(evs, "quarto")
    assert q["t"] == pytest.approx(s.t - 0.1)
    assert any(t.startswith("Quarto!") for t in speaker.said)


def test_flagged_cases_are_spoken_and_do_not_corrupt_the_game(tmp_path):
    s = Script()
    s.hold("..../..../..../....", 1).hand(1).hold("..../..../..../1...", 2)
    s.hand(1).hold("..../..../..../.1..", 2)  # moved
    s.hand(1).hold("..../..../..../1...", 2)  # back: in order again
    s.hand(1).hold("..../..../..../1.23", 2)  # two new at once
    s.hand(1).hold("..../..../..../1.2.", 2)  # one taken away again: 2 is a placement now
    _, speaker, evs, _ = watch(s, tmp_path)
    assert [f["kind"] for f in of(evs, "flagged")] == ["moved", "two_new"]
    assert [e["piece"] for e in of(evs, "placed")] == ["1", "2"]
    assert any("has moved" in t for t in speaker.said)
    assert any("Two new pieces at once" in t for t in speaker.said)
    rec = load_game(str(tmp_path / "game.txt"))
    assert rec.board() == board("..../..../..../1.2.")


def test_the_record_is_saved_after_every_move_and_resume_continues(tmp_path):
    first = game_script(MOVES[:3])
    watch(first, tmp_path)
    path = tmp_path / "game.txt"
    text = path.read_text()
    assert GameRecord.from_text(text).position().board_text() == "8.../..../..../1..."  # moves known so far
    game = load_game(str(path))
    assert game.board() == board("8.../..../..../13..")
    # the camera now numbers the grid the other way round; the rest of the game follows
    s = Script()
    cells = game.board()
    s.hold(cells, 1.0, perm=GRID_PERMS[2])
    for c, p in MOVES[3:]:
        s.hand(1.0, cells)
        cells = list(cells)
        cells[c] = int(p, 16)
        s.hold(cells, 4.0, perm=GRID_PERMS[2])
    opts = WatchOptions(record_path=str(path), resumed_from=str(path))
    _, speaker, evs, _ = watch(s, tmp_path, options=opts, game=game)
    assert [e["piece"] for e in of(evs, "placed")] == ["6", "5", "0", "F"]
    assert len(of(evs, "quarto")) == 1
    assert load_game(str(path)).board() == cells


def test_resume_with_a_board_that_disagrees_says_so(tmp_path):
    watch(game_script(MOVES[:3]), tmp_path)
    game = load_game(str(tmp_path / "game.txt"))
    s = Script().hold("..../..../..../1...", 2)
    opts = WatchOptions(record_path=str(tmp_path / "game.txt"), resumed_from="game.txt")
    with pytest.raises(ResumeMismatch, match="does not agree with 'game.txt'"):
        watch(s, tmp_path, options=opts, game=game)


def test_a_camera_that_disconnects_is_retried_with_backoff_and_the_game_goes_on(tmp_path):
    s = game_script()
    src = ScriptedSource(s, live=True, losses={40: 3})
    clock = FakeClock()
    _, speaker, evs, _ = watch(s, tmp_path, source=src, clock=clock)
    assert of(evs, "camera_lost") and of(evs, "camera_back")[0]["tries"] == 4
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0]
    assert "The camera is lost. Trying again." in speaker.said
    assert len(of(evs, "placed")) == 7 and len(of(evs, "quarto")) == 1


def test_undo_and_correct_from_the_keys(tmp_path):
    s = Script().hold("..../..../..../....", 1).hand(1).hold("..../..../..../3...", 3)
    acts = [(3.0, ("correct", 12, 7)), (3.5, ("undo",))]
    w, _, evs, _ = watch(s, tmp_path, actions=acts)
    assert of(evs, "corrected")[0]["piece"] == "7"
    assert of(evs, "undo")[0]["piece"] == "7"
    # the piece was not taken off the board: it is seen again, as corrected, and placed again
    assert [e["piece"] for e in of(evs, "placed")] == ["3", "7"]
    assert w.game.board()[12] == 7 and of(evs, "flagged") == []


def test_announcements_in_other_languages(tmp_path):
    expected = {"ru": "Кварто! Ближний к камере ряд: все высокие.",
                "hu": "Quarto! A kamerához legközelebbi sor: mind a négy magas.",
                "lv": "Kvarto! Kamerai tuvākā rinda: visas augstas."}
    for lang, sentence in expected.items():
        opts = WatchOptions(language=lang, record_path=str(tmp_path / f"{lang}.txt"))
        _, speaker, evs, _ = watch(game_script(), tmp_path, options=opts)
        assert sentence in speaker.said


class SyncCoach:
    """The coach without its thread: answers at once (the real one answers later)."""

    def __init__(self):
        from quarto_assist.coaching import advise

        self.advise = advise
        self.answers = []
        self.asked = []

    def ask(self, key, position, variant):
        self.asked.append(str(position))
        self.answers.append(self.advise(position, variant, 0.3, key))

    def poll(self):
        out, self.answers = self.answers, []
        return out

    def close(self):
        pass


def test_coach_says_what_to_hand_over_warns_about_poison_and_where_to_place(tmp_path):
    moves = MOVES[:6]  # 1 3 5 on the near row: any tall piece handed over now loses
    s = game_script(moves)
    opts = WatchOptions(coach=True, record_path=str(tmp_path / "c.txt"), pixels=False)
    coach = SyncCoach()
    speaker = FakeSpeaker()
    log = EventLog(str(tmp_path / "coach.jsonl"))
    w = Watcher(ScriptedSource(s), ScriptedStep(s), speaker, log, opts, clock=FakeClock(), coach=coach,
                out=[].append)
    orig = w.process

    def process(t, r, image=None):
        orig(t, r, image)
        if abs(t - (s.t - 1.0)) < 1e-6:  # the players say which piece was handed over
            w.act(("given", 0xF))
            told.append(w.tracker.given)  # the tracker reads the next piece placed as this one
            orig(t, r, image)

    told = []
    w.process = process
    w.run()
    log.close()
    evs = [json.loads(x) for x in (tmp_path / "coach.jsonl").read_text().splitlines()]
    gives = [e for e in of(evs, "coach") if e["advice"] == "give"]
    assert len(gives) == 7  # at the start and after each of the 6 placements
    last = gives[-1]
    assert last["give"] in "2479ABCDEF" and last["give"] not in "79BDF"  # a piece still free, not a tall one
    assert {"7", "9", "B", "D", "F"} <= set(last["poison"])  # tall pieces complete the near row
    assert any("Do not hand over the" in t and "your opponent would win at once" in t for t in speaker.said)
    (place,) = [e for e in of(evs, "coach") if e["advice"] == "place"]
    assert place["place"] == list(GRID[15]) and place["value"] == "win"
    assert ("Place the tall dark square hollow piece where the row nearest the camera meets "
            "the column on the right. That makes a Quarto: then call it!") in speaker.said
    assert told == [0xF]


def test_the_coach_waits_while_a_line_can_be_claimed_and_plays_on_after_nobody_did(tmp_path):
    """F completes the near row (all tall) and nobody calls it: while it can be claimed
    the coach advises nothing and its marks of the turn before come down (the referee
    calls the line); once play goes on the line has lost its value (the official rules)
    and the coach advises again on the board that still holds it. It fell silent for the
    rest of such a game before: the engine refused a board with a winning line."""
    moves = MOVES + [(1, "9"), (10, "C")]
    s = game_script(moves)
    opts = WatchOptions(coach=True, record_path=str(tmp_path / "c.txt"), pixels=False)
    coach = SyncCoach()
    log = EventLog(str(tmp_path / "coach.jsonl"))
    w = Watcher(ScriptedSource(s), ScriptedStep(s), FakeSpeaker(), log, opts, clock=FakeClock(), coach=coach,
                out=[].append)
    marks = []
    orig = w.process

    def process(t, r, image=None):
        orig(t, r, image)
        marks.append((t, w.view.coach_give, list(w.view.coach_poison)))

    w.process = process
    w.run()
    log.close()
    evs = [json.loads(x) for x in (tmp_path / "coach.jsonl").read_text().splitlines()]
    placed = {e["piece"]: e["t"] for e in of(evs, "placed")}
    gives = [e for e in of(evs, "coach") if e["advice"] == "give"]
    assert of(evs, "quarto") and of(evs, "line_lost")
    # one give advice at the start and after each placement but F's
    assert len(gives) == 1 + len(moves) - 1
    assert not [e for e in gives if placed["F"] <= e["t"] < placed["9"]]
    # from when the watch took F in (it reports the time F was first seen still)
    assert not [m for m in marks if placed["F"] + 1.0 <= m[0] < placed["9"] and (m[1] is not None or m[2])]
    after = [e for e in gives if e["t"] >= placed["9"]]
    assert len(after) == 2
    board_pieces = {p for _, p in moves}
    assert all(e["give"] not in board_pieces and e["value"] in ("win", "draw", "loss") for e in after)


def test_clearing_the_board_starts_a_new_game_in_a_new_record(tmp_path):
    s = game_script(MOVES[:3])
    s.hand(1.0).hold("..../..../..../....", 2.0).hand(1.0).hold("..../..../..../..A.", 2.0)
    w, speaker, evs, _ = watch(s, tmp_path)
    (ng,) = of(evs, "new_game")
    assert ng["record"].endswith("game-game2.txt")
    assert "The board is clear: a new game." in speaker.said
    assert load_game(str(tmp_path / "game.txt")).board() == board("8.../..../..../13..")
    assert load_game(ng["record"]).board() == board("..../..../..../..A.")
    assert of(evs, "flagged") == []


def test_a_piece_placed_just_before_the_video_ends_is_still_counted_and_called(tmp_path):
    s = game_script(tail=0.3)  # the last piece is in view 0.3 s, less than the settle time
    _, speaker, evs, _ = watch(s, tmp_path)
    assert [e["piece"] for e in of(evs, "placed")][-1] == "F"
    assert len(of(evs, "quarto")) == 1


def test_the_coach_thinks_in_its_own_process_and_never_stalls_the_caller():
    import time

    from engine.position import Position
    from engine.rules import CLASSIC
    from quarto_assist.coaching import Coach

    coach = Coach(time_limit=1.0)
    try:
        t0 = time.perf_counter()
        coach.ask(("give", 6), Position.parse("8.6./.0../..../135. -"), CLASSIC)
        assert time.perf_counter() - t0 < 0.2
        (a,) = coach.wait(60.0)
        assert a.key == ("give", 6) and a.give is not None and a.error == ""
        assert {7, 9, 11, 13, 15} <= set(a.poison)
    finally:
        coach.close()


def _with_tracker_events(tmp_path, script):
    """A session fed a tracker's events as scripted (``{t: [TrackEvent]}``), at those times:
    ``(watcher, events written, lines printed)``."""
    from watch_fakes import reading

    class ScriptedTracker:
        issues, centers = [], GRID

        def update(self, t, r, image=None):
            return script.get(t, [])

        def belief(self):  # every tracker says how sure it is of each piece: here, sure
            return {}

    log = EventLog(str(tmp_path / "ev.jsonl"))
    lines = []
    w = Watcher(None, None, FakeSpeaker(), log, WatchOptions(record_path=str(tmp_path / "game.txt")),
                clock=FakeClock(), out=lines.append)
    w.tracker = ScriptedTracker()
    for t in sorted(script):
        w.process(t, reading([None] * 16))
    log.close()
    return w, [json.loads(ln) for ln in (tmp_path / "ev.jsonl").read_text().splitlines()], lines


def test_a_piece_read_again_is_changed_in_the_record_the_events_and_for_the_referee(tmp_path):
    from quarto_assist.tracker import TrackEvent

    # what the pixel tracker reports when a new piece corrects an old one
    w, evs, lines = _with_tracker_events(tmp_path, {
        1.0: [TrackEvent(1.0, "board_found", board=tuple([None] * 16))],
        2.0: [TrackEvent(2.0, "placed", cell=12, piece=0xD)],
        3.0: [TrackEvent(3.0, "reread", changes={12: (0xD, 0xC)}), TrackEvent(3.0, "placed", cell=13, piece=0xD)]})
    (rr,) = of(evs, "reread")
    assert (rr["piece"], rr["was"], rr["cell_center"]) == ("C", "D", list(GRID[12]))
    assert load_game(str(tmp_path / "game.txt")).board()[12:14] == [0xC, 0xD]
    assert w.referee.cells[12] == 0xC
    assert any("holds C, not D" in ln for ln in lines)


def test_a_piece_seen_standing_beside_where_it_was_put_is_moved_in_the_record_the_events_and_for_the_referee(tmp_path):
    from quarto_assist.tracker import TrackEvent

    # a lamp behind the board: the piece was put on its shadow, in front
    w, evs, lines = _with_tracker_events(tmp_path, {
        1.0: [TrackEvent(1.0, "board_found", board=tuple([None] * 16))],
        2.0: [TrackEvent(2.0, "placed", cell=12, piece=0x3)],
        3.0: [TrackEvent(3.0, "placed", cell=14, piece=0x5)],
        4.0: [TrackEvent(4.0, "relocated", cell=8, piece=0x3, changes={12: (0x3, None), 8: (None, 0x3)}),
              TrackEvent(4.0, "placed", cell=12, piece=0x9)]})
    (mv,) = of(evs, "relocated")
    assert (mv["piece"], mv["was"], mv["cell_center"], mv["was_center"]) == ("3", "3", list(GRID[8]), list(GRID[12]))
    game = load_game(str(tmp_path / "game.txt"))
    board = game.board()
    assert (board[8], board[12], board[14]) == (0x3, 0x9, 0x5)
    assert [(p.cell, p.piece) for p in game.placements] == [(8, 0x3), (14, 0x5), (12, 0x9)]  # its turn kept
    assert (w.referee.cells[8], w.referee.cells[12]) == (0x3, 0x9)
    assert any("3 stands on" in ln and "a new piece came on" in ln for ln in lines)


def test_without_a_board_in_view_the_user_is_told_what_to_show_once_and_at_the_end(tmp_path):
    s = Script(fps=10).lost(8.0)
    s.hold([None] * 16, 2.0)
    w, speaker, evs, lines = watch(s, tmp_path)
    told = [ln for ln in lines if "no board in view yet" in ln]
    assert len(told) == 1 and "whole board" in told[0] and told[0].strip().startswith("5.00s")
    assert of(evs, "board_found") and of(evs, "ended")[0]["board_seen"] is True
    assert not any("no board was seen" in ln for ln in lines)

    w, speaker, evs, lines = watch(Script(fps=10).lost(3.0), tmp_path)
    assert not any("no board in view yet" in ln for ln in lines)  # too soon to nag
    assert any("no board was seen in the 30 frames" in ln for ln in lines)
    assert of(evs, "ended")[0]["board_seen"] is False and not speaker.said


def test_a_quarto_the_camera_is_not_sure_of_is_shown_not_announced(tmp_path, monkeypatch):
    from quarto_assist.tracker import Tracker

    # the last piece (F) is read tall, but only just: the line may not be there
    monkeypatch.setattr(Tracker, "belief", lambda self: {15: np.array([0.45, 0.99, 0.99, 0.99])})
    opts = WatchOptions(record_path=str(tmp_path / "game.txt"), min_confidence=0.5)
    w, speaker, evs, lines = watch(game_script(), tmp_path, options=opts)
    assert of(evs, "quarto") == [] and not any("Quarto!" in s for s in speaker.said)
    (u,) = of(evs, "quarto_unsure")
    assert u["attributes"] == ["tall"] and u["confidence"] == 0.45
    assert any("may be a Quarto (all tall)" in ln and "check it" in ln for ln in lines)
    assert len(of(evs, "placed")) == 7  # the game itself goes on as read
    assert w.view.unsure == [[12, 13, 14, 15]] and w.view.winning == []  # drawn as a line to check


def test_a_piece_the_camera_is_unsure_of_is_marked_to_check_in_the_event_and_the_window(tmp_path, monkeypatch):
    from quarto_assist.tracker import Tracker

    # the camera is unsure whether F (on d4) is tall; every other piece it reads surely
    monkeypatch.setattr(Tracker, "belief", lambda self: {15: np.array([0.45, 0.99, 0.99, 0.99])})
    w, speaker, evs, lines = watch(game_script(), tmp_path)
    placed = of(evs, "placed")
    assert [e.get("unsure") for e in placed if e["cell"] == "d4"] == [["tall"]]
    assert all("unsure" not in e for e in placed if e["cell"] != "d4")
    assert w.view.doubtful == {15: ["tall"]}
    # the user checks it and says it is F: the tracker drops its evidence (the user's word
    # is final, PixelTracker.correct), and the mark goes though the board did not change
    monkeypatch.setattr(Tracker, "belief", lambda self: {})
    w.act(("correct", 15, 15))
    w.process(w.t + 0.1, w.view.reading)
    assert w.view.doubtful == {}


def test_a_camera_straight_above_is_told_once_to_tilt_and_the_game_goes_on(tmp_path):
    from tests.vision.synthetic import board_homography

    s = game_script()
    for r in s.readings:
        r.homography = board_homography(3.0, distance=3.5)
    src = ScriptedSource(s)
    src.image = np.zeros((720, 1280, 3), np.uint8)
    w, speaker, evs, lines = watch(s, tmp_path, source=src)
    told = of(evs, "view_advice")
    assert [e["code"] for e in told] == ["steep"] and told[0]["t"] == pytest.approx(0.0)
    assert sum("camera: the camera looks nearly straight down" in ln for ln in lines) == 1
    assert not any("straight down" in said for said in speaker.said)  # shown, not spoken
    assert of(evs, "quarto")  # the game is followed as before


def test_a_board_too_bright_for_the_camera_is_told_once_and_the_game_goes_on(tmp_path):
    # game92: a white board under a ceiling light, a third of it pure white in the picture;
    # its white pieces could not be seen, and nobody was told why
    from tests.vision.synthetic import board_homography

    s = game_script()
    for r in s.readings:
        r.homography = board_homography(35.0)
    src = ScriptedSource(s)
    src.image = np.full((720, 1280, 3), 255, np.uint8)
    w, speaker, evs, lines = watch(s, tmp_path, source=src)
    told = of(evs, "view_advice")
    assert [e["code"] for e in told] == ["bright"] and told[0]["value"] == pytest.approx(1.0)
    assert sum("too bright" in ln for ln in lines) == 1
    assert "board too bright" in " ".join(w.view.setup)
    assert of(evs, "quarto")


def test_a_camera_that_sees_the_board_from_the_side_gets_no_advice(tmp_path):
    from tests.vision.synthetic import board_homography

    s = game_script()
    for r in s.readings:
        r.homography = board_homography(35.0)
    src = ScriptedSource(s)
    src.image = np.zeros((720, 1280, 3), np.uint8)
    w, speaker, evs, lines = watch(s, tmp_path, source=src)
    assert not of(evs, "view_advice") and of(evs, "quarto")


def test_a_game_whose_pieces_all_read_light_gets_the_advice_to_calibrate_once(tmp_path):
    # six light pieces in a row (a set has eight of each): the camera probably cannot tell
    # the set's two colours apart; the watch says what would help, once, and plays on
    light = [(0, "0"), (1, "1"), (2, "4"), (3, "5"), (4, "8"), (5, "9"), (6, "C")]
    w, speaker, evs, lines = watch(game_script(moves=light), tmp_path)
    assert len(of(evs, "placed")) == 7
    (a,) = of(evs, "advice")
    assert a["kind"] == "calibrate_colours" and "quarto-assist calibrate" in a["text"]
    placed_t = [e["t"] for e in of(evs, "placed")]
    assert placed_t[5] <= a["t"] < placed_t[6]  # at the sixth piece
    assert sum("every piece so far reads light" in ln for ln in lines) == 1


def test_a_game_with_both_colours_gets_no_advice_to_calibrate(tmp_path):
    w, speaker, evs, lines = watch(game_script(), tmp_path)  # MOVES: light and dark pieces
    assert of(evs, "advice") == []


def test_a_board_moved_beyond_matching_is_told_once_and_the_game_kept(tmp_path):
    # two pieces on opposite corners, then the board pushed aside and turned, both pieces
    # misread: which way round it stands cannot be told from the pieces. The player hears so
    # once (not every frame), and the game stands as it was
    s = game_script(moves=[(0, "A"), (15, "5")], tail=2.0)
    moved = board("2.../..../..../...4")
    s.hold(moved, 6.0, centers=GRID + np.array([180.0, 60.0]), perm=GRID_PERMS[2])
    w, speaker, evs, lines = watch(s, tmp_path)
    told = [x for x in speaker.said if "cannot tell which way round" in x]
    assert len(told) == 1
    assert len(of(evs, "board_unmatched")) == 1
    assert w.game.board()[0] == 0xA and w.game.board()[15] == 0x5
