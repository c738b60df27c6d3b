"""Perfect-play suggestions: the exact value of a position, an optimal move, and the
number of plies to the end (fastest win, slowest loss).

:func:`suggest` is the public entry point. The search itself is the compiled
negamax in :mod:`engine.search`; this module builds its tables, runs it as a series
of null-window tests (first win/draw/loss, then a binary search on the distance), and
implements the time limit by iterative deepening on the distance to the end.

The first call in a fresh install compiles the search (numba, cached on disk), which
takes about half a minute; later processes load the cache in about a second.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import search as S
from .coach import counted_values, poison_values  # the threat rule, shared with coaching
from .pieces import Piece, value_mask
from .position import Position
from .rules import CLASSIC, Cell, Variant
from .symmetry import cell_symmetries

WIN, DRAW, LOSS, UNKNOWN = "win", "draw", "loss", "unknown"

DEFAULT_TT_BITS = 22  # 4M slots, about 100 MB
TT_MIN = 5  # nodes with fewer empties skip the table: cheaper to search than to look up
CANON_MIN = 9  # nodes with at least this many empties use the canonical (symmetry) key
ORDER_MIN = 3  # nodes with at least this many empties sort moves by the opponent's replies
ETC_MIN = 10  # nodes with at least this many empties look their children up in the table first


@dataclass(frozen=True)
class Suggestion:
    """What to do in a position, from the side to move's point of view.

    ``value``: 'win' | 'draw' | 'loss' under perfect play, or 'unknown' when a time
    limit ran out first. ``place``: the cell for the piece in hand (``None`` when the
    hand is '-'). ``give``: the piece to hand over (``None`` when the game ends with
    this placement). ``plies``: plies to the end under perfect play (``None`` when
    unknown). ``nodes``, ``seconds``: search effort.
    """

    value: str
    place: Cell | None
    give: Piece | None
    plies: int | None
    nodes: int = 0
    seconds: float = 0.0


class GameOverError(ValueError):
    """Asked for a move in a position where the game is over."""


# --- tables ---------------------------------------------------------------------
@lru_cache(maxsize=None)
def _tables(variant: Variant) -> np.ndarray:
    """The variant's part of the search workspace (see the layout in engine.search)."""
    W = np.zeros(S.W_SIZE, np.int64)
    groups = variant.groups
    W[S.NGROUPS] = len(groups)
    for g, m in enumerate(groups):
        W[S.GROUPS + g] = m
        for c in range(16):
            if m >> c & 1:
                W[S.CGROUPS + 8 * c + W[S.CNG + c]] = g
                W[S.CNG + c] += 1
    counted = counted_values(variant)
    for p in range(16):
        W[S.VMC + p] = value_mask(p) & counted
    for t in range(256):
        for p in range(16):
            if W[S.VMC + p] & t:
                W[S.POISON + t] |= 1 << p
    for k in range(4):
        W[S.UFLAG + k] = 0 if variant.attributes >> k & 1 else 1
    W[S.DEDUPE] = int(variant.attributes != 15)
    perms = cell_symmetries(variant.blocks)
    W[S.NPERMS] = len(perms)
    for i, perm in enumerate(perms):
        for c in range(16):
            W[S.PCELL + 16 * i + c] = perm[c]
            W[S.PINV + 16 * i + perm[c]] = c
        for byte in range(256):
            lo = hi = 0
            for b in range(8):
                if byte >> b & 1:
                    lo |= 1 << perm[b]
                    hi |= 1 << perm[b + 8]
            W[S.PLO + 256 * i + byte] = lo
            W[S.PHI + 256 * i + byte] = hi
    W.setflags(write=False)
    return W


class _TT:
    """The transposition table, 3 int64 words per slot, reused across solves: an
    entry only counts for the solve (``age``) that wrote it."""

    def __init__(self, bits: int):
        self.words = np.zeros(3 << bits, np.int64)
        self.next_age = 1

    def new_age(self) -> int:
        if self.next_age >= 0xFFFF:
            self.words[:] = 0
            self.next_age = 1
        a = self.next_age
        self.next_age += 1
        return a


_tts: dict[int, _TT] = {}


def _tt(bits: int) -> _TT:
    if bits not in _tts:
        _tts.clear()  # one table at a time: they are big
        _tts[bits] = _TT(bits)
    return _tts[bits]


