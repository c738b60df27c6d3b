"""The whole command on a real video file: frames decoded at the file's rate, vision's
analyze/track calls, tracker, referee, events file and record, through ``main(argv)``.

Vision is replaced by a colour-coded stand-in (each piece drawn as a disc whose grey
level encodes its digit; a hand is a red blob) so that this test checks the app, not the
recogniser. The rendered game videos are checked in test_watch_renders.py.
"""

import json
import shutil
import subprocess

import cv2
import numpy as np
import pytest

from quarto_assist import cli
from quarto_assist.commands import watch as watch_cmd
from vision.reading import BoardReading

W, H = 320, 240
CENTRES = np.array([[100 + 40 * (i % 4), 50 + 40 * (i // 4)] for i in range(16)], float)
MOVES = [(12, 1), (0, 8), (13, 3), (2, 6), (14, 5), (5, 0), (15, 15)]  # near row: 1 3 5 F, all tall


def draw(cells, hand: bool) -> np.ndarray:
    img = np.zeros((H, W, 3), np.uint8)
    for c, p in enumerate(cells):
        if p is not None:
            cv2.circle(img, tuple(int(v) for v in CENTRES[c]), 14, (40 + 12 * p,) * 3, -1)
    if hand:
        cv2.circle(img, (200, 150), 60, (0, 0, 255), -1)
    return img


def write_game(path, fps=10, hand=1.0, still=4.0, tail=5.0) -> list[float]:
    """Returns the time each piece is first visible with the hand gone."""
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (W, H))
    cells = [None] * 16
    n = 0
    settled = []

    def put(img, seconds):
        nonlocal n
        for _ in range(int(round(seconds * fps))):
            vw.write(img)
            n += 1

    put(draw(cells, False), 1.0)
    for i, (c, p) in enumerate(MOVES):
        put(draw(cells, True), hand)
        cells[c] = p
        settled.append(n / fps)
        put(draw(cells, False), tail if i == len(MOVES) - 1 else still)
    vw.release()
    return settled


class ColourVision:
    """Stand-in recogniser with vision's interface: reads the disc grey levels."""

    def __init__(self):
        self.calls = {"analyze": 0, "track": 0}

    def _read(self, frame):
        hand = bool((frame[:, :, 2] > 200).any() and (frame[:, :, 0] < 60).any() and
                    (frame[:, :, 2].astype(int) - frame[:, :, 0] > 150).any())
        cells = []
        for x, y in CENTRES.astype(int):
            v = int(frame[y, x, 0])
            cells.append(None if v < 20 else int(round((v - 40) / 12)))
        return BoardReading(found=True, reason="hand over the board" if hand else "",
                            corners=np.array([[80, 30], [260, 30], [260, 210], [80, 210]], float),
                            cell_centers=CENTRES.copy(), cells=cells, confidence=np.ones(16),
                            obstructed=np.full(16, hand), homography=np.eye(3))

    def analyze(self, frame):
        self.calls["analyze"] += 1
        return self._read(frame)

    def track(self, frame, previous):
        self.calls["track"] += 1
        return self._read(frame)


@pytest.fixture
def colour_vision(monkeypatch):
    vision = ColourVision()
    monkeypatch.setattr(watch_cmd, "build_recognizer", lambda profile: (vision, None))
    return vision


def test_watch_command_on_a_video_file_announces_the_missed_quarto(tmp_path, colour_vision, capsys):
    video = tmp_path / "game.avi"
    settled = write_game(video)
    events = tmp_path / "events.jsonl"
    record = tmp_path / "game.txt"
    rc = cli.main(["watch", str(video), "--no-window", "--no-speech", "--events", str(events),
                   "--record", str(record)])
    assert rc == 0
    evs = [json.loads(x) for x in events.read_text().splitlines()]
    placed = [e for e in evs if e["event"] == "placed"]
    assert [e["piece"] for e in placed] == ["1", "8", "3", "6", "5", "0", "F"]
    for e, t in zip(placed, settled):
        assert t <= e["t"] <= t + 0.2
    (q,) = [e for e in evs if e["event"] == "quarto"]
    assert q["attributes"] == ["tall"] and q["line"] == "the row nearest the camera"
    assert settled[-1] + 3.0 <= q["t"] <= settled[-1] + 3.0 + 1.5
    out = capsys.readouterr().out
    assert "Quarto! The row nearest the camera: all tall." in out  # printed as well as spoken
    # full analyses: the first, then at most two per hand visit (re-check after 0.5 s without a clear
    # view) and one closer look per placement; vision runs on every third frame only
    # (--vision-every 3): the pixels are looked at in every frame
    assert colour_vision.calls["analyze"] <= 1 + 3 * len(MOVES) and 100 < colour_vision.calls["track"] < 200
    assert "# watch: placed d4" in record.read_text()


def test_watch_says_whether_the_profile_knows_the_sets_colours(tmp_path, monkeypatch, capsys):
    from calibration.profile import default_profile

    video = tmp_path / "game.avi"
    write_game(video)
    for colours, said in [((90.0, 0.0, 2.0, 40.0, 8.0, -6.0, 5.0), "the set's two colours known (light L* 90, dark L* 40)"),
                          ((), "no set colours in it")]:
        profile = default_profile()
        profile.vision.pieces.set_colours = colours
        monkeypatch.setattr(watch_cmd, "build_recognizer", lambda path, p=profile: (ColourVision(), p))
        assert cli.main(["watch", str(video), "--no-window", "--no-speech", "--profile", "my-set.json",
                         "--record", str(tmp_path / "game.txt")]) == 0
        assert f"profile my-set.json: {said}" in capsys.readouterr().out


def test_a_replay_gives_the_same_events_however_fast_it_runs(tmp_path, colour_vision):
    video = tmp_path / "game.avi"
    write_game(video)
    outs = []
    for k in range(2):
        ev = tmp_path / f"e{k}.jsonl"
        args = ["watch", str(video), "--no-window", "--no-speech", "--events", str(ev), "--grace", "1.5",
                "--record", str(tmp_path / f"g{k}.txt")]
        assert cli.main(args) == 0
        outs.append([(e["t"], e["event"]) for e in map(json.loads, ev.read_text().splitlines())
                     if e["event"] not in ("started", "ended")])
    assert outs[0] == outs[1]
    assert ("quarto" in [k for _, k in outs[0]])


def test_folder_of_frames_at_fps_and_grace_zero(tmp_path, colour_vision):
    video = tmp_path / "game.avi"
    settled = write_game(video)
    frames = tmp_path / "frames"
    frames.mkdir()
    cap = cv2.VideoCapture(str(video))
    k = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        cv2.imwrite(str(frames / f"{k:04d}.png"), img)
        k += 1
    ev = tmp_path / "events.jsonl"
    assert cli.main(["watch", str(frames), "--fps", "10", "--grace", "0", "--no-window", "--no-speech",
                     "--events", str(ev), "--record", str(tmp_path / "g.txt")]) == 0
    evs = [json.loads(x) for x in ev.read_text().splitlines()]
    (q,) = [e for e in evs if e["event"] == "quarto"]
    assert settled[-1] <= q["t"] <= settled[-1] + 1.0


def test_a_folder_whose_files_cannot_be_read_says_so(tmp_path, colour_vision, capsys):
    """Files that are not images are skipped and named at the end; a folder of nothing
    but such files says that nothing was watched, instead of ending in silence."""
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "0000.png").write_bytes(b"")
    (frames / "0001.jpg").write_text("not a picture")
    args = ["watch", str(frames), "--no-window", "--no-speech", "--record", str(tmp_path / "g.txt")]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "2 file(s) of" in out and "0000.png, 0001.jpg" in out
    assert "no frame could be read" in out
    cv2.imwrite(str(frames / "0002.png"), draw([None] * 16, False))
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "2 file(s) of" in out and "no frame could be read" not in out


def test_resume_through_the_command_and_a_disagreeing_board(tmp_path, colour_vision, capsys):
    video = tmp_path / "game.avi"
    write_game(video)
    record = tmp_path / "game.txt"
    record.write_text("quarto-assist game 1\nvariant classic\nstart ..../..../..../.... -\n-:7\nd1:2\nc1:3\na2:4\n")
    rc = cli.main(["watch", str(video), "--no-window", "--no-speech", "--resume", str(record)])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR the board in view does not agree with") and "d1 should be 7 but the camera sees empty" in err


@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                    reason="needs espeak-ng and sox")
def test_the_missed_quarto_is_spoken_into_a_wav_file(tmp_path, colour_vision):
    video = tmp_path / "game.avi"
    write_game(video)
    wavs = tmp_path / "said"
    assert cli.main(["watch", str(video), "--no-window", "--speech-wav", str(wavs), "--no-speech",
                     "--record", str(tmp_path / "g.txt")]) == 0
    (wav,) = sorted(wavs.glob("*.wav"))  # the only thing said: the Quarto
    secs = float(subprocess.run(["sox", "--i", "-D", str(wav)], capture_output=True, text=True).stdout)
    assert 1.5 < secs < 8.0


def test_the_default_record_goes_to_the_data_folder_not_the_working_folder(tmp_path, colour_vision, monkeypatch):
    video = tmp_path / "game.avi"
    write_game(video)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert cli.main(["watch", str(video), "--no-window", "--no-speech"]) == 0
    assert list(work.iterdir()) == []
    (rec,) = (tmp_path / "data" / "quarto-assist" / "games").glob("quarto-game-*.txt")
    assert "# watch: placed d4" in rec.read_text()


def test_a_frame_vision_chokes_on_is_skipped_with_one_warning(tmp_path, colour_vision, capsys):
    video = tmp_path / "game.avi"
    write_game(video)
    real = colour_vision.track
    calls = {"n": 0}

    def flaky(frame, previous):
        calls["n"] += 1
        if calls["n"] % 25 == 0:
            raise RuntimeError("odd frame")
        return real(frame, previous)

    colour_vision.track = flaky
    ev = tmp_path / "e.jsonl"
    assert cli.main(["watch", str(video), "--no-window", "--no-speech", "--events", str(ev),
                     "--record", str(tmp_path / "g.txt")]) == 0
    err = capsys.readouterr().err
    assert err.count("WARNING vision failed") == 1
    assert len([1 for x in ev.read_text().splitlines() if '"placed"' in x]) == len(MOVES)
