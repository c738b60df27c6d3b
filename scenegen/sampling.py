"""Draw a scene at random from a seed: a plain JSON-able dict the renderer builds.

Everything random comes from one ``random.Random(seed)``, so a scene is the same in any
Python and any venv. World frame: metres, z up, the table top at z = 0, the board
centred at the origin (turned by ``board.yaw_deg``).
"""

from __future__ import annotations

import math
import random

import numpy as np

from . import camera as cam
from .catalog import BOARDS, DEFAULT_HOLDOUT_SETS, PIECE_SETS, PieceSet, cell_grid_xy, piece_set_for
from .hand import hand_capsules
from .procedural import draw_piece_set, tint_board_colors

WIDTH, HEIGHT = 1280, 720

LIGHT_KINDS = ("warm-lamp", "ceiling", "daylight", "window")
TABLE_KINDS = ("wood", "white-laminate", "dark-desk", "cloth-check", "cloth-plain", "stone")
CLUTTER_KINDS = ("mug", "book", "game-box", "pencil", "phone", "glass")


def piece_height(piece_set: PieceSet, piece: int) -> float:
    return piece_set.tall_h if piece & 1 else piece_set.short_h


def board_to_world(board_pose: dict, xy) -> tuple[float, float]:
    a = math.radians(board_pose["yaw_deg"])
    x, y = xy
    return (board_pose["x"] + x * math.cos(a) - y * math.sin(a), board_pose["y"] + x * math.sin(a) + y * math.cos(a))


def cell_world(spec: dict, cell: int, z: float | None = None) -> list[float]:
    """Cell centre on the board's top surface, world coordinates."""
    b = BOARDS[spec["board"]["id"]]
    x, y = board_to_world(spec["board"], cell_grid_xy(b, cell))
    return [x, y, b.thickness if z is None else z]


def off_centre(rng: random.Random, board, ps) -> tuple[float, float]:
    """Where a player sets a piece down against its cell's centre: (dx, dy) in metres,
    slightly off, up to a third of the free space around the piece and at most 6 mm, in any
    direction."""
    off = rng.uniform(0, 1) * min((board.pitch - ps.width) / 3, 0.006) if board.pitch > ps.width else 0.0
    oa = rng.uniform(0, 2 * math.pi)
    return off * math.cos(oa), off * math.sin(oa)


def board_top_points(spec: dict, n: int = 9) -> np.ndarray:
    """A grid of points over the board's top surface, world coordinates (n*n, 3)."""
    b = BOARDS[spec["board"]["id"]]
    h = b.size / 2
    pts = [board_to_world(spec["board"], (x, y)) for x in np.linspace(-h, h, n) for y in np.linspace(-h, h, n)]
    return np.array([[x, y, b.thickness] for x, y in pts])


def piece_footprint(p: dict, ps: PieceSet) -> np.ndarray:
    """Outline of piece ``p`` on its base plane, world (x, y) metres, (n, 2), convex."""
    w = ps.width / 2
    if p["piece"] & 4:
        a = math.radians(p["yaw_deg"])
        pts = [(-w, -w), (w, -w), (w, w), (-w, w)]
    else:
        a = 0.0
        pts = [(w * math.cos(t), w * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 24, endpoint=False)]
    c, s = math.cos(a), math.sin(a)
    return np.array([[p["x"] + c * x - s * y, p["y"] + s * x + c * y] for x, y in pts])


