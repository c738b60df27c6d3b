"""Seeing hands: what reaches over the playing area from outside is a hand; a spare
piece taken from beside the board, or a tall piece on an edge cell poking past the
board's edge in the top-down view, is not."""

import cv2
import numpy as np

from vision.obstruction import MARGIN, obstructed_cells
from vision.settings import VisionSettings

SETTINGS = VisionSettings().track
SIZE = SETTINGS.warp_size
PX = SIZE / (1 + 2 * MARGIN)  # view pixels per board unit


def board_view(board: int = 90) -> np.ndarray:
    img = np.full((SIZE, SIZE), board, np.uint8)
    for i in range(16):
        c = (int((MARGIN + (i % 4 + 0.5) / 4) * PX), int((MARGIN + (i // 4 + 0.5) / 4) * PX))
        cv2.circle(img, c, int(PX / 12), 230, 1)
    return img


def test_an_arm_reaching_over_the_cells_is_a_hand():
    view = board_view()
    cv2.rectangle(view, (int(0.4 * SIZE), int(0.35 * SIZE)), (int(0.62 * SIZE), SIZE), 200, -1)
    covered, _ = obstructed_cells(view, board_view(), SETTINGS)
    assert covered.sum() >= 2


def test_a_spare_piece_taken_from_beside_the_board_is_not_a_hand():
    before = board_view()
    # a row of spares along the near edge, just off the board (1.5 cells of the view)
    cv2.rectangle(before, (int(0.3 * SIZE), SIZE - int(1.25 * MARGIN * PX)), (int(0.8 * SIZE), SIZE), 30, -1)
    covered, _ = obstructed_cells(board_view(), before, SETTINGS)
    assert not covered.any()


def test_a_tall_piece_on_an_edge_cell_poking_past_the_edge_is_not_a_hand():
    view = board_view()
    x = int((MARGIN + 3.5 / 4) * PX)  # the far right cell of the far row, its top drawn past the edge
    w = int(0.11 * PX)
    cv2.rectangle(view, (x - w, 0), (x + w, int((MARGIN + 0.33) * PX)), 40, -1)  # about one cell over the playing area
    covered, _ = obstructed_cells(view, board_view(), SETTINGS)
    assert not covered.any()


def _dimmed(view: np.ndarray, gain: float) -> np.ndarray:
    return np.clip(np.round(view.astype(float) * gain), 0, 255).astype(np.uint8)


def test_a_lamp_switched_off_is_no_hand():
    """A light wooden board: every pixel darker in proportion to its brightness, the board
    by 48 grey levels, the rings by 69. Seen as a hand, the watch would wait, and lose a
    piece set down just before when the next hand comes."""
    bright = board_view(160)
    covered, _ = obstructed_cells(_dimmed(bright, 0.7), bright, SETTINGS)
    assert not covered.any()
    covered, _ = obstructed_cells(_dimmed(bright, 1.3), bright, SETTINGS)
    assert not covered.any()


def test_an_arm_in_a_dimmed_room_is_still_a_hand():
    view = board_view(160)
    cv2.rectangle(view, (int(0.4 * SIZE), int(0.35 * SIZE)), (int(0.62 * SIZE), SIZE), 60, -1)
    covered, _ = obstructed_cells(_dimmed(view, 0.7), board_view(160), SETTINGS)
    assert covered.sum() >= 2
