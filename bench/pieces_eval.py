"""Piece recognition alone, with the board taken from truth (board finding cannot fail).

    python bench/pieces_eval.py --train data/renders/dev-v0 data/renders/v1/train \\
        --test data/renders/calib-holdout data/renders/v1/holdout [--models vision/default_models.json]

For every image with a board, the homography comes from the truth cell centres (fitted
to the unit-grid positions), per-cell features are ``vision.features.cell_features`` and
the reading is the recogniser's: occupancy threshold, then the joint assignment of
distinct pieces (the features include the piece network's logits, ``vision/net.py``).
Prints occupancy accuracy, per-attribute accuracy (cells holding a piece
in truth and in the reading, after the assignment), cells fully right and boards fully
right (hidden cells are not scored).

``--board found``: the board the pipeline finds (``Recognizer.find_board``, cached in
``/tmp/pieces_eval_found`` keyed by image and the board finder's files) instead of the truth
board; every reading is scored by ``vision.evaluation.score_reading`` and summed by its
``summarize``, as ``quarto-assist evaluate`` does (cells matched to truth by centre, a
cell more than half a pitch from its true centre is wrong, a board not found counts every
cell wrong); the figures on the found boards alone are printed too. ``--net FILE`` reads
with another piece network (e.g. a development run's), ``--net-weight W`` averages every model's score with the network's logit at weight W
(1: the network alone, as the per-frame step reads), ``--by-tilt`` adds the occupancy
of cells behind a tall piece and the figures per camera-tilt band of
``vision.evaluation.breakdown``. ``--by-lean`` adds the attributes of every piece read (a
piece in truth and in the reading at the same cell) per band of its cell's true "lean": the
image length of a one-pitch vertical there, in the board's pitches as seen at that cell
(the larger singular value of the board's local map), from the truth camera (pose and lens
distortion); 0 straight under the camera, ~0.9 from a low one. It tells how well the
network reads a piece's height at each view.

On ``--train`` folders: image-grouped 5-fold cross-validation of the training recipe
(``vision.training.train``), so the figure is for images the models did not see. On
``--test`` folders: the models given by ``--models`` (default: the built-in ones), or
with ``--fit`` models trained on all ``--train`` folders (never on the test folders).
Features are cached in ``/tmp/pieces_eval_cache`` (keyed by image path, mtime and the
feature layout).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CACHE = "/tmp/pieces_eval_cache"
FOUND_CACHE = "/tmp/pieces_eval_found"


def truth_jsons(folder: str) -> list[str]:
    """The truth files of a folder (and its direct subfolders), or those listed in a text
    file (one path a line: e.g. a development run's ``*_val_files.txt``)."""
    from vision.evaluation import read_file_list, truth_files_under

    return read_file_list(folder) if os.path.isfile(folder) else truth_files_under(folder)


def _net_digest() -> str:
    """The digest of the piece network's files and the large-set detector's (the logits are
    features, so the cache depends on them)."""
    from vision.net import NET_FILES
    from vision.set_size import MODEL_FILE

    if not hasattr(_net_digest, "value"):
        _net_digest.value = _files_digest(list(NET_FILES) + [MODEL_FILE] + _overhead_files())
    return _net_digest.value


def _overhead_files() -> list[str]:
    """The overhead network's file, if one is read (its logits are features too)."""
    import vision.net

    over = vision.net.overhead_net()
    return [] if over is None else [over.path]


def _files_digest(paths) -> str:
    digest = hashlib.sha1()
    for p in paths:
        with open(p, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def image_features(path: str, settings, variant: int = 0):
    """``vision.training.truth_image_features`` with a disk cache (keyed by truth file,
    its image's mtime, and the feature layout)."""
    from vision import crops
    from vision.features import FEATURE_NAMES, FEATURES_VERSION
    from vision.training import AUGMENT_VERSION, truth_image_features

    layout = f"f{FEATURES_VERSION}:aug{AUGMENT_VERSION}:{'|'.join(FEATURE_NAMES)}:{crops.CROP_SPAN}:{crops.CROP_BELOW}:{crops.CROP_ABOVE}:{crops.CROP_W}x{crops.CROP_H}:{_net_digest()}"
    key = hashlib.sha1(f"{os.path.abspath(path)}:{os.path.getmtime(path)}:{variant}:{layout}".encode()).hexdigest()
    cache = os.path.join(CACHE, key + ".npz")
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=True)
        return (z["X"], z["Y"], z["hidden"], list(z["pieces"])) if z["X"].size else None
    r = truth_image_features(path, settings, variant)
    os.makedirs(CACHE, exist_ok=True)
    if r is None:
        np.savez(cache, X=np.zeros(0), Y=np.zeros(0), hidden=np.zeros(0), pieces=np.zeros(0))
    else:
        np.savez(cache, X=r[0], Y=r[1], hidden=r[2], pieces=np.array(r[3], dtype=object))
    return r


def _board_digest() -> str:
    """Digest of the board finder's files (the found-board cache depends on them)."""
    if not hasattr(_board_digest, "value"):
        h = hashlib.sha1()
        for name in ("recognizer.py", "board_net.py", "board_net.onnx", "board_net_turned.onnx", "board_net_low.onnx",
                     "dnn.py",
                     "lattice.py", "outline.py", "cells.py", "geometry.py", "settings.py", "image.py"):
            with open(os.path.join(ROOT, "vision", name), "rb") as f:
                h.update(f.read())
        _board_digest.value = h.hexdigest()
    return _board_digest.value


def found_board(path: str, settings):
    """The board ``Recognizer.find_board`` finds on the truth image ``path``: ``(homography,
    cell centres)`` in image pixels, or ``None``; cached."""
    from vision.evaluation import load_truth
    from vision.image import load_image
    from vision.recognizer import Recognizer

    key = hashlib.sha1(f"{os.path.abspath(path)}:{os.path.getmtime(path)}:{_board_digest()}".encode()).hexdigest()
    cache = os.path.join(FOUND_CACHE, key + ".json")
    if os.path.exists(cache):
        with open(cache, encoding="utf-8") as f:
            doc = json.load(f)
    else:
        truth = load_truth(path)
        img = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image)
        if not hasattr(found_board, "rec"):
            found_board.rec = Recognizer(settings)
        r = found_board.rec.find_board(img)
        doc = {"found": bool(r.found)}
        if r.found:
            doc.update(homography=np.asarray(r.homography).tolist(), cell_centers=np.asarray(r.cell_centers).tolist())
        os.makedirs(FOUND_CACHE, exist_ok=True)
        with open(cache, "w", encoding="utf-8") as f:
            json.dump(doc, f)
    if not doc["found"]:
        return None
    return np.asarray(doc["homography"], float), np.asarray(doc["cell_centers"], float)


