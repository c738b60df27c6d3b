"""``quarto-assist analyze`` and ``evaluate`` as a user calls them."""

import json
import os

import cv2
import numpy as np
import pytest

from quarto_assist.cli import main
from tests.vision.synthetic import drawn_board


@pytest.fixture
def board_png(tmp_path):
    img, _ = drawn_board("rings", tilt=0.3, seed=7)
    p = tmp_path / "board.png"
    cv2.imwrite(str(p), img)
    return p


def test_analyze_json_shape(board_png, capsys, tmp_path):
    overlay = tmp_path / "over.png"
    assert main(["analyze", str(board_png), "--json", "--overlay", str(overlay)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board_found"] is True
    assert len(out["cells"]) == 16 and len(out["cell_centers"]) == 16
    for c in out["cells"]:
        assert c is None or set(c) == {"tall", "dark", "square", "hollow"}
    rows, hand = out["position"].split(" ")
    assert hand == "-" and len(rows.split("/")) == 4
    assert isinstance(out["seconds"], float)
    assert cv2.imread(str(overlay)).shape == (720, 1280, 3)


def test_no_board_gives_reason_and_exit_3(tmp_path, capsys):
    p = tmp_path / "wall.png"
    cv2.imwrite(str(p), np.full((480, 640, 3), 200, np.uint8))
    assert main(["analyze", str(p), "--json"]) == 3
    assert json.loads(capsys.readouterr().out) == {"board_found": False, "reason": "no board in view"}


def test_human_text_names_rows(board_png, capsys):
    assert main(["analyze", str(board_png)]) == 0
    out = capsys.readouterr().out
    assert "board found" in out and "row 1:" in out and "position:" in out


def test_tiny_image_is_no_board_with_a_reason(tmp_path, capsys):
    p = tmp_path / "tiny.png"
    cv2.imwrite(str(p), np.zeros((20, 30, 3), np.uint8))
    assert main(["analyze", str(p), "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["board_found"] is False and "too small" in out["reason"] and "30x20" in out["reason"]


@pytest.mark.parametrize("kind", ["truncated", "text", "empty", "missing"])
def test_bad_files_give_one_line_and_exit_2(kind, board_png, tmp_path, capsys):
    p = tmp_path / "bad.jpg"
    if kind == "truncated":
        img, _ = drawn_board("rings", seed=8)
        data = cv2.imencode(".jpg", img)[1].tobytes()
        p.write_bytes(data[: len(data) // 2])
    elif kind == "text":
        p.write_text("not an image")
    elif kind == "empty":
        p.write_bytes(b"")
    rc = main(["analyze", str(p), "--json"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert err.startswith("ERROR ") and "\n" not in err and str(p) in err


def test_grey_and_alpha_png_files(tmp_path, capsys):
    img, _ = drawn_board("rings", seed=9)
    for name, data in [("grey.png", cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)),
                       ("alpha.png", cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)),
                       ("deep.png", img.astype(np.uint16) * 257)]:
        p = tmp_path / name
        cv2.imwrite(str(p), data)
        assert main(["analyze", str(p), "--json"]) == 0, name
        assert json.loads(capsys.readouterr().out)["board_found"]


def test_evaluate_writes_rows_and_summary(tmp_path, capsys):
    folder = tmp_path / "set"
    folder.mkdir()
    img, centres = drawn_board("rings", tilt=0.2, seed=10)
    cv2.imwrite(str(folder / "0000.png"), img)
    truth = {"image": "0000.png", "width": 1280, "height": 720, "board_found_expected": True,
             "cell_centers": centres.tolist(), "cells": [None] * 16, "hidden": [False] * 16}
    (folder / "0000.json").write_text(json.dumps(truth))
    cv2.imwrite(str(folder / "0001.png"), np.full((720, 1280, 3), 120, np.uint8))
    (folder / "0001.json").write_text(json.dumps({"image": "0001.png", "board_found_expected": False,
                                                  "cell_centers": [], "cells": []}))
    out_csv = tmp_path / "rows.csv"
    assert main(["evaluate", str(folder), "--csv", str(out_csv), "--json", "--quiet"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["board_found_pct"] == 100.0 and s["false_positives"] == 0
    # the board network's maps are coarse (8 frame pixels per map pixel): about 3 px on
    # this big drawn board (the blob lattice that found it before gave < 2 px)
    assert s["cell_error_mean_px"] < 4.0
    assert len(out_csv.read_text().strip().splitlines()) == 3
    import csv

    rows = {r["image"]: r for r in csv.DictReader(out_csv.open())}
    assert rows["0000.png"]["view"] == "ok"  # a drawn board seen from about 33 degrees: no advice
    assert rows["0001.png"]["view"] == ""  # no board, no advice


def test_evaluate_takes_several_folders_with_session_subfolders_and_breaks_figures_down(tmp_path, capsys):
    """A calibration dataset keeps one session per subfolder: ``evaluate`` finds them, and
    ``--by`` gives the figures per piece material / set / board / tilt the truth names."""
    img, centres = drawn_board("rings", tilt=0.2, seed=10)
    for folder, name, material, tilt in ((tmp_path / "a", "beech-walnut", "wood", 5.0),
                                         (tmp_path / "b" / "session1", "proc-12ab", "paint", 40.0)):
        folder.mkdir(parents=True)
        cv2.imwrite(str(folder / "0000.png"), img)
        truth = {"image": "0000.png", "board_found_expected": True, "cell_centers": centres.tolist(),
                 "cells": [None] * 16, "hidden": [False] * 16, "camera": {"tilt_deg": tilt},
                 "piece_set": {"id": name, "material": material}, "board": {"id": "drawn"}}
        (folder / "0000.json").write_text(json.dumps(truth))
    out_csv = tmp_path / "rows.csv"
    assert main(["evaluate", str(tmp_path / "a"), str(tmp_path / "b"), "--by", "--json", "--quiet",
                 "--csv", str(out_csv)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["images"] == 2
    assert set(s["by"]["material"]) == {"wood", "paint"}
    assert set(s["by"]["piece_set"]) == {"beech-walnut", "procedural"}  # drawn-afresh sets counted together
    assert set(s["by"]["tilt"]) == {"0-15 deg", "30+ deg"}
    assert s["by"]["material"]["wood"]["images"] == 1
    assert s["by"]["view"]["ok"]["images"] == 2  # both boards found, neither needs advice
    rows = out_csv.read_text().strip().splitlines()
    assert len(rows) == 3 and any("session1" in r for r in rows[1:])  # rows say which folder
    assert main(["evaluate", str(tmp_path / "a"), "--by", "--quiet"]) == 0
    assert "material     wood" in capsys.readouterr().out


def test_evaluate_on_a_folder_without_truth_says_so(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path)]) == 2
    assert "no truth files" in capsys.readouterr().err


def test_a_photo_without_a_board_read_says_what_to_do(tmp_path, capsys):
    """The text a user reads names the reason and one thing to do about it: no board seen
    (show all of it, nothing over it, a camera at an angle), a tiny photo (a larger one)."""
    p = tmp_path / "wall.png"
    cv2.imwrite(str(p), np.full((480, 640, 3), 200, np.uint8))
    assert main(["analyze", str(p)]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("no board found: no board in view")
    assert out[1].startswith("  what to do:") and "hands" in out[1] and "degrees" in out[1]
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((20, 30, 3), np.uint8))
    assert main(["analyze", str(tiny)]) == 3
    out = capsys.readouterr().out.splitlines()
    assert "too small" in out[0] and "larger photo" in out[1]


def test_every_reason_vision_gives_for_no_board_has_advice():
    from quarto_assist.commands.analyze import no_board_hint
    from vision.recognizer import CUT_OFF, NO_BOARD, TOO_DARK, TOO_SMALL

    for reason in (NO_BOARD, CUT_OFF, TOO_DARK, f"{TOO_SMALL} (30x20 pixels)", ""):
        assert no_board_hint(reason), reason
    assert no_board_hint("something else") == ""


def test_analyze_says_when_it_read_the_pieces_as_a_small_set(capsys):
    """A board judged to hold a small set (vision.set_size) says so in the text, with what
    to do if that is wrong; a typical set's full board says nothing of its size."""
    tests = os.path.dirname(os.path.dirname(__file__))
    assert main(["analyze", os.path.join(tests, "data-small-set", "game115-8.jpg")]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "read as a small set" in notes[0] and "calibrate" in notes[0]
    assert main(["analyze", os.path.join(tests, "data", "full-gigamic-beech-walnut-1.jpg")]) == 0
    assert "set" not in " ".join(line for line in capsys.readouterr().out.splitlines() if line.startswith("note:"))
