"""Speech: real synthesis once (espeak-ng through pyttsx3, measured with sox), and the
fallback to text with a single warning."""

import os
import shutil
import subprocess

import pytest

from quarto_assist.phrases import LANGUAGES, Phrases, _TEXT
from quarto_assist.speech import SilentSpeaker, SpeechUnavailable, make_speaker, speak_to_file


@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                    reason="needs espeak-ng and sox (apt-get install espeak-ng sox)")
def test_the_announcement_is_really_spoken_in_each_language(tmp_path):
    for lang in LANGUAGES:
        text = Phrases(lang).quarto(("row", 0), 0b10)
        wav = tmp_path / f"{lang}.wav"
        speak_to_file(text, str(wav), lang)
        seconds = float(subprocess.run(["sox", "--i", "-D", str(wav)], capture_output=True, text=True,
                                       check=True).stdout)
        assert 1.5 < seconds < 8.0, (lang, seconds)  # a sentence, not silence or a stutter


def test_without_a_speech_engine_one_clear_warning_then_text(monkeypatch):
    import quarto_assist.speech as sp

    def broken(*a, **k):
        raise SpeechUnavailable("no audio player: pyttsx3 plays speech on Linux with 'aplay'")

    monkeypatch.setattr(sp, "Pyttsx3Speaker", broken)
    warnings = []
    s = make_speaker(True, "en", None, None, warnings.append)
    assert isinstance(s, SilentSpeaker)
    assert len(warnings) == 1 and warnings[0].startswith("WARNING no speech:") and "text only" in warnings[0]
    s.say("Quarto!")  # no error, nothing more said
    assert len(warnings) == 1


def test_no_speech_option_is_silent_without_warning():
    warnings = []
    assert isinstance(make_speaker(False, "en", None, None, warnings.append), SilentSpeaker)
    assert warnings == []


def test_every_sentence_exists_in_every_language():
    keys = set(_TEXT["en"])
    for lang in LANGUAGES:
        assert set(_TEXT[lang]) == keys, lang
        p = Phrases(lang)
        for kind in ("row", "col", "slant_nr", "slant_nl"):
            assert len({p.place((kind, k)) for k in range(4)}) == 4
        assert len({p.place(("block", b)) for b in _TEXT[lang]["block_pos"]}) == 9


def _stand_in_player(tmp_path, monkeypatch):
    """A stand-in audio player ('aplay') on PATH that copies what it is asked to play into
    the folder returned, numbered in order."""
    played = tmp_path / "played"
    played.mkdir()
    player = tmp_path / "bin" / "aplay"
    player.parent.mkdir()
    player.write_text(f'#!/bin/sh\nfor a; do f="$a"; done\nn=$(ls {played} | wc -l)\ncp "$f" {played}/$(printf %03d $n).wav\n')
    player.chmod(0o755)
    monkeypatch.setenv("PATH", f"{player.parent}:{os.environ['PATH']}")
    return played


@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                    reason="needs espeak-ng and sox (apt-get install espeak-ng sox)")
def test_the_speaker_never_blocks_and_speaks_everything_in_order(tmp_path, monkeypatch):
    import time

    from quarto_assist.speech import Pyttsx3Speaker

    played = _stand_in_player(tmp_path, monkeypatch)
    sp = Pyttsx3Speaker("ru")
    t0 = time.perf_counter()
    sp.say(Phrases("ru").quarto(("row", 0), 0b10))
    for key in ("line_lost", "draw", "two_new"):  # said back to back: none may be dropped
        sp.say(Phrases("ru").say(key))
    assert time.perf_counter() - t0 < 0.5  # the video loop goes on at once (speaking takes seconds)
    sp.close(30.0)
    wavs = sorted(played.iterdir())
    assert len(wavs) == 4
    secs = [float(subprocess.run(["sox", "--i", "-D", str(w)], capture_output=True, text=True).stdout) for w in wavs]
    assert all(s > 1.0 for s in secs), secs


@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                    reason="needs espeak-ng and sox (apt-get install espeak-ng sox)")
def test_spoken_and_kept_as_files_at_once_every_sentence_is_both(tmp_path, monkeypatch):
    # the README's demo speaks and writes --speech-wav files: two workers on one espeak,
    # which is not thread-safe (sentences were lost, and the demo once crashed at exit)
    played = _stand_in_player(tmp_path, monkeypatch)
    kept = tmp_path / "kept"
    s = make_speaker(True, "en", None, None, print, wav_folder=str(kept))
    sentences = [Phrases("en").quarto(("row", k % 4), 1 << (k % 4)) for k in range(10)]
    for text in sentences:
        s.say(text)
    s.close(60.0)
    for folder in (played, kept):
        wavs = sorted(folder.iterdir())
        assert len(wavs) == len(sentences), folder.name
        secs = [float(subprocess.run(["sox", "--i", "-D", str(w)], capture_output=True, text=True).stdout)
                for w in wavs]
        assert all(t > 1.0 for t in secs), (folder.name, secs)


class _FlakyEngine:
    """A stand-in for pyttsx3's engine whose first file never appears (the espeak driver
    now and then finishes a file late or not at all)."""

    def __init__(self, misses):
        self.misses, self.calls = misses, 0

    def save_to_file(self, text, path):
        self.path = path

    def runAndWait(self):
        self.calls += 1
        if self.calls > self.misses:
            with open(self.path, "wb") as f:
                f.write(b"RIFF")


def test_a_speech_file_the_engine_did_not_write_is_made_again_or_reported(monkeypatch, tmp_path):
    import quarto_assist.speech as sp

    engine = _FlakyEngine(misses=1)
    monkeypatch.setattr(sp, "_engine", lambda *a: engine)
    speak_to_file("Quarto!", str(tmp_path / "a.wav"))
    assert (tmp_path / "a.wav").exists() and engine.calls == 2
    engine = _FlakyEngine(misses=5)
    with pytest.raises(OSError, match="wrote no file"):
        speak_to_file("Quarto!", str(tmp_path / "b.wav"))