def _row(path: str, cells, centres, found: bool = True, hidden_also=None) -> dict:
    """The :func:`vision.evaluation.score_reading` row of a reading (``cells`` at
    ``centres``, image pixels) of the truth image ``path``; ``hidden_also`` (16,) bool in
    truth order: cells left out of the score besides those the truth hides."""
    from vision.evaluation import load_truth, score_reading
    from vision.reading import BoardReading

    truth = load_truth(path)
    if hidden_also is not None:
        truth = dict(truth, hidden=[bool(h) or bool(x) for h, x in
                                    zip(truth.get("hidden") or [False] * 16, hidden_also)])
    reading = BoardReading(found=found, cell_centers=None if centres is None else np.asarray(centres, float),
                           cells=list(cells) if cells is not None else None)
    row = score_reading(reading, truth, 0.0)
    row["path"] = path
    return row


def found_results(folder, settings, models, threshold):
    """Per image with a board: ``(path, cells (the reading's order), centres (image
    pixels) or None when no board is found)`` with the board the pipeline finds."""
    from vision.evaluation import load_truth
    from vision.features import cell_features
    from vision.image import load_image
    from vision.reading import BoardReading

    out = []
    for path in truth_jsons(folder):
        truth = load_truth(path)
        if not truth["board_found_expected"] or len(truth.get("cell_centers") or []) != 16:
            continue
        fb = found_board(path, settings)
        if fb is None:
            out.append((path, None, None))
            continue
        H, centres = fb
        img = load_image(os.path.join(os.path.dirname(path), truth["image"]), settings.image)
        X = cell_features(img, BoardReading(found=True, homography=H, cell_centers=centres), settings)
        out.append((path, read(models, X, threshold)[0], centres))
    return out


