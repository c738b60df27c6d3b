"""Render a whole game as a video from a fixed camera, with its truth JSON.

    scenegen/.venv/bin/python -m scenegen.game --out samples/game01.mp4 --seed 1

Only the distinct states are rendered (the board after each placement and three hand
poses per move: reaching in with the piece, setting it down, leaving); the video repeats
them at a constant frame rate with fresh sensor noise in every frame, so it looks like
a webcam stream without rendering every frame.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from .catalog import BOARDS, PIECE_SETS, piece_set_for
from .hand import hand_capsules
from .sampling import SceneSampler, cell_world, off_centre, piece_height
from .script import missed_quarto_game
from .truth import HEX, _r

#: frames per state at the default 10 fps
APPROACH, PLACING, LEAVING = 4, 6, 4


#: where the game's webcam stands: (least tilt, most tilt, least distance in cm)
CAMERAS = {
    "stand": (20.0, 42.0, 55.0),     # on a stand beside the table: oblique but not grazing
    "overhead": (0.0, 18.0, 50.0),   # on an arm above the board, looking (nearly) straight down
}


def video_spec(seed: int, board: str, piece_set: str, camera: str = "stand") -> dict:
    """The fixed scene of a game: camera, light, table, spare layout (all 16 pieces beside the board).
    ``piece_set`` ``"procedural"``: a set drawn afresh (``scenegen.procedural``) from the seed.
    ``camera``: where the webcam stands (``CAMERAS``); far enough that the spares show too."""
    least_tilt, most_tilt, least_cm = CAMERAS[camera]
    procedural = piece_set == "procedural"
    sampler = SceneSampler([board], None if procedural else [piece_set], negative_rate=0.0, hand_rate=0.0,
                           procedural_rate=1.0 if procedural else 0.0)
    for attempt in range(50):
        spec = sampler.sample(seed * 100 + attempt, n_on_board=0, hand=False, negative=None)
        c = spec["camera"]
        if least_tilt <= c["tilt_deg"] <= most_tilt and c["distance_cm"] >= least_cm and len(spec["pieces"]) == 16:
            break
    spec["post"]["blur_sigma"] = min(spec["post"]["blur_sigma"], 0.6)
    spec["post"]["jpeg_quality"] = 90
    return spec


def placement_offsets(seed: int, spec: dict, off_centred: bool) -> dict[int, tuple[float, float]]:
    """Per piece, where it is set down against its cell's centre (metres, world x, y): off by
    a little (``sampling.off_centre``) when ``off_centred``, else on the centre. Drawn from a
    generator of their own, so that the rest of the seed's scene stays what it was."""
    rng = random.Random(seed * 7919 + 32)
    board, ps = BOARDS[spec["board"]["id"]], piece_set_for(spec["piece_set"])
    return {p: off_centre(rng, board, ps) if off_centred else (0.0, 0.0) for p in range(16)}


def hand_for(spec: dict, cell: int, player: int, phase: str, piece: int | None) -> dict:
    """Hand of ``player`` (0: one side of the board, 1: the opposite side) at ``phase``
    ("approach", "placing", "leaving") over ``cell``; holds ``piece`` unless leaving."""
    ps = piece_set_for(spec["piece_set"])
    b = BOARDS[spec["board"]["id"]]
    x, y, z = cell_world(spec, cell)
    if piece is not None:  # the hand sets the piece down where it will stand
        dx, dy = spec.get("_off", {}).get(piece, (0.0, 0.0))
        x, y = x + dx, y + dy
    reach = spec["board"]["yaw_deg"] + 90 + 180 * player + spec["_reach_jitter"][player]
    u = np.array([math.cos(math.radians(reach)), math.sin(math.radians(reach)), 0.0])
    h = piece_height(ps, piece) if piece is not None else ps.short_h
    held = None
    if phase == "approach":
        base = np.array([x, y, z]) - u * 0.10 + np.array([0, 0, 0.10])
    elif phase == "placing":
        base = np.array([x, y, z - b.recess_depth])
    else:
        base = np.array([x, y, z]) - u * 0.14 + np.array([0, 0, 0.09 + h])
    if phase != "leaving":
        held = {"piece": piece, "x": float(base[0]), "y": float(base[1]), "z": float(base[2]),
                "yaw_deg": spec["_yaw"][piece]}
        tip = base + np.array([0, 0, h + 0.004])
    else:
        tip = base
    caps = hand_capsules(tuple(tip), reach, side=1, scale=1.0 if player == 0 else 0.95)   # both right-handed
    return {"capsules": caps, "skin_rgb": spec["_skins"][player], "sleeve_rgb": spec["_sleeves"][player],
            "held": held, "cell": cell}


