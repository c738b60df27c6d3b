"""Procedural piece sets and the sampler options that use them (spec level, no rendering)."""

import json
import math
import random

import numpy as np
import pytest

from scenegen.catalog import BOARDS, DEFAULT_HOLDOUT_SETS, PIECE_SETS, board_for, piece_set_for
from scenegen.contact_sheet import label
from scenegen.dataset import Plan, main
from scenegen.game import hand_for, video_spec
from scenegen.procedural import HOLDOUT_DELTA_E, MAX_WIDTH_PER_PITCH, MIN_DELTA_L, delta_e, draw_piece_set, srgb_to_lab
from scenegen.sampling import SceneSampler, overlapping_pieces
from scenegen.textures import board_texture
from scenegen.truth import scene_truth


def _fingerprint(spec):
    """What a change to the default random stream would move (rounded: libm may differ in the last bit)."""
    return [spec["board"]["id"], spec["piece_set"]["id"], spec["piece_set"]["texture_seed"],
            round(spec["board"]["yaw_deg"], 9), [[p["piece"], p["cell"], round(p["x"], 9)] for p in spec["pieces"]],
            round(spec["camera"]["tilt_deg"], 9), spec["light"]["kind"], spec["table"]["kind"],
            [c["kind"] for c in spec["clutter"]], spec["hand"]["cell"] if spec["hand"] else None,
            spec["post"]["noise_seed"]]


def _plan(**kw):
    return Plan(1, list(BOARDS), list(PIECE_SETS), ["felt-circles"], list(DEFAULT_HOLDOUT_SETS), 0.2,
                negative_rate=0.08, hand_rate=0.3, **kw)


def test_old_dataset_specs_are_unchanged(request):
    # data/renders/v1 and friends must stay resumable: the default options redraw the same
    # scenes. The file holds images 0..20 of `--seed 1` as drawn before procedural sets existed.
    path = request.path.parent / "data" / "seed1_specs.json"
    want = json.loads(path.read_text())
    plan = _plan()
    got = [[split] + _fingerprint(spec) for split, spec in (plan.scene(i) for i in range(21))]
    assert got == want


def test_procedural_params_are_seeded_and_make_valid_sets():
    a = [draw_piece_set(random.Random(s), 0.05) for s in range(50)]
    b = [draw_piece_set(random.Random(s), 0.05) for s in range(50)]
    assert a == b
    assert len({p["id"] for p in a}) == 50
    for p in a:
        ps = piece_set_for({"id": "procedural", "params": p})
        assert ps.material in ("wood", "paint", "plastic")
        assert 1.7 <= ps.tall_h / ps.short_h <= 2.3 and 0.8 <= ps.short_h / ps.width <= 1.3
        assert 0 < ps.hole_r < ps.width / 2 - ps.bevel and 0 < ps.hole_depth < ps.short_h
        assert all(0 <= c <= 1 for c in (*ps.light_rgb, *ps.dark_rgb))


def test_large_sets_have_short_pieces_as_high_as_most_sets_tall_ones():
    """``--large-sets``: the sets the watch misread most (short pieces nearly a pitch high,
    session 26) are drawn on purpose; still valid sets that fit their cells."""
    pitch = 0.05
    large = [draw_piece_set(random.Random(s), pitch, large=True) for s in range(50)]
    usual = [draw_piece_set(random.Random(s), pitch) for s in range(200)]
    for p in large:
        ps = piece_set_for({"id": "procedural", "params": p})
        assert 1.05 <= ps.short_h / ps.width <= 1.3 and 1.7 <= ps.tall_h / ps.short_h <= 2.3
        assert ps.width <= MAX_WIDTH_PER_PITCH * pitch
    short = lambda sets: np.array([p["short_h"] / pitch for p in sets])  # noqa: E731
    assert short(large).min() > np.median(short(usual))
    assert (short(large) > 0.8).mean() > 0.5 > (short(usual) > 0.8).mean()


def test_the_sampler_draws_large_sets_at_its_rate_and_leaves_other_scenes_alone():
    # --large-sets reaches the scenes through SceneSampler(large_set_rate=...)
    usual = SceneSampler(procedural_rate=1.0, min_pieces=1)
    large = SceneSampler(procedural_rate=1.0, min_pieces=1, large_set_rate=1.0)
    half = SceneSampler(procedural_rate=1.0, min_pieces=1, large_set_rate=0.5)
    ratio = lambda spec: spec["piece_set"]["params"]["short_h"] / spec["piece_set"]["params"]["width"]  # noqa: E731
    seeds = range(40)
    assert all(ratio(large.sample(s)) >= 1.05 for s in seeds)
    assert sum(ratio(usual.sample(s)) < 1.05 for s in seeds) >= 10
    picked = [half.sample(s) for s in seeds]
    n_large = sum(p["piece_set"]["params"] != usual.sample(s)["piece_set"]["params"] for s, p in zip(seeds, picked))
    assert 8 <= n_large <= 32
    # board, light, table and camera are drawn before the set's size counts: the same scene
    for s in (0, 1, 2):
        a, b = usual.sample(s), large.sample(s)
        assert all(a[k] == b[k] for k in ("board", "light", "table", "camera"))


