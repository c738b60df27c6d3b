"""What can appear in a scene: boards and piece sets, in metres and sRGB colours.

A board is described by its top-surface design ("style") and dimensions; cells are
numbered 0-15 row-major in the board's own grid: cell ``i`` lies at grid position
``((i % 4 - 1.5) * pitch, (1.5 - i // 4) * pitch)`` (x right, y away from row 0's
opposite side), then the grid is turned by ``grid_angle_deg`` on the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Board:
    id: str
    style: str               # gigamic | wood-round | printed-grid | walnut-checker | drawn-squares
    size: float              # side of the square board, m
    thickness: float         # m
    pitch: float             # distance between neighbouring cell centres, m
    grid_angle_deg: float = 0.0
    corner_radius: float = 0.004
    cell_radius: float = 0.02   # ring / recess / drawn circle radius, m
    recess_depth: float = 0.0   # round recessed cells (wood-round)
    colors: dict = field(default_factory=dict)   # named sRGB colours the style uses
    weight: float = 1.0      # how often the sampler draws it, relative to the others


@dataclass(frozen=True)
class PieceSet:
    id: str
    light: str               # name of the light colour/material
    dark: str                # name of the dark colour/material ("dark" = the darker one)
    light_rgb: tuple
    dark_rgb: tuple
    material: str            # wood | paint | plastic
    width: float             # diameter (round) / side (square), m
    short_h: float
    tall_h: float
    hole_r: float            # radius of the cup on hollow tops
    hole_depth: float
    groove: bool = True      # decorative groove around the middle (not an attribute)
    bevel: float = 0.0015
    weight: float = 1.0


BOARDS: dict[str, Board] = {
    b.id: b
    for b in [
        # The current Gigamic board: black top, orange edge, big engraved gold circle,
        # 16 engraved gold rings on a grid turned 45 degrees.
        Board("gigamic", "gigamic", size=0.275, thickness=0.014, pitch=0.046, grid_angle_deg=45.0,
              corner_radius=0.012, cell_radius=0.0205,
              colors={"top": (0.12, 0.12, 0.125), "edge": (0.80, 0.36, 0.12), "gold": (0.93, 0.74, 0.40)}, weight=2.0),
        # Classic light wooden board with 16 round recessed cells, grid parallel to the edges.
        Board("wood-round", "wood-round", size=0.25, thickness=0.02, pitch=0.055, corner_radius=0.006,
              cell_radius=0.021, recess_depth=0.004,
              colors={"wood_a": (0.86, 0.68, 0.47), "wood_b": (0.74, 0.55, 0.35)}),
        # A thin printed board: cream card with a plain 4x4 square grid.
        Board("printed-grid", "printed-grid", size=0.24, thickness=0.003, pitch=0.05, corner_radius=0.002,
              colors={"paper": (0.90, 0.87, 0.80), "ink": (0.12, 0.12, 0.14)}),
        # Own design: dark walnut board with inlaid light/dark checker squares and a border line.
        Board("walnut-checker", "walnut-checker", size=0.26, thickness=0.018, pitch=0.052, corner_radius=0.005,
              colors={"wood_a": (0.36, 0.22, 0.13), "wood_b": (0.25, 0.15, 0.09),
                      "inlay": (0.82, 0.68, 0.48), "line": (0.85, 0.75, 0.55)}),
        # Own design: a home-made board, a grey felt-covered square with hand-drawn circles.
        Board("felt-circles", "felt-circles", size=0.26, thickness=0.008, pitch=0.054, corner_radius=0.003,
              cell_radius=0.022,
              colors={"felt": (0.28, 0.36, 0.30), "chalk": (0.90, 0.88, 0.80)}),
    ]
}

PIECE_SETS: dict[str, PieceSet] = {
    s.id: s
    for s in [
        # Gigamic's own: beech and dark-stained (walnut) wood, groove at mid height.
        PieceSet("beech-walnut", "beech", "walnut", (0.80, 0.56, 0.33), (0.20, 0.11, 0.09), "wood",
                 width=0.032, short_h=0.034, tall_h=0.068, hole_r=0.0105, hole_depth=0.009, weight=2.0),
        PieceSet("maple-mahogany", "maple", "mahogany", (0.88, 0.74, 0.55), (0.42, 0.15, 0.08), "wood",
                 width=0.036, short_h=0.036, tall_h=0.074, hole_r=0.012, hole_depth=0.01, groove=False),
        PieceSet("black-white", "white", "black", (0.92, 0.91, 0.88), (0.06, 0.06, 0.065), "paint",
                 width=0.031, short_h=0.032, tall_h=0.064, hole_r=0.0095, hole_depth=0.008),
        # Pocket edition: small glossy plastic pieces, no groove.
        PieceSet("red-white", "white", "red", (0.95, 0.94, 0.92), (0.75, 0.08, 0.07), "plastic",
                 width=0.022, short_h=0.022, tall_h=0.045, hole_r=0.0065, hole_depth=0.005, groove=False,
                 bevel=0.001),
        PieceSet("red-blue", "red", "blue", (0.80, 0.12, 0.10), (0.10, 0.16, 0.45), "paint",
                 width=0.030, short_h=0.030, tall_h=0.060, hole_r=0.0095, hole_depth=0.008),
        PieceSet("green-red", "red", "green", (0.82, 0.20, 0.14), (0.10, 0.33, 0.16), "paint",
                 width=0.034, short_h=0.033, tall_h=0.070, hole_r=0.011, hole_depth=0.009, groove=False),
    ]
}

#: held out of tuning by default: accuracy on these measures generalisation
DEFAULT_HOLDOUT_BOARDS = ("felt-circles",)
DEFAULT_HOLDOUT_SETS = ("green-red", "maple-mahogany")


def board_for(spec_board: dict) -> Board:
    """The board a scene spec's ``board`` entry names, with its ``colors`` if it carries
    its own (a tinted board, ``scenegen.procedural.tint_board_colors``)."""
    bid = spec_board.get("id")
    if bid not in BOARDS:
        raise ValueError(f"unknown board: {bid!r} (known: {', '.join(BOARDS)})")
    b = BOARDS[bid]
    if "colors" not in spec_board:
        return b
    colors = {k: tuple(v) for k, v in spec_board["colors"].items()}
    if set(colors) != set(b.colors):
        raise ValueError(f"board {bid!r} colours must name {sorted(b.colors)}, got {sorted(colors)}")
    return replace(b, colors=colors)


def piece_set_for(spec_piece_set: dict) -> PieceSet:
    """The piece set a scene spec's ``piece_set`` entry names.

    ``{"id": <catalog id>, ...}`` is a catalog set; ``{"id": "procedural", "params":
    {<every PieceSet field>}, ...}`` (``scenegen.procedural``) is described in full.
    """
    params = spec_piece_set.get("params")
    if params is None:
        sid = spec_piece_set.get("id")
        if sid not in PIECE_SETS:
            raise ValueError(f"unknown piece set: {sid!r} (known: {', '.join(PIECE_SETS)}, or 'procedural' with params)")
        return PIECE_SETS[sid]
    try:
        p = dict(params, light_rgb=tuple(params["light_rgb"]), dark_rgb=tuple(params["dark_rgb"]))
        ps = PieceSet(**p)
    except (KeyError, TypeError) as e:
        raise ValueError(f"bad procedural piece set params {params!r}: {e}") from None
    if not (0 < ps.hole_r < ps.width / 2 - ps.bevel and 0 < ps.hole_depth < ps.short_h < ps.tall_h):
        raise ValueError(f"procedural piece set {ps.id!r} does not make solid pieces: {params!r}")
    return ps


def cell_grid_xy(board: Board, cell: int) -> tuple[float, float]:
    """Cell ``cell``'s centre in the board frame (m), board centre at the origin."""
    import math

    gx = (cell % 4 - 1.5) * board.pitch
    gy = (1.5 - cell // 4) * board.pitch
    a = math.radians(board.grid_angle_deg)
    return (gx * math.cos(a) - gy * math.sin(a), gx * math.sin(a) + gy * math.cos(a))


def playing_area_xy(board: Board) -> list[tuple[float, float]]:
    """The playing area's corners in the board frame, nearest cells 0, 3, 15, 12 in turn.

    The playing area is the square of side ``4 * pitch`` around the 16 cells, in the
    grid's own orientation (turned 45 degrees on the Gigamic board).
    """
    import math

    h = 2 * board.pitch
    a = math.radians(board.grid_angle_deg)
    pts = [(-h, h), (h, h), (h, -h), (-h, -h)]
    return [(x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)) for x, y in pts]


def outline_xy(board: Board) -> list[tuple[float, float]]:
    """The board's physical outer corners in the board frame: (-x,+y), (+x,+y), (+x,-y), (-x,-y)."""
    h = board.size / 2
    return [(-h, h), (h, h), (h, -h), (-h, -h)]
