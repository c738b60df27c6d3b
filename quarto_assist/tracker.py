"""The tracker: board readings in, game-board changes out. Pure: it owns no clock.

``Tracker.update(t, reading)`` takes one :class:`vision.reading.BoardReading` with its
source time ``t`` and returns what changed (:class:`TrackEvent` values). It accepts a
change only from the board as it stands unobstructed and steady for ``settle`` seconds
(hands come and go), and only one new piece at a time. Anything else (a piece gone or
moved, two new pieces, a new piece read as one already on the board, a piece that now
reads differently) is *flagged* and never written into the board.

Cells: the tracker numbers cells as the game does (0-15 row-major in the board's own
grid), fixed by the first reading it trusts. Later readings are matched to those cells
by their centres, so vision may number its grid differently from one analysis to the
next. ``centers`` is a (16, 2) float array of the cells' centres in image pixels (x, y).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from vision.assign import piece_log_likelihood

Board = tuple  # 16 entries: piece int 0-15 or None


def _grid_perms() -> list[tuple[int, ...]]:
    """The 8 symmetries of the 4x4 grid as cell permutations (rows, columns and
    diagonals map onto each other, so the game is the same under each)."""
    maps = [
        lambda r, c: (r, c), lambda r, c: (c, 3 - r), lambda r, c: (3 - r, 3 - c), lambda r, c: (3 - c, r),
        lambda r, c: (c, r), lambda r, c: (3 - c, 3 - r), lambda r, c: (3 - r, c), lambda r, c: (r, 3 - c),
    ]
    out = []
    for f in maps:
        out.append(tuple(4 * f(i // 4, i % 4)[0] + f(i // 4, i % 4)[1] for i in range(16)))
    return out


GRID_PERMS = _grid_perms()


@dataclass(frozen=True)
class TrackerSettings:
    """``settle``: seconds a changed board must stand unobstructed before it counts.
    ``agree``: share of the readings in that time a cell's value must have (noise).
    ``match_tolerance``: how far (in cell spacings) a cell centre may drift and still
    be the same cell; farther means the board was moved."""

    settle: float = 0.5
    agree: float = 0.7
    match_tolerance: float = 0.4

    def __post_init__(self):
        if self.settle < 0:
            raise ValueError(f"invalid settle time: {self.settle!r} (must be 0 or more seconds)")
        if not 0.5 <= self.agree <= 1.0:
            raise ValueError(f"invalid agreement share: {self.agree!r} (must be in [0.5, 1])")


@dataclass(frozen=True)
class Issue:
    """One thing wrong with the board as seen. ``kind``: ``'disappeared'``, ``'moved'``,
    ``'two_new'``, ``'duplicate'``, ``'changed'``. ``cells`` are game cells, ``pieces``
    the pieces concerned (for ``changed``: old then new)."""

    kind: str
    cells: tuple[int, ...]
    pieces: tuple[int, ...]


@dataclass
class TrackEvent:
    """What the tracker saw. ``kind`` and its fields:

    - ``'board_found'``: first trusted view; ``board`` as seen, ``mismatch`` game cells
      where it disagrees with the board the tracker was started with (resume).
    - ``'placed'``: ``cell``, ``piece``; ``t`` is when the piece was first seen in the
      steady, unobstructed view (the hand had gone).
    - ``'reread'``: ``changes`` ``{cell: (old piece, new piece)}``: pieces placed earlier
      read again together with a new one (it comes just before that ``'placed'``).
    - ``'relocated'``: a piece placed earlier stands on ``cell`` (as ``piece``), not where it
      was put: ``changes`` ``{old cell: (piece it was, None), cell: (None, piece)}``; a new
      piece came on the old cell (its ``'placed'`` follows).
    - ``'flagged'``: ``issues`` (list of :class:`Issue`), ``board`` as seen; the game
      board is unchanged.
    - ``'cleared'``: the board as seen agrees with the game again.
    - ``'hand'``: the board became obstructed after standing clear (a hand came in).
    - ``'moved_board'``: the board was moved (cells matched again), or the camera was
      knocked (cells followed in the picture).
    - ``'lost'`` / ``'found'``: the board went out of / came back into view.
    - ``'unmatched'``: the board stood clear for ``UNMATCHED_AFTER`` seconds where its
      cells do not line up with the game's and could not be matched again (told once until
      they are).
    """

    t: float
    kind: str
    cell: int | None = None
    piece: int | None = None
    issues: list[Issue] = field(default_factory=list)
    board: Board | None = None
    mismatch: list[int] = field(default_factory=list)
    reason: str = ""
    changes: dict = field(default_factory=dict)


#: the reason of a reading whose board seems to have jumped elsewhere in the picture, not
#: yet believed (``VisionStep``): no view of the board, and no hand either
JUMPED = "the board moved: finding it again"

#: seconds a clear board whose cells cannot be matched with the game's may stand before
#: the user is told
UNMATCHED_AFTER = 3.0

#: how much better (natural log of the likelihood ratio) vision's attribute probabilities
#: must fit the game's pieces under one grid symmetry than under any other before a moved
#: board is matched again by them
REMATCH_MARGIN = 4.0


def piece_log_likelihoods(p: np.ndarray, floor: float = 0.02) -> np.ndarray:
    """(16,) log-likelihood of each piece from (4,) probabilities of tall, dark, square,
    hollow, each kept within ``floor`` and 1 - ``floor`` (vision's
    :func:`vision.assign.piece_log_likelihood` for one cell)."""
    return piece_log_likelihood(np.asarray(p, float)[None], floor)[0]


def _moved_points(pts: np.ndarray, motion: np.ndarray) -> np.ndarray:
    """(n, 2) pixel positions moved by the (2, 3) affine map ``motion``."""
    return np.asarray(pts, float) @ motion[:, :2].T + motion[:, 2]


def _spacing(centers: np.ndarray) -> float:
    g = centers.reshape(4, 4, 2)
    across = np.linalg.norm(g[:, 1:] - g[:, :-1], axis=2).mean()
    down = np.linalg.norm(g[1:] - g[:-1], axis=2).mean()
    return float(max(1e-6, min(across, down)))


class Tracker:
    """Follows the board. ``board`` (optional): the game board to expect (a resumed game),
    16 pieces or ``None`` in game cell order."""

    def __init__(self, settings: TrackerSettings | None = None, board=None):
        self.settings = settings or TrackerSettings()
        self.board: list[int | None] = list(board) if board is not None else [None] * 16
        self._expected = board is not None
        self.centers: np.ndarray | None = None
        self.corrections: dict[int, tuple[int | None, int | None]] = {}
        self.issues: list[Issue] = []  # flagged now
        self.given: int | None = None  # the piece the user says was handed over
        self._run: list[tuple[float, tuple]] = []
        self._run_start: float | None = None
        self._stable: tuple | None = None  # last steady board evaluated
        self._found = False
        self._known = False  # cell numbering fixed
        self._clear_since_change = False
        self._was_found = False
        self._unmatched: float | None = None  # since when clear views could not be matched
        self._unmatched_told = False

    # --- public -----------------------------------------------------------------
    @property
    def found(self) -> bool:
        return self._known

    def update(self, t: float, reading, image=None) -> list[TrackEvent]:
        """One reading at source time ``t``; ``image`` (the frame, (H, W, 3) uint8 BGR)
        is used only by trackers that look at the pixels themselves."""
        out: list[TrackEvent] = []
        if not reading.found:
            if self._was_found:
                out.append(TrackEvent(t, "lost", reason=reading.reason or "board not found"))
            self._was_found = False
            self._break_run(t, out)
            return out
        if not self._was_found and self._known:
            out.append(TrackEvent(t, "found"))
        self._was_found = True
        if reading.reason == JUMPED:
            # vision saw the board elsewhere and waits for more readings to agree: the run
            # is kept as it was (its still view is judged when the move is known)
            return out
        motion = getattr(reading, "motion", None)
        if motion is not None and self.centers is not None:
            # the camera was knocked (vision followed the picture): the cells are where
            # they were on the board, only elsewhere in the picture
            picture = getattr(reading, "picture_motion", None)
            out.extend(self._moved(t, np.asarray(motion, float), None if picture is None else np.asarray(picture, float)))
            out.append(TrackEvent(t, "moved_board"))
        perm = self._match(reading)
        if perm is None:
            # the grid does not line up with the cells we know: re-match when the view is clear
            if reading.clear and self._known:
                perm, judged = self._rematch(t, reading)
                out.extend(judged)
                if perm is not None:
                    out.append(TrackEvent(t, "moved_board"))
            if perm is None:
                if reading.clear and self._known:
                    self._unmatched_for(t, out)
                self._break_run(t, out)
                return out
        self._unmatched, self._unmatched_told = None, False
        if not reading.clear:
            self._break_run(t, out)
            return out
        cells = tuple(self._correct(i, reading.cells[perm[i]]) for i in range(16))
        centers = np.asarray(reading.cell_centers, float)[list(perm)]
        if self.centers is None:
            self.centers = centers.copy()
        else:  # follow slow drift of the camera
            self.centers = 0.9 * self.centers + 0.1 * centers
        if self._run_start is None:
            self._run_start = t
            self._run = []
        self._run.append((t, cells, self._extra(reading, perm, image)))
        self._trim(t)
        out.extend(self._judge(t))
        return out

    def _extra(self, reading, perm, image):
        """What else a run entry keeps (subclasses: pixel signatures, probabilities)."""
        return None

    def _judge(self, t: float) -> list[TrackEvent]:
        steady = self._steady(t)
        if steady is not None and steady != self._stable:
            self._stable = steady
            return self._evaluate(t, steady)
        return []

    def finish(self, t: float) -> list[TrackEvent]:
        """The source ended: judge the last clear view even if it stood less than
        ``settle`` seconds (at least 3 frames), so a last placement is not lost."""
        if self._run_start is None or len(self._run) < 3:
            return []
        window = [e[1] for e in self._run if e[0] >= t - self.settings.settle - 1e-9]
        steady = self._vote(window)
        if steady is None or steady == self._stable:
            return []
        self._stable = steady
        return self._evaluate(t, steady)

    def correct(self, cell: int, piece: int | None) -> None:
        """The user says game cell ``cell`` holds ``piece`` (``None``: empty). From now on
        the reading there is taken as that piece while it reads as it does now."""
        seen = self._stable[cell] if self._stable is not None else self.board[cell]
        raw = seen
        if cell in self.corrections and self.corrections[cell][1] == seen:
            raw = self.corrections[cell][0]
        self.corrections[cell] = (raw, piece)
        self.board[cell] = piece
        self._stable = None  # re-evaluate the view against the corrected board
        self._run = [(e[0], tuple(piece if (i == cell and c == raw) else c for i, c in enumerate(e[1])), e[2])
                     for e in self._run]

    def expect(self, piece: int | None) -> None:
        """The user says ``piece`` was handed over: the next piece set down is likely it.
        Only trackers that weigh evidence for the piece use it (see ``PixelTracker``)."""
        self.given = piece

    def belief(self) -> dict[int, np.ndarray]:
        """Per cell, (4,) probabilities that the piece there has the attributes the game
        gives it (see ``PixelTracker.belief``); this tracker keeps no evidence: none listed,
        every piece counts as sure."""
        return {}

    def remove(self, cell: int) -> None:
        """Undo: take the piece at ``cell`` out of the game board. A correction made
        there stays: the same piece, still standing, is seen as corrected."""
        self.board[cell] = None
        self._stable = None

    # --- cells ------------------------------------------------------------------
    def _correct(self, cell: int, value):
        fix = self.corrections.get(cell)
        if fix is not None and value == fix[0]:
            return fix[1]
        return value

    def _match(self, reading) -> tuple[int, ...] | None:
        rc = np.asarray(reading.cell_centers, float).reshape(16, 2)
        if self.centers is None:
            return tuple(range(16))
        d = np.linalg.norm(self.centers[:, None, :] - rc[None, :, :], axis=2)
        perm = tuple(int(j) for j in d.argmin(axis=1))
        if len(set(perm)) != 16:
            return None
        if d[np.arange(16), list(perm)].max() > self.settings.match_tolerance * _spacing(self.centers):
            return None
        return perm

    def _moved(self, t: float, motion: np.ndarray, picture: np.ndarray | None = None) -> list[TrackEvent]:
        """The board's place in the picture moved by the (2, 3) affine map ``motion`` (old
        pixels -> new) at source time ``t``; ``picture``: the picture's own move since the
        last still view when that differs (a creeping camera followed at last; see
        ``BoardReading.picture_motion``). Returns what was judged on the way."""
        self.centers = _moved_points(self.centers, motion)
        return []

    def _unmatched_for(self, t: float, out: list[TrackEvent]) -> None:
        """A clear view whose cells could not be matched: tell once it has lasted."""
        if self._unmatched is None:
            self._unmatched = t
        elif not self._unmatched_told and t - self._unmatched >= UNMATCHED_AFTER:
            self._unmatched_told = True
            out.append(TrackEvent(t, "unmatched"))

    def _rematch(self, t: float, reading) -> tuple[tuple[int, ...] | None, list[TrackEvent]]:
        """The board was moved, or the camera knocked too far to follow: pick the grid
        symmetry under which the board seen agrees with the game board. Taken when the
        pieces seen agree on 15 cells or more; else (vision misnames a piece or two
        in most views of a busy board) when the cells occupied agree on 15 or more and
        vision's attribute probabilities fit the game's pieces better under that symmetry
        than under any other whose cells occupied agree as well, by ``REMATCH_MARGIN``
        (natural log of the likelihood ratio). Returns the symmetry or ``None``, and what was
        judged on the way (subclasses: the still view before the move)."""
        if sum(b is not None for b in self.board) < 2:
            return None, []  # too little to go on (an empty board looks the same any way round)
        probs = getattr(reading, "probabilities", None)
        # each cell's pieces' log-likelihoods, every probability kept within 0.05-0.95 so one
        # sure misreading weighs no more than about three bits of evidence
        ll = None if probs is None else piece_log_likelihood(np.asarray(probs, float)[:, 1:5], 0.05)
        scored = []
        for p in GRID_PERMS:
            same = sum(1 for i in range(16) if reading.cells[p[i]] == self.board[i])
            occupied = sum(1 for i in range(16) if (reading.cells[p[i]] is None) == (self.board[i] is None))
            fit = 0.0 if ll is None else sum(ll[p[i]][self.board[i]] for i in range(16) if self.board[i] is not None)
            scored.append((same, occupied, fit, p))
        best = max(scored, key=lambda s: s[0])
        if best[0] < 15:
            if ll is None:
                return None, []
            alike = sorted((s for s in scored if s[1] >= 15), key=lambda s: -s[2])
            if not alike or (len(alike) > 1 and alike[0][2] - alike[1][2] < REMATCH_MARGIN):
                return None, []
            best = alike[0]
        perm = best[3]
        self.centers = np.asarray(reading.cell_centers, float)[list(perm)].copy()
        self._stable = None
        return perm, []

    # --- steadiness -------------------------------------------------------------
    def _break_run(self, t: float, out: list[TrackEvent]) -> None:
        if self._run_start is not None and self._stable is not None and self._known:
            out.append(TrackEvent(t, "hand"))
        self._run_start = None
        self._run = []

    def _trim(self, t: float) -> None:
        keep_from = t - max(30.0, 4 * self.settings.settle)
        if self._run and self._run[0][0] < keep_from:
            self._run = [e for e in self._run if e[0] >= keep_from]

    def _steady(self, t: float) -> tuple | None:
        s = self.settings
        if self._run_start is None or t - self._run_start < s.settle - 1e-9:
            return None
        return self._vote([e[1] for e in self._run if e[0] >= t - s.settle - 1e-9])

    def _vote(self, window: list[tuple]) -> tuple | None:
        """Per cell the value most readings agree on, or ``None`` if a cell is in doubt."""
        out = []
        for i in range(16):
            value, n = Counter(w[i] for w in window).most_common(1)[0]
            if n < self.settings.agree * len(window):
                return None
            out.append(value)
        return tuple(out)

    def _first_seen(self, cell: int, piece: int) -> float:
        for e in self._run:
            if e[1][cell] == piece:
                return e[0]
        return self._run[-1][0]

    # --- what changed -----------------------------------------------------------
    def _evaluate(self, t: float, seen: tuple) -> list[TrackEvent]:
        if not self._known:
            return self._first_view(t, seen)
        diff = [i for i in range(16) if seen[i] != self.board[i]]
        if not diff:
            if self.issues:
                self.issues = []
                return [TrackEvent(t, "cleared")]
            return []
        new = [i for i in diff if self.board[i] is None]
        gone = [i for i in diff if seen[i] is None]
        changed = [i for i in diff if self.board[i] is not None and seen[i] is not None]
        on_board = {p: i for i, p in enumerate(self.board) if p is not None}
        if len(new) == 1 and not gone and not changed and seen[new[0]] not in on_board:
            cell, piece = new[0], seen[new[0]]
            self.board[cell] = piece
            self.issues = []
            return [TrackEvent(self._first_seen(cell, piece), "placed", cell=cell, piece=piece)]
        issues: list[Issue] = []
        moved_to = set()
        for g in gone:
            p = self.board[g]
            dest = [n for n in new if seen[n] == p]
            if dest:
                moved_to.add(dest[0])
                issues.append(Issue("moved", (g, dest[0]), (p,)))
            else:
                issues.append(Issue("disappeared", (g,), (p,)))
        fresh = [n for n in new if n not in moved_to]
        for n in fresh:
            p = seen[n]
            if p in on_board and on_board[p] not in gone:
                issues.append(Issue("duplicate", (n, on_board[p]), (p,)))
        if len(fresh) >= 2:
            issues.append(Issue("two_new", tuple(fresh), tuple(seen[n] for n in fresh)))
        for c in changed:
            issues.append(Issue("changed", (c,), (self.board[c], seen[c])))
        if not issues:  # one new piece plus nothing else wrong cannot get here; keep the board
            return []
        self.issues = issues
        return [TrackEvent(t, "flagged", issues=issues, board=seen)]

    def _permute_extra(self, extra, perm):
        return extra

    def new_game(self) -> None:
        """Start over on the same board: the view is empty again."""
        self.board = [None] * 16
        self.corrections = {}
        self.issues = []
        self._stable = None

    def _first_view(self, t: float, seen: tuple) -> list[TrackEvent]:
        """Fix the cell numbering. With an expected board (a resumed game) choose the grid
        symmetry that agrees best with it and report where it still disagrees."""
        perm = tuple(range(16))
        if self._expected:
            perm = max(GRID_PERMS, key=lambda p: sum(1 for i in range(16) if seen[p[i]] == self.board[i]))
            self.centers = self.centers[list(perm)]
            seen = tuple(seen[perm[i]] for i in range(16))
            self._run = [(e[0], tuple(e[1][perm[i]] for i in range(16)), self._permute_extra(e[2], perm))
                         for e in self._run]
            # evaluate again on the next frame: a piece placed while we were away is then
            # taken as a normal placement, anything else is flagged
            self._stable = None
            mismatch = [i for i in range(16) if seen[i] != self.board[i]]
        else:
            where: dict[int, int] = {}
            issues = []
            for i, p in enumerate(seen):
                if p is not None and p in where:
                    issues.append(Issue("duplicate", (i, where[p]), (p,)))
                elif p is not None:
                    where[p] = i
            if issues:  # not a board a game can start from: say so and wait for a better view
                self.issues = issues
                return [TrackEvent(t, "flagged", issues=issues)]
            self.board = list(seen)
            self.issues = []
            mismatch = []
        self._known = True
        return [TrackEvent(t, "board_found", board=seen, mismatch=mismatch)]