# --- one search context ---------------------------------------------------------
class Searcher:
    """Runs null-window tests on positions of one variant, sharing one table age."""

    def __init__(self, variant: Variant = CLASSIC, tt_bits: int = DEFAULT_TT_BITS,
                 deadline: float = 0.0, tt_min: int = TT_MIN, canon_min: int = CANON_MIN,
                 order_min: int = ORDER_MIN, etc_min: int = ETC_MIN):
        self.variant = variant
        self.W = _tables(variant).copy()
        self.tt = _tt(tt_bits)
        self.deadline = deadline
        self.W[S.AGE] = self.tt.new_age()
        self.W[S.TT_MIN] = tt_min
        self.W[S.CANON_MIN] = canon_min
        self.W[S.ORDER_MIN] = order_min
        self.W[S.ETC_MIN] = etc_min

    @property
    def nodes(self) -> int:
        return int(self.W[S.NODES])

    @property
    def aborted(self) -> bool:
        return bool(self.W[S.ABORT])

    def _load(self, cells: list[Piece | None]):
        """Set the group counters for a board given as a 16-list; (occ, a0..a3)."""
        W = self.W
        occ = 0
        a = [0, 0, 0, 0]
        for c, p in enumerate(cells):
            if p is not None:
                occ |= 1 << c
                for k in range(4):
                    if p >> k & 1:
                        a[k] |= 1 << c
        counted = counted_values(self.variant)
        for g in range(W[S.NGROUPS]):
            m = int(W[S.GROUPS + g])
            n, shared = 0, counted
            for c in range(16):
                if m >> c & 1 and cells[c] is not None:
                    n += 1
                    shared &= int(W[S.VMC + cells[c]])
            W[S.GCNT + g] = n
            W[S.GSHR + g] = shared
        return occ, a

    def negamax(self, cells: list[Piece | None], hand: Piece, alpha: int, beta: int, root: bool) -> int:
        """Score of (cells, hand) for the side to move, fail-soft within (alpha, beta).
        With ``root`` the best move is left for :meth:`root_move`."""
        occ, a = self._load(cells)
        e = 16 - bin(occ).count("1")
        avail = 0xFFFF & ~(1 << hand)
        for p in cells:
            if p is not None:
                avail &= ~(1 << p)
        W = self.W
        W[S.ROOT_E] = e if root else 99
        W[S.ROOT_CELL] = -1
        W[S.ROOT_GIVE] = -1
        return int(S.negamax(W, self.tt.words, e, alpha, beta, hand, avail, occ, a[0], a[1], a[2], a[3],
                             float(self.deadline)))

    def root_move(self) -> tuple[int, int | None]:
        g = int(self.W[S.ROOT_GIVE])
        return int(self.W[S.ROOT_CELL]), (None if g < 0 else g)

    def canonical_key(self, cells: list[Piece | None], hand: Piece) -> tuple[int, int]:
        occ, a = self._load(cells)
        e = 16 - bin(occ).count("1")
        k1, k2 = S.key(self.W, e, occ, a[0], a[1], a[2], a[3], hand, True)
        return int(k1), int(k2)

    def solve(self, cells: list[Piece | None], hand: Piece, wdl_only: bool = False):
        """Exact score and an optimal move of (cells, hand) by null-window tests.

        Returns ``(score, (cell, give))``, or ``None`` when the deadline passed.
        With ``wdl_only`` the score is only known by sign (+1 win, 0 draw, -1 loss)."""
        e = sum(1 for p in cells if p is None)
        lo, hi = -(e - 1), e
        move = None
        # first the sign: the window (-1, 1) proves a draw in one search, else
        # says win or loss; then bisect the distance with null windows
        alpha, beta = -1, 1
        while lo < hi:
            r = self.negamax(cells, hand, alpha, beta, root=True)
            if self.aborted:
                return None
            if r >= beta:
                lo = r
                move = self.root_move()
            elif r <= alpha:
                hi = r
            else:
                lo = hi = r
                move = self.root_move()
            if wdl_only and (lo > 0 or hi < 0 or lo == hi == 0):
                return (1 if lo > 0 else -1 if hi < 0 else 0), move
            if lo >= hi:
                break
            med = lo + (hi - lo) // 2
            if med == hi:
                med -= 1
            alpha, beta = med, med + 1
        if move is None:
            # nothing beat the lowest possible score: every placement leaves only
            # poison pieces, so any legal move is as good as another
            c = cells.index(None)
            avail = [p for p in range(16) if p != hand and p not in cells]
            move = (c, avail[0] if e > 1 else None)
        return lo, move


def _plies(score: int, e: int) -> int:
    return e if score == 0 else e + 1 - abs(score)


def _value(score: int) -> str:
    return WIN if score > 0 else LOSS if score < 0 else DRAW


def check_playable(position: Position, variant: Variant = CLASSIC, dead_lines: bool = False) -> None:
    """Raise :class:`GameOverError` when there is no move to suggest (``dead_lines``: see
    :func:`suggest`)."""
    if not dead_lines and position.is_won(variant):
        raise GameOverError(f"the game is over: {str(position)!r} already has a winning line")
    if position.is_full():
        raise GameOverError(f"the game is over: {str(position)!r} has a full board (a draw)")