def behind_tall(path: str) -> np.ndarray:
    """``(16,)`` bool: cells (truth order) that a tall piece in front covers in the picture
    (``vision.crops.front_weights`` >= 0.5 from a cell holding a tall piece; board from truth)."""
    import cv2

    from vision.crops import front_weights
    from vision.evaluation import _truth_piece, load_truth
    from vision.geometry import cell_grid

    truth = load_truth(path)
    H, _ = cv2.findHomography(cell_grid(), np.asarray(truth["cell_centers"], float))
    W = front_weights(H, (truth.get("height") or 720, truth.get("width") or 1280))
    pieces = [_truth_piece(c) for c in truth["cells"]]
    tall = np.array([p is not None and bool(p & 1) for p in pieces])
    return (W * tall[None, :]).max(1) >= 0.5


def show_by_tilt(results):
    """results: (path, cells, centres). Occupancy of the cells behind a tall piece (low
    cameras: the piece covers them), then the summary per camera-tilt band of
    ``vision.evaluation.breakdown``."""
    from vision.evaluation import breakdown

    for label, low in (("tilt < 35", False), ("tilt >= 35", True)):
        rows = [_row(p, c, x, c is not None, ~behind_tall(p)) for p, c, x in results
                if not np.isnan(tilt_of(p)) and (tilt_of(p) >= 35) == low]
        rows = [r for r in rows if r["board_found"]]
        n = sum(r["cells_scored"] for r in rows)
        if n:
            ok = sum(r["occupancy_right"] for r in rows)
            print(f"    {label}: cells behind a tall piece {n:4d}, occupancy right {100 * ok / n:5.1f} %")
    for band, s in breakdown([_row(p, c, x, c is not None) for p, c, x in results])["tilt"].items():
        print(f"    tilt {band:9s} {s['positives']:4d} img  occ {_pct(s['occupancy_pct'])}  "
              f"tall {_pct(s['tall_pct'])}  cells {_pct(s['cells_right_pct'])}  boards {_pct(s['boards_right_pct'])}")


LEAN_BANDS = ((0, .05), (.05, .1), (.1, .15), (.15, .2), (.2, .3), (.3, .5), (.5, 1), (1, 9))


def true_leans(path: str) -> np.ndarray | None:
    """``(16,)`` the true lean of each truth cell (see the module docstring), or ``None``
    without a camera in the truth. The board's top is taken as level (normal: the world's
    z axis); the cells are put on it where the rays through their true image centres
    meet it, scaled to the board's pitch."""
    import cv2

    from vision.evaluation import load_truth

    truth = load_truth(path)
    cam = truth.get("camera") or {}
    if not cam.get("K") or not cam.get("R") or not (truth.get("board") or {}).get("pitch_cm"):
        return None
    K, R, t = np.asarray(cam["K"], float), np.asarray(cam["R"], float), np.asarray(cam["t"], float)
    dist = np.asarray(cam.get("dist") or [0.0] * 5, float)
    pitch = float(truth["board"]["pitch_cm"]) / 100.0
    rays = cv2.undistortPoints(np.asarray(truth["cell_centers"], float).reshape(-1, 1, 2), K, dist).reshape(-1, 2)
    rays = np.c_[rays, np.ones(16)]
    n = R[:, 2]  # the world's up in camera coordinates
    X = rays / (rays @ n)[:, None]  # on the plane n . X = 1
    grid = X.reshape(4, 4, 3)
    ex = (grid[:, 1:] - grid[:, :-1]).reshape(-1, 3)
    ey = (grid[1:] - grid[:-1]).reshape(-1, 3)
    X = X * (pitch / float(np.median(np.linalg.norm(np.r_[ex, ey], axis=1))))
    grid = X.reshape(4, 4, 3)
    ux = (grid[:, -1] - grid[:, 0]).sum(0)
    uy = (grid[-1] - grid[0]).sum(0)
    ux, uy = ux / np.linalg.norm(ux), uy / np.linalg.norm(uy)
    up = n if np.dot(n, -X.mean(0)) > 0 else -n  # towards the camera
    pts = np.concatenate([X, X + pitch * up, X + pitch * ux, X + pitch * uy])
    uv = cv2.projectPoints(pts, np.zeros(3), np.zeros(3), K, dist)[0].reshape(4, 16, 2)
    J = np.stack([uv[2] - uv[0], uv[3] - uv[0]], -1)
    s1 = np.linalg.svd(J, compute_uv=False)[:, 0]
    return np.linalg.norm(uv[1] - uv[0], axis=1) / s1


