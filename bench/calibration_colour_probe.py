"""How well the colour of a piece's side tells dark from light, per session (a probe for vision).

    python bench/calibration_colour_probe.py data/renders/calib-holdout

On the calibration photos (``c*.jpg``) of each session folder made by
``bench/render_calibration_set.py``, samples a 7x7 patch of Lab just above each true cell
centre (low on the piece's side, found with vision's ``LocalView``) and prints d' (class
mean difference in pooled standard deviations) of dark vs light along L*, a* and b*. It
shows which colour measurements a per-set "dark" model needs: on red/green sets the two
colours differ in a* far more than in lightness.
"""

from __future__ import annotations

import glob
import json
import os
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)



def main() -> int:
    from vision.features import LocalView
    from vision.geometry import cell_grid

    folder = sys.argv[1] if len(sys.argv) > 1 else "data/renders/calib-holdout"
    for sess in sorted(d for d in glob.glob(os.path.join(folder, "*")) if os.path.isdir(d)):
        samples, dark = [], []
        for js in sorted(glob.glob(os.path.join(sess, "c*.json"))):
            t = json.load(open(js))
            image = cv2.imread(os.path.join(sess, t["image"]))
            lab = cv2.cvtColor(image.astype(np.float32) / 255, cv2.COLOR_BGR2Lab)
            centres = np.asarray(t["cell_centers"], float)
            H, _ = cv2.findHomography(cell_grid(), centres)
            up = LocalView(H).up
            for i in range(16):
                x, y = (centres[i] + 0.1 * up[i]).astype(int)  # 0.1 board units = 0.4 pitch up
                samples.append(lab[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).mean(0))
                dark.append(int(t["cells"][i], 16) >> 1 & 1)
        if not samples:
            continue
        X, y = np.array(samples), np.array(dark)
        d = []
        for k in range(3):
            pooled = np.sqrt(0.5 * (X[y == 1, k].var() + X[y == 0, k].var())) + 1e-9
            d.append((X[y == 1, k].mean() - X[y == 0, k].mean()) / pooled)
        print(f"{os.path.basename(sess):34} dark vs light d': L* {d[0]:+5.1f}  a* {d[1]:+5.1f}  b* {d[2]:+5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
