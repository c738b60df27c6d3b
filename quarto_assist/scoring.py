"""Score a watch events file against a rendered game's truth (docs/watch.md, truth.md).

A truth placement is *found* when a ``placed`` event has the same piece, its
``cell_center`` lies within half a cell of the truth centre, and its time lies between
the placement's ``t`` and ``settled_t + late``. Any other ``placed`` event is *invented*.
*located* counts placements at the right cell and time whatever the piece, *final_right*
those whose piece and cell are right after later ``reread`` and ``relocated`` events (a
piece read again, or seen standing on another cell than it was put on).
*flags* counts the ``flagged`` events by kind, and ``board_unmatched`` as ``unmatched``: in a
fairly played game each is a false alarm.
An unclaimed winning line is *announced* when a ``quarto`` event names the same four
cells (by centre) no later than ``settled_t + grace + late`` of the placement that made it;
announced *for a wrong reason* (``wrong_reason``) when the event says the line shares a
value its pieces do not all have ("all short" where two are tall): the players would find
the call wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Score:
    placements: int = 0
    found: int = 0
    located: int = 0  # a placed event at the right cell and time, whatever piece it names
    final_right: int = 0  # right piece on the right cell once later ``reread`` / ``relocated`` events apply
    invented: int = 0
    lines: int = 0
    announced: int = 0
    false_quartos: int = 0
    wrong_reason: int = 0  # announced lines that name a value the pieces do not share
    flags: dict[str, int] = field(default_factory=dict)  # flagged issues by kind (none in a fair game)
    delays: list[float] = field(default_factory=list)  # quarto t - (settled_t + grace)
    placement_delays: list[float] = field(default_factory=list)  # placed t - settled_t
    problems: list[str] = field(default_factory=list)

    @property
    def perfect(self) -> bool:
        return (self.found == self.placements and self.invented == 0 and self.announced == self.lines
                and self.false_quartos == 0 and self.wrong_reason == 0)


def read_events(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def score(truth: dict, events: list[dict], grace: float = 3.0, late: float = 1.5) -> Score:
    s = Score()
    centres = np.asarray(truth["cell_centers"], float)
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    half_cell = 0.5 * float(np.min(d[d > 0]))
    placed = [e for e in events if e["event"] == "placed" and e.get("counted", True)]
    used = set()
    tp = truth.get("placements", [])
    s.placements = len(tp)
    for k, p in enumerate(tp):
        hit = None
        for i, e in enumerate(placed):
            if i in used or e["piece"].upper() != str(p["piece"]).upper():
                continue
            if np.linalg.norm(np.asarray(e["cell_center"], float) - np.asarray(p["cell_center"], float)) > half_cell:
                continue
            if not (p["t"] - 1e-6 <= e["t"] <= p["settled_t"] + late):
                continue
            hit = i
            break
        if hit is None:
            s.problems.append(f"placement {k} ({p['piece']} at t={p['t']}) not found")
        else:
            used.add(hit)
            s.found += 1
            s.placement_delays.append(placed[hit]["t"] - p["settled_t"])
    final, where = _final_pieces(events, placed, half_cell)
    for p in tp:  # where and when, whatever piece: the tracker's part of the job
        want = np.asarray(p["cell_center"], float)
        when = [i for i, e in enumerate(placed) if p["t"] - 1e-6 <= e["t"] <= p["settled_t"] + late]
        if any(np.linalg.norm(np.asarray(placed[i]["cell_center"], float) - want) <= half_cell for i in when):
            s.located += 1
        at = [i for i in when if np.linalg.norm(where[i] - want) <= half_cell]
        s.final_right += bool(at) and final[at[0]].upper() == str(p["piece"]).upper()
    for i, e in enumerate(placed):
        if i not in used:
            s.invented += 1
            s.problems.append(f"invented placement {e['piece']} at t={e['t']}")

    quartos = [e for e in events if e["event"] == "quarto"]
    matched = set()
    for line in truth.get("winning_lines", []):
        if line.get("claimed"):
            continue
        s.lines += 1
        want = np.asarray(line["cell_centers"], float)
        settled = tp[line["after_placement"]]["settled_t"] if line.get("after_placement") is not None \
            and line["after_placement"] < len(tp) else line["t"]
        ok = None
        for i, q in enumerate(quartos):
            got = np.asarray(q["cells"], float)
            if len(got) != 4 or i in matched:
                continue
            dist = np.linalg.norm(want[:, None] - got[None], axis=2).min(axis=1)
            if np.all(dist <= half_cell):
                ok = i
                break
        if ok is None:
            s.problems.append(f"unclaimed line at t={line['t']} not announced")
            continue
        matched.add(ok)
        said = set(quartos[ok].get("attributes") or ())
        if said - set(line.get("attributes") or ()):
            s.wrong_reason += 1
            s.problems.append(f"line at t={line['t']} announced as {', '.join(sorted(said))}; "
                              f"it shares {', '.join(line.get('attributes') or ['?'])}")
        delay = quartos[ok]["t"] - (settled + grace)
        s.delays.append(delay)
        if delay <= late:
            s.announced += 1
        else:
            s.problems.append(f"line at t={line['t']} announced {delay:.2f} s after settled+grace")
    for line in truth.get("winning_lines", []):  # a claim is not in the video: announcing it is no error
        if line.get("claimed"):
            want = np.asarray(line["cell_centers"], float)
            for i, q in enumerate(quartos):
                got = np.asarray(q["cells"], float)
                if i not in matched and len(got) == 4 and np.all(
                        np.linalg.norm(want[:, None] - got[None], axis=2).min(axis=1) <= half_cell):
                    matched.add(i)
    for e in events:  # the rendered games are played fairly: every flag is a false alarm
        if e["event"] == "flagged":
            s.flags[e["kind"]] = s.flags.get(e["kind"], 0) + 1
            s.problems.append(f"flagged {e['kind']} at t={e['t']}")
        elif e["event"] == "board_unmatched":  # the player is asked to put the board back
            s.flags["unmatched"] = s.flags.get("unmatched", 0) + 1
            s.problems.append(f"board unmatched at t={e['t']}")
    s.false_quartos = len(quartos) - len(matched)
    if s.false_quartos:
        s.problems.append(f"{s.false_quartos} quarto announcement(s) without a truth line")
    return s


def _final_pieces(events: list[dict], placed: list[dict], half_cell: float) -> tuple[list[str], list[np.ndarray]]:
    """The piece each ``placed`` event names, and the centre of its cell, once the
    ``reread`` events after it (pieces read again together with a later one) and the
    ``relocated`` ones (a piece seen standing on another cell) are applied."""
    final = [e["piece"] for e in placed]
    where = [np.asarray(e["cell_center"], float) for e in placed]
    index = {id(e): i for i, e in enumerate(placed)}
    seen: list[int] = []
    for e in events:
        if id(e) in index:
            seen.append(index[id(e)])
        elif e["event"] in ("reread", "relocated"):
            at = np.asarray(e["was_center" if e["event"] == "relocated" else "cell_center"], float)
            for i in reversed(seen):
                if np.linalg.norm(where[i] - at) <= half_cell:
                    final[i] = e["piece"]
                    where[i] = np.asarray(e["cell_center"], float)
                    break
    return final, where