def matched_pieces(truth: dict, cells, centres):
    """Yield ``(truth cell index, truth piece, piece read)`` for every cell where truth and
    reading both hold a piece (the reading's cell nearest the truth centre, within half a
    pitch; hidden cells skipped)."""
    from vision.evaluation import _truth_piece

    tc = np.asarray(truth["cell_centers"], float)
    rc = np.asarray(centres, float)
    d = np.hypot(*(tc[:, None] - rc[None]).T).T  # [truth, reading]
    pitch = float(np.median(np.sort(np.hypot(*(tc[:, None] - tc[None]).T), axis=1)[:, 1]))
    hidden = truth.get("hidden") or [False] * 16
    for i in range(16):
        j = int(np.argmin(d[i]))
        tp, rp = _truth_piece(truth["cells"][i]), cells[j]
        if hidden[i] or d[i, j] > 0.5 * pitch or tp is None or rp is None:
            continue
        yield i, tp, rp


def lean_pieces(path: str, cells, centres) -> list[tuple[float, list[bool]]]:
    """Per piece read right or wrong (truth and reading both hold a piece at the cell; not
    hidden): ``(true lean, [tall, dark, square, hollow] right)``."""
    from vision.evaluation import load_truth

    truth = load_truth(path)
    lean = true_leans(path)
    if lean is None or cells is None or centres is None:
        return []
    return [(float(lean[i]), [((tp >> b) & 1) == ((rp >> b) & 1) for b in range(4)])
            for i, tp, rp in matched_pieces(truth, cells, centres)]


def show_by_lean(results) -> None:
    """results: (path, cells, centres). Attributes right per band of true lean."""
    rows = [r for p, c, x in results for r in lean_pieces(p, c, x)]
    if not rows:
        print("    (no truth camera: no lean)")
        return
    lean = np.array([r[0] for r in rows])
    ok = np.array([r[1] for r in rows], float)
    for lo, hi in LEAN_BANDS:
        m = (lean >= lo) & (lean < hi)
        if m.any():
            print(f"    lean {lo:.2f}-{hi:.2f}: {int(m.sum()):5d} pieces  tall {100 * ok[m, 0].mean():5.1f}  "
                  f"dark {100 * ok[m, 1].mean():5.1f}  square {100 * ok[m, 2].mean():5.1f}  "
                  f"hollow {100 * ok[m, 3].mean():5.1f}")
    m = lean < 0.3
    if m.any():
        print(f"    lean < 0.30: {int(m.sum()):5d} pieces  tall {100 * ok[m, 0].mean():5.1f}   "
              f"(>= 0.30: {int((~m).sum())} pieces, tall {100 * ok[~m, 0].mean():5.1f})")


def _plan(dataset_dir: str):
    """The scene generator's plan of a rendered dataset (from its ``dataset.json``), or
    ``None``: it gives every image's scene description, with each piece's turn."""
    if not hasattr(_plan, "cache"):
        _plan.cache = {}
    if dataset_dir not in _plan.cache:
        plan = None
        try:
            with open(os.path.join(dataset_dir, "dataset.json"), encoding="utf-8") as f:
                m = json.load(f)
            from scenegen.dataset import Plan

            plan = Plan(m["seed"], m["boards"], m["piece_sets"], m["holdout_boards"], m["holdout_sets"],
                        m["holdout_fraction"], negative_rate=m["negative_rate"], hand_rate=m["hand_rate"],
                        samples=m["samples"], render_scale=m["render_scale"],
                        procedural_sets=m.get("procedural_sets", 0.0), board_tints=m.get("board_tints", 0.0),
                        min_pieces=m.get("min_pieces", 0), separate_pieces=m.get("separate_pieces", False))
        except (OSError, KeyError, TypeError, ValueError, ImportError):
            plan = None
        _plan.cache[dataset_dir] = plan
    return _plan.cache[dataset_dir]


