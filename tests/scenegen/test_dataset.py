"""The dataset command's plan: splits, determinism, errors (no rendering: --specs-only)."""

import json
import os

from scenegen.dataset import main


def _specs(folder):
    out = {}
    for split in ("train", "holdout"):
        d = os.path.join(folder, split)
        for n in sorted(os.listdir(d)):
            out[(split, n)] = json.load(open(os.path.join(d, n)))
    return out


def test_specs_are_split_and_reproducible(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["--out", str(a), "--count", "30", "--seed", "4", "--specs-only"]) == 0
    assert main(["--out", str(b), "--count", "30", "--seed", "4", "--specs-only"]) == 0
    sa = _specs(a)
    assert sa == _specs(b) and len(sa) == 30
    held = [s for (split, _), s in sa.items() if split == "holdout"]
    assert held and all(s["board"]["id"] == "felt-circles" or s["piece_set"]["id"] in ("green-red", "maple-mahogany") for s in held)
    manifest = json.load(open(a / "dataset.json"))
    assert manifest["holdout_boards"] == ["felt-circles"]


def test_unknown_piece_set_is_one_error_line(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--count", "1", "--piece-sets", "glass-marble"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR unknown piece set: 'glass-marble'") and err.count("\n") == 1


def test_cameras_can_be_drawn_from_a_narrower_tilt_range(tmp_path, capsys):
    # a set of views from above (a webcam on an arm) for studying and training tall there
    assert main(["--out", str(tmp_path / "a"), "--count", "20", "--seed", "4", "--tilt", "0,15", "--specs-only"]) == 0
    tilts = [s["camera"]["tilt_deg"] for s in _specs(tmp_path / "a").values() if "camera" in s]
    assert len(tilts) >= 15 and all(0.0 <= t <= 15.0 for t in tilts)
    # the default range draws the same scenes as before the option existed
    assert main(["--out", str(tmp_path / "b"), "--count", "20", "--seed", "4", "--specs-only"]) == 0
    assert main(["--out", str(tmp_path / "c"), "--count", "20", "--seed", "4", "--tilt", "0,50", "--specs-only"]) == 0
    assert _specs(tmp_path / "b") == _specs(tmp_path / "c")
    assert max(s["camera"]["tilt_deg"] for s in _specs(tmp_path / "b").values() if "camera" in s) > 15.0
    capsys.readouterr()
    assert main(["--out", str(tmp_path / "d"), "--count", "1", "--tilt", "9"]) == 2
    assert capsys.readouterr().err.startswith("ERROR --tilt takes LOW,HIGH")
    assert main(["--out", str(tmp_path / "d"), "--count", "1", "--tilt", "20,10"]) == 2
    assert "camera tilt range" in capsys.readouterr().err
