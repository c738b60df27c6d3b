"""``quarto-assist calibrate-camera IMAGES... --out FILE [--profile EXISTING]``.

Fits the lens (intrinsics and distortion) from photos of the printed checkerboard
(``quarto-assist pattern``) and stores it in a profile: a copy of ``--profile`` when
given, else the built-in default. Analysis with that profile then undistorts each frame.
"""

from __future__ import annotations

import argparse
import sys
import time

from calibration.images import ImageError, expand_inputs, read_image
from calibration.lens import MIN_VIEWS, LensCalibrationError, find_pattern, fit_camera
from calibration.pattern import DEFAULT_COLS, DEFAULT_ROWS, DEFAULT_SQUARE_MM, check_pattern_size
from calibration.profile import default_profile, load_profile, save_profile


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the printed checkerboard (or folders of them)")
    parser.add_argument("--out", required=True, metavar="FILE", help="profile file to write")
    parser.add_argument("--profile", metavar="EXISTING", help="profile to copy (its piece-set settings are kept)")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"squares down on the pattern (default {DEFAULT_ROWS})")
    parser.add_argument("--cols", type=int, default=DEFAULT_COLS, help=f"squares across (default {DEFAULT_COLS})")
    parser.add_argument("--square-mm", type=float, default=DEFAULT_SQUARE_MM,
                        help=f"printed square size in mm (default {DEFAULT_SQUARE_MM:g}; only sets the scale)")


def run(args: argparse.Namespace) -> int:
    check_pattern_size(args.rows, args.cols)
    # read the base profile first: a bad --profile must fail before any work
    base = load_profile(args.profile) if args.profile else default_profile()
    paths = expand_inputs(args.images)
    started = time.perf_counter()
    views, used, missing = [], [], []
    size = None
    for k, path in enumerate(paths, 1):
        image = read_image(path)
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif (w, h) != size:
            raise ImageError(f"image '{path}' is {w}x{h} but '{paths[0]}' is {size[0]}x{size[1]}: "
                             "use photos from one camera at one resolution")
        corners = find_pattern(image, args.rows, args.cols)
        status = "pattern found" if corners is not None else "pattern NOT found"
        print(f"[{k}/{len(paths)}] {path}: {status}", file=sys.stderr, flush=True)
        if corners is None:
            missing.append(path)
        else:
            views.append(corners)
            used.append(path)
    if len(views) < MIN_VIEWS:
        shown = ", ".join(f"'{p}'" for p in missing[:3]) + (" ..." if len(missing) > 3 else "")
        raise LensCalibrationError(
            f"the {args.cols - 1}x{args.rows - 1}-corner checkerboard ({args.rows}x{args.cols} squares) was found in "
            f"{len(views)} of {len(paths)} photos, at least {MIN_VIEWS} are needed"
            + (f" (not found in {shown})" if missing else "")
            + ": the whole pattern must be in the picture, sharp and evenly lit; check --rows/--cols")
    result = fit_camera(views, size, args.rows, args.cols, args.square_mm)
    base.camera = result.camera
    base.path = None
    # Vision receives frames already undistorted (calibration.camera.prepare_frame), whose
    # camera matrix is K itself: tell it K so it need not guess the focal length, and no
    # distortion, so nothing is undistorted twice.
    cam = base.vision.camera
    cam.camera_matrix = [[float(v) for v in row] for row in result.camera.K]
    cam.dist_coeffs = None
    cam.calibration_size = [int(size[0]), int(size[1])]
    if not base.name or base.name == "built-in default":
        base.name = "camera calibrated"
    save_profile(base, args.out)
    K = result.camera.K
    print(f"wrote {args.out}: camera {size[0]}x{size[1]}, focal {K[0, 0]:.1f}/{K[1, 1]:.1f} px, "
          f"centre ({K[0, 2]:.1f}, {K[1, 2]:.1f}), distortion "
          + " ".join(f"{v:+.4f}" for v in result.camera.dist)
          + f", RMS error {result.camera.rms:.3f} px from {len(views)} photos "
          f"({time.perf_counter() - started:.1f} s)")
    for w in result.warnings:
        print(f"WARNING {w}", file=sys.stderr)
    return 0