def square_turns(path: str) -> np.ndarray | None:
    """``(16,)`` per truth cell, how far its piece is turned from showing the camera a face
    square on, in degrees 0..45 (45: an edge towards the camera; NaN for an empty cell), from
    the scene description the generator rebuilds from the dataset's plan and the image's
    index (the truth files do not record the pieces' turn); ``None`` when it cannot be
    rebuilt or does not match the truth."""
    from vision.evaluation import load_truth

    folder = os.path.dirname(os.path.abspath(path))
    split = os.path.basename(folder)
    plan = _plan(os.path.dirname(folder)) if split in ("train", "holdout") else _plan(folder)
    if plan is None:
        return None
    try:
        index = int(os.path.splitext(os.path.basename(path))[0])
        got, spec = plan.scene(index)
    except (ValueError, KeyError):
        return None
    truth = load_truth(path)
    on = {p["cell"]: p for p in spec.get("pieces", []) if p.get("cell") is not None}
    cells = truth["cells"]
    if any((c is None) != (i not in on) or (c is not None and int(c, 16) != on[i]["piece"])
           for i, c in enumerate(cells)):
        return None
    eye = np.asarray(spec["camera"]["eye"], float)
    out = np.full(16, np.nan)
    for i, p in on.items():
        view = np.degrees(np.arctan2(p["y"] - eye[1], p["x"] - eye[0]))
        a = (p["yaw_deg"] - view) % 90.0
        out[i] = min(a, 90.0 - a)
    return out


def piece_rows(path: str, cells, centres) -> list[dict]:
    """Per piece read (truth and reading both hold a piece at the cell; not hidden): its
    truth piece, the piece read, the set's material and id, the board style, the tilt."""
    from vision.evaluation import load_truth

    truth = load_truth(path)
    if cells is None or centres is None:
        return []
    ps = truth.get("piece_set") or {}
    turns = square_turns(path) if getattr(piece_rows, "turns", False) else None
    return [{"truth": tp, "read": rp, "material": ps.get("material", ""),
             "set": "procedural" if ps.get("procedural") else ps.get("id", ""),
             "board": (truth.get("board") or {}).get("style", ""), "tilt": tilt_of(path),
             "turn": None if turns is None else float(turns[i])}
            for i, tp, rp in matched_pieces(truth, cells, centres)]


def show_by_set(results, turns: bool = False) -> None:
    """results: (path, cells, centres). The four attributes of the pieces read per piece
    set, material and board style; square/round also per truth shape and, with ``turns``,
    per turn of a square piece from the camera (0: a face square on, 45: an edge)."""
    piece_rows.turns = turns
    rows = [r for p, c, x in results for r in piece_rows(p, c, x)]
    if not rows:
        return

    def line(label, rs):
        ok = np.array([[((r["truth"] >> b) & 1) == ((r["read"] >> b) & 1) for b in range(4)] for r in rs], float)
        print(f"    {label:34s} {len(rs):5d} pieces  tall {100 * ok[:, 0].mean():5.1f}  dark {100 * ok[:, 1].mean():5.1f}  "
              f"square {100 * ok[:, 2].mean():5.1f}  hollow {100 * ok[:, 3].mean():5.1f}")

    for key in ("material", "set", "board"):
        for k in sorted({r[key] for r in rows}):
            line(f"{key} {k}", [r for r in rows if r[key] == k])
    for shape, bit in (("square", 4), ("round", 0)):
        line(f"truth {shape}", [r for r in rows if (r["truth"] & 4) == bit])
    for label, sel in (("truth square+tall", 5), ("truth square+short", 4), ("truth round+tall", 1),
                       ("truth round+short", 0)):
        line(label, [r for r in rows if (r["truth"] & 5) == sel])
    for label, sel in (("truth square+hollow", 12), ("truth square+solid", 4), ("truth round+hollow", 8),
                       ("truth round+solid", 0)):
        line(label, [r for r in rows if (r["truth"] & 12) == sel])
    if turns:
        sq = [r for r in rows if r["truth"] & 4 and r["turn"] is not None and not np.isnan(r["turn"])]
        for lo, hi in ((0, 10), (10, 20), (20, 30), (30, 40), (40, 45.01)):
            line(f"square, turned {lo}-{min(hi, 45):.0f} deg", [r for r in sq if lo <= r["turn"] < hi])
        print(f"    ({len(sq)} square pieces with a known turn)")