def render_game(out_mp4: str, seed: int, board: str, piece_set: str, fps: int = 10, frames_dir: str | None = None,
                threads: int = 2, crf: int = 28, log=print, preview: bool = False, samples: int | None = None,
                render_scale: float | None = None, off_centred: bool = False, camera: str = "stand") -> dict:
    """Render the game of ``seed`` to ``out_mp4`` and write its truth beside it.
    ``off_centred``: players set each piece down slightly off its cell's centre, as the
    stills do (``sampling.off_centre``); without it every piece stands on its centre, as in
    the videos rendered before session 32 (their seeds still give the same videos)."""
    from .blender_scene import SceneBuilder
    from .dataset import quiet_stdout
    from .post import add_noise, develop, lens_warp, read_exr, to_bgr8
    from .render import margin_for

    script = missed_quarto_game(seed)
    spec = video_spec(seed, board, piece_set, camera)
    if preview:   # quick look at the choreography: few samples, small render
        spec["render"].update(samples=2, scale=0.3)
    if samples:
        spec["render"]["samples"] = samples
    if render_scale:
        spec["render"]["scale"] = render_scale
    rng = random.Random(seed + 7)
    spec["_reach_jitter"] = [rng.gauss(0, 12), rng.gauss(0, 12)]
    spec["_skins"] = [[0.86, 0.66, 0.54], [0.55, 0.38, 0.27]]
    spec["_sleeves"] = [[rng.uniform(0.1, 0.9) for _ in range(3)] for _ in range(2)]
    spares = {p["piece"]: p for p in spec["pieces"]}
    spec["_yaw"] = {p: rng.uniform(0, 360) for p in range(16)}
    spec["_off"] = placement_offsets(seed, spec, off_centred)
    b = BOARDS[board]
    margin = margin_for(spec)
    with quiet_stdout(os.devnull):
        sb = SceneBuilder(spec, margin, threads)
    on_board: list[dict] = []
    states = []   # (name, pieces, hand, frames)
    states.append(("start", [], None, 20))
    timeline = []
    for k, sp in enumerate(script.placements):
        spares.pop(sp.piece, None)
        rest = list(spares.values())
        states.append((f"m{k:02d}-approach", on_board + rest, hand_for(spec, sp.cell, sp.player, "approach", sp.piece), APPROACH))
        x, y, z = cell_world(spec, sp.cell)
        dx, dy = spec["_off"][sp.piece]
        placed = {"piece": sp.piece, "cell": sp.cell, "x": x + dx, "y": y + dy, "z": z - b.recess_depth, "yaw_deg": spec["_yaw"][sp.piece]}
        states.append((f"m{k:02d}-placing", on_board + rest, hand_for(spec, sp.cell, sp.player, "placing", sp.piece), PLACING))
        on_board = on_board + [placed]
        states.append((f"m{k:02d}-leaving", on_board + rest, hand_for(spec, sp.cell, sp.player, "leaving", None), LEAVING))
        hold = rng.randint(14, 22) if k != script.missed_after else 60  # the missed line stands long enough to be called
        if k == len(script.placements) - 1:
            hold = 30
        states.append((f"m{k:02d}-settled", on_board + rest, None, hold))
        timeline.append(k)
    with tempfile.TemporaryDirectory(prefix="scenegen-game-") as td:
        developed = []
        gain = None
        t0 = time.time()
        for i, (name, pieces, hand, nfr) in enumerate(states):
            t1 = time.time()
            sb.set_dynamic(pieces, hand)
            exr = os.path.join(td, name + ".exr")
            with quiet_stdout(os.devnull):
                sb.render(exr)
            img = lens_warp(read_exr(exr), spec, margin)
            x, g = develop(img, spec, gain)
            gain = g if gain is None else gain
            developed.append((name, x, nfr))
            os.remove(exr)
            left = (len(states) - i - 1) * (time.time() - t0) / (i + 1)
            log(f"[{i + 1}/{len(states)}] {name} {time.time() - t1:.1f} s  ETA {left / 60:.1f} min")
        # frames: repeat each state with fresh noise
        os.makedirs(os.path.dirname(os.path.abspath(out_mp4)), exist_ok=True)
        W, H = spec["width"], spec["height"]
        ff = shutil.which("ffmpeg")
        if not ff:
            try:
                import imageio_ffmpeg

                ff = imageio_ffmpeg.get_ffmpeg_exe()
            except (ImportError, RuntimeError):
                ff = None   # falls back to OpenCV's mp4v writer
        if frames_dir:
            os.makedirs(frames_dir, exist_ok=True)
        proc = None
        writer = None
        if ff:
            proc = subprocess.Popen([ff, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{W}x{H}",
                                     "-r", str(fps), "-i", "-", "-c:v", "libx264", "-preset", "medium", "-crf", str(crf),
                                     "-pix_fmt", "yuv420p", "-r", str(fps), "-movflags", "+faststart", out_mp4],
                                    stdin=subprocess.PIPE)
        else:
            import cv2
            writer = cv2.VideoWriter(out_mp4, cv2.VideoWriter_fourcc(*"mp4v"), fps, (W, H))
        frame = 0
        first_frame = {}
        import cv2
        for name, x, nfr in developed:
            first_frame[name] = frame
            for _ in range(nfr):
                bgr = to_bgr8(add_noise(x, spec, spec["post"]["noise_seed"] + frame))
                if proc:
                    proc.stdin.write(bgr.tobytes())
                else:
                    writer.write(bgr)
                if frames_dir:
                    cv2.imwrite(os.path.join(frames_dir, f"{frame:04d}.jpg"), bgr, [cv2.IMWRITE_JPEG_QUALITY, 85])
                frame += 1
        if proc:
            proc.stdin.close()
            if proc.wait() != 0:
                raise OSError(f"ffmpeg failed writing {out_mp4!r}")
        else:
            writer.release()
    truth = game_truth(spec, script, first_frame, frame, fps, os.path.basename(out_mp4))
    if frames_dir:
        truth["frames_dir"] = os.path.relpath(frames_dir, os.path.dirname(os.path.abspath(out_mp4)))
    js = os.path.splitext(out_mp4)[0] + ".json"
    with open(js, "w") as f:
        json.dump(truth, f, indent=1)
    return truth


