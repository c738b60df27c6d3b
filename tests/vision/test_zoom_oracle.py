"""bench/zoom_oracle.py: the network read with crops as shipped and zoomed to the set's size."""

import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_every_rendered_still_is_read_both_ways():
    folder = os.path.join(ROOT, "tests", "data")
    # --ref 0.3: every set counts as large, so every image is zoomed
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "zoom_oracle.py"), folder, "--ref", "0.3"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 2 and "as shipped" in lines[0] and "zoomed" in lines[1]
    n = int(lines[0].split("img")[0].split()[-1])
    assert n >= 8 and f"{n} img ({n} zoomed)" in lines[1]
    figures = [[float(x) for x in line.split(")")[-1].split()[1::2]] for line in lines]
    for f in figures:
        assert len(f) == 5 and all(0 <= v <= 100 for v in f)
    # the zoom reaches the crops: pieces a third of their size read differently
    assert figures[0] != figures[1]