def tilt_of(path: str) -> float:
    from vision.evaluation import load_truth

    return float(((load_truth(path).get("camera") or {}).get("tilt_deg")) or float("nan"))


def collect(folders, settings, augment: int = 0):
    """Per image ``(path, X, Y, hidden, pieces, augmented [(X, Y, hidden)...])``."""
    data = []
    for folder in folders:
        for path in truth_jsons(folder):
            r = image_features(path, settings)
            if r is not None:
                aug = [image_features(path, settings, v)[:3] for v in range(1, augment + 1)]
                data.append((path,) + r + (aug,))
    return data


def stack(data):
    """Training arrays of images (with their augmented copies), hidden cells left out."""
    parts = [(d[1], d[2], d[3]) for d in data] + [a for d in data for a in d[5]]
    return np.vstack([x[~h] for x, _, h in parts]), np.vstack([y[~h] for _, y, h in parts])


def read(models, X, threshold):
    from vision.assign import assign_pieces
    from vision.attributes import predict_proba

    probs = predict_proba(X, models)
    return assign_pieces(probs[:, 0] > threshold, probs[:, 1:]), probs


def _pct(v) -> str:
    return "    -" if v is None else f"{v:5.1f}"


def show(name, rows):
    """One line: ``vision.evaluation.summarize`` of ``rows`` (score_reading rows)."""
    from vision.evaluation import summarize

    s = summarize(rows)
    print(f"{name:40s} {s['positives']:4d} img  occ {_pct(s['occupancy_pct'])}  tall {_pct(s['tall_pct'])}  "
          f"dark {_pct(s['dark_pct'])}  square {_pct(s['square_pct'])}  hollow {_pct(s['hollow_pct'])}  "
          f"cells {_pct(s['cells_right_pct'])}  boards {_pct(s['boards_right_pct'])}")


