"""``quarto-assist watch [SOURCE]``: follow a game, referee missed Quartos, coach.

SOURCE is a camera index (default 0), a video file, or a folder of frames read in name
order at ``--fps``. See docs/watch.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from engine.rules import Variant


#: the least probability, by the camera's reading, of an unclaimed line before it is
#: announced aloud (docs/watch.md, "Lines the camera is not sure of")
DEFAULT_SURE = 0.5


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="?", default="0", metavar="SOURCE",
                   help="camera index (default 0), video file, or folder of frames")
    p.add_argument("--profile", metavar="FILE", help="piece-set profile from 'quarto-assist calibrate'")
    p.add_argument("--no-window", action="store_true", help="headless: no window, keys or drawing")
    p.add_argument("--events", metavar="FILE", help="append one JSON object per event to FILE")
    p.add_argument("--fps", type=float, default=10.0, help="frame rate of a folder of frames (default 10)")
    p.add_argument("--grace", type=float, default=3.0,
                   help="seconds a winning line may stand unclaimed before it is announced (default 3; 0 = at once)")
    p.add_argument("--sure", type=float, default=DEFAULT_SURE, metavar="P",
                   help="announce an unclaimed line only when the camera reads its pieces as sharing the value "
                        f"with at least this probability (default {DEFAULT_SURE}); a less sure line is shown and "
                        "printed as one to check, not spoken (0 = announce every line read)")
    p.add_argument("--variant", default="classic",
                   help="classic, advanced (2x2 squares win too), or e.g. classic:tall,dark (beginner: only these count)")
    p.add_argument("--coach", action="store_true", help="say and show the best move and warn about poison pieces")
    p.add_argument("--coach-time", type=float, default=3.0, metavar="S", help="seconds the coach may think (default 3)")
    p.add_argument("--record", metavar="FILE",
                   help="game record, saved after every move (default: ~/.local/share/quarto-assist/games/"
                        "quarto-game-DATE-TIME.txt, or the --resume file)")
    p.add_argument("--resume", metavar="FILE", help="continue the game in this record (the board in view must agree)")
    p.add_argument("--language", default="en", choices=("en", "ru", "hu", "lv"), help="language of what is said")
    p.add_argument("--voice", help="speech voice (an id or part of a name; default: the language's first voice)")
    p.add_argument("--rate", type=int, help="speech rate in words per minute")
    p.add_argument("--no-speech", action="store_true", help="show and print announcements without speaking them")
    p.add_argument("--speech-wav", metavar="DIR",
                   help="also write every spoken sentence to DIR/NNN.wav (works without a sound card)")
    p.add_argument("--settle", type=float, default=None,
                   help="seconds a changed board must stand still and unobstructed before it counts (default 0.8)")
    p.add_argument("--join", action="store_true",
                   help="join a game in progress: start from the pieces seen on the board (default: an empty board)")
    p.add_argument("--vision-every", type=int, default=3, metavar="N",
                   help="run vision on every N-th frame (default 3); where the board changed is seen in every frame")
    p.add_argument("--realtime", action="store_true",
                   help="play a video file or folder at its own speed (the default with a window)")


def _display_available() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def build_recognizer(profile_path: str | None):
    from calibration.profile import default_profile, load_profile

    profile = load_profile(profile_path) if profile_path else default_profile()
    try:
        from vision import Recognizer
    except ImportError as e:
        raise OSError(f"board recognition is not available in this build ({e})") from None
    return Recognizer(profile.vision), profile


def run(args) -> int:
    from ..capture import open_source
    from ..clock import WallClock
    from ..coaching import Coach
    from ..events import EventLog
    from ..game import default_record_path, load_game
    from ..session import Watcher, WatchOptions, warn
    from ..speech import make_speaker
    from ..vision_step import VisionStep

    variant = Variant.parse(args.variant)
    if args.grace < 0:
        raise ValueError(f"invalid --grace {args.grace!r} (must be 0 or more seconds)")
    if not 0.0 <= args.sure <= 1.0:
        raise ValueError(f"invalid --sure {args.sure!r} (must be a probability from 0 to 1)")
    if args.fps <= 0:
        raise ValueError(f"invalid --fps {args.fps!r} (must be above 0)")
    game = load_game(args.resume) if args.resume else None
    record = args.record or args.resume or default_record_path()
    clock = WallClock()
    source = open_source(args.source, fps=args.fps, clock=clock)
    try:
        recognizer, profile = build_recognizer(args.profile)
    except BaseException:
        source.close()
        raise
    window = None
    if not args.no_window:
        if _display_available():
            from ..window import Window

            window = Window()
        else:
            warn("WARNING no display for the window: running headless (use --no-window to say so)")
    speaker = make_speaker(not args.no_speech, args.language, args.voice, args.rate, warn, args.speech_wav)
    log = EventLog(args.events)
    opts = WatchOptions(variant=game.variant if game else variant, grace=args.grace, settle=args.settle,
                        language=args.language, coach=args.coach, record_path=record, resumed_from=args.resume,
                        join=args.join, min_confidence=args.sure,
                        pace=bool(args.realtime or window is not None))
    coach = Coach(args.coach_time) if args.coach else None
    print(f"watching {source.name}; game record: {record}" + (f"; events: {args.events}" if args.events else ""),
          flush=True)
    if args.profile:
        from calibration.profile import set_colours

        colours = set_colours(profile)
        print(f"profile {args.profile}: " + (
            f"the set's two colours known (light L* {colours[0]:.0f}, dark L* {colours[3]:.0f}): "
            "each new piece's colour is weighed against them" if colours else
            "no set colours in it: dark and light are told apart as the game shows them"), flush=True)
    watcher = Watcher(source, VisionStep(recognizer, profile, every=args.vision_every), speaker, log, opts, clock=clock, game=game,
                      window=window, coach=coach)
    def stop(signum, frame):  # a polite kill ends the game like 'q': record saved, pending call made
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        return watcher.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
        source.close()
        log.close()
