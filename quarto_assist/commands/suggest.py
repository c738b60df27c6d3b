"""``quarto-assist suggest POSITION``: the best move under perfect play, with coaching."""

from __future__ import annotations

import json

from engine import Position, Variant
from engine.coach import explain
from engine.pieces import piece_symbol, piece_words
from engine.position import AlreadyWonError, PositionError
from engine.rules import cell_name
from engine.solver import check_playable, suggest


def add_arguments(parser) -> None:
    parser.add_argument("position", metavar="POSITION",
                        help="position text, e.g. '0.3./..../..A./F... 5' (quote it: it contains a space)")
    parser.add_argument("--variant", default="classic",
                        help="classic (default), advanced (2x2 blocks win too), or either with the "
                             "attributes that count, e.g. classic:tall,dark (beginner variant)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="answer within about this time; 'unknown' when not proven by then")
    parser.add_argument("--played-on", action="store_true",
                        help="a winning line already on the board was not claimed in its move, so it "
                             "no longer counts and play goes on (the official rules): only new lines win")


def run(args) -> int:
    variant = Variant.parse(args.variant)
    try:
        position = Position.parse(args.position, variant, allow_won=args.played_on)
    except AlreadyWonError as e:
        raise PositionError(f"{e}; if nobody claimed it in its move and play went on, add --played-on") from None
    check_playable(position, variant, dead_lines=args.played_on)
    if args.time_limit is not None and args.time_limit < 0:
        raise ValueError(f"invalid time limit: {args.time_limit!r} (expected seconds >= 0)")
    s = suggest(position, variant, time_limit=args.time_limit, dead_lines=args.played_on)
    lines = explain(position, variant, s)
    if args.json:
        print(json.dumps({
            "value": s.value,
            "place": s.place,
            "give": None if s.give is None else piece_symbol(s.give),
            "plies": s.plies,
            "place_name": None if s.place is None else cell_name(s.place),
            "explanation": lines,
            "variant": str(variant),
            "nodes": s.nodes,
            "seconds": round(s.seconds, 4),
        }))
        return 0
    move = []
    if s.place is not None:
        move.append(f"place {piece_symbol(position.hand)} on {cell_name(s.place)} (cell {s.place})")
    if s.give is not None:
        move.append(f"give {piece_symbol(s.give)} ({piece_words(s.give)})")
    plies = "" if s.plies is None else f" in {s.plies} {'ply' if s.plies == 1 else 'plies'}"
    print(f"{s.value}{plies}: {', then '.join(move)}")
    for line in lines:
        print(f"  {line}")
    print(f"  [{s.nodes} nodes, {s.seconds:.3f} s, variant {variant}]")
    return 0
