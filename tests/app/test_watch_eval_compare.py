"""bench/watch_eval.py --compare: after a change, which videos' figures moved (the baseline
of one run against the next, so a session need not join the two outputs by hand)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from watch_eval import compare  # noqa: E402


def _row(named, after, quartos=1, false=0, flags=0):
    return {"placements": 12, "named when placed": named, "named after re-reading": after, "Quartos": 1,
            "Quartos announced": quartos, "false Quartos": false, "flags": flags}


def test_only_the_figures_that_moved_are_named_with_the_totals():
    base = {"g1.mp4": _row(10, 12), "g2.mp4": _row(12, 12), "g3.mp4": _row(9, 11)}
    rows = {"g1.mp4": _row(8, 12, false=1), "g2.mp4": _row(12, 12), "g3.mp4": _row(10, 11), "g4.mp4": _row(5, 5)}
    text = compare(base, rows)
    lines = text.splitlines()
    assert lines[0].startswith("COMPARED with the earlier run on 3 video(s): totals ")
    assert "named when placed 31 -> 30" in lines[0] and "false Quartos 0 -> 1" in lines[0]
    assert "g4.mp4" in lines[0]  # not in the earlier run: said, not compared
    assert lines[1] == "  g1.mp4: named when placed 10 -> 8, false Quartos 0 -> 1"
    assert lines[2] == "  g3.mp4: named when placed 9 -> 10"
    assert len(lines) == 3  # g2 unchanged: not listed


def test_a_run_like_the_earlier_one_says_so_in_one_line():
    base = {"g1.mp4": _row(10, 12)}
    assert compare(base, {"g1.mp4": _row(10, 12)}) == "COMPARED with the earlier run on 1 video(s): every figure the same"


def test_a_video_named_that_is_not_there_is_said_not_skipped_in_silence(capsys, tmp_path):
    from watch_eval import videos

    sample = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "game01.mp4")
    bare = tmp_path / "bare.mp4"
    bare.write_bytes(b"")
    got = videos([str(tmp_path / "gone.mp4"), str(bare), sample])
    assert got == [sample]
    out = capsys.readouterr().out
    assert "gone.mp4: not found" in out and "bare.mp4: no truth file" in out