def game_truth(spec: dict, script, first_frame: dict, frames: int, fps: int, video_name: str) -> dict:
    from . import camera as cam

    c = spec["camera"]
    proj = lambda pts: cam.project(np.asarray(pts, float), c["K"], c["dist"], c["R"], c["t"])  # noqa: E731
    centers = proj([cell_world(spec, i) for i in range(16)])
    b = BOARDS[spec["board"]["id"]]
    ps = piece_set_for(spec["piece_set"])
    placements, lines, hands = [], [], []
    for k, sp in enumerate(script.placements):
        f_place = first_frame[f"m{k:02d}-placing"]
        f_settled = first_frame[f"m{k:02d}-settled"]
        placements.append({"t": round(f_place / fps, 3), "frame": f_place, "piece": HEX[sp.piece], "cell": sp.cell,
                           "cell_center": [round(float(v), 2) for v in centers[sp.cell]],
                           "settled_t": round(f_settled / fps, 3), "settled_frame": f_settled, "player": sp.player,
                           "off_centre_mm": [round(1000 * v, 2) for v in spec.get("_off", {}).get(sp.piece, (0, 0))]})
        hands.append({"from_t": round(first_frame[f"m{k:02d}-approach"] / fps, 3), "to_t": round(f_settled / fps, 3)})
        for cells, words in sp.new_lines:
            lines.append({"t": round(f_place / fps, 3), "after_placement": k, "cells": cells,
                          "cell_centers": [[round(float(v), 2) for v in centers[i]] for i in cells],
                          "attributes": words, "claimed": sp.claimed})
    record = script.record.to_text()
    if script.missed_after is not None:
        sp = script.placements[script.missed_after]
        record += f"# placement {script.missed_after + 1} ({HEX[sp.piece]} on cell {sp.cell}) made a line nobody claimed; play went on\n"
    return {
        "video": video_name, "fps": fps, "frames": frames, "width": spec["width"], "height": spec["height"],
        "seed": spec["seed"],
        # the sizes as still truth gives them (a large set's short pieces are read tall:
        # docs/vision.md "Session 27"; game stills inherit them)
        "board": {"id": b.id, "style": b.style, "pitch_cm": round(b.pitch * 100, 2)},
        "piece_set": {"id": ps.id, "light": ps.light, "dark": ps.dark, "material": ps.material,
                      "light_rgb": list(ps.light_rgb), "dark_rgb": list(ps.dark_rgb), "width_cm": round(ps.width * 100, 2),
                      "short_cm": round(ps.short_h * 100, 2), "tall_cm": round(ps.tall_h * 100, 2)},
        "cell_centers": _r(centers),
        "board_corners": _r(proj([[*p, b.thickness] for p in _board_corners_world(spec)])),
        "camera": {"K": _r(c["K"], 3), "dist": [round(float(v), 6) for v in c["dist"]], "tilt_deg": round(c["tilt_deg"], 2),
                   "distance_cm": round(c["distance_cm"], 2), "R": _r(c["R"], 6), "t": [round(float(v), 6) for v in c["t"]]},
        "light": {"kind": spec["light"]["kind"], "kelvin": spec["light"]["kelvin"]},
        "placements": placements, "winning_lines": lines, "hands": hands,
        "final_position": _final_position(script),
        "record": record,
    }


