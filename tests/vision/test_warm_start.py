"""What a network trained further records about where it started (no torch needed)."""

import hashlib
import json

from vision.warm_start import init_record


def test_the_start_is_recorded_with_its_md5_metadata_and_images(tmp_path):
    net = tmp_path / "net.onnx"
    net.write_bytes(b"not really a network")
    (tmp_path / "net.json").write_text(json.dumps({"images": 2, "init": None}))
    (tmp_path / "net_files.txt").write_text("a/0001.json\nb/0002.json\n")
    rec = init_record(str(net))
    assert rec["md5"] == hashlib.md5(b"not really a network").hexdigest()
    assert rec["meta"] == {"images": 2, "init": None}
    assert rec["files"] == ["a/0001.json", "b/0002.json"]


def test_missing_or_corrupt_metadata_is_none_not_an_error(tmp_path):
    net = tmp_path / "net.onnx"
    net.write_bytes(b"x")
    (tmp_path / "net.json").write_text("{ broken")
    rec = init_record(str(net))
    assert rec["meta"] is None and rec["files"] is None
