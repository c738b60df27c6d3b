"""Calibration's own stage, measured apart from board finding: the board is taken from truth.

    python bench/calibration_oracle.py data/renders/calib-holdout [--photos 2]

For each session folder made by ``bench/render_calibration_set.py`` (``c*.jpg`` photos of
all 16 pieces, ``NNNN.jpg`` scored photos), the homography of every image comes from its
truth (cell centres), so board finding cannot fail. Calibration
(``calibration.learn.learn_profile`` on vision's per-cell features: the default models
adapted to the set, ``calibration.adapt``) runs on the ``c*`` photos, then the scored
photos are read with the truth occupancy and the joint assignment, with the calibrated
models, with the built-in default models, and (``scratch``) with models learned from
the measurements alone (``vision.attributes.fit_unsupervised``, session 1's calibration).
It prints per session the separation of each class (d') with the form kept (``=``
default, ``~`` rescaled, ``+`` adapted), the share of tall/dark/square/hollow that the
final joint reading of the calibration photos got right (the labels calibration learned
from, checked against truth), seconds of learning, and the share of pieces
(cells holding one) / boards read fully right. A refused calibration leaves the user on
the default and is scored so. What this measures is the ceiling calibration reaches
once vision finds the board; ``bench/calibration_holdout.py`` measures the whole
pipeline.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)



def truth_reading(truth: dict):
    from vision.geometry import cell_grid
    from vision.reading import BoardReading

    centres = np.asarray(truth["cell_centers"], float)
    H, _ = cv2.findHomography(cell_grid(), centres)
    return BoardReading(found=True, homography=H, cell_centers=centres)


def read_cells(models, features, occupied):
    from vision.assign import assign_pieces
    from vision.attributes import PIECE_ATTRIBUTES
    from vision.features import FEATURE_NAMES

    probs = np.stack([models[a].predict_proba(features, FEATURE_NAMES) for a in PIECE_ATTRIBUTES], 1)
    return assign_pieces(occupied, probs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="output folder of bench/render_calibration_set.py")
    ap.add_argument("--photos", type=int, default=2, help="calibration photos per session (default 2)")
    args = ap.parse_args()

    import time

    from calibration.learn import CalibrationRefused, PhotoCheck, learn_profile
    from calibration.profile import default_profile
    from vision.attributes import fit_unsupervised, models_from_dict
    from vision.features import cell_features

    base = default_profile()
    settings = base.vision
    default = models_from_dict(settings.attributes)
    sessions = sorted(d for d in glob.glob(os.path.join(args.folder, "*")) if os.path.isdir(d))
    names = ("calibrated", "default", "scratch")
    total = {k: [0, 0, 0, 0] for k in names}
    mark = {"default": "=", "rescaled": "~", "adapted": "+"}
    for sess in sessions:
        calib = sorted(glob.glob(os.path.join(sess, "c*.json")))[: args.photos]
        scored = sorted(glob.glob(os.path.join(sess, "[0-9]*.json")))
        if not calib or not scored:
            continue
        photos, calib_truth = [], []
        for js in calib:
            t = json.load(open(js))
            image = cv2.imread(os.path.join(sess, t["image"]))
            photos.append(PhotoCheck(path=js, frame=image, features=cell_features(image, truth_reading(t), settings)))
            calib_truth.append([int(c, 16) for c in t["cells"]])
        t0 = time.perf_counter()
        try:
            cal = learn_profile(photos, base)
            learned = models_from_dict(cal.profile.vision.attributes)
            seps = " ".join(f"{a} {r['separation']:.1f}{mark.get(r.get('model'), '')}" for a, r in cal.report.items())
            # how many attributes of the calibration photos the final joint reading got right
            pairs = [(p, q) for got, truth in zip(cal.pieces, calib_truth) for p, q in zip(got, truth)]
            labels = "/".join(f"{100 * np.mean([(p >> j & 1) == (q >> j & 1) for p, q in pairs]):.0f}" for j in range(4))
        except CalibrationRefused as e:
            learned = default
            seps, labels = f"REFUSED ({str(e)[:60]}...)", "-"
        seconds = time.perf_counter() - t0
        scratch_models, _ = fit_unsupervised([p.features for p in photos])
        scratch = models_from_dict({**settings.attributes, **scratch_models})
        res = {k: [0, 0, 0, 0] for k in names}  # cells right, cells, boards right, boards
        for js in scored:
            t = json.load(open(js))
            if not t.get("board_found_expected"):
                continue
            f = cell_features(cv2.imread(os.path.join(sess, t["image"])), truth_reading(t), settings)
            occ = np.array([c is not None for c in t["cells"]])
            truth = [None if c is None else int(c, 16) for c in t["cells"]]
            # only cells holding a piece: with the occupancy from truth, empty cells are always right
            seen = [i for i in range(16) if not t["hidden"][i] and truth[i] is not None]
            for name, m in (("calibrated", learned), ("default", default), ("scratch", scratch)):
                cells = read_cells(m, f, occ)
                ok = [cells[i] == truth[i] for i in seen]
                r = res[name]
                r[0] += sum(ok)
                r[1] += len(ok)
                r[2] += all(ok)
                r[3] += 1
        for k in total:
            total[k] = [a + b for a, b in zip(total[k], res[k])]
        c, d, s0 = res["calibrated"], res["default"], res["scratch"]
        print(f"{os.path.basename(sess):34} d': {seps:44} labels {labels:11} {seconds:4.2f} s  pieces {100 * c[0] / max(c[1], 1):5.1f}% "
              f"(default {100 * d[0] / max(d[1], 1):5.1f}%, scratch {100 * s0[0] / max(s0[1], 1):5.1f}%)"
              f"  boards {c[2]}/{c[3]} (default {d[2]}/{d[3]})", flush=True)
    for k, (cr, cn, br, bn) in total.items():
        if cn:
            print(f"ALL {k:10}: pieces fully right {100 * cr / cn:.2f}% of {cn}, boards fully right {100 * br / bn:.2f}% of {bn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
