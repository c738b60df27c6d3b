"""The profile file: round trip, and clear errors for anything that is not a usable profile."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.profile import FORMAT, VERSION, ProfileError, default_profile, load_profile, save_profile
from quarto_assist.cli import main


def _profile_with_camera():
    p = default_profile()
    p.camera = CameraModel(K=np.array([[800.0, 0, 640], [0, 801.0, 360], [0, 0, 1]]),
                           dist=np.array([-0.2, 0.05, 0.001, -0.001, 0.0]), image_size=(1280, 720), rms=0.3,
                           images_used=12)
    p.report = {"attributes": {"tall": {"separation": 7.5, "gap": 1.2, "clean": True}}, "warnings": ["w"]}
    p.source_images = ["a.jpg", "b.jpg"]
    p.name = "beech set"
    return p


def test_round_trip_keeps_everything(tmp_path):
    p = _profile_with_camera()
    path = tmp_path / "p.json"
    save_profile(p, path)
    q = load_profile(path)
    assert q.vision.to_dict() == p.vision.to_dict()
    assert np.allclose(q.camera.K, p.camera.K) and np.allclose(q.camera.dist, p.camera.dist)
    assert q.camera.image_size == (1280, 720) and q.camera.rms == pytest.approx(0.3)
    assert q.report == p.report and q.source_images == ["a.jpg", "b.jpg"] and q.name == "beech set"
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT and data["version"] == VERSION
    # a second save of what was read gives the same file (apart from nothing)
    save_profile(q, tmp_path / "q.json")
    assert json.loads((tmp_path / "q.json").read_text()) == data


def test_default_profile_is_usable():
    p = default_profile()
    assert p.camera is None
    assert set(p.vision.to_dict()) >= {"attributes"}


def _write(tmp_path, text, name="bad.json"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return path


def _valid_dict():
    return json.loads(json.dumps(_profile_with_camera().to_dict()))


@pytest.mark.parametrize("content, words", [
    ("", "is empty"),
    ("{not json", "not valid JSON"),
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a text file"),
    ("[1, 2, 3]", "not a quarto-assist profile"),
    ('{"board": "gigamic", "cells": []}', "not a quarto-assist profile"),
    ('{"format": "quarto-assist-profile", "version": "one"}', "invalid version"),
    ('{"format": "quarto-assist-profile", "version": 0, "vision": {}}', "older than this program reads"),
    ('{"format": "quarto-assist-profile", "version": 99, "vision": {}}', "newer than this program reads"),
    ('{"format": "quarto-assist-profile", "version": 1}', "no \"vision\" settings"),
])
def test_bad_files_say_what_is_wrong(tmp_path, content, words):
    path = _write(tmp_path, content)
    with pytest.raises(ProfileError) as e:
        load_profile(path)
    assert words in str(e.value) and str(path) in str(e.value)


@pytest.mark.parametrize("field, value, words", [
    ("vision", {"cells": {"no_such_knob": 1}}, "bad vision settings"),
    ("vision", [1, 2], "\"vision\" must be an object"),
    ("camera", {"K": [[1, 0], [0, 1]], "dist": [0, 0, 0, 0, 0], "image_size": [640, 480]}, "camera K"),
    ("camera", {"K": [[800, 0, 320], [0, 800, 240], [0, 0, 1]], "dist": [0, 0], "image_size": [640, 480]}, "dist"),
    ("camera", {"K": [[800, 0, 320], [0, 800, 240], [0, 0, 1]], "dist": [0] * 5, "image_size": "big"}, "image_size"),
    ("warnings", "none", "warnings"),
])
def test_corrupt_fields_are_named(tmp_path, field, value, words):
    data = _valid_dict()
    data[field] = value
    path = _write(tmp_path, json.dumps(data))
    with pytest.raises(ProfileError) as e:
        load_profile(path)
    assert "corrupt" in str(e.value) and words in str(e.value) and str(path) in str(e.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ProfileError, match="does not exist"):
        load_profile(tmp_path / "nope.json")
    with pytest.raises(ProfileError, match="directory"):
        load_profile(tmp_path)


def test_save_is_atomic_and_leaves_old_file_on_failure(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("old content")
    p = _profile_with_camera()
    p.camera = CameraModel(K=np.array([[np.nan, 0, 1], [0, 1, 1], [0, 0, 1]]), dist=np.zeros(5), image_size=(2, 2))
    with pytest.raises(ValueError):
        save_profile(p, path)  # NaN cannot be written as JSON
    assert path.read_text() == "old content"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["p.json"]  # no temporary left behind


def test_save_into_missing_folder_is_clear(tmp_path):
    with pytest.raises(ProfileError, match="does not exist"):
        save_profile(default_profile(), tmp_path / "no" / "p.json")


@pytest.mark.parametrize("content", ["", "{oops", '{"format": "something-else"}',
                                     '{"format": "quarto-assist-profile", "version": 0, "vision": {}}',
                                     '{"format": "quarto-assist-profile", "version": 2000, "vision": {}}'])
def test_cli_bad_base_profile_is_one_line_exit_2_and_out_untouched(tmp_path, capsys, content):
    bad = _write(tmp_path, content)
    out = tmp_path / "out.json"
    out.write_text("keep me")
    code = main(["calibrate-camera", str(tmp_path), "--profile", str(bad), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("ERROR ") and str(bad) in lines[0]
    assert out.read_text() == "keep me"


def test_a_version_1_profile_still_loads_and_is_saved_as_the_current_version(tmp_path):
    p = _profile_with_camera()
    data = p.to_dict()
    data["version"] = 1  # written by the first release: plain attribute models only
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    q = load_profile(path)
    assert q.vision.to_dict() == p.vision.to_dict() and q.name == "beech set"
    save_profile(q, tmp_path / "new.json")
    assert json.loads((tmp_path / "new.json").read_text())["version"] == VERSION == 5


def test_a_version_2_profile_without_the_newer_settings_loads_with_their_defaults(tmp_path):
    data = _profile_with_camera().to_dict()
    data["version"] = 2
    for key in ("step_networks_only", "set_colours"):  # settings version 3 added
        del data["vision"]["pieces"][key]
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(data))
    q = load_profile(path)
    assert q.vision.pieces.set_colours == () and q.vision.pieces.step_networks_only


def test_a_calibrated_profile_with_stacked_models_round_trips(tmp_path):
    from vision.attributes import models_from_dict

    p = _profile_with_camera()
    base = p.vision.attributes["tall"]
    p.vision.attributes = {**p.vision.attributes, "tall": {
        "features": ["height"], "mean": [0.5], "scale": [0.2], "coef": [1.2, 0.4], "intercept": -0.1, "base": base}}
    save_profile(p, tmp_path / "s.json")
    q = load_profile(tmp_path / "s.json")
    assert q.vision.attributes["tall"]["base"] == base
    assert models_from_dict(q.vision.attributes)["tall"].base is not None


def test_a_saved_profile_gets_ordinary_file_permissions(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        save_profile(default_profile(), tmp_path / "p.json")
    finally:
        os.umask(umask)
    assert (tmp_path / "p.json").stat().st_mode & 0o777 == 0o644


def test_a_profile_with_a_broken_set_colours_is_refused_by_name(tmp_path):
    data = _profile_with_camera().to_dict()
    data["vision"]["pieces"]["set_colours"] = [90.0, 0.0, 2.0]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="set_colours"):
        load_profile(path)


def test_a_profile_with_an_unknown_set_size_is_refused_by_name(tmp_path):
    data = _profile_with_camera().to_dict()
    data["vision"]["pieces"]["set_size"] = "huge"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="set_size.*'huge'.*'auto' or 'large' or 'small' or 'typical'"):
        load_profile(path)
