"""Speech: a small interface, a pyttsx3 speaker on a worker thread, and a fake.

``Speaker.say(text)`` returns at once; the words are spoken in order on a worker thread
so the video loop never waits for them. ``close(timeout)`` lets the queue drain (the
last announcement of a replay is still spoken) and stops the worker.
"""

from __future__ import annotations

import atexit
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Protocol


_KEEP_ALIVE: list = []
#: espeak is one state per process and not thread-safe, and pyttsx3 hands every caller the
#: same engine: every use of it (the speaker's and the speech files') goes through this lock
_ENGINE_LOCK = threading.Lock()
#: (language, voice) -> the engine's voice id, looked up once (not for every sentence)
_VOICE_IDS: dict = {}


@atexit.register
def _let_go_of_the_engine() -> None:
    """Drop the engine while the interpreter is whole: left to the end of shutdown, its
    driver's clean-up runs with half the modules gone (an error printed at exit)."""
    if _ENGINE_LOCK.acquire(timeout=5.0):  # not while a sentence is being synthesised
        _KEEP_ALIVE.clear()
        _ENGINE_LOCK.release()


class SpeechUnavailable(RuntimeError):
    """No speech engine here; the message says why (shown once, then text only)."""


class Speaker(Protocol):
    def say(self, text: str) -> None: ...

    def close(self, timeout: float = 30.0) -> None: ...


class SilentSpeaker:
    """Speaks nothing (``--no-speech``, or no speech engine): the app shows the text."""

    def say(self, text: str) -> None:
        pass

    def close(self, timeout: float = 30.0) -> None:
        pass


class FakeSpeaker:
    """Records what would have been said, for tests."""

    def __init__(self):
        self.said: list[str] = []
        self.closed = False

    def say(self, text: str) -> None:
        self.said.append(text)

    def close(self, timeout: float = 30.0) -> None:
        self.closed = True


def _pick_voice(engine, language: str, voice: str | None):
    """The pyttsx3 voice id for ``voice`` (an id or part of a name) or, failing that,
    the first voice of ``language``."""
    voices = engine.getProperty("voices") or []
    if voice:
        for v in voices:
            if voice == v.id or voice.lower() in (v.name or "").lower():
                return v.id
        raise SpeechUnavailable(f"no speech voice matches {voice!r}")

    def langs(v):
        out = []
        for lang in getattr(v, "languages", None) or []:
            if isinstance(lang, bytes):
                lang = lang.decode("ascii", "ignore").lstrip("\x05")
            out.append(str(lang).lower())
        return out

    for exact in (True, False):
        for v in voices:
            for lang in langs(v):
                if (lang == language) if exact else lang.split("-")[0] == language:
                    return v.id
    for v in voices:  # espeak ids look like 'zle/ru'
        if str(v.id).lower().rsplit("/", 1)[-1] == language:
            return v.id
    return None


def _audio_player() -> list[str] | None:
    """A command that plays a WAV file given after it, or ``None``."""
    for cmd in (["aplay", "-q"], ["paplay"], ["pw-play"], ["ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"]):
        if shutil.which(cmd[0]):
            return cmd
    return None


def _quiet_espeak_driver() -> None:
    """pyttsx3's espeak driver prints "Audio saved to ..." for every file it writes; keep
    the terminal for the referee's own lines."""
    try:
        import pyttsx3.drivers.espeak as drv
    except Exception:
        return
    drv.print = lambda *a, **k: None


class Pyttsx3Speaker:
    """Speaks through pyttsx3 (espeak-ng on Linux) on a worker thread.

    On Linux each sentence is synthesised to a temporary WAV file and played with the
    system's audio player: pyttsx3's own espeak playback sometimes drops a sentence
    said right after another (it came out empty in our tests), its file output does not.
    Raises :class:`SpeechUnavailable` when there is no engine, no voice for the
    language, or (Linux) no audio player.
    """

    def __init__(self, language: str = "en", voice: str | None = None, rate: int | None = None,
                 start_timeout: float = 10.0):
        try:
            import pyttsx3  # noqa: F401
        except ImportError as e:
            raise SpeechUnavailable(f"pyttsx3 is not installed ({e})") from None
        self._player = None
        self._player_failed = False
        if sys.platform.startswith("linux"):
            self._player = _audio_player()
            if self._player is None:
                raise SpeechUnavailable("no audio player to speak through (install alsa-utils for 'aplay')")
        self.language, self.voice, self.rate = language, voice, rate
        self._q: queue.Queue = queue.Queue()
        self._ready = threading.Event()
        self._error: str | None = None
        self._thread = threading.Thread(target=self._work, name="speech", daemon=True)
        self._thread.start()
        if not self._ready.wait(start_timeout):
            raise SpeechUnavailable("the speech engine did not start")
        if self._error:
            raise SpeechUnavailable(self._error)

    def _open(self) -> None:
        with _ENGINE_LOCK:
            _engine(self.language, self.voice, self.rate)  # raises when there is no voice for the language

    def _speak(self, text: str) -> None:
        if self._player is None:
            with _ENGINE_LOCK:
                engine = _engine(self.language, self.voice, self.rate)
                engine.say(text)
                engine.runAndWait()
            return
        fd, wav = tempfile.mkstemp(prefix="quarto-say-", suffix=".wav")
        os.close(fd)
        try:
            speak_to_file(text, wav, self.language, self.voice, self.rate)
            done = subprocess.run(self._player + [wav], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, check=False)
            if done.returncode != 0 and not self._player_failed:
                # No sound card (a server, a container): say so once; the referee's
                # lines still reach the screen and terminal.
                self._player_failed = True
                why = (done.stderr or "").strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
                print(f"warning: cannot play speech through {self._player[0]} ({why[0]}); "
                      "announcements are shown as text only (--speech-wav DIR keeps them as sound files)",
                      file=sys.stderr)
        finally:
            os.unlink(wav)

    def _work(self) -> None:
        try:
            self._open()
        except Exception as e:  # any failure of a third-party engine means: no speech
            self._error = str(e) or type(e).__name__
            self._ready.set()
            return
        self._ready.set()
        while True:
            text = self._q.get()
            if text is None:
                return
            try:
                self._speak(text)
            except Exception as e:
                print(f"speech failed: {e}", file=sys.stderr)

    def say(self, text: str) -> None:
        self._q.put(text)

    def close(self, timeout: float = 30.0) -> None:
        self._q.put(None)
        self._thread.join(timeout)


