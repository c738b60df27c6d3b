import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from render_game_calibration import calibration_spec  # noqa: E402

from scenegen.game import video_spec  # noqa: E402


def test_calibration_photos_show_the_games_own_scene_with_every_piece_on_the_board():
    # a player calibrates with the webcam where it stands, before the game: the same
    # camera, light, table and set as the game video, all 16 pieces on the board
    game = video_spec(64, "walnut-checker", "procedural")
    a = calibration_spec(64, "walnut-checker", "procedural", 0)
    b = calibration_spec(64, "walnut-checker", "procedural", 1)
    for key in ("camera", "light", "table", "piece_set", "board"):
        assert a[key] == game[key] == b[key]
    for spec in (a, b):
        assert sorted(p["piece"] for p in spec["pieces"]) == list(range(16))
        assert sorted(p["cell"] for p in spec["pieces"]) == list(range(16))
        assert spec["hand"] is None
    assert [p["cell"] for p in a["pieces"]] != [p["cell"] for p in b["pieces"]]  # two arrangements
    assert calibration_spec(64, "walnut-checker", "procedural", 0)["pieces"] == a["pieces"]  # deterministic


def test_game_pieces_can_be_set_down_off_their_cells_centres_as_players_do():
    # real players drop a piece a few millimetres off its cell's centre; the stills do,
    # and game videos can (--off-centre), without changing the rest of the seed's scene
    import math

    from scenegen.catalog import BOARDS, piece_set_for
    from scenegen.game import hand_for, placement_offsets
    from scenegen.sampling import cell_world

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