def test_dark_is_clearly_darker_and_colours_vary():
    hues, materials = set(), set()
    for s in range(400):
        p = draw_piece_set(random.Random(s), 0.05)
        light, dark = srgb_to_lab(p["light_rgb"]), srgb_to_lab(p["dark_rgb"])
        assert light[0] - dark[0] >= MIN_DELTA_L, p
        hues.add(p["dark"].split()[-1])
        materials.add(p["material"])
    assert materials == {"wood", "paint", "plastic"}
    assert len(hues) >= 8  # any hue, not a few palettes


def test_procedural_colours_keep_clear_of_held_out_sets():
    for s in range(600):
        p = draw_piece_set(random.Random(s), 0.05)
        for sid in DEFAULT_HOLDOUT_SETS:
            h = PIECE_SETS[sid]
            assert not (delta_e(p["light_rgb"], h.light_rgb) < HOLDOUT_DELTA_E
                        and delta_e(p["dark_rgb"], h.dark_rgb) < HOLDOUT_DELTA_E), (p, sid)


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_procedural_pieces_fit_their_cells(board):
    s = SceneSampler(boards=[board], procedural_rate=1.0, min_pieces=16, negative_rate=0.0, hand_rate=0.0)
    for seed in range(40):
        spec = s.sample(seed)
        ps = piece_set_for(spec["piece_set"])
        assert spec["piece_set"]["id"] == "procedural"
        assert ps.width <= 0.75 * BOARDS[board].pitch + 1e-9
        # a square piece at any turn stays inside its cell, off centre as placed
        on = [p for p in spec["pieces"] if p["cell"] is not None]
        assert len(on) == 16


def test_holdout_images_never_use_procedural_sets():
    plan = _plan(procedural_sets=1.0)
    seen = {"train": set(), "holdout": set()}
    for i in range(200):
        split, spec = plan.scene(i)
        seen[split].add(spec["piece_set"]["id"])
    assert seen["train"] == {"procedural"}
    assert seen["holdout"] and "procedural" not in seen["holdout"]


def test_procedural_share_and_min_pieces():
    plan = _plan(procedural_sets=0.7, min_pieces=8)
    train = [spec for split, spec in (plan.scene(i) for i in range(300)) if split == "train"]
    share = sum(s["piece_set"]["id"] == "procedural" for s in train) / len(train)
    assert 0.6 < share < 0.8
    for s in train:
        if s["board"]["present"]:
            assert sum(p["cell"] is not None for p in s["pieces"]) >= 8


def test_procedural_scene_is_the_catalog_scene_with_other_pieces():
    # the set is drawn from a stream of its own: board, camera and light stay as they were
    a = SceneSampler().sample(77)
    b = SceneSampler(procedural_rate=1.0).sample(77)
    assert b["piece_set"]["id"] == "procedural"
    assert (a["board"], a["camera"]["tilt_deg"], a["light"]) == (b["board"], b["camera"]["tilt_deg"], b["light"])


def test_bad_options_are_one_error_line(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--count", "1", "--min-pieces", "17", "--specs-only"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR minimum pieces on the board must be in 0..16, got 17") and err.count("\n") == 1
    assert main(["--out", str(tmp_path), "--count", "1", "--procedural-sets", "1.5", "--specs-only"]) == 2
    assert "1.5" in capsys.readouterr().err


def test_unknown_or_broken_piece_set_in_a_spec_is_refused_with_its_name():
    with pytest.raises(ValueError, match="'glass'"):
        piece_set_for({"id": "glass"})
    p = draw_piece_set(random.Random(0), 0.05)
    p["hole_r"] = p["width"]
    with pytest.raises(ValueError, match=p["id"]):
        piece_set_for({"id": "procedural", "params": p})


def test_tinted_boards_keep_their_design_contrast_and_are_train_only():
    plan = _plan(board_tints=1.0)
    tinted = 0
    for i in range(120):
        split, spec = plan.scene(i)
        if split == "holdout":
            assert "colors" not in spec["board"]
            continue
        b = board_for(spec["board"])
        assert b.colors != BOARDS[b.id].colors
        tinted += 1
        L = {k: srgb_to_lab(v)[0] for k, v in b.colors.items()}
        if b.style == "printed-grid":
            assert L["paper"] - L["ink"] > 40
        if b.style == "gigamic":
            assert L["gold"] - L["top"] > 30
        if b.style == "walnut-checker":
            assert L["inlay"] - L["wood_a"] > 20
        if b.style == "wood-round":  # still a wood colour: orange-yellow-red hues
            h = math.degrees(math.atan2(*srgb_to_lab(b.colors["wood_a"])[2:0:-1])) % 360
            assert 20 < h < 110, b.colors
    assert tinted > 80


