"""bench/compare_trees.py: two versions of vision in one process."""

import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "compare_trees.py"), *args],
                          capture_output=True, text=True, timeout=600)


def test_a_tree_compared_with_itself_reads_every_cell_alike():
    p = run(ROOT, ROOT, "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "2", "--rounds", "1")
    assert p.returncode == 0, p.stderr
    assert "new / old: full analysis x" in p.stdout
    assert "cells read differently: 0 of" in p.stdout


def test_a_folder_that_is_no_source_tree_is_refused(tmp_path):
    p = run(str(tmp_path), "--folder", os.path.join(ROOT, "tests", "data"), "--frames", "1")
    assert p.returncode == 2
    assert "not a source tree" in p.stderr and "Traceback" not in p.stderr
