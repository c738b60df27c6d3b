"""A tracker that sees *where* the board changed in the image itself.

Vision's absolute reading of a cell (is there a piece? which?) can flicker or be wrong
on an empty cell, but the picture of a cell where nothing happened stays the same, and
a cell where a piece was set down changes a lot. So :class:`PixelTracker` keeps, for the
game as accepted so far, a small grey signature of each cell (an 8x8 thumbnail of the
patch around its centre, raised a little since pieces stand up in the image) and, once
the view is clear and still for ``settle`` seconds, compares:

- the empty cell whose picture changed most, clearly more than any other empty cell,
  is where a piece was placed; which piece it is comes from vision's attribute
  probabilities averaged over the steady frames, among the pieces still available;
- nothing changed enough: nothing happened, whatever vision reads;
- two empty cells changed a lot: two new pieces (unless the second is a neighbour of the
  first that vision reads empty, the new piece's shadow, or the cell straight behind it
  in the picture, which the new piece rises over; or one cell that vision sees taken, even
  one that changed less, explains every cell that changed a lot that way: a long shadow can
  change two cells more than the piece's own); a piece's cell changed and vision reads
  it empty: the piece disappeared (or moved, when the new piece is that one); the best
  reading of the new piece is one already on the board by far: a duplicate; nothing new,
  but a piece's cell changed a lot and vision reads another piece there than when it was
  placed: a piece swapped (``changed``; read as before, it was only turned or nudged).
  These are flagged and never change the game.

Pure like :class:`~quarto_assist.tracker.Tracker`: frames and readings in, events out.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from engine.pieces import ALL_PIECES, DARK, HOLLOW, SQUARE, TALL

from .silhouette import (board_homography, capped_log_odds as _logit, dark_log_odds, measure_height,
                         set_colour_log_odds, tall_log_odds)
from .tracker import Issue, Tracker, TrackerSettings, TrackEvent, _moved_points, _spacing, piece_log_likelihoods

#: a change of every cell's brightness by this share from one frame to the next is a change of light
LIGHT_STEP = 0.06
#: ... but only when the light held steady just before and after (within this): a ramp is not
#: a step
LIGHT_STEADY = 0.02
#: mean grey level under which a cell is too dark to tell how its light changed
DARK_CELL = 8.0
#: cells that must have changed in their light alone, as vision agrees, before the change is
#: taken for the light's over part of the board (a piece's shade darkens one or two)
RELIT_CELLS = 3
#: a change of a cell's light by less than this share, from one accepted view of the board
#: to the next, is not noted (the light a piece's shade or a slow dusk takes away)
LIGHT_NOTED = 0.08
#: the least light (a share of the game's first) a cell's picture is brightened from
LIGHT_FLOOR = 0.25
#: the light of one part of the board against another's (3 x 3 neighbourhoods), as a share
#: of the first, that is a change of light over part of the board even where one or two
#: cells show it alone: a person's shadow takes a third of the light or more; pieces' shades
#: and a room growing dark change every neighbourhood alike
PARTIAL_LIGHT = 0.2
#: frames kept of the steady window's last entries (a knock is told a few frames late)
RECENT = 12
BEFORE_MARGIN = 1.5  # the frame around a cell kept for an undo, in cell pitches each way
THUMB = 8  # signature: THUMB x THUMB grey thumbnail per cell
#: first thumbnail row at the cell centre or below (the patch spans 0.5 pitch above the
#: centre to 0.2 below): where a piece standing on the cell has its foot
FOOT_ROW = 5
_BITS = (TALL, DARK, SQUARE, HOLLOW)  # vision's probability columns 1-4


@dataclass(frozen=True)
class PixelSettings(TrackerSettings):
    """``place_change``: grey levels (mean absolute, after removing the board-wide
    change) above which a cell's picture changed; ``second_ratio``: a second empty cell
    that changed by this share of the first, and by twice ``place_change``, is a second
    new piece; ``still``: grey levels a cell may flicker within the steady window;
    ``shadow_empty``: share of the steady readings in which vision must see a changed
    neighbour of the new piece empty for its change to count as the new piece's shadow or
    its cover of the cell behind (not a second piece); ``shade_own``: a piece whose
    shadow changed a neighbour most stands on a touching cell vision sees taken that changed
    by ``place_change`` or this share of the shadow's change, whichever is less (a pale piece
    seen from straight above, on a square of its own grey, changes its cell by a few grey
    levels: game36, 2.7 against its shadow's 6.2); ``front_share``: of two changed cells,
