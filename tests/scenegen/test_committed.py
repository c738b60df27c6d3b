"""The committed renders (samples/, tests/data/) and the game video keep their truth promises."""

import glob
import json
import os

import cv2
import numpy as np
import pytest

from engine import Move, Position
from engine.rules import LINES, mask_cells, shared_attributes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STILLS = sorted(glob.glob(os.path.join(ROOT, "samples", "*.json")) + glob.glob(os.path.join(ROOT, "tests", "data", "*.json")))
STILLS = [p for p in STILLS if "image" in json.load(open(p))]
GAMES = [p for p in glob.glob(os.path.join(ROOT, "samples", "*.json")) if "video" in json.load(open(p))]


def test_there_are_committed_sets():
    assert len(STILLS) >= 15 and len(GAMES) >= 1


@pytest.mark.parametrize("path", STILLS, ids=os.path.basename)
def test_still_truth_schema(path):
    t = json.load(open(path))
    img = cv2.imread(os.path.join(os.path.dirname(path), t["image"]))
    assert img is not None and img.shape == (t["height"], t["width"], 3) == (720, 1280, 3)
    for key in ("seed", "board", "piece_set", "board_found_expected", "cell_centers", "board_corners", "cells",
                "position", "hidden", "hand", "spares", "camera", "light"):
        assert key in t, key
    assert len(t["cells"]) == 16 and len(t["hidden"]) == 16
    assert all(c is None or (isinstance(c, str) and len(c) == 1 and c in "0123456789ABCDEF") for c in t["cells"])
    assert Position.parse(t["position"], allow_won=True).cells() == [None if c is None else int(c, 16) for c in t["cells"]]
    K = np.asarray(t["camera"]["K"])
    assert K.shape == (3, 3) and len(t["camera"]["dist"]) == 5 and np.asarray(t["camera"]["R"]).shape == (3, 3)
    if t["cell_centers"]:
        assert np.asarray(t["cell_centers"]).shape == (16, 2) and np.asarray(t["board_corners"]).shape == (4, 2)
    if t["board_found_expected"]:
        c = np.asarray(t["cell_centers"])
        assert ((c >= 0) & (c < [1280, 720])).all()
    else:
        assert t.get("negative") in ("no-board", "board-cut-off")
        if t["negative"] == "no-board":
            assert t["cell_centers"] == [] and t["board_corners"] == []
    on_board = {c for c in t["cells"] if c}
    spares = [s["piece"] for s in t["spares"]]
    assert not on_board & set(spares) and len(spares) == len(set(spares))


def test_testdata_has_full_boards_from_training_and_held_out_sets():
    full = [json.load(open(p)) for p in STILLS if "tests" in p and all(json.load(open(p))["cells"])]
    boards = {(t["board"]["id"], t["piece_set"]["id"]) for t in full}
    assert ("gigamic", "beech-walnut") in boards and ("felt-circles", "green-red") in boards
    for t in full:
        assert sorted(t["cells"]) == list("0123456789ABCDEF")


@pytest.mark.parametrize("path", GAMES, ids=os.path.basename)
def test_game_truth_agrees_with_its_record_and_video(path):
    g = json.load(open(path))
    lines = [ln.split("#")[0].strip() for ln in g["record"].splitlines()]
    moves = [Move.parse(ln) for ln in lines[3:] if ln]
    pos = Position.parse(lines[2][len("start "):])
    placements = iter(g["placements"])
    made = []
    for m in moves:
        if m.place is not None:
            p = next(placements)
            assert (p["cell"], int(p["piece"], 16)) == (m.place, pos.hand)
            before = pos.cells()
            pos.push(m)   # the engine's own check refuses moves after an unclaimed line
            after = pos.cells()
            for line in LINES:
                cells = mask_cells(line)
                if m.place in cells and all(after[c] is not None for c in cells) and shared_attributes([after[c] for c in cells]):
                    made.append(sorted(cells))
            assert before[m.place] is None
        else:
            pos.push(m)
    assert sorted(made) == sorted(sorted(w["cells"]) for w in g["winning_lines"])
    assert any(not w["claimed"] for w in g["winning_lines"]), "the sample game must have a missed Quarto"
    assert pos.board_text() + " -" == g["final_position"]
    ts = [p["t"] for p in g["placements"]]
    assert ts == sorted(ts) and all(p["settled_t"] > p["t"] for p in g["placements"])
    assert all(abs(p["t"] - p["frame"] / g["fps"]) < 1e-6 for p in g["placements"])
    for p in g["placements"]:
        assert np.allclose(p["cell_center"], g["cell_centers"][p["cell"]])
    cap = cv2.VideoCapture(os.path.join(os.path.dirname(path), g["video"]))
    assert cap.isOpened()
    assert round(cap.get(cv2.CAP_PROP_FPS)) == g["fps"]
    assert abs(cap.get(cv2.CAP_PROP_FRAME_COUNT) - g["frames"]) <= 1
    ok, frame = cap.read()
    assert ok and frame.shape == (720, 1280, 3)
    assert g["placements"][-1]["settled_t"] < g["frames"] / g["fps"]
