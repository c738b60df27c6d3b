"""How tall a newly placed piece stands, from the picture before and after it came.

The pixel tracker knows the board as it stood before a placement and after it, from
the same camera. Where the picture changed around the new piece's cell is the piece's
silhouette (on a clear, still view nothing else changes), and how far that silhouette
reaches up along the image of the vertical is the piece's height. Vision's network reads
height from one picture; from two pictures it is a measurement, and tall pieces stand
about twice as high as short ones in every set (../shared/QUARTO.md), so the heights
measured during a game fall into two groups a factor of two apart, whatever the set.

:func:`measure_height` gives the height in cell pitches with its uncertainty, or
``None`` when the picture cannot tell (a camera looking straight down, a piece hidden).
:func:`tall_log_odds` turns the heights of the pieces of a game into log odds that a
piece is tall, with the unknown short height of the set integrated out.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: upright strip cut around a cell: pitches across, below and above the cell centre
SPAN, BELOW, ABOVE = 1.2, 0.6, 2.8
PX = 24  # strip pixels per pitch
#: half the width of a piece in pitches (sets: 0.27-0.38) and its spread
HALF_WIDTH, HALF_WIDTH_SD = 0.32, 0.05
#: colour change (sum over B, G, R of absolute differences, 0-765) that counts as changed
CHANGE = 45.0
#: share of the piece body's change (upper quartile) a pixel must reach unless it changed
#: unlike a shadow (``_shadowed``): a shadow changes less. A dark piece's top before a dark
#: square changes the picture less than its side before a light one, and without the second
#: way a tall piece's top was cut off (game78's first piece measured 0.21 pitch, 0.97 true)
BODY_SHARE = 0.5
#: the body must change the picture by this many times ``CHANGE`` for its outline to count
CLEAR_BODY = 1.25
#: share of the central band (the piece's width) that must have changed in a row of the piece
COVER = 0.45
#: image pixels by which a height measurement is uncertain (edges, blur, the piece off centre)
EDGE_PX = 2.0
#: tall / short height ratio (QUARTO.md: "roughly twice"); pieces of one kind differ
#: in measured height by this share
RATIO, SPREAD = 2.0, 0.15
#: prior range of the short pieces' height in pitches (catalogue sets: 0.4-0.8)
SHORT_RANGE = (0.3, 1.2)
#: the silhouette's colour is taken over its pixels above this percentile of lightness:
#: its brightest quarter, the lit top wherever the top shows. Over the lit half, a short
#: piece's colour was its top and a tall one's its side wherever the tops glinted and the
#: sides stood in shade (game46), and the game's two colours split by height
LIT_SHARE = 75
#: least spread (Lab units, per channel) of one kind's colour in a game, and the most a
#: colour may say (log odds): lighting differs across the board
COLOUR_SD, COLOUR_CAP = 6.0, 4.0
#: the most the game's own colours may say (log odds): less than vision's surest reading
#: (0.02-0.98, 3.9), so that one silhouette's colour never overrules it. Where the two
#: disagreed that strongly (4 of 288 placements of 25 game videos, session 20) vision was
#: right every time: the silhouette had caught a shaded side or a neighbour
GAME_COLOUR_CAP = 3.5
#: the most a piece's body colour as vision's closer look saw it may say (log odds), where
#: its silhouette gave no colour: its window may hold a glint on a glossy top or a shaded
#: side (a charcoal piece seen at L* 94, game73; a light one at L* 21 with the lamp off,
#: game01), so it turns only vision's unsure readings (0.12-0.88)
BODY_COLOUR_CAP = 2.0
#: a body colour standing in for a silhouette's counts in vision's two kinds only where vision
#: reads its piece this surely dark or light (0.8 and 0.9 alike in the replays of session 31)
STAND_IN_SURE = 0.85
#: two groups of the game's piece colours are the set's two when their means are this far
#: apart (Lab units), the darker this much darker (L*), and every piece lies within this
#: share of its distance to the other group's mean from its own group's mean
SPLIT_GAP, SPLIT_L, SPLIT_SHARE = 25.0, 8.0, 0.5
#: where the two groups are closer in lightness, vision decides which is the dark kind when
#: its mean log odds (``capped_log_odds``) over one group's pieces lie this far above the other's
VISION_SIDES = 1.0
#: a shadow: every channel darker than this factor, the channels' log ratios within this
#: spread; the colour is taken without such pixels unless fewer than this share are left
SHADOW_DARKER, SHADOW_CHROMA, SHADOW_KEEP = 0.85, 0.25, 0.2
#: spread (pitches) of the offset all measurements of one game share
OFFSET_SD = 0.35
#: share of measurements that say nothing, spread over this many pitches; share of
#: silhouettes found only in part, measuring from UNDER_FLOOR below the board up to the
#: true height (0.25 until session 36: a short piece measured a little above the game's
#: short ones, between the two groups, was told short too weakly, and game112's line of
#: four short pieces stood at p 0.48; at 0.15 on 32 game videos one piece more is named
#: when placed and that Quarto called, nothing else changed; docs/watch.md "Session 36")
OUTLIER, OUTLIER_RANGE = 0.1, 4.0
UNDER, UNDER_FLOOR = 0.15, 0.2
#: a silhouette whose part above the foot is more than this share shadow-like (``_shadowed``
#: on the slightly blurred pictures) measures a shadow's reach, not the piece's height: a
#: long shadow cast away from the camera (a low lamp) lifted short pieces to 1.3-4 pitches
#: in game74, game76 and game78. The share of pixels is not a safe way to cut the shadow
#: off: a piece's shaded side before a background of its own hue is darkened alike too
SHADOW_TOP = 0.5


def _shadowed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """``(N,)`` bool: pixels (``(N, 3)`` BGR, before and after a piece came) that the
    piece's shadow darkened rather than its body covered: every channel darker by
    ``SHADOW_DARKER`` at least, and by about the same factor (``SHADOW_CHROMA``: the
    spread of the channels' log ratios), so that the colour stayed what it was."""
    r = np.log((after.astype(np.float32) + 4.0) / (before.astype(np.float32) + 4.0))
    return (r.max(axis=1) < np.log(SHADOW_DARKER)) & (r.max(axis=1) - r.min(axis=1) < SHADOW_CHROMA)


@dataclass(frozen=True)
class Height:
    """``value`` pitches above the board, ``sd`` its uncertainty; ``at_least``: the top
    met another piece's picture, so the piece may be taller than measured; ``colour``: the
    median CIE Lab colour (L 0-100) of the lit part of the piece's silhouette, or ``None``;
    ``shadowed``: most of the silhouette above the piece's foot looks like a shadow, so
    its top says nothing of the height (``SHADOW_TOP``; the colour still counts)."""

    value: float
    sd: float
    at_least: bool = False
    colour: tuple | None = None
    shadowed: bool = False


def board_homography(centers: np.ndarray) -> np.ndarray | None:
    """Board units (cells at (i % 4 + 0.5) / 4, (i // 4 + 0.5) / 4) -> image, from the
    16 cell centres in game order (a symmetry of vision's grid: the geometry is the same)."""
    from vision.geometry import cell_grid

    H, _ = cv2.findHomography(cell_grid(), np.asarray(centers, float).reshape(16, 2), 0)
    return H


def _strip(image: np.ndarray, centre: np.ndarray, up: np.ndarray, right: np.ndarray, scale: float) -> np.ndarray:
    """Upright strip (rows from ABOVE down to -BELOW pitches, columns -SPAN/2..SPAN/2) of
    ``image`` around ``centre``; ``scale`` image pixels per pitch."""
    w, h = int(round(SPAN * PX)), int(round((ABOVE + BELOW) * PX))
    step = scale / PX
    origin = centre - right * (SPAN / 2) * scale + up * ABOVE * scale
    A = np.c_[right * step, -up * step, origin]
    return cv2.warpAffine(image, A, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def measure_height(before: np.ndarray, after: np.ndarray, centers: np.ndarray, cell: int,
                   occupied=()) -> Height | None:
    """Height of the piece set down on game cell ``cell`` between the frames ``before``
    and ``after`` ((H, W, 3) uint8, same camera), the board's cell centres ``centers``
    (16, 2) in game order; ``occupied``: other game cells with a piece on them (a piece
    standing behind the new one in the picture can hide where its top ends)."""
    from vision.crops import vertical_displacements
    from vision.geometry import cell_grid, jacobians

    centers = np.asarray(centers, float).reshape(16, 2)
    H = board_homography(centers)
    if H is None or before.shape != after.shape:
        return None
    lift = vertical_displacements(H, after.shape)[cell] * 0.25  # image pixels per pitch of height
    rise = float(np.hypot(*lift))
    J = jacobians(H, cell_grid()[cell])[0] * 0.25  # image pixels per pitch along board x, y
    scale = float(np.linalg.svd(J, compute_uv=False)[0])
    if rise < 1e-6 or scale < 4:
        return None
    up = lift / rise
    right = np.array([-up[1], up[0]])
    if right[0] < 0:
        right = -right
    # the far edge of the top face: half a width back on the board, along ``up``
    back = float(np.linalg.norm(J.T @ up))  # image pixels along up per pitch on the board, at most
    a = _strip(before, centers[cell], up, right, scale).astype(np.int16)
    b8 = _strip(after, centers[cell], up, right, scale)
    b = b8.astype(np.int16)
    d = np.abs(a - b).sum(axis=2).astype(np.float32)
    d -= np.median(d)  # a change of light touches the whole strip
    half = HALF_WIDTH * PX * 0.8
    mid = SPAN * PX / 2
    lo_col, hi_col = int(mid - half), int(np.ceil(mid + half))  # the central band: the piece's width
    base = int(round(ABOVE * PX))  # the cell centre's row
    # how much the piece's own body changed the picture: just above its foot, where every
    # piece stands (a short one reaches at least 0.3 pitch); a shadow changes it less
    low = max(0, base - int(round((0.3 * rise + HALF_WIDTH * back) / scale * PX)))
    body = d[low:base + 1, lo_col:hi_col]
    level = float(np.percentile(body, 75)) if body.size else 0.0
    threshold = max(CHANGE, BODY_SHARE * level)
    if level < CLEAR_BODY * CHANGE:
        return None  # the piece hardly differs from what stood there before: no outline to trust
    a_blur, b_blur = cv2.blur(a.astype(np.float32), (3, 3)), cv2.blur(b.astype(np.float32), (3, 3))
    shade_px = _shadowed(a_blur.reshape(-1, 3), b_blur.reshape(-1, 3)).reshape(d.shape)
    changed = (d > threshold) | ((d > CHANGE) & ~shade_px)
    changed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    # the outline of a piece much like the board changes more than its inside: fill holes
    outside = cv2.copyMakeBorder(changed, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    cv2.floodFill(outside, None, (0, 0), 2)  # the border ring joins every unchanged area touching it
    changed = (outside[1:-1, 1:-1] != 2).astype(np.uint8)
    # the piece: the changed region that holds its foot, near the cell centre
    _, labels = cv2.connectedComponents(changed, connectivity=8)
    foot = labels[max(0, base - int(0.3 * PX)):base + int(0.3 * PX), lo_col:hi_col]
    ids, counts = np.unique(foot[foot > 0], return_counts=True)
    if not len(ids):
        return None
    piece = labels == ids[np.argmax(counts)]
    cover = piece[:, lo_col:hi_col].mean(axis=1)
    rows = np.flatnonzero(cover >= COVER)
    if not len(rows):
        return None
    top = int(rows[0])
    if top <= 1:
        return None  # the strip is too short for this piece: no reading
    upper = piece.copy()
    upper[:top] = False
    upper[low:] = False  # above the foot, where every piece stands
    shade = shade_px[upper]
    shadowed = bool(shade.size >= 12 and shade.mean() > SHADOW_TOP)
    reach = (base - top) / PX * scale  # image pixels from the cell centre to the top
    h = (reach - HALF_WIDTH * back) / rise
    sd = float(np.hypot(EDGE_PX, HALF_WIDTH_SD * back)) / rise
    # another piece behind, in the picture just above where this one ends: the top may be hidden
    at_least = False
    for j in occupied:
        if j == cell:
            continue
        v = centers[j] - centers[cell]
        along, across = float(v @ up), float(abs(v @ right))
        if across < 0.8 * scale and 0 < along and reach >= along - (HALF_WIDTH + 0.15) * back - 2:
            at_least = True
    # the piece's colour: its silhouette between the foot and the top, in the central band
    body_mask = np.zeros_like(piece)
    body_mask[top:base, lo_col:hi_col] = piece[top:base, lo_col:hi_col]
    colour = None
    # a silhouette whose top is measured below the board is not the piece's body (a piece
    # of the board's own colour changes the picture only where its side is shaded: maple
    # on a light wooden board measured as dark as mahogany, game41): no colour from it
    if body_mask.sum() >= 12 and h >= 0.0:
        lab = cv2.cvtColor(b8.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)[body_mask]
        # not the piece: its shadow on the board, which darkens what was there alike in every
        # channel (over a light line on a dark board it changes the picture most of all)
        lit_before = ~_shadowed(a[body_mask], b[body_mask])
        if lit_before.sum() >= max(12, SHADOW_KEEP * len(lab)):
            lab, dd = lab[lit_before], d[body_mask][lit_before]
        else:
            dd = d[body_mask]
        # surely the piece: where the picture changed (not the holes its outline was filled
        # over) ...
        strong = dd > threshold
        if strong.sum() < 12:
            strong = dd >= np.percentile(dd, 50)
        lab = lab[strong]
        # ... and of that the lit part: a light piece's side in its own shade can look as
        # dark as a dark piece's, its lit top or side does not
        lit = lab[lab[:, 0] >= np.percentile(lab[:, 0], LIT_SHARE)]
        colour = tuple(float(v) for v in np.median(lit, axis=0))
    return Height(float(h), max(sd, 0.03), at_least, colour, shadowed)


def _log_lik(height: Height, mean: np.ndarray) -> np.ndarray:
    """Log-likelihood of the measured ``height`` for pieces standing ``mean`` pitches high
    (array): a normal spread (the measurement's, and pieces of one kind differing a little);
    a share ``UNDER`` of silhouettes found only in part (a piece much like what stood behind
    it, a piece hidden behind another), which may measure anything up to the true height;
    and a share ``OUTLIER`` of readings that say nothing (a shadow taken for the piece).
    So a low reading says little against a tall piece, a high one much against a short."""
    sd = np.hypot(height.sd * (1.5 if height.at_least else 1.0), SPREAD * np.abs(mean))
    z = (height.value - mean) / sd
    normal = -0.5 * z * z - np.log(sd * np.sqrt(2 * np.pi))
    lo = -UNDER_FLOOR
    under = np.where((height.value >= lo) & (height.value <= mean), -np.log(np.maximum(mean - lo, 1e-3)), -np.inf)
    out = np.logaddexp(np.log1p(-OUTLIER - UNDER) + normal, np.log(UNDER) + under)
    return np.logaddexp(out, np.log(OUTLIER / OUTLIER_RANGE))


def tall_log_odds(heights: dict, tall_prob: dict) -> dict:
    """Per cell the log odds, from the heights alone, that its piece is tall, given the other
    pieces' heights. ``heights`` {cell: Height or None}, ``tall_prob`` {cell: vision's
    probability that it is tall} (for the other pieces: which of the two groups they are
    likely in). Unknown and integrated out: the short pieces' height ``s`` (tall ones stand
    ``RATIO`` times as high) and an offset ``o`` shared by every measurement of the game
    (where the silhouette's top is found against the true top: the top face's far edge,
    a shadow, a camera angle): a measurement is ``s + o`` or ``RATIO * s + o``."""
    cells = [c for c, h in heights.items() if h is not None and not h.shadowed]
    if not cells:
        return {}
    s = np.exp(np.linspace(np.log(SHORT_RANGE[0]), np.log(SHORT_RANGE[1]), 48))[:, None]
    o = np.linspace(-3 * OFFSET_SD, 3 * OFFSET_SD, 37)[None, :]
    prior = -0.5 * (o / OFFSET_SD) ** 2 + 0 * s
    lik = {c: (_log_lik(heights[c], s + o), _log_lik(heights[c], RATIO * s + o)) for c in cells}

    def mix(c: int, q: float) -> np.ndarray:
        q = float(np.clip(q, 0.02, 0.98))
        return np.logaddexp(np.log(q) + lik[c][1], np.log(1 - q) + lik[c][0])

    vision = {c: mix(c, tall_prob.get(c, 0.5)) for c in cells}
    out = {}
    for c in cells:
        others = [x for x in cells if x != c]
        # which group each other piece is in: from the heights alone when they fall clearly
        # into two (vision may read a set's tall pieces short, the picture does not), else
        # from vision's readings
        split = two_heights(np.array([heights[x].value for x in others]))
        rest = prior + sum(vision[x] if split is None else mix(x, split[i]) for i, x in enumerate(others))
        out[c] = float(np.logaddexp.reduce((rest + lik[c][1]).ravel()) - np.logaddexp.reduce((rest + lik[c][0]).ravel()))
    return out


def _two_groups(x: np.ndarray, rank: np.ndarray, least: int = 2) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`vision.kinds.two_groups` with this module's ``SPLIT_SHARE``."""
    from vision.kinds import two_groups

    return two_groups(x, rank, least, SPLIT_SHARE)


def two_heights(v: np.ndarray) -> np.ndarray | None:
    """The other pieces' measured heights ``v`` (n,) split into the set's two by the heights
    alone: (n,) 1.0 for the taller group, 0.0 for the shorter, or ``None`` when they do not
    fall clearly into two (:func:`_two_groups`) or the group means lie less than the
    shortest short piece (``SHORT_RANGE``) apart (tall pieces stand a short piece's height
    higher than short ones, whatever the game's offset)."""
    v = np.asarray(v, float)
    got = _two_groups(v[:, None], v)
    if got is None or got[1][1, 0] - got[1][0, 0] < SHORT_RANGE[0]:
        return None
    return got[0].astype(float)


def capped_log_odds(p) -> np.ndarray:
    """Log odds of probabilities ``p``, capped at 0.02-0.98 as the cues weigh vision's
    readings (its surest say 3.9); NaN stays NaN."""
    q = np.clip(np.asarray(p, float), 0.02, 0.98)
    return np.log(q / (1 - q))


def two_colours(x: np.ndarray, least: int = 2, p: np.ndarray | None = None) -> np.ndarray | None:
    """The other pieces' Lab colours ``x`` (n, 3) split into the set's two colours by the
    colours alone: (n,) 1.0 for the darker group, 0.0 for the lighter, or ``None`` when
    they do not fall clearly into two (:func:`_two_groups`, started from the darkest and
    the lightest piece) or the groups lie less than ``SPLIT_GAP`` apart in colour; each
    group holds ``least`` pieces at least. A set's two kinds are two colours, and dark is
    the darker of them where it is ``SPLIT_L`` darker in lightness. Two colours closer in
    lightness are still two kinds (game80: white and lime plastic, 35 Lab but 7 L* apart in
    the lamp's light): which is dark, vision says from the pieces' readings, ``p`` (n,)
    their dark probabilities (NaN: not read), when its mean log odds over one group lie
    ``VISION_SIDES`` above the other's; else ``None``."""
    x = np.asarray(x, float)
    got = _two_groups(x, x[:, 0], least)
    if got is None:
        return None
    light, centres = got
    if np.linalg.norm(centres[1] - centres[0]) < SPLIT_GAP:
        return None
    if centres[1][0] - centres[0][0] >= SPLIT_L:
        return (~light).astype(float)
    if p is None:
        return None
    z = capped_log_odds(p)
    known = ~np.isnan(z)
    if not (known & light).any() or not (known & ~light).any():
        return None
    lighter_side = z[known & light].mean() - z[known & ~light].mean()
    if abs(lighter_side) < VISION_SIDES:
        return None
    return (light if lighter_side > 0 else ~light).astype(float)


#: vision's two kinds of the other pieces are weighed against only where their mean colours
#: lie this many times the spread within a kind apart (``SPLIT_GAP`` would be too much:
#: vision's readings are soft, and a light blue and green set measured 28 Lab apart, less
#: after the light dropped, game68)
KINDS_APART = 2.0
#: vision is sure of a piece's colour at this probability or its complement: such a piece
#: alone may stand for its kind in the game's colours (its readings at 0.02-0.98 are capped)
SURE = 0.05


def _kinds_with_a_sure_one(x: np.ndarray, v: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    """The other pieces' colours ``x`` (n, 3) and the new piece's ``v`` split into two by
    the colours alone (:func:`two_colours`) where one kind holds a single other piece that
    vision is sure of (``SURE``, ``p`` (n,) its dark probabilities): (n,) 1.0 for the darker
    group, 0.0 for the lighter, or ``None``. One piece alone may be a glint or a shadow; one
    that vision reads surely as the kind its colour puts it in is not (game75's light
    orange and brown set: the first light piece, read light at 0.00, is the only one of its
    kind when the third dark one comes, which vision read light)."""
    both = two_colours(np.vstack([x, v]), least=1, p=np.append(p, np.nan))
    if both is None:
        return None
    for kind in (0.0, 1.0):
        members = np.flatnonzero(both == kind)
        if len(members) >= 2:
            continue
        if members[0] == len(x):
            return None  # the new piece alone of its kind: nothing to weigh it against
        if not (p[members[0]] >= 1 - SURE if kind else p[members[0]] <= SURE):
            return None
    return both[:-1]


def _unlike_one_kind(x: np.ndarray, v: np.ndarray, p: np.ndarray) -> bool | None:
    """Whether the new piece (Lab ``v``) is dark, when every other piece (``x`` (n, 3)) is
    of one kind that vision is sure of (``p`` (n,) their dark probabilities, ``SURE``) and
    the new piece's colour lies clearly apart from theirs (``SPLIT_GAP`` from their mean,
    each of them within ``SPLIT_SHARE`` of that gap from it) on the other kind's side in
    lightness (``SPLIT_L``): then it is the other kind. ``None`` when that does not hold
    (game71: its second piece, light, was read dark at 0.81 beside a dark first piece 48 L*
    darker)."""
    sure_dark, sure_light = bool((p >= 1 - SURE).all()), bool((p <= SURE).all())
    if not (sure_dark or sure_light):
        return None
    m = x.mean(0)
    gap = float(np.linalg.norm(v - m))
    if gap < SPLIT_GAP or (np.linalg.norm(x - m, axis=1) > SPLIT_SHARE * gap).any():
        return None
    if sure_dark and v[0] - m[0] >= SPLIT_L:
        return False
    if sure_light and m[0] - v[0] >= SPLIT_L:
        return True
    return None


def _weighed_against_kinds(x: np.ndarray, v: np.ndarray, p: np.ndarray, stand_in: np.ndarray | None = None) -> float | None:
    """Log odds that the new piece (Lab ``v``) is dark, weighed against the mean colour of
    each kind among the other pieces (``x`` (n, 3), ``p`` (n,) vision's dark probabilities),
    or ``None`` while both kinds have not been seen (see :func:`dark_log_odds`) or, where
    the kinds are vision's readings, while their mean colours are not ``KINDS_APART``
    spreads apart. ``stand_in`` (n,) bool: colours that stand in for a silhouette's
    (:func:`dark_log_odds`); in vision's kinds they count only where vision is sure of
    their piece (``STAND_IN_SURE``)."""
    q = two_colours(x, p=p) if len(x) >= 2 else None
    if q is None and len(x) >= 2:
        # one other piece alone is no kind of the set, but the new piece may be the
        # second of its kind: two pieces alike and unlike the rest are one
        both = two_colours(np.vstack([x, v]), p=np.append(p, np.nan))
        q = both[:-1] if both is not None else None
    if q is None and len(x) >= 2:
        q = _kinds_with_a_sure_one(x, v, p)
    from_vision = q is None
    if from_vision:
        if stand_in is not None and stand_in.any():
            # game82: a light piece's body colour, read dark at 0.79, made the dark kind
            # alone, and the next light piece, of its colour, came out dark
            keep = ~stand_in | (np.maximum(p, 1 - p) >= STAND_IN_SURE)
            x, p = x[keep], p[keep]
        q = p
    q = np.clip(q, 0.02, 0.98)
    wd, wl = q.sum(), (1 - q).sum()
    if wd < 0.8 or wl < 0.8:
        return None
    md = (q[:, None] * x).sum(0) / wd
    ml = ((1 - q)[:, None] * x).sum(0) / wl
    spread = ((q[:, None] * (x - md) ** 2).sum() + ((1 - q)[:, None] * (x - ml) ** 2).sum()) / (3 * (wd + wl))
    var = max(float(spread), COLOUR_SD ** 2)
    if from_vision and np.linalg.norm(md - ml) < KINDS_APART * np.sqrt(var):
        # vision's two kinds are not two colours here (game79: three blue pieces read dark
        # at 0.25-0.59): weighed against means so alike, a colour far from both came out
        # 2.9 log odds light for a black piece, by the small difference between the means
        return None
    llr = (((v - ml) ** 2).sum() - ((v - md) ** 2).sum()) / (2 * var)
    return float(np.clip(llr, -GAME_COLOUR_CAP, GAME_COLOUR_CAP))


def dark_log_odds(colours: dict, dark_prob: dict, stand_ins=()) -> dict:
    """Per cell the log odds, from the silhouettes' colours alone, that its piece is the
    dark kind, given the other pieces' colours. ``colours`` {cell: Lab triple or None},
    ``dark_prob`` {cell: vision's probability that it is dark}; ``stand_ins``: cells whose
    colour is not a silhouette's but the body colour vision saw (a silhouette gave none),
    which say less of their own piece (``BODY_COLOUR_CAP``) and count in vision's kinds
    only where vision is sure of them. A set has two colours; the game's pieces show them,
    in this light and from this camera: the new piece is weighed
    against the mean colour of each kind so far, with the spread seen within the kinds (at
    least ``COLOUR_SD``). Which kind each other piece is: from the colours alone when they
    fall clearly into two (:func:`two_colours`: vision may take the set's darker colour for
    light, a human would not; the new piece counts towards a kind, not towards the means;
    a kind of one piece counts when vision is sure of it), else from vision's readings.
    Until both kinds have been seen nothing is said, unless every other piece is surely of
    one kind and the new one's colour clearly the other's (:func:`_unlike_one_kind`)."""
    cells = [c for c, v in colours.items() if v is not None]
    out = {}
    for c in cells:
        others = [o for o in cells if o != c]
        if not others:
            continue
        x = np.array([colours[o] for o in others], float)
        v = np.asarray(colours[c], float)
        p = np.array([dark_prob.get(o, 0.5) for o in others], float)
        llr = _weighed_against_kinds(x, v, p, np.array([o in stand_ins for o in others]))
        if llr is None:
            dark = _unlike_one_kind(x, v, p)
            llr = None if dark is None else (GAME_COLOUR_CAP if dark else -GAME_COLOUR_CAP)
        if llr is not None:
            out[c] = float(np.clip(llr, -BODY_COLOUR_CAP, BODY_COLOUR_CAP)) if c in stand_ins else llr
    return out


def set_colour_log_odds(colour, set_colours) -> float:
    """Log odds that a piece whose body shows the Lab ``colour`` (``vision.crops.BODY_COLOUR_NAMES``)
    is the dark kind, from the set's two colours that calibration learned in this light and
    from this camera (``set_colours``: light L, a, b, dark L, a, b, and their spread within a
    kind), capped at ``COLOUR_CAP``. Unlike :func:`dark_log_odds` it speaks from the first
    piece of a game, before both kinds have been seen."""
    c = np.asarray(set_colours, float)
    light, dark, sd = c[0:3], c[3:6], max(float(c[6]), COLOUR_SD)
    v = np.asarray(colour, float)
    llr = (((v - light) ** 2).sum() - ((v - dark) ** 2).sum()) / (2 * sd * sd)
    return float(np.clip(llr, -COLOUR_CAP, COLOUR_CAP))
