"""The ``quarto-assist`` command: ``main(argv)`` is a plain function the tests call.

Each subcommand lives in ``quarto_assist/commands/<name>.py`` and defines
``add_arguments(parser)`` and ``run(args) -> int``. This is the one place where
domain errors become ``ERROR ...`` on stderr and an exit code; nothing below it
prints tracebacks at the user.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand -> (module under quarto_assist.commands, one-line help)
COMMANDS = {
    "suggest": ("suggest", "best move for a position under perfect play, with coaching"),
    "analyze": ("analyze", "recognise the board and pieces in one photo"),
    "evaluate": ("evaluate", "measure recognition on a folder of rendered images with truth"),
    "calibrate": ("calibrate", "learn a piece set and its lighting from photos of all 16 pieces on the board"),
    "calibrate-camera": ("calibrate_camera", "fit lens intrinsics and distortion from checkerboard photos"),
    "pattern": ("pattern", "write a printable checkerboard for camera calibration"),
    "watch": ("watch", "follow a game from a camera, video or folder of frames; referee and coach"),
}

EXIT_OK = 0
EXIT_ERROR = 2  # bad input: unreadable file, bad position text, bad option


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quarto-assist", description="A camera assistant for the board game Quarto.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        try:
            mod = importlib.import_module(f"quarto_assist.commands.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"quarto_assist.commands.{module}":
                raise
            p.set_defaults(_missing=name)
            continue
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def one_blas_thread() -> None:
    """Per frame, vision multiplies small matrices (16 cells by a few thousand features):
    BLAS worker threads only add hand-over costs, which on a busy machine grow to tens of
    milliseconds per product (measured: 44 ms vs 0.14 ms for one 16x1900 by 1900x64
    product at load 8 on 2 cores). One thread for the whole process."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # only a speed matter
        return
    threadpool_limits(1, user_api="blas")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_ERROR
    if getattr(args, "_missing", None):
        print(f"ERROR quarto-assist {args._missing} is not available in this build", file=sys.stderr)
        return EXIT_ERROR
    one_blas_thread()
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as e:
        print(f"ERROR {e}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
