"""The board network's training recipes (numpy only: torch is not needed to draw views):
the ``--low`` recipe draws full boards seen from a low camera most often and occludes
low views more, and leaves the other views as the first network's recipe draws them."""

import numpy as np

from vision.board_net_training import FULL_LOW_WEIGHT, LOW_WEIGHT, _low_weight, augment
from vision.geometry import apply_homography, cell_grid


def _example(low: bool, pieces: int) -> dict:
    img = np.full((270, 480, 3), 90, np.uint8)
    H = np.array([[160.0, 30, 160], [0, 110, 80], [0, 0.2, 1]])
    cells = apply_homography(H, cell_grid())
    return {"path": "x", "image": img, "big": np.full((540, 960, 3), 90, np.uint8), "cells": cells,
            "corners": apply_homography(H, np.array([[0.0, 0], [1, 0], [1, 1], [0, 1]])),
            "outline": np.zeros((0, 2)), "pitch": 30.0, "hand": False, "low": low, "pieces": pieces}


def test_low_recipe_draws_full_low_boards_most_often():
    assert _low_weight(_example(True, 16), turned=False, low=True) == FULL_LOW_WEIGHT
    assert _low_weight(_example(True, 4), turned=False, low=True) == LOW_WEIGHT
    assert _low_weight(_example(False, 16), turned=False, low=True) == 1.0
    # the first network's recipe draws every view alike; the turned one low views 1.5x
    assert _low_weight(_example(True, 16), turned=False, low=False) == 1.0
    assert _low_weight(_example(True, 16), turned=True, low=False) == LOW_WEIGHT


def test_low_recipe_changes_only_low_views():
    high = _example(False, 16)
    for seed in range(5):
        a = augment(high, np.random.default_rng(seed))
        b = augment(high, np.random.default_rng(seed), low=True)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    low = _example(True, 16)
    differ = 0
    for seed in range(20):
        a = augment(low, np.random.default_rng(seed))
        b = augment(low, np.random.default_rng(seed), low=True)
        assert np.array_equal(a[1], b[1])  # the targets: cells stay where they are under occluders
        differ += not np.array_equal(a[0], b[0])
    assert differ >= 3  # occluded more often
