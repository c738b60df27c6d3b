"""Follow every rendered game video with truth and score it (quarto_assist.scoring).

    python bench/watch_eval.py [VIDEO_OR_FOLDER ...] [--grace S] [--profile FILE] [--size WxH] [-v]
                               [--json OUT] [--compare BASE] [--disturb KIND [--disturb-size X]]

Default: samples/*.mp4 and data/renders/**/*.mp4 that have a <name>.json beside them.
Prints one row per video (placements found / invented, unclaimed Quartos announced and
their delay after settled + grace, those announced for a wrong reason (a value the line's
pieces do not all share), flags raised, which are false alarms in these fairly played
games, fps), the lines shown as unsure instead of announced, and a total; ``-v`` adds each
announcement with the probability the camera gives it, and what went wrong. ``--json OUT``
keeps each video's figures; ``--compare BASE`` (such a file from an earlier run, e.g. of the
code before a change) then says, per video, every figure that changed. ``--size WxH`` watches each video scaled to another resolution (its
truth scaled alike; written to a temporary file first): the same games from another camera.
``--disturb KIND`` watches each video changed as a real table changes it (written to a
temporary file first; ``DISTURBANCES``): ``copy`` the video only written again (the others'
control: the video writer's compression alone), ``bump`` the camera knocked once between two moves
(turned 3 degrees and shifted 20 and 12 pixels; the truth moved alike from then on),
``drift`` the camera creeping the same way over the whole game (a clamp that sags: turned
and shifted in proportion to the time, reaching the knock's 3 degrees, 20 and 12 pixels at the
end; ``--disturb-size X`` scales the knock, the creep or the exposure's swing),
``light`` the room's light dropping to 70 % once between two moves, ``dusk`` the light
falling from 100 % to 70 % over the whole game, ``exposure`` a webcam's automatic exposure
brightening the picture by up to 25 % while an arm is in view (half a second to follow it
either way), ``noise`` a webcam's sensor noise (grey
levels with a standard deviation of 6, new in every frame), ``shadow`` a person's shadow
sliding over the board between two moves (a soft edge coming in from the left over 1.5 s
and stopping at the board's middle, where it stays: the left half of the board at 60 % of
its light, or less with ``--disturb-size``), ``passing`` the same shadow going again after
4 s (a player leaning over the board for a while).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _truth_file(video: str) -> str:
    """The truth file a rendered game video has beside it."""
    return os.path.splitext(video)[0] + ".json"


def videos(args) -> list[str]:
    """The game videos with a truth file beside them among ``args`` (files and folders;
    default the samples and ``data/renders``). A file named that is missing or has no truth
    is said, not skipped in silence: a comparison over fewer videos than meant would mislead."""
    paths = []
    for a in args or [os.path.join(ROOT, "samples"), os.path.join(ROOT, "data", "renders")]:
        if os.path.isdir(a):
            paths += [p for p in sorted(glob.glob(os.path.join(a, "**", "*.mp4"), recursive=True))
                      if os.path.exists(_truth_file(p))]
        elif not os.path.isfile(a):
            print(f"{a}: not found (the game videos under data/ are rendered by the commands in docs/watch.md)")
        elif not os.path.exists(_truth_file(a)):
            print(f"{a}: no truth file beside it ({_truth_file(a)}): left out")
        else:
            paths.append(a)
    return paths


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid size {text!r} (expected WIDTHxHEIGHT, e.g. 1920x1080)")
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"invalid size {text!r} (16-8192 pixels each way)")
    return w, h


def rescaled(video: str, truth: dict, size: tuple[int, int], out: str) -> dict:
    """Write ``video`` scaled to ``size`` (w, h) as ``out`` and return its truth with every
    pixel position scaled alike: the same game seen by a camera of another resolution."""
    import cv2

    w, h = size
    sx, sy = w / truth["width"], h / truth["height"]
    cap = cv2.VideoCapture(video)
    writer = cv2.VideoWriter(out, cv2.VideoWriter_fourcc(*"mp4v"), truth["fps"], (w, h))
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            writer.write(cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR))
    finally:
        writer.release()
        cap.release()

    def sc(p):
        return [p[0] * sx, p[1] * sy]

    t = json.loads(json.dumps(truth))
    t["width"], t["height"] = w, h
    t["cell_centers"] = [sc(p) for p in t["cell_centers"]]
    for p in t["placements"]:
        p["cell_center"] = sc(p["cell_center"])
    for line in t.get("winning_lines", []):
        line["cell_centers"] = [sc(p) for p in line["cell_centers"]]
    return t


#: the ways --disturb changes a video (see the module's docstring)
DISTURBANCES = ("copy", "bump", "drift", "light", "dusk", "exposure", "noise", "shadow", "passing")


def quiet_moment(truth: dict) -> float:
    """A time in the middle of the game when the board is clear and still: a second after
    the middle placement settled (the watch has taken the piece in by then), or halfway to
    the next hand when that comes sooner."""
    tp = truth["placements"]
    k = max(0, len(tp) // 2 - 1)
    start = tp[k]["settled_t"]
    later = [h["from_t"] for h in truth.get("hands", []) if h["from_t"] > start]
    end = min(later) if later else start + 2.0
    return start + 1.0 if start + 1.0 <= end - 0.1 else 0.5 * (start + end)


def disturbed(video: str, truth: dict, kind: str, out: str, at: float | None = None, size: float = 1.0) -> dict:
    """Write ``video`` as ``out`` changed by the disturbance ``kind`` (:data:`DISTURBANCES`)
    and return its truth (for ``bump`` and ``drift``: every position moved as the picture
    had moved by then). ``at``: the time of the knock or the light's drop (default:
    :func:`quiet_moment`). ``size``: the knock's, the creep's or the exposure's size, as a
    share of the standard one."""
    import cv2
    import numpy as np

    w, h, fps = truth["width"], truth["height"], truth["fps"]
    t_quiet = quiet_moment(truth) if at is None else at
    def camera(share: float) -> np.ndarray:
        # the knock (share 1) or part of it: a turn about the frame's centre and a shift
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 3.0 * share * size, 1.0)
        m[:, 2] += (20.0 * share * size, 12.0 * share * size)
        return m

    knock = camera(1.0)
    xs = np.arange(w, dtype=np.float32)
    middle = float(np.mean([c[0] for c in truth["cell_centers"]]))

    def shade(time: float) -> np.ndarray:
        # (1, w, 1) light left under the shadow: its soft edge (80 px wide) slides from the
        # frame's left border to the board's middle over 1.5 s (and, passing, back again
        # after 4 s there)
        share = min(1.0, max(0.0, (time - t_quiet) / 1.5))
        if kind == "passing":
            share -= min(1.0, max(0.0, (time - t_quiet - 5.5) / 1.5))
        edge = -40.0 + (middle + 40.0) * share
        under = np.clip((edge - xs) / 80.0 + 0.5, 0.0, 1.0)
        return (1.0 - 0.4 * size * under)[None, :, None]

    rng = np.random.default_rng(0)
    n = max(1, int(truth.get("frames") or 1))
    cap = cv2.VideoCapture(video)
    writer = cv2.VideoWriter(out, cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    i = 0
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            t = i / fps
            if kind == "bump" and t >= t_quiet:
                frame = cv2.warpAffine(frame, knock, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            elif kind == "drift":
                frame = cv2.warpAffine(frame, camera(min(1.0, i / n)), (w, h), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE)
            elif kind == "light" and t >= t_quiet:
                frame = cv2.convertScaleAbs(frame, alpha=0.7)
            elif kind == "exposure":
                frame = cv2.convertScaleAbs(frame, alpha=1.0 + 0.25 * size * _arm_share(truth, t))
            elif kind == "dusk":
                frame = cv2.convertScaleAbs(frame, alpha=1.0 - 0.3 * min(1.0, i / n))
            elif kind in ("shadow", "passing") and t >= t_quiet:
                frame = np.clip(frame * shade(t), 0, 255).astype(np.uint8)
            elif kind == "noise":
                frame = np.clip(frame + rng.normal(0, 6, frame.shape), 0, 255).astype(np.uint8)
            writer.write(frame)
            i += 1
    finally:
        writer.release()
        cap.release()
    t = json.loads(json.dumps(truth))
    if kind not in ("bump", "drift"):
        return t

    def moved_at(time: float):
        # the picture's move at ``time`` (None: not moved yet)
        if kind == "bump":
            return knock if time >= t_quiet else None
        return camera(min(1.0, time * fps / n))

    def mv(m, p):
        return [float(m[0, 0] * p[0] + m[0, 1] * p[1] + m[0, 2]), float(m[1, 0] * p[0] + m[1, 1] * p[1] + m[1, 2])]

    for p in t["placements"]:
        m = moved_at(p["t"])
        if m is not None:
            p["cell_center"] = mv(m, p["cell_center"])
    for line in t.get("winning_lines", []):
        m = moved_at(line["t"])
        if m is not None:
            line["cell_centers"] = [mv(m, p) for p in line["cell_centers"]]
    return t


def _arm_share(truth: dict, t: float, lag: float = 0.5) -> float:
    """0-1: how far a camera's automatic exposure has followed an arm in view at time
    ``t`` (it follows over ``lag`` seconds as the arm comes and again as it goes)."""
    share = 0.0
    for h in truth.get("hands", []):
        a, b = h["from_t"], h["to_t"]
        if not a <= t <= b + lag:
            continue
        reached = min(1.0, (min(t, b) - a) / lag)  # how far it followed the arm coming
        if t > b:
            reached *= 1.0 - (t - b) / lag  # ... and back as it goes
        share = max(share, reached)
    return share


def _flags(flags: dict[str, int]) -> str:
    """The flags raised (the games are played fairly: each is a false alarm)."""
    n = sum(flags.values())
    return f"{n} flagged" + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(flags.items())) + ")" if n else "")


def main(argv=None) -> int:
    from quarto_assist.scoring import read_events, score

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--grace", type=float, default=3.0)
    ap.add_argument("--profile")
    ap.add_argument("--sure", type=float, help="watch's --sure (default: watch's own)")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--json", metavar="OUT", help="also write each video's figures to OUT (JSON), for --compare")
    ap.add_argument("--compare", metavar="BASE",
                    help="a --json file of an earlier run: print, per video, every figure that changed since")
    ap.add_argument("--size", type=_size, metavar="WxH",
                    help="watch each video scaled to this size (its truth scaled alike), e.g. 1920x1080: "
                         "the same games from a camera of another resolution")
    ap.add_argument("--disturb", choices=DISTURBANCES,
                    help="watch each video changed as a real table changes it: the camera knocked, the light "
                         "dropping or fading, the camera creeping, sensor noise")
    ap.add_argument("--disturb-size", type=float, default=1.0, metavar="X",
                    help="the knock's, the creep's or the exposure's size as a share of the standard one (3 "
                         "degrees, 20 and 12 pixels; 25 %%; default 1)")
    args = ap.parse_args(argv)
    vids = videos(args.paths)
    if not vids:
        print("no game videos with truth found (samples/*.mp4, data/renders/**/*.mp4)")
        return 1
    base = None
    if args.compare:
        try:
            with open(args.compare, encoding="utf-8") as f:
                base = json.load(f)
        except (OSError, ValueError) as e:
            print(f"ERROR cannot read --compare file {args.compare!r}: {e}", file=sys.stderr)
            return 2
    rows: dict[str, dict] = {}
    tot = dict(p=0, f=0, loc=0, fr=0, i=0, l=0, a=0, wr=0, fq=0)
    delays = []
    flags: dict[str, int] = {}
    # the package this interpreter imports (so PYTHONPATH can point a run at another tree)
    exe = [sys.executable, "-m", "quarto_assist"]
    for v in vids:
        truth = json.load(open(_truth_file(v)))
        with tempfile.TemporaryDirectory() as tmp:
            src = v
            if args.size:
                src = os.path.join(tmp, "scaled.mp4")
                truth = rescaled(v, truth, args.size, src)
            if args.disturb:
                out = os.path.join(tmp, "disturbed.mp4")
                truth = disturbed(src, truth, args.disturb, out, size=args.disturb_size)
                src = out
            ev = os.path.join(tmp, "events.jsonl")
            cmd = exe + ["watch", src, "--no-window", "--no-speech", "--events", ev, "--grace", str(args.grace),
                   "--record", os.path.join(tmp, "game.txt")]
            if args.profile:
                cmd += ["--profile", args.profile]
            if args.sure is not None:
                cmd += ["--sure", str(args.sure)]
            t0 = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True)
            secs = time.perf_counter() - t0
            if r.returncode != 0:
                print(f"{os.path.relpath(v, ROOT)}: watch failed: {r.stderr.strip()[-300:]}")
                continue
            events = read_events(ev)
            s = score(truth, events, grace=args.grace)
        frames = truth.get("frames") or 0
        fps = f"{frames / secs:6.1f}" if frames else "   ?"
        dl = " ".join(f"{d:+.2f}" for d in s.delays) or "-"
        print(f"{os.path.relpath(v, ROOT)}: placements {s.found}/{s.placements} found ({s.located} at the right cell "
              f"and time, any piece; {s.final_right} with the right piece on the right cell after re-reading and moves), {s.invented} invented; "
              f"unclaimed Quartos {s.announced}/{s.lines} announced (delay after settled+grace: {dl}), "
              f"{s.wrong_reason} for a wrong reason, {s.false_quartos} false; {_flags(s.flags)}; {fps} fps incl. start-up")
        unsure = [e for e in events if e["event"] == "quarto_unsure"]
        if unsure:
            print(f"    shown as unsure, not announced: " + "; ".join(
                f"{e['t']:.1f} s {e['line']} ({', '.join(e['attributes'])}) p={e['confidence']:.2f}" for e in unsure))
        if args.verbose:
            for e in events:
                if e["event"] == "quarto":
                    print(f"    announced {e['t']:.1f} s {e['line']} ({', '.join(e['attributes'])}) "
                          f"p={e.get('confidence', 1.0):.2f}")
            for prob in s.problems:
                print(f"    {prob}")
        rows[os.path.relpath(v, ROOT)] = {
            "placements": s.placements, "named when placed": s.found, "at the right cell and time": s.located,
            "named after re-reading": s.final_right, "invented": s.invented, "Quartos": s.lines,
            "Quartos announced": s.announced, "for a wrong reason": s.wrong_reason,
            "false Quartos": s.false_quartos, "flags": sum(s.flags.values())}
        tot["p"] += s.placements; tot["f"] += s.found; tot["loc"] += s.located; tot["fr"] += s.final_right; tot["i"] += s.invented
        tot["l"] += s.lines; tot["a"] += s.announced; tot["wr"] += s.wrong_reason; tot["fq"] += s.false_quartos
        for k, n in s.flags.items():
            flags[k] = flags.get(k, 0) + n
        delays += s.delays
    print(f"TOTAL: placements {tot['f']}/{tot['p']} found ({tot['loc']} at the right cell and time, {tot['fr']} right after re-reading and moves), "
          f"{tot['i']} invented; unclaimed Quartos "
          f"{tot['a']}/{tot['l']} announced within 1.5 s ({tot['wr']} for a wrong reason), {tot['fq']} false; {_flags(flags)}"
          + (f"; worst delay {max(delays):+.2f} s" if delays else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    if base is not None:
        print(compare(base, rows))
    return 0


def compare(base: dict, rows: dict) -> str:
    """Lines saying, per video in both runs, each figure that changed (``rows`` and
    ``base``: video -> figures, as ``--json`` writes them), and the totals' changes."""
    out = []
    both = [v for v in rows if v in base]
    for v in both:
        moved = [f"{k} {base[v][k]} -> {n}" for k, n in rows[v].items() if k in base[v] and base[v][k] != n]
        if moved:
            out.append(f"  {v}: " + ", ".join(moved))
    keys = [k for k in next(iter(rows.values()), {}) if all(k in base[v] for v in both)]
    totals = [f"{k} {sum(base[v][k] for v in both)} -> {sum(rows[v][k] for v in both)}" for k in keys
              if sum(base[v][k] for v in both) != sum(rows[v][k] for v in both)]
    head = f"COMPARED with the earlier run on {len(both)} video(s): "
    head += ("every figure the same" if not out else "totals " + (", ".join(totals) or "the same"))
    missing = [v for v in rows if v not in base]
    if missing:
        head += f" ({len(missing)} video(s) not in the earlier run: {', '.join(missing)})"
    return "\n".join([head] + out)


if __name__ == "__main__":
    sys.exit(main())
