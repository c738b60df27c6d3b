"""Procedural piece sets: a fresh, plausible Quarto set drawn from a seeded rng.

Training on the handful of catalog sets teaches the piece models those sets' colours;
sets drawn here vary everything a real set may vary (material, the two colours, sizes,
cup, groove, bevel) so the models have to learn the attributes themselves. The result
is the ``params`` of a scene spec's ``piece_set`` entry, read back by
``catalog.piece_set_for``.

Colours are drawn in CIE L*C*h (D65) so that "dark" is always clearly darker than
"light" (``MIN_DELTA_L``) whatever the hues, then converted to sRGB (0-1).
"""

from __future__ import annotations

import math
import random

from .catalog import DEFAULT_HOLDOUT_SETS, PIECE_SETS

#: the dark colour's L* is at least this much below the light one's (the catalog's
#: closest pair, red-blue, is 19; beech-walnut is 49)
MIN_DELTA_L = 20.0
#: a draw whose light AND dark colours both lie within this CIE76 distance of a
#: held-out set's light and dark colours is drawn again, so holdout figures stay honest
HOLDOUT_DELTA_E = 15.0
#: piece width relative to the board's cell pitch, at most
MAX_WIDTH_PER_PITCH = 0.75

MATERIALS = ("wood", "paint", "plastic")
MATERIAL_WEIGHTS = (0.4, 0.35, 0.25)


