"""``quarto-assist calibrate IMAGE... --out FILE``: learn a piece set and its light, no labels.

Each photo must show the board with all 16 pieces standing on it, in any arrangement.
Writes the profile (atomically: on any failure an existing ``--out`` is left as it was)
and a picture of the pieces as recognised (``--sheet``, default ``FILE`` with ``.png``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import cv2

from calibration.images import expand_inputs, read_image
from calibration.learn import examine_photo, learn_profile
from calibration.profile import ProfileError, default_profile, load_profile, save_profile
from calibration.sheet import render_sheet


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE",
                        help="photos of the board with all 16 pieces on it (or folders of them)")
    parser.add_argument("--out", required=True, metavar="FILE", help="profile file to write (JSON)")
    parser.add_argument("--profile", metavar="BASE",
                        help="start from this profile (e.g. one made by calibrate-camera) instead of the built-in default")
    parser.add_argument("--sheet", metavar="PNG", help="picture of the learned pieces (default: FILE with .png)")
    parser.add_argument("--name", default="", help="a name for the profile, e.g. 'beech set, kitchen'")


def sheet_path(out: str, sheet: str | None) -> Path:
    if sheet:
        return Path(sheet)
    p = Path(out)
    return p.with_name(p.name + ".png") if p.suffix.lower() == ".png" else p.with_suffix(".png")


def run(args: argparse.Namespace) -> int:
    from vision import Recognizer

    started = time.perf_counter()
    out = Path(args.out)
    sheet = sheet_path(args.out, args.sheet)
    for target, what in ((out, "profile"), (sheet, "sheet")):
        if target.is_dir():
            raise ProfileError(f"cannot write {what} '{target}': it is a directory")
        if not (target.parent if str(target.parent) else Path(".")).is_dir():
            raise ProfileError(f"cannot write {what} '{target}': folder '{target.parent}' does not exist")
    base = load_profile(args.profile) if args.profile else default_profile()
    recognizer = Recognizer(base.vision)
    paths = expand_inputs(args.images)
    for target in (out, sheet):
        if any(os.path.abspath(p) == os.path.abspath(target) for p in paths):
            raise ProfileError(f"'{target}' is one of the photos: choose another name for --out / --sheet")
    photos = []
    for k, path in enumerate(paths, 1):
        image = read_image(path)
        check = examine_photo(path, image, recognizer, base.vision, base)
        status = "board and 16 pieces found" if check.usable else f"cannot be used: {check.problem}"
        if check.usable and check.note:
            status = f"board found; {check.note}"
        print(f"[{k}/{len(paths)}] {path}: {status} ({check.seconds:.1f} s)", file=sys.stderr, flush=True)
        photos.append(check)

    cal = learn_profile(photos, base, name=args.name)
    picture = render_sheet(cal)
    ok, png = cv2.imencode(".png", picture)
    if not ok:
        raise OSError(f"could not encode the sheet picture for '{sheet}'")

    # the sheet first: if anything fails, the profile (what other commands read) is untouched
    tmp = sheet.with_name(f".{sheet.name}.tmp")
    tmp.write_bytes(png.tobytes())
    os.replace(tmp, sheet)
    save_profile(cal.profile, out)

    seps = ", ".join(f"{a} {r['separation']:.1f}" + (f" ({r['model']})" if r.get("model") else "")
                     for a, r in cal.report.items())
    used = len(cal.photos)
    print(f"wrote {out} from {used} photo{'s' if used > 1 else ''} in "
          f"{time.perf_counter() - started:.1f} s; separation (d'): {seps}")
    print(f"wrote {sheet}: check that every piece shows the right attributes")
    from calibration.profile import set_colours

    colours = set_colours(cal.profile)
    if colours:
        print(f"the set's two colours, for watch: light L* {colours[0]:.0f} a* {colours[1]:.0f} b* {colours[2]:.0f}, "
              f"dark L* {colours[3]:.0f} a* {colours[4]:.0f} b* {colours[5]:.0f} (spread {colours[6]:.1f})")
    else:
        print("the set's two colours were not learned (dark and light did not split cleanly): "
              "watch reads them from the game")
    if cal.set_size:
        how = {"small": "its pieces are narrow for the board's cells: analyze and watch with this profile read "
                        "them through a window zoomed in to their size",
               "large": "its short pieces stand about as high as most sets' tall ones: analyze and watch with this "
                        "profile read tall and short through a window zoomed out to its size"}[cal.set_size]
        print(f"the set is a {cal.set_size} one ({how})")
    for w in cal.warnings:
        print(f"WARNING {w}", file=sys.stderr)
    return 0
