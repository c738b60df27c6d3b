"""Game videos (scenegen.game) as players play them."""

import math

from scenegen.catalog import BOARDS, piece_set_for
from scenegen.game import hand_for, placement_offsets, video_spec
from scenegen.sampling import cell_world


def test_game_pieces_can_be_set_down_off_their_cells_centres_as_players_do():
    # real players drop a piece a few millimetres off its cell's centre; the stills do,
    # and game videos can (--off-centre), without changing the rest of the seed's scene
    spec = video_spec(88, "walnut-checker", "procedural")
    assert set(placement_offsets(88, spec, False).values()) == {(0.0, 0.0)}
    off = placement_offsets(88, spec, True)
    assert off == placement_offsets(88, spec, True)  # deterministic
    assert video_spec(88, "walnut-checker", "procedural") == spec  # the scene itself is the seed's
    free = BOARDS["walnut-checker"].pitch - piece_set_for(spec["piece_set"]).width
    dist = [math.hypot(*d) for d in off.values()]
    assert max(dist) <= min(free / 3, 0.006) + 1e-9
    assert sum(d > 0.001 for d in dist) >= 8  # most pieces visibly off centre
    # the hand sets the piece down where it will stand
    spec["_off"], spec["_yaw"] = off, {p: 0.0 for p in range(16)}
    spec["_reach_jitter"], spec["_skins"], spec["_sleeves"] = [0.0, 0.0], [[0.8] * 3] * 2, [[0.5] * 3] * 2
    held = hand_for(spec, 5, 0, "placing", 9)["held"]
    x, y, _ = cell_world(spec, 5)
    assert (held["x"], held["y"]) == (x + off[9][0], y + off[9][1])


def test_a_game_can_be_filmed_from_a_webcam_above_the_board():
    # an overhead arm is a common way to film a table game; the default stays the stand
    # beside the table that every earlier video used, so their seeds still give their scenes
    for seed in (5, 122, 125):
        c = video_spec(seed, "gigamic", "procedural", "overhead")["camera"]
        assert c["tilt_deg"] <= 18 and c["distance_cm"] >= 50
        stand = video_spec(seed, "gigamic", "procedural")["camera"]
        assert 20 <= stand["tilt_deg"] <= 42 and stand["distance_cm"] >= 55
    assert video_spec(88, "walnut-checker", "procedural", "stand") == video_spec(88, "walnut-checker", "procedural")
