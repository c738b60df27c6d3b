"""bench/compare_trees.py: two versions of vision in one process."""

import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "compare_trees.py"), *args],
                          capture_output=True, text=True, timeout=600)


def copy_of_this_tree(tmp_path):
    """The project's packages copied under ``tmp_path / "other"`` (to change one file there)."""
    other = tmp_path / "other"
    for pkg in ("vision", "bench", "quarto_assist", "engine", "calibration", "tests"):
        shutil.copytree(os.path.join(ROOT, pkg), other / pkg, ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copytree(os.path.join(ROOT, "tests", "data"), other / "tests" / "data")
    return other


def test_a_tree_compared_with_itself_reads_every_cell_alike():
    p = run(ROOT, ROOT, "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "2", "--rounds", "1")
    assert p.returncode == 0, p.stderr
    assert "new / old: full analysis x" in p.stdout
    assert "cells read differently: 0 of" in p.stdout


def test_a_folder_that_is_no_source_tree_is_refused(tmp_path):
    p = run(str(tmp_path), "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "1")
    assert p.returncode == 2
    assert "not a source tree" in p.stderr and "Traceback" not in p.stderr


def test_each_tree_is_read_from_its_own_files(tmp_path):
    # a copy of this tree whose boards all read empty: if both versions came from one
    # tree's modules, no cell would differ
    other = copy_of_this_tree(tmp_path)
    with open(other / "vision" / "__init__.py", "a", encoding="utf-8") as f:
        f.write("\n_analyze = Recognizer.analyze\n"
                "def _empty(self, frame):\n"
                "    r = _analyze(self, frame)\n"
                "    r.cells = [None] * 16\n"
                "    return r\n"
                "Recognizer.analyze = _empty\n")
    p = run(ROOT, str(other), "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "3", "--rounds", "1")
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if "cells read differently" in x)
    assert "cells read differently: 0 of" not in line


def test_a_late_import_in_one_tree_does_not_reach_the_other(tmp_path):
    # vision imports some modules inside functions (crops imports camera_guess when a
    # camera is guessed): one process for both trees let such an import pick up the tree
    # loaded last, so both versions ran the changed function and read alike
    other = copy_of_this_tree(tmp_path)
    with open(other / "vision" / "camera_guess.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef guess_focal(H, image_shape):\n    return 0.2 * float(max(image_shape[:2]))\n")
    p = run(ROOT, str(other), "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "3", "--rounds", "1")
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if "cells read differently" in x)
    assert "probabilities 0, features 0" not in line


def test_a_tree_that_cannot_run_is_named_and_the_run_stops(tmp_path):
    (tmp_path / "vision").mkdir()
    (tmp_path / "vision" / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    p = run(str(tmp_path), "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "1", "--rounds", "1")
    assert p.returncode == 1
    assert p.stderr.strip().splitlines()[-1] == f"ERROR the worker for {tmp_path} stopped (exit code 1); its error is above"