class WavSpeaker:
    """Writes each sentence, synthesised by pyttsx3, to ``folder/NNN.wav`` on a worker
    thread: speech you can keep or play later, with no sound card (``--speech-wav``)."""

    def __init__(self, folder: str, language: str = "en", voice: str | None = None, rate: int | None = None):
        try:
            import pyttsx3  # noqa: F401
        except ImportError as e:
            raise SpeechUnavailable(f"pyttsx3 is not installed ({e})") from None
        os.makedirs(folder, exist_ok=True)
        self.folder = folder
        self.language, self.voice, self.rate = language, voice, rate
        self.files: list[str] = []
        self._q: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="speech-wav", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        n = 0
        while True:
            text = self._q.get()
            if text is None:
                return
            path = os.path.join(self.folder, f"{n:03d}.wav")
            n += 1
            try:
                speak_to_file(text, path, self.language, self.voice, self.rate)
                self.files.append(path)
            except Exception as e:  # a failing engine must not stop the referee
                print(f"speech to {path} failed: {e}", file=sys.stderr)

    def say(self, text: str) -> None:
        self._q.put(text)

    def close(self, timeout: float = 30.0) -> None:
        self._q.put(None)
        self._thread.join(timeout)


class TeeSpeaker:
    """Says everything through several speakers."""

    def __init__(self, speakers: list):
        self.speakers = speakers

    def say(self, text: str) -> None:
        for s in self.speakers:
            s.say(text)

    def close(self, timeout: float = 30.0) -> None:
        for s in self.speakers:
            s.close(timeout)


def _engine(language: str, voice: str | None, rate: int | None):
    """pyttsx3's engine set to the voice and rate asked for; call with ``_ENGINE_LOCK`` held
    (the engine is shared, so each use sets its own voice)."""
    import pyttsx3

    _quiet_espeak_driver()
    engine = pyttsx3.init()
    # pyttsx3 keeps its engines by weak reference and the espeak driver may call back after
    # runAndWait returns: keep the engine alive so that callback finds it
    _KEEP_ALIVE[:] = [engine]
    if (language, voice) not in _VOICE_IDS:
        _VOICE_IDS[language, voice] = _pick_voice(engine, language, voice)
    vid = _VOICE_IDS[language, voice]
    if vid is None:
        raise SpeechUnavailable(f"no speech voice for language {language!r}")
    engine.setProperty("voice", vid)
    if rate:
        engine.setProperty("rate", int(rate))
    return engine


def speak_to_file(text: str, path: str, language: str = "en", voice: str | None = None,
                  rate: int | None = None) -> None:
    """Synthesise ``text`` into a WAV file through pyttsx3 (no sound card needed). The
    engine is shared with the live speaker, and its espeak driver now and then finishes a
    file late or not at all (the demo's first WAV went missing in 1 of 4 runs, with the
    live speaker failing on a machine without a sound card): a file that is not there
    afterwards is synthesised once more, and if it is still not there, that is an error."""
    for _ in range(2):
        with _ENGINE_LOCK:
            engine = _engine(language, voice, rate)
            engine.save_to_file(text, path)
            engine.runAndWait()
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return
    raise OSError(f"the speech engine wrote no file for {text!r}")


def make_speaker(enabled: bool, language: str, voice: str | None, rate: int | None, warn,
                 wav_folder: str | None = None) -> Speaker:
    """The real speaker, or a silent one after one clear warning through ``warn``; with
    ``wav_folder`` every sentence is also written there as a WAV file."""
    speakers: list = []
    if enabled:
        try:
            speakers.append(Pyttsx3Speaker(language, voice, rate))
        except SpeechUnavailable as e:
            warn(f"WARNING no speech: {e}; announcements are shown as text only"
                 + (f" (and written to {wav_folder})" if wav_folder else ""))
    if wav_folder:
        try:
            speakers.append(WavSpeaker(wav_folder, language, voice, rate))
        except SpeechUnavailable as e:
            warn(f"WARNING no speech files: {e}")
    if not speakers:
        return SilentSpeaker()
    return speakers[0] if len(speakers) == 1 else TeeSpeaker(speakers)