def _board_corners_world(spec):
    from .catalog import playing_area_xy
    from .sampling import board_to_world

    return [board_to_world(spec["board"], xy) for xy in playing_area_xy(BOARDS[spec["board"]["id"]])]


def _final_position(script) -> str:
    cells = ["."] * 16
    for sp in script.placements:
        cells[sp.cell] = HEX[sp.piece]
    t = "".join(cells)
    return "/".join(t[i : i + 4] for i in range(0, 16, 4)) + " -"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scenegen.game", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="video file to write (.mp4); the truth goes beside it (.json)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--board", default="gigamic", choices=sorted(BOARDS))
    ap.add_argument("--piece-set", default="beech-walnut", choices=sorted(PIECE_SETS) + ["procedural"],
                    help="a catalog set, or 'procedural': one drawn afresh from --seed (default %(default)s)")
    ap.add_argument("--fps", type=int, default=10)
    ap.add_argument("--frames-dir", help="also write every frame as JPEG into this folder")
    ap.add_argument("--crf", type=int, default=28, help="x264 quality (higher = smaller file; default 28)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--preview", action="store_true", help="fast low-quality render to check the choreography")
    ap.add_argument("--samples", type=int, help="Cycles samples per state (default 8)")
    ap.add_argument("--render-scale", type=float, help="render size relative to the frame (default 0.75)")
    ap.add_argument("--off-centre", action="store_true",
                    help="players set pieces down slightly off their cells' centres (up to 6 mm), as in the stills; "
                         "without it every piece stands on its centre, as in the videos rendered before session 32")
    ap.add_argument("--camera", default="stand", choices=sorted(CAMERAS),
                    help="where the webcam stands: 'stand' (default: beside the table, 20-42 degrees from "
                         "straight down) or 'overhead' (on an arm above the board, 0-18 degrees)")
    args = ap.parse_args(argv)
    t = render_game(args.out, args.seed, args.board, args.piece_set, args.fps, args.frames_dir, args.threads, args.crf,
                    log=lambda s: print(s, file=sys.stderr, flush=True), preview=args.preview, samples=args.samples,
                    render_scale=args.render_scale, off_centred=args.off_centre,
                    camera=args.camera)
    print(f"wrote {args.out}: {t['frames']} frames, {len(t['placements'])} placements, "
          f"{sum(not w['claimed'] for w in t['winning_lines'])} unclaimed line(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