one straight behind the other in the picture, the front one is the new piece's when vision
sees it taken in this share of the steady readings more than the one behind (a tall piece
in front changes the cell behind more than its own); ``front_foot``: grey levels by which the
front one of those two must have changed from its centre down (where a piece standing on it
has its foot; a piece on the cell behind does not reach there) to be the new piece's whatever
vision reads behind; ``swap_margin``: log-likelihood by
which vision must now read a piece whose cell changed (nothing new, nothing gone) as another
piece than when it was placed before it is flagged as swapped; ``duplicate_margin``:
    log-likelihood by which a piece already on the board must beat every available piece
    before the new one is flagged as a duplicate; ``reread_margin``:
    log-likelihood by which reading the pieces on the board again together with the new one
    must beat keeping them as they were before an earlier piece is re-read; ``later_reads``:
    each earlier piece's evidence also takes vision's readings of it at every later placement
    (mean in log-odds with the reading when it was placed); ``given_weight``: log-likelihood
    added to the piece the user says was handed over (key ``g``) when the next
    piece is read: vision must read another piece clearly (8 nats: three attributes surely
    the other way) to overrule the user; ``join``: start
    from the pieces vision sees on the board instead of an empty board; ``heights``: weigh
    in how tall each new piece stands in the picture (:mod:`quarto_assist.silhouette`);
    ``faint_change``: grey levels by which an empty cell that vision sees taken in every
    steady reading must have changed to be a new piece when no cell changed by
    ``place_change`` (a small dark piece on a dark square changes its cell's picture
    little: game102, 5.3-5.5 grey levels)."""

    settle: float = 0.8  # longer than a hand holding still while it sets a piece down
    place_change: float = 6.0
    faint_change: float = 3.0
    second_ratio: float = 0.6
    still: float = 4.0
    duplicate_margin: float = 4.0
    shadow_empty: float = 0.8
    shade_own: float = 0.4
    front_share: float = 0.5
    front_foot: float = 12.0
    swap_margin: float = 2.0
    reread_margin: float = 1.0
    later_reads: bool = True
    given_weight: float = 8.0
    join: bool = False
    heights: bool = True


def _touching(a: int, b: int) -> bool:
    """Game cells ``a`` and ``b`` (0-15 row-major) are neighbours, diagonals included."""
    return a != b and abs(a // 4 - b // 4) <= 1 and abs(a % 4 - b % 4) <= 1


def _rises_over(centers: np.ndarray, front: int, back: int) -> bool:
    """In the picture, does a piece standing on cell ``front`` rise over cell ``back``
    (the next cell straight up the image, the way pieces stand)?"""
    sp = _spacing(centers)
    dx, dy = centers[back] - centers[front]
    return abs(dx) <= 0.6 * sp and 0.3 * sp <= -dy <= 1.8 * sp


def signatures(image: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """(16, THUMB*THUMB) float32 grey thumbnails of the cells of ``image`` ((H, W, 3)
    uint8 BGR) around ``centers`` ((16, 2) pixels x, y)."""
    sp = _spacing(centers)
    r = max(3, int(round(0.35 * sp)))
    lift = 0.15 * sp
    h, w = image.shape[:2]
    out = np.zeros((16, THUMB * THUMB), np.float32)
    for i, (x, y) in enumerate(centers):
        x0, y0 = int(round(x - r)), int(round(y - lift - r))
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + 2 * r), min(h, y0 + 2 * r)
        if xb - xa < 2 or yb - ya < 2:
            continue
        patch = image[ya:yb, xa:xb]
        if patch.ndim == 3:
            patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
        out[i] = cv2.resize(patch, (THUMB, THUMB), interpolation=cv2.INTER_AREA).ravel()
    return out


def cells_light_gain(now: np.ndarray, before: np.ndarray) -> float:
    """How much brighter the cells' pictures ``now`` are than ``before`` ((16, n) each): the
    median over the cells of the ratio of their mean grey levels (a piece set down, its
    shade and a hand change a few cells; the light changes them all)."""
    b = before.mean(axis=1)
    lit = b > DARK_CELL
    if lit.sum() < 8:
        return 1.0
    return float(np.median(now.mean(axis=1)[lit] / b[lit]))


def cells_light_ratio(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """(N,) the ratio of each cell's mean grey level ``now`` to ``before`` ((N, n) each);
    1 for cells too dark to tell."""
    b = before.mean(axis=1)
    return np.where(b > DARK_CELL, now.mean(axis=1) / np.maximum(b, 1e-6), 1.0)


def cells_local_light_gain(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """(16,) how much brighter each cell's part of the board is ``now`` than ``before``
    ((16, n) each): the median of the ratio of mean grey levels over the cell and the cells
    around it (a piece set down changes its own cell and a neighbour or two; a shadow over
    part of the board changes a region). Cells too dark to tell count as unchanged."""
    ratio = cells_light_ratio(now, before)
    return np.array([np.median(ratio[_around(c)]) for c in range(16)])


def _around(c: int) -> list[int]:
    """Cell ``c`` and the cells around it (a 3 x 3 neighbourhood cut by the board's edge)."""
    r, k = divmod(c, 4)
    return [4 * i + j for i in range(max(0, r - 1), min(4, r + 2)) for j in range(max(0, k - 1), min(4, k + 2))]


def cells_own_light_change(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """(16,) how much each cell's picture ``now`` differs from ``before`` ((16, THUMB *
    THUMB) each) beyond a change of its own light (mean absolute grey levels after scaling
    ``before`` by the best gain that varies linearly across the cell: a shadow's soft edge
    may cross it): a shadow falling over part of the board changes its cells by little
    more than that; so does a dark piece set down on a plain light cell, which is why
    vision must agree before a cell's change is put down to its light."""
    u, v = np.meshgrid(np.linspace(-1.0, 1.0, THUMB), np.linspace(-1.0, 1.0, THUMB))
    basis = np.stack([np.ones(THUMB * THUMB), u.ravel(), v.ravel()], axis=1)  # (n, 3)
    x = before[:, :, None] * basis[None]  # (16, n, 3): the gain's terms for each pixel
    a = np.einsum("cni,cnj->cij", x, x) + 1e-3 * np.eye(3)
    b = np.einsum("cni,cn->ci", x, now)
    gain = np.linalg.solve(a, b[:, :, None])[:, :, 0]  # (16, 3)
    return np.abs(now - np.einsum("cni,ci->cn", x, gain)).mean(axis=1)


def _look(cell: int, probs: list, close) -> np.ndarray:
    """Vision's (4,) attribute probabilities for ``cell`` in one still view: its closer look
    ``close`` (the full analysis of the settled frame) where there is one, else the
    per-frame readings ``probs`` averaged. (Weighing the two equally, in log odds, was
    tried: as many attribute sign errors over 132 placements, a higher log loss.)"""
    if close is not None:
        return close[cell, 1:5]
    return np.mean([p[cell, 1:5] for p in probs], axis=0)


def _judged_size(reading) -> str | None:
    """``BoardReading.judged_size`` of ``reading``, ``None`` without a reading."""
    return getattr(reading, "judged_size", None)


def _body_colours(reading, match: np.ndarray) -> np.ndarray | None:
    """``(16, 3)`` Lab body colours (``vision.crops.BODY_COLOUR_NAMES``) of a reading's
    cells in the order ``match``, or None when the reading has no such features."""
    feats = getattr(reading, "features", None)
    if feats is None:
        return None
    from vision.features import body_colours

    body = body_colours(feats)[match]
    return body if np.abs(body).sum() > 0 else None


@dataclass
class Before:
    """A cell's picture before its piece came, for an undo: its signature, and the frame
    around it (``patch``, whose top-left corner was at ``corner`` in the frame) with the
    picture's move since (``move``, (2, 3) affine, ``None``: not moved), so that after a
    knock the empty cell is pictured where and as it now stands."""

    signature: np.ndarray
    patch: np.ndarray | None = None
    corner: tuple[int, int] = (0, 0)
    move: np.ndarray | None = None

    @classmethod
    def of(cls, signature: np.ndarray, frame: np.ndarray | None, centers: np.ndarray | None, cell: int) -> "Before":
        if frame is None or centers is None:
            return cls(signature.copy())
        center = centers[cell]
        r = int(np.ceil(BEFORE_MARGIN * _spacing(centers)))
        h, w = frame.shape[:2]
        x0, y0 = max(0, int(center[0]) - r), max(0, int(center[1]) - r)
        patch = frame[y0:min(h, int(center[1]) + r + 1), x0:min(w, int(center[0]) + r + 1)]
        return cls(signature.copy(), patch.copy(), (x0, y0))

    def moved(self, motion: np.ndarray) -> None:
        self.move = motion.copy() if self.move is None else compose(motion, self.move)

    def now(self, cell: int, frame: np.ndarray | None, centers: np.ndarray | None) -> np.ndarray:
        """The cell's signature before its piece came, as the picture now stands (``frame``:
        one of that picture, for its size; ``centers``: the cells' centres in it)."""
        if self.move is None or self.patch is None or self.patch.size == 0 or frame is None or centers is None:
            return self.signature
        to = self.move.copy()
        to[:, 2] += self.move[:, :2] @ np.asarray(self.corner, float)
        h, w = frame.shape[:2]
        canvas = cv2.warpAffine(self.patch, to, (w, h), flags=cv2.INTER_LINEAR)
        return signatures(canvas, centers)[cell]


def compose(after: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The (2, 3) affine map of ``first`` then ``after``."""
    return np.hstack([after[:, :2] @ first[:, :2], (after[:, :2] @ first[:, 2] + after[:, 2])[:, None]])


def _closed_cycles(had: dict, got: dict) -> list[list]:
    """The groups of cells (keys of ``had`` and ``got``, the pieces they held and now take)
    whose pieces only trade places among them: following "the cell that held the piece this
    one takes" from a changed cell comes back to it."""
    holder = {q: r for r, q in had.items()}
    seen, out = set(), []
    for start in had:
        if start in seen or got[start] == had[start]:
            continue
        path, r = [], start
        while r is not None and r not in seen and r not in path:
            path.append(r)
            r = holder.get(got[r])
        seen.update(path)
        if r == start:
            out.append(path)
    return out


class PixelTracker(Tracker):
    def __init__(self, settings: PixelSettings | None = None, board=None):
        super().__init__(settings or PixelSettings(), board)
        self.baseline: np.ndarray | None = None  # (16, THUMB*THUMB): the accepted board's picture
        self._before: dict[int, Before] = {}  # cell -> its picture before its piece came
        #: cell -> the touching empty cells that changed as its piece was set down (where the
        #: piece may stand instead: a shadow cast over the cell in front changes it too), each
        #: with its picture before then
        self._alts: dict[int, dict[int, Before]] = {}
        self._latest: np.ndarray | None = None  # last steady window's mean signature
        self._issue_key = None
        self._sig_centers: np.ndarray | None = None
        self._probs: dict[int, np.ndarray] = {}  # cell -> vision's (4,) probabilities when it was placed
        self._heights: dict[int, object] = {}  # cell -> silhouette.Height (or None) of the piece placed there
        self._later: dict[int, list[np.ndarray]] = {}  # cell -> vision's (4,) probabilities at each later placement
        #: cell -> for its reading when placed and each later one: the size vision judged the
        #: set then and read it accordingly (:func:`_judged_size`: "large", "small" or None)
        self._sizes: dict[int, list[str | None]] = {}
        self._told: set[int] = set()  # cells whose piece is the one the user said was handed over
        self._frame: np.ndarray | None = None  # the frame being judged
        #: vision's closer look at a frame (``VisionStep.look_closely``: image -> reading or
        #: None), asked once per placement; None: the steady window's readings only
        self.look = None
        self._close = None  # (key of the still view, its close look's probabilities, body colours)
        #: the set's two colours learned by calibration (``VisionSettings.pieces.set_colours``:
        #: light Lab, dark Lab, spread), or empty: then only the game's own colours speak
        self.set_colours: tuple = ()
        self._bodies: dict[int, list[np.ndarray]] = {}  # cell -> its piece's body colour at each close look
        self._base_frame: np.ndarray | None = None  # a frame of the board as accepted (the baseline's)
        self._recent: deque = deque(maxlen=RECENT)  # the frames of the run's last entries
        self._relit = False  # the light changed since the board as accepted was pictured
        #: (16,) each cell's light as a share of the light in which the game's first pieces
        #: were seen (a person's shadow over part of the board, a lamp switched off)
        self._light = np.ones(16)
        self._light_accepted = np.ones(16)  # ... as the board was last accepted
        #: each cell's picture in the first light (as last it changed while its light was
        #: the first's), and the pieces it was taken with: a cell that looks so again is in
        #: the first light again, whatever was noted of it (a shadow gone)
        self._first_look: tuple = ({}, ())

    # --- run entries: (t, cells, (signature, probabilities, the set's judged size)) ----
    def _extra(self, reading, perm, image):
        self._recent.append(image)  # one a run entry, so that they pair from the end
        if image is None or self.centers is None:
            return None
        if self._sig_centers is None:  # fixed, so that jitter in vision's centres is no change
            self._sig_centers = self.centers.copy()
        self._frame = image
        probs = getattr(reading, "probabilities", None)
        if probs is not None:
            probs = np.asarray(probs, float)[list(perm)]
        return (signatures(image, self._sig_centers), probs, _judged_size(reading))

    def _rematch(self, t, reading):
        """The board moved: the still view before it did is judged first, where the cells
        were (a piece set down just before a knock that vision could not follow is not
        lost), then the pictures start over."""
        old = None if self.centers is None else self.centers.copy()
        perm, judged = super()._rematch(t, reading)
        if perm is not None:  # the board moved: every cell looks different; start the pictures over
            new, self.centers = self.centers, old
            judged = self._judge_before() if self._known and self.baseline is not None else []
            self.centers, self._stable = new, None
            self._sig_centers = None
            self.baseline = None
            self._light, self._light_accepted, self._first_look = np.ones(16), np.ones(16), ({}, ())  # the board stands elsewhere in the room's light now
            self._run = []
            self._run_start = None
        return perm, judged

    def _moved(self, t, motion, picture=None):
        """The camera was knocked: the still view before the knock is judged first (a
        piece set down just before it is not lost: the next hand may come before the
        view after the knock has stood still long enough); then the cells' pictures are
        taken where the cells now are, and the board as accepted is moved alike (its frame
        warped by the picture's move, its signatures taken again), so a piece set down as
        the camera moved is still seen as new. The steady window starts over. A creep
        (``picture`` given) is followed as the picture settles after a hand, often one that
        has just set a piece down: that view is judged afresh, not the one before."""
        out = self._judge_before() if picture is None else []
        super()._moved(t, motion, picture)
        if self._sig_centers is not None:
            self._sig_centers = _moved_points(self._sig_centers, motion)
        for before in [*self._before.values(), *(b for alts in self._alts.values() for b in alts.values())]:
            before.moved(motion if picture is None else picture)
        if self._base_frame is not None:
            h, w = self._base_frame.shape[:2]
            self._base_frame = cv2.warpAffine(self._base_frame, motion if picture is None else picture, (w, h),
                                              flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_REPLICATE)
            if self.baseline is not None and self._sig_centers is not None:
                self.baseline = signatures(self._base_frame, self._sig_centers)
                self._latest = self.baseline.copy()
        self._first_look = ({}, ())  # the cells' pictures are taken where they now are
        self._run = []
        self._run_start = None
        self._recent.clear()
        return out

    def _permute_extra(self, extra, perm):
        if extra is None:
            return None
        sig, probs, size = extra
        return (sig[list(perm)], None if probs is None else probs[list(perm)], size)

    # --- public changes from the user ---------------------------------------------
    def remove(self, cell: int) -> None:
        """Undo: the piece on ``cell`` is taken off. Its cell, and the empty cells beside it
        that changed as it came (its shadow, its rise over the cell behind), are pictured as
        they were before it came."""
        super().remove(cell)
        beside = self._alts.get(cell, {})
        self._forget(cell)
        if self.baseline is None:
            return
        if cell in self._before:
            self.baseline[cell] = self._before.pop(cell).now(cell, self._base_frame, self._sig_centers)
        for o, before in beside.items():
            if self.board[o] is None:
                self.baseline[o] = before.now(o, self._base_frame, self._sig_centers)

    def correct(self, cell: int, piece) -> None:
        self.board[cell] = piece
        self._forget(cell)  # the user's word is final
        self.issues = []
        self._issue_key = None
        if self.baseline is not None and self._latest is not None:
            self.baseline[cell] = self._latest[cell]

    def new_game(self) -> None:
        super().new_game()
        self._probs, self._heights, self._later, self._told, self._bodies = {}, {}, {}, set(), {}
        self._sizes = {}
        self._light, self._light_accepted, self._first_look = np.ones(16), np.ones(16), ({}, ())
        if self._latest is not None:
            self._accept(self._latest)
        self._before, self._alts = {}, {}
        self._issue_key = None

    def finish(self, t: float) -> list[TrackEvent]:
        if self._run_start is None or len(self._run) < 3:
            return []
        return self._judge(t, final=True)

    def _judge_before(self) -> list[TrackEvent]:
        """Judge the latest still view in the steady window that ends before the picture
        moved (vision tells a knock a few frames late, so the window's last entries may
        show the moved picture at the old places)."""
        run = self._run
        if self._run_start is None or len(run) < 2:
            return []
        for k in range(len(run), 1, -1):
            self._run = run[:k]
            if self._window(run[k - 1][0], final=True) is not None:
                back = len(run) - k
                frame = self._frame
                if back < len(self._recent):  # the frame of that view, for the new piece's silhouette
                    self._frame = self._recent[-1 - back]
                out = self._judge(run[k - 1][0], final=True)
                self._frame = frame
                return out
        self._run = run
        return []

    # --- judging ------------------------------------------------------------------
    def _window(self, t: float, final: bool = False):
        s = self.settings
        if self._run_start is None:
            return None
        if not final and t - self._run_start < s.settle - 1e-9:
            return None
        win = [e for e in self._run if e[0] >= t - s.settle - 1e-9 and e[2] is not None]
        if len(win) < (2 if final else 1):
            return None
        sigs = np.stack([e[2][0] for e in win])
        mean = sigs.mean(axis=0)
        if np.abs(sigs - mean).mean(axis=2).max() > s.still:
            return None  # something is still moving
        return win, mean

    def _judge(self, t: float, final: bool = False) -> list[TrackEvent]:
        out = [] if final else self._light_step()
        got = self._window(t, final)
        if got is None:
            return out
        return out + self._judge_window(t, got)

    def _light_step(self) -> list[TrackEvent]:
        """The light changed from one frame to the next and held steady on either side
        (every cell dimmed or brightened in proportion, nothing else moved: a lamp switched
        off, a cloud; not a camera's exposure ramping over several frames as an arm comes
        or goes, whose still views in mid-ramp are no views to judge: their clipped
        highlights do not scale back). Seen one frame late, so that the light is known to
        hold after the step: the still view before it is judged at once (a piece set down
        just before is not lost when the next hand comes before the view in the new light
        has stood still long enough), and the steady window starts again in the new light."""
        run = self._run
        if len(run) < 4 or any(e[2] is None for e in run[-4:]):
            return []
        now, after, before, older = (e[2][0] for e in run[-1:-5:-1])
        gain = cells_light_gain(after, before)
        if abs(gain - 1.0) < LIGHT_STEP or np.abs(after - gain * before).mean(axis=1).max() > self.settings.still:
            return []
        if abs(cells_light_gain(before, older) - 1.0) >= LIGHT_STEADY or \
                abs(cells_light_gain(now, after) - 1.0) >= LIGHT_STEADY:
            return []  # a ramp, not a step: the window waits for the light to settle
        self._run = run[:-2]
        out = self._judge_before() if self._known and self.baseline is not None else []
        self._run, self._run_start = run[-2:], run[-2][0]
        self._relit = True
        return out

    def _judge_window(self, t: float, got) -> list[TrackEvent]:
        win, mean = got
        self._latest = mean
        self._stable = ()  # a still view was seen: the next hand over the board is reported
        if not self._known:
            return self._first(t, win, mean)
        if self.baseline is None:  # after the board was moved: this still view is the game as it was
            self._accept(mean)
            return []
        out = self._compare(t, win, mean)
        if self._relit:  # the first still view in a new light: the board as accepted is seen in it
            self._relit = False
            if not self.issues and not any(e.kind == "placed" for e in out):
                self._accept(mean, cells_light_gain(mean, self.baseline))
        return out

    def _first(self, t: float, win, mean) -> list[TrackEvent]:
        seen = self._majority([e[1] for e in win])
        self._accept(mean)
        self._known = True
        if self._expected:
            from .tracker import GRID_PERMS

            # only whether the record's pieces stand where they should is checked: vision's
            # reading of an empty cell is not trusted
            def agree(p):
                return sum(1 for i in range(16) if self.board[i] is not None and seen[p[i]] is not None)

            # the same camera usually numbers the grid the same way: another turn of the
            # board must agree clearly better before it is taken
            perm = GRID_PERMS[0]
            for p in GRID_PERMS[1:]:
                if agree(p) >= agree(perm) + 3:
                    perm = p
            self.centers = self.centers[list(perm)]
            self._sig_centers = self._sig_centers[list(perm)]
            self.baseline = self.baseline[list(perm)]
            self._latest = self._latest[list(perm)]
            self._first_look = ({}, ())
            seen = tuple(seen[perm[i]] for i in range(16))
            self._run = [(e[0], tuple(e[1][perm[i]] for i in range(16)), self._permute_extra(e[2], perm))
                         for e in self._run]
            # vision misses a real piece now and then: only a board where most of the
            # record's pieces are not seen is a different board
            missing = [i for i in range(16) if self.board[i] is not None and seen[i] is None]
            pieces = sum(p is not None for p in self.board)
            mismatch = missing if len(missing) > max(1, pieces // 2) else []
            return [TrackEvent(t, "board_found", board=seen, mismatch=mismatch)]
        if self.settings.join:
            start = list(seen)
            taken = set()
            for i, p in enumerate(start):  # a piece seen twice cannot be: keep the first
                if p is not None and p in taken:
                    start[i] = None
                elif p is not None:
                    taken.add(p)
            self.board = start
        return [TrackEvent(t, "board_found", board=tuple(self.board), mismatch=[])]

    @staticmethod
    def _majority(window) -> tuple:
        return tuple(Counter(w[i] for w in window).most_common(1)[0][0] for i in range(16))

    def _close_look(self) -> np.ndarray | None:
        """(16, 5) probabilities (vision's columns) in game cell order from vision's closer
        look at the frame being judged, or None (no look, board not found, or its cells not
        where the game's are: within a third of a cell spacing, one to one)."""
        if self.look is None or self._frame is None or self.centers is None:
            return None
        key = (self._run_start, tuple(self.board))
        if self._close is not None and self._close[0] == key:
            return self._close[1]  # a change judged again in the same still view (flagged, say): looked at once
        reading = self.look(self._lit_as_first(self._frame))
        self._close = (key,) + self._match_close(reading) + (_judged_size(reading),)
        return self._close[1]

    def _match_close(self, reading) -> tuple[np.ndarray | None, np.ndarray | None]:
        """``(probabilities (16, 5), body colours (16, 3) or None)`` of a closer look, in game
        cell order, or ``(None, None)``."""
        if reading is None or not reading.found or getattr(reading, "probabilities", None) is None:
            return None, None
        seen = np.asarray(reading.cell_centers, float)
        dist = np.linalg.norm(self.centers[:, None] - seen[None], axis=2)
        match = dist.argmin(axis=1)
        if len(set(match.tolist())) < 16 or dist[np.arange(16), match].max() > _spacing(self.centers) / 3:
            return None, None
        return np.asarray(reading.probabilities, float)[match], _body_colours(reading, match)

    def _look_size(self, win, close) -> str | None:
        """The size vision judged the set in the look :func:`_look` takes (:func:`_judged_size`):
        the closer look ``close`` (just taken) where there is one, else that of most of the
        steady window's readings."""
        if close is not None:
            return self._close[3] if self._close is not None else None
        judged = [e[2][2] for e in win if e[2][1] is not None]
        return next((size for size in ("small", "large") if 2 * judged.count(size) > len(judged)), None)

    def _keep_body(self, cell: int, close) -> None:
        """Remember the body colour the closer look ``close`` (just taken) saw on ``cell``."""
        if close is None or self._close is None or self._close[2] is None:
            return
        self._bodies.setdefault(cell, []).append(self._close[2][cell])

    def _identify(self, cell: int, win, close=None) -> tuple[int | None, int | None, np.ndarray | None]:
        """(piece, cell of the piece on the board it duplicates or None, the (16,)
        log-likelihoods of the pieces there or None). ``close``: vision's closer look
        (:meth:`_close_look`), which then reads the piece instead of the steady window."""
        on_board = {p: i for i, p in enumerate(self.board) if p is not None}
        avail = [q for q in ALL_PIECES if q not in on_board]
        probs = [e[2][1] for e in win if e[2][1] is not None]
        if probs or close is not None:
            self._probs[cell] = _look(cell, probs, close)
            self._sizes[cell] = [self._look_size(win, close)]
            self._bodies.pop(cell, None)
            self._keep_body(cell, close)
            self._heights[cell] = self._measure(cell)
            ll = self._evidence()[cell]
            if self.given in avail:  # the user said which piece was handed over
                ll = ll.copy()
                ll[self.given] += self.settings.given_weight
            best = int(np.argmax(ll))
            best_avail = self._best_available(ll)
            if best in on_board and (best_avail is None or ll[best] - ll[best_avail] > self.settings.duplicate_margin):
                return best, on_board[best], ll
            return best_avail, None, ll
        votes = Counter(e[1][cell] for e in win if e[1][cell] is not None)
        if not votes:
            return None, None, None
        piece = votes.most_common(1)[0][0]
        return piece, on_board.get(piece), None

    def _best_available(self, ll: np.ndarray) -> int | None:
        """The piece not on the board that the log-likelihoods ``ll`` (16,) favour."""
        avail = [q for q in ALL_PIECES if q not in self.board]
        return max(avail, key=lambda q: ll[q]) if avail else None

    def _misread_before(self, cell: int, piece: int, dup: int, best: int, ll: np.ndarray) -> bool:
        """Whether the new piece on ``cell``, read surely as ``piece`` which cell ``dup``
        holds, is that piece after all and the one on ``dup`` was misread: read together
        with the pieces placed before it (all differ), ``dup`` takes another piece and the new
        one ``piece``, by ``reread_margin`` over naming it ``best``, the likeliest piece left."""
        joint, changed = self._read_together(cell, best, ll)
        return joint == piece and dup in changed

    def _read_together(self, cell: int, piece: int, ll: np.ndarray) -> tuple[int, dict[int, int]]:
        """The new piece on ``cell`` (read alone as ``piece``, log-likelihoods ``ll``) and
        the pieces placed before it, identified together: all pieces differ, so one misread
        earlier can take the piece the new one is (C read as D, then D itself set down
        read as the next best). Returns the new piece and ``{cell: piece}`` for earlier
        cells read differently now; those keep their piece unless the joint reading is
        better by ``reread_margin``. Pieces that only trade names among themselves (a closed
        cycle: every piece one of them takes, another of them held) must be worth the margin
        on their own: their readings alone speak for the trade (game72: a piece put right by
        its height carried along a swap of 4 and C, alike but for the cup, that vision alone
        never made). Cells the user corrected stay as they are."""
        earlier = [c for c in self._probs if self.board[c] is not None and c != cell]
        fixed = {p for i, p in enumerate(self.board) if p is not None and i not in earlier}
        pieces = [q for q in ALL_PIECES if q not in fixed]
        if not earlier or len(pieces) < len(earlier) + 1:
            return piece, {}
        rows = earlier + [cell]
        evidence = self._evidence()

        def own(r: int) -> np.ndarray:  # what speaks for each piece on cell r
            return ll if r == cell else evidence[r]

        score = np.array([[own(r)[q] for q in pieces] for r in rows])
        ri, ci = linear_sum_assignment(-score)
        got = {rows[r]: pieces[c] for r, c in zip(ri, ci)}
        had = {r: self.board[r] for r in earlier}
        had[cell] = piece

        def gain(cells, take) -> float:
            return sum(own(r)[take[r]] - own(r)[had[r]] for r in cells)

        take = dict(got)
        for cycle in _closed_cycles(had, got):
            if gain(cycle, got) < self.settings.reread_margin:
                take.update({r: had[r] for r in cycle})
        if gain(rows, take) < self.settings.reread_margin:
            return piece, {}
        return take.pop(cell), {c: q for c, q in take.items() if q != self.board[c]}

    def _compare(self, t: float, win, mean) -> list[TrackEvent]:
        s = self.settings
        # a change of light touches every cell alike, in proportion to its brightness (a lamp
        # switched off darkens white pieces by more grey levels than the dark board): the
        # board as accepted is dimmed or brightened as the cells that did not change were
        gain = cells_light_gain(mean, self.baseline)
        d, foot = self._changes(mean, gain)
        seen = self._majority([e[1] for e in win])
        empty_share = [sum(e[1][g] is None for e in win) / len(win) for g in range(16)]
        # each cell's change beyond its own light, fitted only when some cell changed (most
        # still views: none)
        own = cells_own_light_change(mean, self.baseline) if (d >= s.place_change).any() else None
        lit = self._lit_alone(d, own, empty_share)
        # (fewer cells lit alone are a piece's shade, unless the board's light changed and one
        # part of it against another: a deep shadow over part of it, where the board-wide gain
        # is no cell's, so that a piece set down in it may not seem to have changed its cell)
        local = cells_local_light_gain(mean, self.baseline) if lit else None
        if len(lit) >= RELIT_CELLS or (lit and abs(gain - 1.0) >= LIGHT_STEP and np.ptp(local) >= PARTIAL_LIGHT):
            # the light changed over part of the board (a person's shadow fell over it): each
            # cell is taken as dimmed or brightened as the cells around it were, and those
            # whose change is still their own light's alone, as vision agrees, are unchanged
            relit = local
            d, foot = self._changes(mean, relit)
            lit = self._lit_alone(d, own, empty_share)
            d[lit] = 0.0
            foot[lit] = 0.0
        else:
            lit, relit = [], None
        if relit is None and self._relit:  # a lamp switched off, say: seen in every cell alike
            relit = cells_light_gain(mean, self.baseline)
        if relit is not None:  # the piece set down in this view is looked at in its light
            self._light = self._noted_light(relit)
        empties = sorted((i for i in range(16) if self.board[i] is None), key=lambda i: -d[i])
        # a piece taken away changes its cell as much as a piece set down does, and vision
        # then reads the cell empty nearly always; a new piece in front of or behind a piece
        # changes that piece's cell only in part (and vision misses real pieces now and then)
        top_new = d[empties[0]] if empties else 0.0
        gone_level = max(2 * s.place_change, 0.8 * top_new)
        gone = [g for g in range(16)
                if self.board[g] is not None and d[g] >= gone_level and empty_share[g] >= 0.8]
        issues: list[Issue] = []
        placed = None
        later = None  # a new cell left for the next view (see the duplicate pending below)
        new_here = bool(empties) and d[empties[0]] >= s.place_change
        hidden = None if new_here else self._hidden_in_front(empties, d, empty_share, gone_level, win)
        if not new_here and hidden is None and not gone:
            hidden = self._faint(empties, d, empty_share)
        if new_here or hidden is not None:
            c = empties[0] if new_here else hidden
            second = empties[1] if len(empties) > 1 else None
            # a piece set down shades its neighbours and hides part of the cell behind it in
            # the picture: a neighbour that changed but reads empty is that, not a piece, even
            # when it changed most (a lamp behind the board casts a tall piece's shadow over
            # the cell in front) and the cell it rises over changed more than its own
            shaded = None if empty_share[c] < s.shadow_empty else next(
                (o for o in empties[1:] if d[o] >= min(s.place_change, s.shade_own * d[c]) and _touching(c, o)
                 and empty_share[o] < 0.5), None)
            if shaded is not None:
                c, second = shaded, c  # the shade changed more than the piece's own cell
            elif second is not None and _touching(c, second):
                if (self.centers is not None and _rises_over(self.centers, second, c)
                      and (empty_share[c] - empty_share[second] >= s.front_share
                           or (foot[second] >= s.front_foot and empty_share[second] - empty_share[c] < s.front_share))):
                    # a tall piece on the cell in front covers much of the cell behind it in the
                    # picture, which may change more than its own: where the two are front and
                    # back, the front one is the piece's when vision sees it taken clearly more
                    # often, or the picture changed where its foot would stand and vision does not
                    # clearly see the piece behind instead (a lamp behind the board casts the
                    # piece's shadow over the front cell's foot: game37)
                    c, second = second, c
            if self._crept(c, mean[c]):
                # the picture drifted (a camera creeping, the light fading) while nobody
                # played: no piece came; the board as accepted is taken as it now looks
                if not self.issues and not gone:
                    self._accept(mean)
                return []
            # every other cell that changed as much as a second piece would must be this
            # piece's doing: its shade on a neighbour vision sees empty, or the cell behind
            # it, which it rises over in the picture (where vision may even read a piece)
            others = self._unexplained(c, empties, d, empty_share)
            if others:
                # the most changed may all be one new piece's doing while the piece stands
                # on another cell, which changed less
                sole = self._sole_piece(empties, d, empty_share)
                if sole is not None:
                    c, others = sole, []
            if others:
                # a piece flagged as a duplicate that stayed while play went on: it is placed
                # first, as the likeliest piece left (marked for the players to check), and the
                # other new cell is looked at in the next view; not two new pieces at once
                pending = next((i.cells[0] for i in self.issues if i.kind == "duplicate" and i.cells[0] in (c, others[0])), None)
                if pending is not None:
                    later = others[0] if pending == c else c
                    c, others = pending, []
            if others:
                second = others[0]
                issues.append(Issue("two_new", (c, second), tuple(p for p in (seen[c], seen[second]) if p is not None)))
            else:
                close = self._close_look()
                piece, dup, ll = self._identify(c, win, close)
                best = self._best_available(ll) if dup is not None and ll is not None else None
                if best is not None and (later is not None or self._misread_before(c, piece, dup, best, ll)):
                    piece, dup = best, None  # read together below
                if piece is None or dup is not None or (gone and piece in [self.board[g] for g in gone]):
                    self._forget(c)  # not placed (yet): nothing of it is kept
                if piece is None:
                    return []  # changed, but nothing readable stands there yet
                if dup is not None:
                    issues.append(Issue("duplicate", (c, dup), (piece,)))
                elif gone and piece in [self.board[g] for g in gone]:
                    g = next(g for g in gone if self.board[g] == piece)
                    issues.append(Issue("moved", (g, c), (piece,)))
                    gone = [x for x in gone if x != g]
                else:
                    placed = (c, piece, ll)
        disappeared = [Issue("disappeared", (g,), (self.board[g],)) for g in gone]
        relocated = None
        if not new_here and hidden is None:
            # nothing new: a piece's cell that changed as much as a piece taken away, and still
            # holds a piece, was swapped for another, or turned or nudged; or that piece
            # stands on a cell beside it and a new one came where it was thought to stand
            changed = [g for g in range(16) if self.board[g] is not None and g not in gone and d[g] >= gone_level]
            relocated = self._relocate(changed, d, empty_share, win, t)
            if relocated is not None:
                relocated, placed, close = relocated
            else:
                issues += self._swapped(changed, win, mean)
        if placed is not None and not issues:
            c, piece, ll = placed
            out = [] if relocated is None else [relocated]
            if ll is not None:
                if s.later_reads:
                    self._look_again(c, win, close)
                # (a piece placed though read surely as one on the board is not read together:
                # that reading would move the pieces around it; it is marked for checking)
                piece, reread = self._read_together(c, piece, ll) if later is None else (piece, {})
                if reread:
                    out.append(TrackEvent(t, "reread", changes={g: (self.board[g], q) for g, q in reread.items()}))
                    for g, q in reread.items():
                        self.board[g] = q
                        self._told.discard(g)
            # settled: since when the whole picture has stood still (the window just judged
            # is the first still one), and the new piece looked as it does now
            first = max(self._run_start, t - s.settle, self._first_change(c, mean[c], d[c]))
            self._before[c] = Before.of(self.baseline[c], self._base_frame, self._sig_centers, c)
            self._alts[c] = {o: Before.of(self.baseline[o], self._base_frame, self._sig_centers, o) for o in empties
                             if o != c and self.board[o] is None and d[o] >= s.place_change and _touching(c, o)}
            self.board[c] = piece
            if piece == self.given:
                self._told.add(c)
            self.given = None  # the piece handed over is placed: the next one is not known
            old = self.baseline
            self._accept(mean, relit)
            # a piece gone meanwhile stays missing until it is back; one swapped stays flagged;
            # the next new piece, come while a duplicate was pending, is still to be placed
            for g in gone + [i.cells[0] for i in self.issues if i.kind == "changed" and self.board[i.cells[0]] is not None]:
                self.baseline[g] = old[g]
            if later is not None:
                self.baseline[later] = old[later]
            out.append(TrackEvent(first, "placed", cell=c, piece=piece))
            self.issues = disappeared
            self._issue_key = tuple(sorted((i.kind, i.cells) for i in disappeared)) if disappeared else None
            if disappeared:
                out.append(TrackEvent(t, "flagged", issues=disappeared, board=seen))
            return out
        issues += disappeared
        if issues:
            key = tuple(sorted((i.kind, i.cells) for i in issues))
            if key == self._issue_key:
                return []
            self._issue_key = key
            self.issues = issues
            return [TrackEvent(t, "flagged", issues=issues, board=seen)]
        if lit and not self.issues:
            self._accept(mean, relit)  # the board as it looks in its new light is the game's
        if self.issues:
            self.issues = []
            self._issue_key = None
            return [TrackEvent(t, "cleared")]
        return []

    def _changes(self, mean: np.ndarray, gain) -> tuple[np.ndarray, np.ndarray]:
        """``(d, foot)``, (16,) each: how much each cell's picture changed from the board as
        accepted, lit by ``gain`` (board-wide, or per cell), over the whole thumbnail and
        where a piece standing on the cell has its foot (the rows from the cell centre down:
        a piece on the cell behind does not reach there). The level most cells changed by
        (what is left of a change of light) is taken off both."""
        change = np.abs(mean - np.reshape(gain, (-1, 1)) * self.baseline)
        d = change.mean(axis=1)
        light = np.median(d)
        foot = change.reshape(16, THUMB, THUMB)[:, FOOT_ROW:].mean(axis=(1, 2))
        return np.maximum(d - light, 0.0), np.maximum(foot - light, 0.0)

    def _lit_alone(self, d: np.ndarray, own: np.ndarray | None, empty_share: list[float]) -> list[int]:
        """The cells whose change (``d``) may be their light's alone: changed by
        ``place_change`` or more, but by less than that beyond a change of their own light
        (``own``: :func:`cells_own_light_change`, None when no cell changed), and vision
        agrees nothing came or went there: it sees an empty cell empty (``shadow_empty`` of
        the steady readings), a piece's cell taken."""
        s = self.settings
        if own is None:
            return []
        return [c for c in range(16) if d[c] >= s.place_change and own[c] < s.place_change
                and (empty_share[c] >= s.shadow_empty if self.board[c] is None else empty_share[c] < 0.5)]

    def _crept(self, cell: int, now: np.ndarray) -> bool:
        """Did ``cell``'s picture come to look as it does now (``now``: its signature) little by
        little during the current clear run (a camera creeping through a long wait, the light
        fading), rather than at once (a piece set down, by a hand gone before the run began or
        one vision missed)? It came little by little when it changed by ``place_change`` or
        more since the run began and no ``settle`` seconds of the run hold half that change,
        nor ``place_change`` (a hand sets a piece down and leaves within a second; a creep of
        a pixel a second takes seconds to change a cell by ``place_change``). On the rendered
        games (undisturbed, creeping, knocked, relit) 0.3 s instead of ``settle`` took slow
        hands and exposure ramps for creeps and lost placements."""
        run = [(e[0], e[2][0][cell]) for e in self._run if e[2] is not None]
        if len(run) < 2:
            return False
        total = float(np.abs(now - run[0][1]).mean())
        if total < self.settings.place_change:
            return False  # it looked so when the run began: the piece came before, with a hand
        times = np.array([e[0] for e in run])
        sigs = np.stack([e[1] for e in run])
        level = max(0.5 * total, self.settings.place_change)
        # each entry against every earlier one at most ``settle`` seconds before it
        first = np.searchsorted(times, times - self.settings.settle - 1e-9)
        later = np.arange(len(run))
        for k in range(1, int((later - first).max()) + 1):
            i = later[k:][later[k:] - k >= first[k:]]
            if len(i) and (np.abs(sigs[i] - sigs[i - k]).mean(axis=1) >= level).any():
                return False
        return True

    def _unexplained(self, c: int, empties: list[int], d: np.ndarray, empty_share: list[float]) -> list[int]:
        """The empty cells other than ``c`` that changed like a second new piece and that a
        new piece on ``c`` does not explain (``d``: change per cell, ``empties`` most changed
        first). Like a second piece: a change of ``second_ratio`` of the most changed empty
        cell's, or, where vision sees a piece (in most steady readings), of ``c``'s own; at
        least twice ``place_change`` either way. Explained: its shade on a neighbour vision
        sees empty (``shadow_empty`` of the steady readings), or the cell behind it, which it
        rises over in the picture."""
        s = self.settings
        most = max(2 * s.place_change, s.second_ratio * d[empties[0]])
        own = max(2 * s.place_change, s.second_ratio * d[c])
        return [o for o in empties if o != c and (d[o] >= most or (d[o] >= own and empty_share[o] < 0.5))
                and not (_touching(c, o) and empty_share[o] >= s.shadow_empty)
                and not (self.centers is not None and _rises_over(self.centers, c, o))]

    def _sole_piece(self, empties: list[int], d: np.ndarray, empty_share: list[float]) -> int | None:
        """The one empty cell whose new piece explains every empty cell that changed like a
        second piece (:meth:`_unexplained`), or None: it must have changed
        (``place_change``) and vision must see it taken in most steady readings. Of several
        such cells, the most changed."""
        for c in empties:
            if d[c] < self.settings.place_change:
                break
            if empty_share[c] < 0.5 and not self._unexplained(c, empties, d, empty_share):
                return c
        return None

    def _relocate(self, changed: list[int], d: np.ndarray, empty_share: list[float], win,
                  t: float) -> tuple[TrackEvent, tuple, np.ndarray | None] | None:
        """A piece placed earlier on ``g`` (one of the ``changed`` cells: its picture changed
        as much as a piece taken away) that vision now reads as another piece, while a touching
        cell that changed with it when it was set down (``_alts``) is still empty in the game,
        unchanged since, and seen taken by vision: the piece stands on that cell, and the
        earlier view put it on ``g`` by its shadow or its rise over ``g`` in the picture (a
        lamp behind the board casts a tall piece's shadow over the cell in front: game88); a
        new piece has now come on ``g``. The piece is moved there (read again from how it looks
        there, among itself and the pieces not on the board) and the new one on ``g`` read.
        Returns ``(the 'relocated' event, (g, new piece, its log-likelihoods), vision's closer
        look at the view (``_close_look``) or None)``, or None
        (nothing of the game changed) when no cell shows that, or the new piece cannot be
        read as a piece not on the board."""
        s = self.settings
        probs = [e[2][1] for e in win if e[2][1] is not None]
        for g in changed:
            if not self._reads_otherwise(g, probs):
                continue
            spots = [b for b in self._alts.get(g, {}) if self.board[b] is None and empty_share[b] < 0.5
                     and d[b] < s.place_change]
            if len(spots) != 1:
                continue
            b = spots[0]
            close = self._close_look()
            was = self.board[g]
            look = _look(b, probs, close)
            ll = piece_log_likelihoods(look)
            there = max([q for q in ALL_PIECES if q not in self.board or q == was], key=lambda q: ll[q])
            kept = (list(self.board), {k: dict(v) for k, v in self._kept().items()}, set(self._told), self.issues)
            before = self._alts[g][b]
            told = g in self._told and there == was
            bare = self._before.get(g)  # g as it was before the piece came: its shadow falls there
            self._forget(g)
            self._before.pop(g, None)
            if bare is not None:
                self._alts[b] = {g: bare}
            self.board[g], self.board[b] = None, there
            self._probs[b], self._later[b], self._sizes[b] = look, [], [self._look_size(win, close)]
            self._heights[b] = None  # measured where it does not stand
            self._bodies.pop(b, None)
            self._keep_body(b, close)
            self._before[b] = before
            if told:
                self._told.add(b)
            piece, dup, ll_new = self._identify(g, win, close)
            if piece is not None and dup is None and ll_new is not None:
                self.issues = [i for i in self.issues if g not in i.cells]
                return (TrackEvent(t, "relocated", cell=b, piece=there, changes={g: (was, None), b: (None, there)}),
                        (g, piece, ll_new), close)
            self.board, held, self._told, self.issues = kept
            for name, value in held.items():
                setattr(self, name, value)
        return None

    def _kept(self) -> dict[str, dict]:
        """The per-cell records of the pieces placed (by attribute name), to be put back."""
        return {name: getattr(self, name) for name in ("_probs", "_later", "_sizes", "_heights", "_bodies",
                                                       "_alts", "_before")}

    def _hidden_in_front(self, empties: list[int], d: np.ndarray, empty_share: list[float], gone_level: float,
                         win) -> int | None:
        """No empty cell changed like a new piece, but a piece's cell changed as much as a
        piece taken away, still holds a piece and reads as another: a new piece set down on
        the empty cell in front of it, itself hidden in the picture by a tall piece further
        in front, rises over that piece (game36). That empty cell, when vision sees it
        taken and it is the only such cell; else ``None``. A piece's cell that changed only
        as much as a new piece's (``place_change``), and still reads as before, will do when
        that empty cell is hidden behind a tall piece in front."""
        if self.centers is None:
            return None
        probs = [e[2][1] for e in win if e[2][1] is not None]
        fronts = set()
        for g in range(16):
            if self.board[g] is None or d[g] < gone_level or empty_share[g] >= 0.5 or not self._reads_otherwise(g, probs):
                continue
            fronts |= {b for b in empties if empty_share[b] < 0.5 and _rises_over(self.centers, b, g)}
        if fronts:
            return fronts.pop() if len(fronts) == 1 else None
        # a short piece set down there rises over only part of the piece behind: that cell
        # changes less and reads as before (game93: a short light piece behind a tall dark
        # one, 10.4 grey levels); then the empty cell must be hidden by a tall piece in front,
        # which explains why its own picture did not change
        peeks = set()
        for g in range(16):
            if self.board[g] is None or d[g] < self.settings.place_change or empty_share[g] >= 0.5:
                continue
            peeks |= {b for b in empties if empty_share[b] < 0.5 and _rises_over(self.centers, b, g)
                      and self._hidden_top(b)}
        return peeks.pop() if len(peeks) == 1 else None

    def _faint(self, empties: list[int], d: np.ndarray, empty_share: list[float]) -> int | None:
        """No cell changed like a new piece, but one empty cell changed by ``faint_change``
        and vision sees a piece on it in every steady reading: a piece whose picture differs
        little from the board's (a small dark piece on a dark square). That cell, when it
        is the only such one; else ``None``."""
        faint = [b for b in empties if d[b] >= self.settings.faint_change and empty_share[b] == 0.0]
        return faint[0] if len(faint) == 1 else None

    def _read_then_and_now(self, g: int, probs: list) -> tuple[int, int, float] | None:
        """``(was, reads, margin)``: the piece vision took cell ``g``'s for when it was
        placed, the one it reads now (``probs``: the steady window's probabilities), and by
        how much (log likelihood) it now prefers that to the first; ``None`` without both."""
        if g not in self._probs or not probs:
            return None
        then = piece_log_likelihoods(self._probs[g])
        now = piece_log_likelihoods(np.mean([p[g, 1:5] for p in probs], axis=0))
        was, reads = int(np.argmax(then)), int(np.argmax(now))
        return was, reads, float(now[reads] - now[was])

    def _reads_otherwise(self, g: int, probs: list) -> bool:
        got = self._read_then_and_now(g, probs)
        return got is not None and got[0] != got[1] and got[2] >= self.settings.swap_margin

    def _swapped(self, cells: list[int], win, mean) -> list[Issue]:
        """Of the pieces' ``cells`` whose picture changed a lot, those vision now reads as
        another piece than when it was placed (by ``swap_margin``): flagged as ``changed``,
        naming the piece it has become (the game's piece with the attributes vision sees
        flipped flipped, so a piece misread when placed is named right). A cell vision reads
        as before holds the same piece, turned or nudged: its new picture is the game's.
        Pieces without a reading kept (resumed, corrected by the user) are not judged."""
        probs = [e[2][1] for e in win if e[2][1] is not None]
        out = []
        for g in cells:
            got = self._read_then_and_now(g, probs)
            if got is None:
                continue
            was, reads, margin = got
            if reads != was and margin >= self.settings.swap_margin:
                out.append(Issue("changed", (g,), (self.board[g], self.board[g] ^ was ^ reads)))
            elif reads == was:
                self.baseline[g] = mean[g]
        return out

    # --- what each placed piece looked like -------------------------------------------
    def _accept(self, mean: np.ndarray, relit=None) -> None:
        """The board as it stands now is the game: its cells' pictures (``mean``, the
        steady window's signatures) and the frame (for the next piece's silhouette).
        ``relit``: how much brighter the board is now than as last accepted, where its
        light was seen to change (board-wide, or (16,) per cell: a person's shadow), noted
        in each cell's light where it changed by ``LIGHT_NOTED`` or more. Only a change of
        light told apart from the pieces' own is noted: estimated at every placement, the
        light of a cell's neighbourhood sinks as pieces and their shades fill it. What is
        noted from one view to the next may not undo itself (a shadow's coming seen with a
        piece, its going alone; its edge across a neighbourhood), so a cell that looks again
        as it did in the first light is in it again; a cell whose piece came or went takes
        the light of the cells around it."""
        looks, board = self._first_look
        if relit is not None:
            self._light = self._noted_light(relit)
            back = [c for c, sig in looks.items() if abs(cells_light_ratio(mean[c:c + 1], sig[None])[0] - 1.0)
                    < LIGHT_NOTED and cells_own_light_change(mean[c:c + 1], sig[None])[0] < self.settings.place_change]
            self._light[back] = 1.0
        now = tuple(self.board)
        for c in range(16):
            if board and now[c] != board[c]:  # what was noted of it was of the picture it had
                self._light[c] = np.median([self._light[n] for n in _around(c) if n != c])
            if not board or now[c] != board[c] or c not in looks:
                if abs(self._light[c] - 1.0) < LIGHT_NOTED:
                    looks[c] = mean[c].copy()
                else:
                    looks.pop(c, None)
        self._first_look = (looks, now)
        self._light_accepted = self._light.copy()
        self.baseline = mean.copy()
        self._base_frame = None if self._frame is None else self._frame.copy()

    def _noted_light(self, relit) -> np.ndarray:
        """(16,) each cell's light, the board as last accepted having brightened by
        ``relit`` (board-wide or per cell) since, where by ``LIGHT_NOTED`` or more."""
        g = np.broadcast_to(np.asarray(relit, float), (16,))
        return self._light_accepted * np.where(np.abs(g - 1.0) >= LIGHT_NOTED, g, 1.0)

    def _lit_as_first(self, frame: np.ndarray | None) -> np.ndarray | None:
        """``frame`` with the board brought back to the light its first pieces were seen in
        (each cell divided by its noted light, smoothly between the cells' centres), so that
        vision and the silhouettes' colours read a piece in a person's shadow as they read
        the others; the frame itself while the light is as it was."""
        if frame is None or self._sig_centers is None or np.abs(self._light - 1.0).max() < LIGHT_NOTED:
            return frame
        H = board_homography(self._sig_centers)
        if H is None:
            return frame
        # a 4 x 4 picture of the cells' light, pixel (k, r) at cell 4 r + k's centre,
        # spread over the frame by the board's homography (between the centres linearly,
        # beyond them as the nearest)
        small = np.maximum(self._light, LIGHT_FLOOR).reshape(4, 4).astype(np.float32)
        to_board = np.array([[0.25, 0, 0.125], [0, 0.25, 0.125], [0, 0, 1.0]])
        h, w = frame.shape[:2]
        light = cv2.warpPerspective(small, H @ to_board, (w, h), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        return np.clip(frame / light[:, :, None], 0, 255).astype(np.uint8)

    def _forget(self, cell: int) -> None:
        self._told.discard(cell)
        self._alts.pop(cell, None)
        self._later.pop(cell, None)
        self._probs.pop(cell, None)
        self._sizes.pop(cell, None)
        self._heights.pop(cell, None)
        self._bodies.pop(cell, None)

    def _measure(self, cell: int):
        """How tall the piece now on ``cell`` stands, from the frame of the board as last
        accepted and the frame being judged (:func:`quarto_assist.silhouette.measure_height`)."""
        if not self.settings.heights or self._base_frame is None or self._frame is None or self.centers is None:
            return None
        occupied = [i for i, p in enumerate(self.board) if p is not None]
        # the board as first seen clear (the signatures' centres), not as followed since: the
        # height hangs on the board's perspective, which a few pixels of error in later
        # centres (pieces on the cells, a hand's recheck) can turn into nonsense, and every
        # piece of the game must be measured with the same camera
        centers = self._sig_centers if self._sig_centers is not None else self.centers
        try:
            return measure_height(self._lit_as_first(self._base_frame), self._lit_as_first(self._frame), centers,
                                  cell, occupied)
        except (cv2.error, ValueError, np.linalg.LinAlgError):
            return None  # a geometry the measurement cannot handle: vision alone decides

    def cues(self) -> tuple[dict[int, float], dict[int, float]]:
        """Per cell, the log odds that its piece is tall from the heights measured in the
        pictures, and dark from the silhouettes' colours (or the body colour vision saw,
        where a silhouette gave none), each weighed against the other pieces of the game
        (``silhouette``); cells the measurements say nothing of are left out."""
        measured = {c: h for c, h in self._heights.items() if h is not None}
        tall = tall_log_odds(measured, {c: q[0] for c, q in self._probs.items()})
        colours = {c: h.colour for c, h in measured.items()}
        # where a piece's silhouette gave no colour (not found, or measured under the board:
        # a dark piece before a dark square), the body colour vision's closer look saw stands
        # in; it says less (a glint on a glossy top, a shaded side). With a set's colours
        # from calibration the body colour is weighed against those instead (_log_odds)
        stand_in = set()
        if not self.set_colours:
            for c in self._probs:
                if colours.get(c) is None and self._bodies.get(c):
                    colours[c] = tuple(float(v) for v in np.mean(self._bodies[c], axis=0))
                    stand_in.add(c)
        dark = dark_log_odds(colours, {c: q[1] for c, q in self._probs.items()}, stand_in)
        return tall, dark

    def _log_odds(self) -> dict[int, np.ndarray]:
        """Per cell with a reading kept, (4,) log-odds that its piece is tall, dark, square,
        hollow: vision's reading when its piece was placed (and at later placements), with
        its tall/short and dark/light weighed against the other pieces of the game (heights
        fall into two groups a factor two apart, colours into the set's two; see
        ``silhouette``). All cells at once: the game's groups are estimated once."""
        tall, dark = self.cues()
        out = {}
        for cell, probs in self._probs.items():
            looks = [_logit(q) for q in [probs] + self._later.get(cell, [])]
            z = np.mean(looks, axis=0)
            sizes = self._sizes[cell]  # one per look
            if "small" in sizes:
                # a board judged to hold a small set read every attribute through a window fit
                # for it; a board of too few pieces to judge read its tall pieces as short ones
                z = np.mean([q for q, size in zip(looks, sizes) if size == "small"], axis=0)
            elif "large" in sizes:
                # a board judged to hold a large set read tall from a window fit for it; a
                # board of too few pieces to judge read its short pieces as tall ones
                z[0] = np.mean([q[0] for q, size in zip(looks, sizes) if size == "large"])
            z[0] += tall.get(cell, 0.0)
            z[1] += dark.get(cell, 0.0)
            if self.set_colours and self._bodies.get(cell):
                z[1] += set_colour_log_odds(np.mean(self._bodies[cell], axis=0), self.set_colours)
            out[cell] = z
        return out

    def _evidence(self) -> dict[int, np.ndarray]:
        """Per cell with a reading kept, (16,) log-likelihoods of the pieces (from
        :meth:`_log_odds`)."""
        return {c: piece_log_likelihoods(1.0 / (1.0 + np.exp(-z))) for c, z in self._log_odds().items()}

    def belief(self) -> dict[int, np.ndarray]:
        """Per cell whose piece was read by vision, (4,) probabilities that the piece there
        has the attributes the game gives it (tall/short, dark/light, square/round,
        hollow/solid, in that order): how sure the reading is. Cells the user set (corrected,
        resumed, the piece said to be handed over) are not listed: they are sure."""
        out = {}
        for cell, z in self._log_odds().items():
            piece = self.board[cell]
            if piece is None or cell in self._told:
                continue
            p = 1.0 / (1.0 + np.exp(-z))
            out[cell] = np.array([p[k] if piece & b else 1.0 - p[k] for k, b in enumerate(_BITS)])
        return out

    def _look_again(self, cell: int, win, close=None) -> None:
        """A piece is placed on ``cell``: keep vision's reading of every earlier piece in
        this window too (its closer look ``close`` when there is one). Vision reads a piece
        partly against the others on the board, so a piece read among few may read better
        among more; each piece's evidence is the mean of its readings (in log-odds), the
        one when it was placed and those since."""
        probs = [e[2][1] for e in win if e[2][1] is not None]
        if not probs and close is None:
            return
        for r in self._probs:
            if r != cell and self.board[r] is not None:
                look = _look(r, probs, close)
                if self._hidden_top(r):
                    # a tall piece in front hides this one's top: vision reads its top face
                    # (square, hollow) from the front piece's, wrongly ten times as often;
                    # that look says nothing new of the top
                    look = look.copy()
                    look[2:4] = self._probs[r][2:4]
                self._later.setdefault(r, []).append(look)
                self._sizes[r].append(self._look_size(win, close))
                self._keep_body(r, close)

    def _hidden_top(self, cell: int) -> bool:
        """Does a tall piece (as the game has it) stand on a cell in front of ``cell`` that
        rises over it in the picture?"""
        if self.centers is None:
            return False
        return any(p is not None and p & TALL and _rises_over(self.centers, o, cell)
                   for o, p in enumerate(self.board) if o != cell)

    def _first_change(self, cell: int, final: np.ndarray, full: float) -> float:
        """Since when, in the current clear run, the cell has looked as it does now (the
        hand gone, the piece standing): the time the piece was first seen settled."""
        tol = max(2.0 * self.settings.still, 0.25 * full)
        first = self._run[-1][0]
        for e in reversed(self._run):
            if e[2] is None:
                continue
            if np.abs(e[2][0][cell] - final).mean() > tol:
                break
            first = e[0]
        return first
