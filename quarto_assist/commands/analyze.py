"""``quarto-assist analyze IMAGE [--profile FILE] [--json] [--overlay OUT.png]``

Finds the board in one photo and reads every cell. JSON output as in INTERFACE.md; exit
code 3 when no board is visible, 2 for an unreadable file.
"""

from __future__ import annotations

import json
import time

EXIT_NO_BOARD = 3


def add_arguments(parser) -> None:
    parser.add_argument("image", metavar="IMAGE", help="photo of the board (JPEG, PNG, ...)")
    parser.add_argument("--profile", metavar="FILE", help="profile from 'quarto-assist calibrate' (default: built-in)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--overlay", metavar="OUT.png", help="write the photo with the board and pieces drawn on it")


class Analyzer:
    """Profile + recogniser, shared by ``analyze`` and ``evaluate``: undistorts when the
    profile has a camera model (calibration's job) and maps the centres back."""

    def __init__(self, profile_path: str | None):
        from vision import Recognizer

        self.profile = load_profile_or_default(profile_path)
        self.recognizer = Recognizer(self.profile.vision)

    def analyze(self, image):
        try:
            from calibration.camera import analyze_with_profile
        except ImportError:
            return self.recognizer.analyze(image)
        return analyze_with_profile(self.recognizer, self.profile, image)


class _PlainProfile:
    def __init__(self, vision):
        self.vision = vision
        self.camera = None


def load_profile_or_default(path: str | None):
    """The calibration layer's profile (``calibration.profile``) when it is installed;
    otherwise the ``"vision"`` key of a JSON file, or vision's defaults."""
    try:
        from calibration.profile import default_profile, load_profile
    except ImportError:
        from vision.settings import VisionSettings

        return _PlainProfile(VisionSettings.load(path) if path else VisionSettings())
    return load_profile(path) if path else default_profile()


def reading_json(reading, seconds: float, advice=()) -> dict:
    """The INTERFACE.md object for a reading; ``advice``: ``vision.view_check.ViewAdvice``
    items, listed under ``"advice"`` when there are any."""
    from engine.pieces import piece_attributes
    from engine.position import Position

    if not reading.found:
        return {"board_found": False, "reason": reading.reason or "no board in view"}
    out = {
        "board_found": True,
        "cells": [None if p is None else piece_attributes(p) for p in reading.cells],
        "cell_centers": [[round(float(x), 1), round(float(y), 1)] for x, y in reading.cell_centers],
        "position": str(Position(list(reading.cells), None)),
        "seconds": round(seconds, 3),
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in reading.corners],
        "confidence": [round(float(c), 3) for c in reading.confidence],
    }
    if reading.reason:
        out["reason"] = reading.reason
        out["obstructed"] = [bool(b) for b in reading.obstructed]
    if advice:
        out["advice"] = [a.to_json() for a in advice]
    return out


#: what to do about a photo in which no board was read, by the reason vision gave (the
#: start of the reason: "image too small" carries the image's size)
NO_BOARD_HINTS = (
    ("no board in view", "if the board is in the photo: show all of it, keep hands and other things off "
                         "it, and take the photo from 25 to 50 degrees from straight down"),
    ("board cut off", "move the camera back or turn it so that the whole board and a little of the table "
                      "around it are in the photo"),
    ("too dark", "light the board more (a lamp or daylight), or use the camera's brighter exposure"),
    ("image too small", "use a larger photo, with the board filling a good part of it (made for frames "
                        "of about 1280 x 720 pixels)"),
)


#: what the text says when vision judged the set's size from the board (``vision.set_size``,
#: ``BoardReading.judged_size``); a typical set, or a board of too few pieces to judge, says nothing
SET_SIZE_NOTES = {
    "small": "the pieces look narrow for the board's cells, so they were read as a small set's "
             "(if the set is not small, calibrate it, or set \"set_size\" in the profile)",
    "large": "the pieces look large for the board's cells, so tall was read as of a large set "
             "(if the set is not large, calibrate it, or set \"set_size\" in the profile)",
}


def no_board_hint(reason: str) -> str:
    """One line of what to do for a photo without a board read, by vision's ``reason``;
    "" when there is no advice for it."""
    reason = reason or "no board in view"
    return next((hint for start, hint in NO_BOARD_HINTS if reason.startswith(start)), "")


def reading_text(reading, seconds: float, advice=()) -> str:
    from engine.pieces import piece_symbol, piece_words
    from engine.position import Position

    if not reading.found:
        line = f"no board found: {reading.reason or 'no board in view'} ({seconds:.2f} s)"
        hint = no_board_hint(reading.reason)
        return f"{line}\n  what to do: {hint}" if hint else line
    lines = [f"board found, {sum(p is not None for p in reading.cells)} pieces on it ({seconds:.2f} s)",
             "rows from the far side (row 1) to the side nearest the camera (row 4), columns left to right:"]
    for r in range(4):
        row = reading.cells[4 * r : 4 * r + 4]
        lines.append(f"  row {r + 1}: " + " ".join("." if p is None else piece_symbol(p) for p in row))
    for i, p in enumerate(reading.cells):
        if p is not None:
            lines.append(f"  cell {i} (row {i // 4 + 1}, column {i % 4 + 1}): {piece_symbol(p)} = {piece_words(p)}"
                         f"  (confidence {reading.confidence[i]:.2f})")
    if reading.reason:
        lines.append(f"note: {reading.reason}")
    if reading.judged_size:
        lines.append(f"note: {SET_SIZE_NOTES[reading.judged_size]}")
    for a in advice:
        lines.append(f"advice: {a.message}")
    lines.append(f"position: {Position(list(reading.cells), None)}")
    return "\n".join(lines)


def run(args) -> int:
    import cv2

    from vision.image import load_image
    from vision.overlay import draw_reading
    from vision.settings import ImageSettings
    from vision.view_check import check_view

    analyzer = Analyzer(args.profile)
    t0 = time.perf_counter()
    image = load_image(args.image, getattr(analyzer.profile.vision, "image", ImageSettings()))
    reading = analyzer.analyze(image)
    seconds = time.perf_counter() - t0
    advice = check_view(reading.homography, image.shape, analyzer.profile.vision.camera, image) if reading.found else []
    if args.overlay:
        if not cv2.imwrite(args.overlay, draw_reading(image, reading, [a.short for a in advice])):
            raise OSError(f"cannot write overlay {args.overlay!r}")
    if args.json:
        print(json.dumps(reading_json(reading, seconds, advice)))
    else:
        print(reading_text(reading, seconds, advice))
    return 0 if reading.found else EXIT_NO_BOARD