# ---------------------------------------------------------------- colour
def _lin(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gam(c: float) -> float:
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


_XN, _YN, _ZN = 0.95047, 1.0, 1.08883


def srgb_to_lab(rgb) -> tuple[float, float, float]:
    """sRGB (0-1) -> CIE L*a*b* (D65)."""
    r, g, b = (_lin(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / _XN
    y = (0.2126 * r + 0.7152 * g + 0.0722 * b) / _YN
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / _ZN
    f = [t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in (x, y, z)]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


def lab_to_srgb(lab) -> tuple[float, float, float] | None:
    """CIE L*a*b* (D65) -> sRGB (0-1), or None when the colour is outside sRGB."""
    L, a, b = lab
    fy = (L + 16) / 116
    fx, fz = fy + a / 500, fy - b / 200
    inv = lambda f: f ** 3 if f ** 3 > 216 / 24389 else (116 * f - 16) * 27 / 24389  # noqa: E731
    x, y, z = inv(fx) * _XN, inv(fy) * _YN, inv(fz) * _ZN
    lin = (3.2406 * x - 1.5372 * y - 0.4986 * z, -0.9689 * x + 1.8758 * y + 0.0415 * z,
           0.0557 * x - 0.2040 * y + 1.0570 * z)
    if min(lin) < -1e-4 or max(lin) > 1 + 1e-4:
        return None
    return tuple(round(min(max(_gam(min(max(c, 0.0), 1.0)), 0.0), 1.0), 4) for c in lin)


def lch_to_srgb(L: float, C: float, h_deg: float) -> tuple[float, float, float]:
    """The sRGB colour of L*, hue ``h_deg``, and chroma ``C`` or as much of it as fits in sRGB."""
    h = math.radians(h_deg)
    for k in range(40):
        c = C * (1 - k / 39)
        rgb = lab_to_srgb((L, c * math.cos(h), c * math.sin(h)))
        if rgb is not None:
            return rgb
    raise AssertionError(f"grey of L*={L} is not in sRGB")  # unreachable for 0 <= L <= 100


def delta_e(rgb1, rgb2) -> float:
    """CIE76 colour difference of two sRGB colours."""
    return math.dist(srgb_to_lab(rgb1), srgb_to_lab(rgb2))


def colour_name(rgb) -> str:
    """A rough everyday name ("cream", "navy", "light brown" ...), for people reading truth files."""
    L, a, b = srgb_to_lab(rgb)
    C, h = math.hypot(a, b), math.degrees(math.atan2(b, a)) % 360
    if C < 10:
        return "white" if L > 85 else "black" if L < 22 else "light grey" if L > 60 else "dark grey" if L > 40 else "charcoal"
    if 40 <= h < 100 and C < 45 and L < 60:
        return "brown" if L > 30 else "dark brown"
    hues = [(20, "pink"), (50, "red"), (75, "orange"), (105, "yellow"), (150, "lime"), (200, "green"),
            (245, "teal"), (290, "blue"), (330, "purple"), (360, "pink")]
    name = next(n for top, n in hues if h < top)
    if name == "yellow" and C < 40 and L > 75:
        return "cream"
    if name == "blue" and L < 35:
        return "navy"
    return ("light " if L > 75 else "dark " if L < 35 else "") + name


# ---------------------------------------------------------------- colours of a set
def _wood_pair(rng: random.Random) -> tuple[tuple, tuple]:
    # light woods (pine, beech, oak, ash, maple, birch); now and then whitewashed or tinted
    if rng.random() < 0.8:
        light = (rng.uniform(58, 84), rng.uniform(14, 42), rng.uniform(55, 85))
    else:
        light = (rng.uniform(62, 86), rng.uniform(6, 30), rng.uniform(0, 360))
    # stains: honey / medium / walnut / ebony browns, reddish mahogany-like, or a coloured stain
    r = rng.random()
    # wood grain mixes each colour with a shade of it (blender_scene.piece_materials: the light
    # wood darker, the dark lighter), which takes up to ~10 off the difference as rendered
    dl = rng.uniform(MIN_DELTA_L + 10, 62)
    L = max(light[0] - dl, 10.0)
    if r < 0.65:
        dark = (L, rng.uniform(6, 38), rng.uniform(35, 75))
    elif r < 0.8:
        dark = (L, rng.uniform(20, 45), rng.uniform(20, 45))
    else:
        dark = (L, rng.uniform(10, 40), rng.uniform(0, 360))
    return light, dark


def _coloured_pair(rng: random.Random) -> tuple[tuple, tuple]:
    kind = rng.random()
    if kind < 0.35:
        # a near-neutral light (white, ivory, cream, pale tint) with any dark
        light = (rng.uniform(78, 96), rng.uniform(0, 22), rng.uniform(0, 360))
    else:
        # two colours: any hue for each
        light = (rng.uniform(50, 92), rng.uniform(15, 90), rng.uniform(0, 360))
    dl = rng.uniform(MIN_DELTA_L + 2, max(MIN_DELTA_L + 3, light[0] - 6))
    L = max(light[0] - dl, 5.0)
    dark = (L, rng.uniform(0, 8) if rng.random() < 0.2 else rng.uniform(12, 80), rng.uniform(0, 360))
    return light, dark


def _too_close_to_holdout(light_rgb, dark_rgb, holdout_sets) -> str | None:
    for sid in holdout_sets:
        h = PIECE_SETS[sid]
        if delta_e(light_rgb, h.light_rgb) < HOLDOUT_DELTA_E and delta_e(dark_rgb, h.dark_rgb) < HOLDOUT_DELTA_E:
            return sid
    return None


def draw_piece_set(rng: random.Random, pitch: float, holdout_sets=DEFAULT_HOLDOUT_SETS, large: bool = False) -> dict:
    """Every ``PieceSet`` field of a new set whose pieces fit cells ``pitch`` metres apart.
    ``large``: a set at the large end of the sizes (the widest fifth, short pieces 1.05-1.3
    times as high as wide): short pieces as high as most sets' tall ones are, relative to
    the cells (a piece's height is read against its width, not the pitch).

    Deterministic in ``rng``'s state. The two colours differ by at least ``MIN_DELTA_L``
    in L* (after sRGB gamut mapping) and are never both close to a held-out set's.
    """
    material = rng.choices(MATERIALS, MATERIAL_WEIGHTS)[0]
    for attempt in range(100):
        if material == "wood":
            light, dark = _wood_pair(rng)
        else:
            light, dark = _coloured_pair(rng)
        light_rgb, dark_rgb = lch_to_srgb(*light), lch_to_srgb(*dark)
        if srgb_to_lab(light_rgb)[0] - srgb_to_lab(dark_rgb)[0] < MIN_DELTA_L:
            continue
        if _too_close_to_holdout(light_rgb, dark_rgb, holdout_sets):
            continue
        break
    else:  # pragma: no cover - 100 misses in a row do not happen with these ranges
        raise AssertionError("no colour pair drawn")
    # sizes: the catalog's sets run 22-36 mm wide; short 0.8-1.3 x width, tall 1.7-2.3 x short
    widest = min(0.038, MAX_WIDTH_PER_PITCH * pitch)
    width = rng.uniform(max(0.020, widest - 0.2 * (widest - 0.020)) if large else 0.020, widest)
    short_h = width * rng.uniform(1.05 if large else 0.8, 1.3)
    tall_h = short_h * rng.uniform(1.7, 2.3)
    bevel = min(rng.uniform(0.0005, 0.0025), width * 0.07)
    hole_r = width * rng.uniform(0.24, 0.37)
    hole_depth = min(width * rng.uniform(0.18, 0.38), short_h * 0.6)
    r3 = lambda v: round(v, 5)  # noqa: E731  (0.01 mm: keeps spec JSON short)
    return {
        "id": f"proc-{rng.randrange(1 << 32):08x}", "light": colour_name(light_rgb), "dark": colour_name(dark_rgb),
        "light_rgb": list(light_rgb), "dark_rgb": list(dark_rgb), "material": material,
        "width": r3(width), "short_h": r3(short_h), "tall_h": r3(tall_h), "hole_r": r3(hole_r),
        "hole_depth": r3(hole_depth), "groove": rng.random() < 0.5, "bevel": r3(bevel), "weight": 1.0,
    }


# ---------------------------------------------------------------- board colours
#: board styles whose colours are wood's: tinted only as far as other woods and stains go
WOOD_BOARD_STYLES = ("wood-round", "walnut-checker")


def tint_board_colors(rng: random.Random, board) -> dict:
    """``board``'s (a ``catalog.Board``) named colours recoloured as one: every colour's
    hue turned by the same angle, chroma scaled and lightness shifted alike, plus a
    common colour cast, so the design (marks against the top) keeps its contrast.
    Wooden boards stay wood-coloured (another species or stain)."""
    wood = board.style in WOOD_BOARD_STYLES
    turn = rng.uniform(-30, 30) if wood else rng.uniform(-180, 180)
    chroma = rng.uniform(0.6, 1.3) if wood else rng.uniform(0.5, 1.6)
    shift = rng.uniform(-18, 15) if wood else rng.uniform(-12, 12)
    cast = rng.uniform(0, 6 if wood else 14), rng.uniform(0, 360)
    out = {}
    for name, rgb in board.colors.items():
        L, a, b = srgb_to_lab(rgb)
        C, h = math.hypot(a, b) * chroma, math.degrees(math.atan2(b, a)) + turn
        a2 = C * math.cos(math.radians(h)) + cast[0] * math.cos(math.radians(cast[1]))
        b2 = C * math.sin(math.radians(h)) + cast[0] * math.sin(math.radians(cast[1]))
        L2 = min(max(L + shift, 4.0), 96.0)
        out[name] = list(lch_to_srgb(L2, math.hypot(a2, b2), math.degrees(math.atan2(b2, a2))))
    return out
