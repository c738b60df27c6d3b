"""bench/crop_resolution.py: the piece network on crops of two sizes (its scoring and its refusals;
training needs torch, which the test install does not have)."""

import importlib.util
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "bench", "crop_resolution.py")


def load_tool():
    spec = importlib.util.spec_from_file_location("crop_resolution", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_log_loss_counts_attributes_on_occupied_cells_only():
    tool = load_tool()
    logits = np.zeros((1, 16, 5))
    Y = np.full((1, 16, 5), -1, np.int8)
    Y[0, :, 0] = 0              # every cell empty ...
    Y[0, 0] = [1, 1, 0, 1, 0]   # ... but the first, a tall light square solid piece
    logits[0, 0] = [4.0, 2.0, -3.0, 0.0, -1.0]
    logits[0, 1:, 0] = -2.0
    logits[0, 1:, 1:] = 9.0     # attributes of empty cells: not scored, however wrong
    ll = tool.log_losses(logits, Y)
    occ = (np.log1p(np.exp(-4.0)) + 15 * np.log1p(np.exp(-2.0))) / 16
    assert abs(ll["occupied"] - occ) < 1e-12
    assert abs(ll["tall"] - np.log1p(np.exp(-2.0))) < 1e-12
    assert abs(ll["dark"] - np.log1p(np.exp(-3.0))) < 1e-12
    assert abs(ll["square"] - np.log(2.0)) < 1e-12
    assert abs(ll["hollow"] - np.log1p(np.exp(-1.0))) < 1e-12


def test_a_missing_folder_is_one_clear_line():
    p = subprocess.run([sys.executable, TOOL, "--train", os.path.join(ROOT, "no-such-folder"),
                        "--test", os.path.join(ROOT, "tests", "data")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("ERROR") and "no-such-folder" in p.stderr and "Traceback" not in p.stderr


def test_a_folder_without_truth_is_one_clear_line(tmp_path):
    p = subprocess.run([sys.executable, TOOL, "--train", str(tmp_path), "--test", os.path.join(ROOT, "tests", "data")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("ERROR --train: no rendered image with truth") and "Traceback" not in p.stderr
