"""Game scripts for videos: a legal game from the engine in which a winning line is made
and nobody claims it, so play goes on (the line loses its value, as the rules say).

Pure Python; uses ``engine`` for positions, moves and the record text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine import GameRecord, Move, Position
from engine.pieces import describe_values
from engine.rules import LINES, mask_cells, shared_attributes


@dataclass
class ScriptedPlacement:
    piece: int
    cell: int
    player: int                 # 0 or 1: who places (players alternate)
    new_lines: list = field(default_factory=list)   # [(cells, attribute words)] completed by this placement
    claimed: bool = False       # the placer calls "Quarto!" (the game ends)


@dataclass
class GameScript:
    placements: list[ScriptedPlacement]
    record: GameRecord
    missed_after: int | None    # index of the placement whose line nobody claimed


def new_lines(pos: Position, cell: int, piece: int) -> list[tuple[list[int], list[str]]]:
    """Lines through ``cell`` that placing ``piece`` there completes with a shared value."""
    out = []
    cells = pos.cells()
    cells[cell] = piece
    for line in LINES:
        if not line >> cell & 1:
            continue
        members = mask_cells(line)
        if any(cells[c] is None for c in members):
            continue
        shared = shared_attributes([cells[c] for c in members])
        if shared:
            out.append((members, describe_values(shared)))
    return out


def missed_quarto_game(seed: int, earliest_miss: int = 7, after_miss: int = 3, max_tries: int = 200) -> GameScript:
    """A game where placement ``>= earliest_miss`` completes a line nobody claims; play
    continues ``after_miss`` or more placements without new lines, then ends with a
    claimed Quarto (or a full board)."""
    best = None
    for attempt in range(max_tries):
        rng = random.Random(seed * 1000 + attempt)
        script = _try_game(rng, earliest_miss, after_miss)
        # keep the shortest game: fewer placements, a shorter video to render
        if script is not None and (best is None or len(script.placements) < len(best.placements)):
            best = script
    if best is None:
        raise RuntimeError(f"no missed-quarto game found for seed {seed}")
    return best


def _try_game(rng: random.Random, earliest_miss: int, after_miss: int) -> GameScript | None:
    pos = Position()
    rec = GameRecord()
    first = rng.choice(pos.available())
    moves = [Move(None, first)]
    pos.push(moves[0])
    placements: list[ScriptedPlacement] = []
    missed_after = None
    while True:
        k = len(placements)
        piece = pos.hand
        empty = pos.empty_cells()
        winning = [c for c in empty if new_lines(pos, c, piece)]
        quiet = [c for c in empty if c not in winning]
        if missed_after is None and k >= earliest_miss and winning:
            cell = rng.choice(winning)
            missed_after = k
            claimed = False
        elif missed_after is not None and k >= missed_after + 1 + after_miss and winning:
            cell = rng.choice(winning)
            claimed = True
        elif quiet:
            cell = rng.choice(quiet)
            claimed = False
        else:
            return None   # forced to make a line at a moment the script does not want one
        lines = new_lines(pos, cell, piece)
        placements.append(ScriptedPlacement(piece, cell, k % 2, lines, claimed))
        full = len(empty) == 1
        if claimed or full:
            if missed_after is None:
                return None
            moves.append(Move(cell, None))
            pos.push(moves[-1])
            break
        # hand over a piece; before the miss avoid gifting an immediate win too early
        avail = [p for p in pos.available() if p != piece]
        give = rng.choice(avail)
        moves.append(Move(cell, give))
        pos.push(moves[-1])
    rec.moves = moves   # appended directly: after the unclaimed line the engine's legality check would say "won"
    return GameScript(placements, rec, missed_after)
