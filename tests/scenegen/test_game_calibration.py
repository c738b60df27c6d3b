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