def suggest(position: Position, variant: Variant = CLASSIC, time_limit: float | None = None,
            tt_bits: int = DEFAULT_TT_BITS, dead_lines: bool = False) -> Suggestion:
    """The best move for the side to move under perfect play.

    Without ``time_limit`` the answer is exact (this can take minutes on a nearly
    empty board). With it, the answer comes within about that many seconds: exact
    when proven, else ``value='unknown'`` with the best move found so far, which
    never hands over a piece that completes a group when a safe piece exists.

    ``dead_lines``: winning groups already complete on the board lost their value
    (nobody called "Quarto!" in the move that made them, so play went on: the official
    rules) and only groups that later placements complete win. Without it such a
    position is refused as over. The search needs nothing more: a win is a group that
    the placement just made completes, and a full group takes no more pieces.
    """
    check_playable(position, variant, dead_lines)
    t0 = time.perf_counter()
    deadline = 0.0 if time_limit is None else t0 + max(time_limit, 0.0)
    sr = Searcher(variant, tt_bits, deadline)
    cells = position.cells()
    e = cells.count(None)
    if position.hand is None:
        out = _suggest_give(sr, cells, e, deadline)
    elif time_limit is None:
        score, (place, give) = sr.solve(cells, position.hand)
        out = (_value(score), place, give, _plies(score, e))
    else:
        out = _deepening(sr, cells, position.hand, e)
    value, place, give, plies = out
    return Suggestion(value, place, give, plies, sr.nodes, time.perf_counter() - t0)


def _suggest_give(sr: Searcher, cells, e: int, deadline: float):
    """Hand '-': only a piece to choose. Pieces equivalent under the board's
    symmetries give the same game, so each class is solved once."""
    avail = [p for p in range(16) if p not in cells]
    threats = poison_values(Position(cells, None), sr.variant)
    tv = sr.W[S.VMC:S.VMC + 16]
    safe = [q for q in avail if not (tv[q] & threats)]
    if not safe:
        return LOSS, None, avail[0], 2
    classes: dict[tuple[int, int], Piece] = {}
    for q in safe:
        classes.setdefault(sr.canonical_key(cells, q), q)
    best = None
    for q in classes.values():
        r = sr.solve(cells, q)
        if r is None:
            return UNKNOWN, None, (best[1] if best else safe[0]), None
        score = -r[0]
        if best is None or score > best[0]:
            best = (score, q)
    score, q = best
    return _value(score), None, q, _plies(score, e) + 1  # the give is a ply too


def _deepening(sr: Searcher, cells, hand: Piece, e: int):
    """Time-limited search: iterative deepening on the distance to the end.

    Level n asks of every surviving root move: does it win within n plies (odd n),
    does it lose within n plies (even n)? Each question is a null-window test whose
    bounds cut the tree at about n plies, and the table keeps what earlier levels
    learnt. The first win found is the fastest; moves that lose are dropped (the
    last survivors of an all-losing position lose slowest); survivors of every level
    draw. When the deadline stops a level, the best move is a survivor of the last
    finished level: it does not lose within that many plies.
    """
    r = sr.negamax(cells, hand, e - 1, e, root=True)  # immediate win?
    if r >= e:
        c, _ = sr.root_move()
        return WIN, c, None, 1
    moves = _root_moves(sr, cells, hand)
    if e == 1:
        return DRAW, cells.index(None), None, 1
    alive = [(c, q) for c, q in moves if q is not None]
    if not alive:  # every placement leaves only poison pieces
        c, _ = moves[0]
        avail = [p for p in range(16) if p != hand and p not in cells]
        return LOSS, c, avail[0], 2

    def move_score_at_least(m, s) -> bool | None:
        c, q = m
        child = list(cells)
        child[c] = hand
        r = sr.negamax(child, q, -s, -s + 1, root=False)
        if sr.aborted:
            return None
        return r <= -s

    for n in range(3, e + 1):
        if n % 2:  # wins within n plies: score >= e + 1 - n
            for m in alive:
                ok = move_score_at_least(m, e + 1 - n)
                if ok is None:
                    return UNKNOWN, alive[0][0], alive[0][1], None
                if ok:
                    return WIN, m[0], m[1], n
        else:  # survivors do not lose within n plies: score >= n - e
            passed = []
            for i, m in enumerate(alive):
                ok = move_score_at_least(m, n - e)
                if ok is None:
                    best = passed[0] if passed else alive[0]
                    return UNKNOWN, best[0], best[1], None
                if ok:
                    passed.append(m)
            if not passed:
                return LOSS, alive[0][0], alive[0][1], n
            alive = passed
    return DRAW, alive[0][0], alive[0][1], e


def _root_moves(sr: Searcher, cells, hand: Piece) -> list[tuple[Cell, Piece | None]]:
    """Root moves worth considering: every placement with every safe piece; a
    placement that leaves no safe piece appears once with give ``None``."""
    avail = [p for p in range(16) if p != hand and p not in cells]
    out = []
    for c in range(16):
        if cells[c] is not None:
            continue
        child = list(cells)
        child[c] = hand
        threats = poison_values(Position(child, None), sr.variant)
        safe = [q for q in avail if not (sr.W[S.VMC + q] & threats)]
        if safe:
            out.extend((c, q) for q in safe)
        else:
            out.append((c, None))
    return out