def footprints_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex outlines (n, 2) intersect (no separating edge normal)."""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


def overlapping_pieces(spec: dict) -> list[tuple[int, int]]:
    """Cells of neighbouring board pieces whose footprints intersect."""
    ps = piece_set_for(spec["piece_set"])
    on = [p for p in spec["pieces"] if p["cell"] is not None]
    fp = [piece_footprint(p, ps) for p in on]
    reach = ps.width * 1.5
    return [(on[i]["cell"], on[j]["cell"]) for i in range(len(on)) for j in range(i + 1, len(on))
            if math.hypot(on[i]["x"] - on[j]["x"], on[i]["y"] - on[j]["y"]) < reach and footprints_overlap(fp[i], fp[j])]


def separate_pieces(spec: dict, rng: random.Random) -> None:
    """Centre pieces that overlap a neighbour on their cells and square them to the grid
    (as players set pieces down next to each other); centred, squared pieces narrower
    than the pitch never touch."""
    b = BOARDS[spec["board"]["id"]]
    by_cell = {p["cell"]: p for p in spec["pieces"] if p["cell"] is not None}
    for _ in range(16):
        clash = overlapping_pieces(spec)
        if not clash:
            return
        for cell in sorted({c for pair in clash for c in pair}):
            p = by_cell[cell]
            p["x"], p["y"] = cell_world(spec, cell)[:2]
            p["yaw_deg"] = spec["board"]["yaw_deg"] + b.grid_angle_deg + rng.gauss(0, 3)


def kelvin_to_rgb(k: float) -> tuple[float, float, float]:
    """Approximate sRGB colour (0-1) of a black body at ``k`` kelvin (Tanner Helland's fit)."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    return tuple(min(max(c / 255.0, 0.0), 1.0) for c in (r, g, b))


class SceneSampler:
    """Draws scenes; ``boards`` and ``piece_sets`` limit the choice (ids from the catalog)."""

    def __init__(self, boards=None, piece_sets=None, negative_rate: float = 0.08, hand_rate: float = 0.3,
                 width: int = WIDTH, height: int = HEIGHT, samples: int = 8, render_scale: float = 0.75,
                 procedural_rate: float = 0.0, min_pieces: int = 0, procedural_avoid=DEFAULT_HOLDOUT_SETS,
                 board_tint_rate: float = 0.0, separate_pieces: bool = False, large_set_rate: float = 0.0,
                 tilt_range: tuple[float, float] = (0.0, 50.0)):
        """``procedural_rate``: share of scenes whose piece set is drawn afresh
        (``scenegen.procedural``) instead of taken from ``piece_sets``; such sets keep
        clear of the colours of the sets in ``procedural_avoid``. ``min_pieces``: at
        least this many pieces on the board (scenes with a board). ``board_tint_rate``:
        share of scenes whose board is recoloured (``procedural.tint_board_colors``).
        ``separate_pieces``: pieces on the board whose footprints would overlap a
        neighbour's (squares at any turn, off centre) are centred and squared to the grid.
        ``large_set_rate``: share of the procedural sets drawn at the large end of the
        sizes (``draw_piece_set(large=True)``). ``tilt_range``: the camera's angle from straight
        down, degrees, drawn uniformly in this range (default the issue's 0-50)."""
        lo, hi = tilt_range
        if not 0.0 <= lo <= hi <= 80.0:
            raise ValueError(f"camera tilt range must satisfy 0 <= low <= high <= 80 degrees, got {tilt_range!r}")
        self.tilt_range = (float(lo), float(hi))
        self.separate_pieces = separate_pieces
        self.boards = list(boards or BOARDS)
        self.piece_sets = list(piece_sets or PIECE_SETS)
        for b in self.boards:
            if b not in BOARDS:
                raise ValueError(f"unknown board: {b!r} (known: {', '.join(BOARDS)})")
        for s in self.piece_sets:
            if s not in PIECE_SETS:
                raise ValueError(f"unknown piece set: {s!r} (known: {', '.join(PIECE_SETS)})")
        if not 0.0 <= procedural_rate <= 1.0:
            raise ValueError(f"share of procedural piece sets must be in 0..1, got {procedural_rate!r}")
        if not 0 <= min_pieces <= 16:
            raise ValueError(f"minimum pieces on the board must be in 0..16, got {min_pieces!r}")
        if not 0.0 <= board_tint_rate <= 1.0:
            raise ValueError(f"share of tinted boards must be in 0..1, got {board_tint_rate!r}")
        if not 0.0 <= large_set_rate <= 1.0:
            raise ValueError(f"share of large piece sets must be in 0..1, got {large_set_rate!r}")
        self.large_set_rate = large_set_rate
        self.board_tint_rate = board_tint_rate
        self.procedural_rate = procedural_rate
        self.min_pieces = min_pieces
        self.procedural_avoid = tuple(procedural_avoid)
        self.negative_rate = negative_rate
        self.hand_rate = hand_rate
        self.width, self.height = width, height
        self.samples = samples
        self.render_scale = render_scale

    # ------------------------------------------------------------------ scene
    def sample(self, seed: int, n_on_board: int | None = None, hand: bool | None = None,
               negative: str | None = "random") -> dict:
        """One scene. ``negative``: ``"random"`` (drawn at ``negative_rate``), ``None``,
        ``"no-board"`` or ``"board-cut-off"``."""
        rng = random.Random(seed)
        if negative == "random":
            negative = None
            if rng.random() < self.negative_rate:
                negative = rng.choice(["no-board", "board-cut-off"])
        board_id = rng.choices(self.boards, [BOARDS[b].weight for b in self.boards])[0]
        set_id = rng.choices(self.piece_sets, [PIECE_SETS[s].weight for s in self.piece_sets])[0]
        spec: dict = {
            "seed": seed, "width": self.width, "height": self.height, "negative": negative,
            "board": {"id": board_id, "style": BOARDS[board_id].style, "x": 0.0, "y": 0.0,
                      "yaw_deg": rng.uniform(0, 360), "texture_seed": rng.randrange(1 << 30),
                      "present": negative != "no-board"},
            "piece_set": {"id": set_id, "texture_seed": rng.randrange(1 << 30)},
            "render": {"samples": self.samples, "scale": self.render_scale},
        }
        if self.procedural_rate > 0:
            # a stream of its own: the rest of the scene is the one the catalog set would get
            prng = random.Random(f"quarto-scenegen:procedural:{seed}")
            if prng.random() < self.procedural_rate:
                spec["piece_set"] = {"id": "procedural", "texture_seed": spec["piece_set"]["texture_seed"],
                                     "params": draw_piece_set(prng, BOARDS[board_id].pitch, self.procedural_avoid,
                                                              large=self._large(seed))}
        if self.board_tint_rate > 0:
            trng = random.Random(f"quarto-scenegen:board-tint:{seed}")
            if trng.random() < self.board_tint_rate:
                spec["board"]["colors"] = tint_board_colors(trng, BOARDS[board_id])
        spec["light"] = self._light(rng)
        spec["table"] = self._table(rng)
        spec["camera"] = self._camera(rng, spec)
        if negative == "board-cut-off":
            self._cut_off(rng, spec)
        if n_on_board is None and self.min_pieces:
            n_on_board = 16 if rng.random() < 0.15 else rng.randint(self.min_pieces, 16)
        elif n_on_board is None:
            n_on_board = rng.choice([0, 16, 16]) if rng.random() < 0.15 else rng.randint(0, 16)
        if negative == "no-board":
            n_on_board = 0
        spec["pieces"] = self._pieces(rng, spec, n_on_board)
        if self.separate_pieces:
            separate_pieces(spec, random.Random(f"quarto-scenegen:separate:{seed}"))
        spec["clutter"] = self._clutter(rng, spec)
        if hand is None:
            hand = rng.random() < self.hand_rate and negative != "no-board"
        spec["hand"] = self._hand(rng, spec) if hand else None
        spec["post"] = self._post(rng)
        return spec

    def _large(self, seed: int) -> bool:
        """Whether scene ``seed``'s procedural set is a large one (a stream of its own:
        without large sets every scene stays the one older datasets drew)."""
        return self.large_set_rate > 0 and random.Random(f"quarto-scenegen:large-set:{seed}").random() < self.large_set_rate

    # ------------------------------------------------------------------ parts
    def _light(self, rng: random.Random) -> dict:
        kind = rng.choice(LIGHT_KINDS)
        az = rng.uniform(0, 360)
        if kind == "warm-lamp":
            kelvin, elev, dist, size, power = rng.uniform(2600, 3300), rng.uniform(35, 80), rng.uniform(0.5, 1.1), rng.uniform(0.01, 0.08), rng.uniform(25, 70)
        elif kind == "ceiling":
            kelvin, elev, dist, size, power = rng.uniform(3500, 4800), rng.uniform(65, 90), rng.uniform(1.3, 2.0), rng.uniform(0.3, 1.0), rng.uniform(250, 650)
        elif kind == "daylight":
            kelvin, elev, dist, size, power = rng.uniform(5200, 6500), rng.uniform(30, 75), 10.0, rng.uniform(0.5, 6.0), rng.uniform(2.5, 5.0)
        else:  # window: big soft source from one side
            kelvin, elev, dist, size, power = rng.uniform(5500, 7500), rng.uniform(15, 45), rng.uniform(1.2, 2.0), rng.uniform(0.8, 1.6), rng.uniform(300, 800)
        return {"kind": kind, "kelvin": round(kelvin), "rgb": kelvin_to_rgb(kelvin), "azimuth_deg": az,
                "elevation_deg": elev, "distance": dist, "size": size, "power": power,
                "ambient": rng.uniform(0.08, 0.35) if kind != "daylight" else rng.uniform(0.3, 0.7),
                "ambient_rgb": kelvin_to_rgb(rng.uniform(5000, 9000) if kind in ("daylight", "window") else rng.uniform(3500, 6000))}

    def _table(self, rng: random.Random) -> dict:
        kind = rng.choice(TABLE_KINDS)
        palettes = {
            "wood": [(0.62, 0.42, 0.25), (0.45, 0.28, 0.16), (0.78, 0.62, 0.44), (0.30, 0.18, 0.10)],
            "white-laminate": [(0.88, 0.88, 0.86), (0.93, 0.92, 0.90)],
            "dark-desk": [(0.12, 0.12, 0.13), (0.20, 0.19, 0.18)],
            "cloth-check": [(0.75, 0.12, 0.12), (0.15, 0.30, 0.60), (0.20, 0.45, 0.25), (0.40, 0.40, 0.42)],
            "cloth-plain": [(0.55, 0.62, 0.48), (0.75, 0.70, 0.60), (0.30, 0.35, 0.50), (0.55, 0.25, 0.22)],
            "stone": [(0.55, 0.55, 0.55), (0.80, 0.78, 0.74), (0.30, 0.30, 0.32)],
        }
        base = rng.choice(palettes[kind])
        jit = [min(max(c * rng.uniform(0.9, 1.1), 0.0), 1.0) for c in base]
        return {"kind": kind, "rgb": jit, "texture_seed": rng.randrange(1 << 30), "scale": rng.uniform(0.6, 1.6),
                "roughness": rng.uniform(0.35, 0.9)}

    def _camera(self, rng: random.Random, spec: dict) -> dict:
        W, H = self.width, self.height
        for attempt in range(200):
            tilt = rng.uniform(*self.tilt_range)
            distance = rng.uniform(0.40, 0.90)
            az = rng.uniform(0, 360)
            hfov = rng.uniform(56, 78)
            roll = rng.gauss(0, 3)
            jx, jy = rng.uniform(-0.04, 0.04), rng.uniform(-0.04, 0.04)
            dist = self._distortion(rng, hfov)
            target = np.array([jx, jy, 0.0])
            a, tl = math.radians(az), math.radians(tilt)
            eye = target + distance * np.array([math.sin(tl) * math.cos(a), math.sin(tl) * math.sin(a), math.cos(tl)])
            R, t = cam.look_at(eye, target, roll)
            K = cam.intrinsics(W, H, hfov, rng.gauss(0, 6), rng.gauss(0, 6))
            c = {"K": K.tolist(), "dist": dist, "R": R.tolist(), "t": t.tolist(), "tilt_deg": tilt,
                 "distance_cm": distance * 100, "azimuth_deg": az, "hfov_deg": hfov, "roll_deg": roll,
                 "eye": eye.tolist(), "target": target.tolist()}
            if spec["negative"] == "no-board":
                return c
            spec["camera"] = c
            uv = cam.project(board_top_points(spec, 5), K, dist, R, t)
            m = 12
            if uv[:, 0].min() > m and uv[:, 1].min() > m and uv[:, 0].max() < W - 1 - m and uv[:, 1].max() < H - 1 - m:
                return c
        raise RuntimeError(f"could not place a camera that sees the whole board (seed {spec['seed']})")

    def _distortion(self, rng: random.Random, hfov: float) -> list[float]:
        r_max = math.tan(math.radians(hfov) / 2) * math.hypot(1, self.height / self.width)
        while True:
            if rng.random() < 0.15:
                d = [0.0, 0.0, 0.0, 0.0, 0.0]
            else:
                d = [rng.uniform(-0.32, 0.06), rng.uniform(-0.05, 0.12), rng.gauss(0, 0.0015), rng.gauss(0, 0.0015),
                     rng.choice([0.0, 0.0, rng.uniform(-0.03, 0.03)])]
            if cam.is_monotonic(d, r_max):
                return d

    def _cut_off(self, rng: random.Random, spec: dict) -> None:
        """Aim the camera away so that a good part of the board leaves the frame."""
        c = spec["camera"]
        W, H = self.width, self.height
        base_target = np.array(c["target"])
        eye0 = np.array(c["eye"])
        for attempt in range(100):
            ang = rng.uniform(0, 2 * math.pi)
            shift = rng.uniform(0.12, 0.3)
            delta = np.array([math.cos(ang), math.sin(ang), 0.0]) * shift
            R, t = cam.look_at(eye0 + delta, base_target + delta, c["roll_deg"])
            uv = cam.project(board_top_points(spec, 9), c["K"], c["dist"], R, t)
            inside = (uv[:, 0] >= 0) & (uv[:, 0] < W) & (uv[:, 1] >= 0) & (uv[:, 1] < H)
            if 0.25 <= inside.mean() <= 0.7:
                c.update(R=R.tolist(), t=t.tolist(), eye=(eye0 + delta).tolist(), target=(base_target + delta).tolist())
                return
        # could not find a partial view: leave the board fully out of view instead
        spec["negative"] = "no-board"
        spec["board"]["present"] = False

    def _pieces(self, rng: random.Random, spec: dict, n_on_board: int) -> list[dict]:
        ps = piece_set_for(spec["piece_set"])
        order = list(range(16))
        rng.shuffle(order)
        cells = list(range(16))
        rng.shuffle(cells)
        out = []
        present = spec["board"]["present"]
        b = BOARDS[spec["board"]["id"]]
        for piece, cell in zip(order[:n_on_board], cells[:n_on_board]):
            dx, dy = off_centre(rng, b, ps)
            x, y, _ = cell_world(spec, cell)
            z = b.thickness - b.recess_depth
            out.append({"piece": piece, "cell": cell, "x": x + dx, "y": y + dy, "z": z,
                        "yaw_deg": rng.uniform(0, 360) if rng.random() < 0.8 else spec["board"]["yaw_deg"] + rng.gauss(0, 4)})
        # spare pieces stand on the table beside the board, in one or two groups
        spares = order[n_on_board:]
        keep = len(spares) if rng.random() < 0.6 else rng.randint(0, len(spares))
        spares = spares[:keep]
        half = b.size / 2 if present else 0.0
        placed: list[tuple[float, float, float]] = []
        sides = [rng.uniform(0, 2 * math.pi)]
        if rng.random() < 0.4:
            sides.append(sides[0] + math.pi + rng.gauss(0, 0.5))
        ex = spec["camera"]["eye"]
        for i, piece in enumerate(spares):
            side = sides[i % len(sides)]
            for attempt in range(60):
                dist = half * 1.42 * rng.uniform(0.75, 1.0) + ps.width + rng.uniform(0.0, 0.14)
                ang = side + rng.gauss(0, 0.35)
                x, y = dist * math.cos(ang), dist * math.sin(ang)
                r = ps.width * 0.78
                if present and max(abs(c) for c in self._in_board(spec, x, y)) < half + r + 0.01:
                    continue
                if any(math.hypot(x - px, y - py) < r + pr + 0.004 for px, py, pr in placed):
                    continue
                if math.hypot(x - ex[0], y - ex[1]) < 0.12 and ex[2] < 0.3:
                    continue
                placed.append((x, y, r))
                out.append({"piece": piece, "cell": None, "x": x, "y": y, "z": 0.0, "yaw_deg": rng.uniform(0, 360)})
                break
        return out

    @staticmethod
    def _in_board(spec: dict, x: float, y: float) -> tuple[float, float]:
        a = -math.radians(spec["board"]["yaw_deg"])
        x, y = x - spec["board"]["x"], y - spec["board"]["y"]
        return (x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a))

    def _clutter(self, rng: random.Random, spec: dict) -> list[dict]:
        out = []
        taken = [(p["x"], p["y"], 0.03) for p in spec["pieces"]]
        b = BOARDS[spec["board"]["id"]]
        for _ in range(rng.choice([0, 1, 2, 2, 3, 4])):
            kind = rng.choice(CLUTTER_KINDS)
            size = {"mug": 0.05, "book": 0.13, "game-box": 0.16, "pencil": 0.11, "phone": 0.08, "glass": 0.04}[kind]
            for attempt in range(40):
                ang = rng.uniform(0, 2 * math.pi)
                dist = rng.uniform(0.22, 0.45) + size * 0.5
                x, y = dist * math.cos(ang), dist * math.sin(ang)
                if spec["board"]["present"] and max(abs(c) for c in self._in_board(spec, x, y)) < b.size / 2 + size + 0.02:
                    continue
                if any(math.hypot(x - tx, y - ty) < size + tr for tx, ty, tr in taken):
                    continue
                taken.append((x, y, size))
                out.append({"kind": kind, "x": x, "y": y, "yaw_deg": rng.uniform(0, 360),
                            "rgb": [rng.uniform(0.05, 0.95) for _ in range(3)], "scale": rng.uniform(0.85, 1.15),
                            "texture_seed": rng.randrange(1 << 30)})
                break
        return out

    def _hand(self, rng: random.Random, spec: dict) -> dict:
        """A hand reaching over the board from a player's side, fingertips above a cell."""
        b = BOARDS[spec["board"]["id"]]
        ps = piece_set_for(spec["piece_set"])
        cell = rng.randrange(16)
        tx, ty, tz = cell_world(spec, cell)
        tallest = max([piece_height(ps, p["piece"]) for p in spec["pieces"] if p["cell"] is not None] or [0.0])
        holding = rng.random() < 0.5
        held = None
        free = [p for p in spec["pieces"] if p["cell"] is None]
        z_tip = tz + tallest + rng.uniform(0.01, 0.12)
        occupied = {p["cell"] for p in spec["pieces"] if p["cell"] is not None}
        if holding and free and cell not in occupied:
            # lowering a spare piece onto an empty cell: the piece hangs below the fingertips
            hp = rng.choice(free)
            spec["pieces"].remove(hp)
            z_base = tz + rng.uniform(0.005, 0.06)
            held = {"piece": hp["piece"], "x": tx, "y": ty, "z": z_base, "yaw_deg": rng.uniform(0, 360)}
            # fingertips rest on the piece's top rim, as when lowering it by its head
            z_tip = z_base + piece_height(ps, hp["piece"]) + 0.004
        # players sit on one of the four sides of the board
        reach = spec["board"]["yaw_deg"] + 90 * rng.randrange(4) + rng.gauss(0, 20)
        side = rng.choice([1, 1, 1, -1])
        caps = hand_capsules((tx, ty, z_tip), reach, lift=rng.uniform(0, 0.03), spread=rng.uniform(0, 1),
                             side=side, scale=rng.uniform(0.9, 1.1))
        if held is not None:
            h = piece_height(ps, held["piece"])
            caps.append({"p0": [tx, ty, held["z"] + ps.width / 2], "p1": [tx, ty, held["z"] + h - ps.width / 2],
                         "r": ps.width / 2, "part": "held-piece"})
        skin = rng.choice([(0.87, 0.67, 0.55), (0.78, 0.57, 0.45), (0.60, 0.42, 0.30), (0.42, 0.28, 0.20), (0.93, 0.78, 0.68)])
        sleeve = [rng.uniform(0.05, 0.9) for _ in range(3)]
        return {"cell": cell, "reach_deg": reach, "capsules": caps, "skin_rgb": list(skin), "sleeve_rgb": sleeve,
                "held": held}

    def _post(self, rng: random.Random) -> dict:
        return {
            "exposure_ev": rng.gauss(0, 0.25),
            "wb_gains": [rng.uniform(0.88, 1.12), 1.0, rng.uniform(0.88, 1.12)],
            "blur_sigma": rng.choice([0.0, rng.uniform(0.3, 0.9), rng.uniform(0.6, 1.6)]),
            "noise_sigma": rng.uniform(0.003, 0.014),
            "shot_noise": rng.uniform(0.0, 0.006),
            "vignette": rng.uniform(0.0, 0.35),
            "jpeg_quality": rng.randint(68, 95),
            "contrast": rng.uniform(0.9, 1.15),
            "saturation": rng.uniform(0.85, 1.15),
            "awb": rng.uniform(0.3, 0.9),
            "noise_seed": rng.randrange(1 << 30),
        }