def test_a_tinted_board_texture_uses_its_colours():
    spec = SceneSampler(boards=["printed-grid"], board_tint_rate=1.0).sample(5)
    tinted, _ = board_texture(board_for(spec["board"]), 3, n=128)
    plain, _ = board_texture("printed-grid", 3, n=128)
    assert np.abs(tinted.astype(int) - plain.astype(int)).mean() > 5


def test_separated_pieces_never_overlap_their_neighbours():
    # squares at any turn and pieces off centre can intersect on a full board (about 7 % of
    # scenes with 8+ pieces); with --separate-pieces the clashing pieces are centred and squared
    plain = SceneSampler(min_pieces=16, negative_rate=0.0, procedural_rate=0.5)
    sep = SceneSampler(min_pieces=16, negative_rate=0.0, procedural_rate=0.5, separate_pieces=True)
    assert any(overlapping_pieces(plain.sample(s)) for s in range(60))
    for s in range(60):
        spec = sep.sample(s)
        assert not overlapping_pieces(spec)
        assert sum(p["cell"] is not None for p in spec["pieces"]) == 16


def test_truth_names_a_procedural_set_and_its_colours():
    spec = SceneSampler(procedural_rate=1.0, negative_rate=0.0).sample(11)
    t = scene_truth(spec, "x.jpg")
    p = spec["piece_set"]["params"]
    assert t["piece_set"]["id"] == p["id"] and t["piece_set"]["id"].startswith("proc-")
    assert t["piece_set"]["procedural"] is True and t["piece_set"]["dark_rgb"] == p["dark_rgb"]
    assert t["piece_set"]["tall_cm"] == round(p["tall_h"] * 100, 2)
    assert "(proc" not in label(t) and f"{p['light']}/{p['dark']}" in label(t)


def test_a_game_video_can_show_a_procedural_set():
    spec = video_spec(3, "wood-round", "procedural")
    ps = piece_set_for(spec["piece_set"])
    assert spec["piece_set"]["id"] == "procedural" and len(spec["pieces"]) == 16
    spec["_reach_jitter"], spec["_skins"], spec["_sleeves"] = [0, 0], [[0.8, 0.6, 0.5]] * 2, [[0.2, 0.2, 0.2]] * 2
    spec["_yaw"] = {p: 0.0 for p in range(16)}
    hand = hand_for(spec, 5, 0, "placing", 1)   # a tall piece held by its head over cell 5
    assert hand["held"]["piece"] == 1
    assert hand["capsules"] and ps.tall_h > ps.short_h


def test_a_game_video_truth_gives_the_sizes_of_its_set_and_board():
    # as still truth does: how high the short pieces stand in pitches is what the piece
    # network's crops are judged by (docs/vision.md, "Session 27"); game stills copy it
    from scenegen.game import game_truth
    from scenegen.script import missed_quarto_game

    spec = video_spec(70, "printed-grid", "procedural")
    script = missed_quarto_game(70)
    phases = ("approach", "placing", "leaving", "settled")
    first = {f"m{k:02d}-{ph}": 4 * k + i for k in range(len(script.placements)) for i, ph in enumerate(phases)}
    t = game_truth(spec, script, first, 4 * len(script.placements), 10, "game70.mp4")
    ps, b = piece_set_for(spec["piece_set"]), BOARDS["printed-grid"]
    assert t["board"]["pitch_cm"] == round(b.pitch * 100, 2)
    assert (t["piece_set"]["width_cm"], t["piece_set"]["short_cm"], t["piece_set"]["tall_cm"]) == \
        (round(ps.width * 100, 2), round(ps.short_h * 100, 2), round(ps.tall_h * 100, 2))
    # session 26: game70's short pieces stand 0.94 of a pitch
    assert abs(t["piece_set"]["short_cm"] / t["board"]["pitch_cm"] - 0.94) < 0.01


def test_only_holdout_writes_the_same_holdout_scenes_as_a_full_run(tmp_path):
    full, only = tmp_path / "full", tmp_path / "only"
    assert main(["--out", str(full), "--count", "40", "--seed", "2", "--specs-only"]) == 0
    assert main(["--out", str(only), "--count", "40", "--seed", "2", "--specs-only", "--only", "holdout"]) == 0
    held = sorted(p.name for p in (full / "holdout").iterdir())
    assert held and sorted(p.name for p in (only / "holdout").iterdir()) == held
    assert not list((only / "train").iterdir())
    for name in held:
        assert json.loads((only / "holdout" / name).read_text()) == json.loads((full / "holdout" / name).read_text())