def truth_centres(path: str) -> np.ndarray:
    from vision.evaluation import load_truth

    return np.asarray(load_truth(path)["cell_centers"], float)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="*", default=[])
    ap.add_argument("--test", nargs="*", default=[])
    ap.add_argument("--models", help="model file (default: the built-in models)")
    ap.add_argument("--fit", action="store_true", help="test with models trained on all --train folders")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--augment", type=int, default=3, help="augmented copies per training image (as vision.training)")
    ap.add_argument("-C", type=float, default=None, help="regularisation (default: the training recipe's)")
    ap.add_argument("--board", choices=("truth", "found"), default="truth",
                    help="board from truth (default) or as the pipeline finds it (--test folders only)")
    ap.add_argument("--net", metavar="ONNX", nargs="+",
                    help="piece network file(s) (default: the shipped vision/piece_net.onnx); with several, the "
                         "--test folders are read with each in turn, on the same found boards; A.onnx+B.onnx: "
                         "the two networks' logits averaged (vision.net.PieceNets)")
    ap.add_argument("--net-weight", type=float, default=None, metavar="W",
                    help="read with each model's score averaged with the network's logit at weight W "
                         "(vision.attributes.with_net; 1: the network alone; default: the shipped models' weight)")
    ap.add_argument("--overhead-net", metavar="ONNX",
                    help="the network read at cells seen from above (vision.net.overhead_net; default: the shipped "
                         "vision/piece_net_overhead.onnx if there is one; 'none': no such network)")
    ap.add_argument("--by-tilt", action="store_true", help="also occupancy and cells per camera-tilt band")
    ap.add_argument("--by-lean", action="store_true",
                    help="also the attributes of the pieces read, per band of their cell's true lean")
    ap.add_argument("--by-set", action="store_true",
                    help="also the attributes of the pieces read per piece set, material, board style and true shape")
    ap.add_argument("--by-turn", action="store_true",
                    help="with --by-set: square pieces per turn from the camera (rebuilt from the dataset's plan)")
    ap.add_argument("--pool", action="store_true",
                    help="with --by-lean: one lean table over all --test folders (besides one per folder)")
    args = ap.parse_args()
    nets = args.net or [None]
    if args.overhead_net is not None:
        import vision.net

        vision.net._overhead = None if args.overhead_net == "none" else vision.net.PieceNet(args.overhead_net)
    use_net(nets[0])

    from vision.attributes import models_from_dict
    from vision.settings import VisionSettings
    from vision.training import train

    settings = VisionSettings()
    thr = settings.pieces.occupied_threshold
    kw = {} if args.C is None else {"C": args.C}
    train_data = collect(args.train, settings, args.augment)
    if train_data:
        groups = np.arange(len(train_data)) % args.folds
        rng = np.random.default_rng(0)
        groups = rng.permutation(groups)
        results = []
        for f in range(args.folds):
            tr = [d for d, g in zip(train_data, groups) if g != f]
            X, Y = stack(tr)
            models = models_from_dict(train(X, Y, **kw))
            for d, g in zip(train_data, groups):
                if g == f:
                    results.append(_row(d[0], read(models, d[1], thr)[0], truth_centres(d[0])))
        show(f"train CV ({args.folds}-fold by image)", results)
    if args.fit:
        X, Y = stack(train_data)
        models = models_from_dict(train(X, Y, **kw))
    elif args.models:
        with open(args.models, encoding="utf-8") as fh:
            models = models_from_dict(json.load(fh)["models"])
    else:
        models = models_from_dict(settings.attributes)
    if args.net_weight is not None:
        from vision.attributes import with_net

        models = models_from_dict(with_net({n: m.to_dict() for n, m in models.items()}, args.net_weight))
    for k, net in enumerate(nets if args.test else []):
        if k:
            use_net(net)
        if net is not None and len(nets) > 1:
            print(f"network {net}:")
        test(args, settings, models, thr)
    return 0


def use_net(path: str | None) -> None:
    """Read pieces with the network ``path`` (None: the shipped one)."""
    import vision.net

    if path is None:
        return
    vision.net._default = vision.net.read_nets(path)
    _net_digest.value = _files_digest(path.split("+") + _overhead_files())


def test(args, settings, models, thr) -> None:
    """The figures on every ``--test`` folder."""
    pooled = []
    for folder in args.test:
        if args.board == "found":
            results = found_results(folder, settings, models, thr)
            rows = [_row(p, c, x, c is not None) for p, c, x in results]
            show(os.path.relpath(folder) + " (found)", rows)
            show("  on the boards found", [r for r in rows if r["board_found"]])
        else:
            results = [(d[0], read(models, d[1], thr)[0], truth_centres(d[0])) for d in collect([folder], settings)]
            rows = [_row(p, c, x) for p, c, x in results]
            show(os.path.relpath(folder), rows)
        subs = sorted({os.path.dirname(r["path"]) for r in rows})
        if len(subs) > 1:
            for sub in subs:
                show("  " + os.path.basename(sub), [r for r in rows if os.path.dirname(r["path"]) == sub])
        if args.by_tilt:
            show_by_tilt(results)
        if args.by_set:
            show_by_set(results, args.by_turn)
        if args.by_lean:
            show_by_lean(results)
        pooled += results
    if args.by_lean and args.pool and len(args.test) > 1:
        print("all --test folders, by lean:")
        show_by_lean(pooled)
    if args.by_set and args.pool and len(args.test) > 1:
        print("all --test folders, by set:")
        show_by_set(pooled, args.by_turn)


if __name__ == "__main__":
    sys.exit(main())
