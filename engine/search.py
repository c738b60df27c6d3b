"""The compiled heart of the solver: alpha-beta negamax over bitboards (numba).

Node = the board plus the piece in hand; the side to move places that piece and then
hands one of the ``avail`` pieces over. State passed down the recursion::

    e       empty cells left (before this placement)
    occ     16-bit mask of occupied cells (bit i = cell i, row-major)
    a0..a3  16-bit masks of occupied cells whose piece has attribute bit k set
    hand    the piece to place (0-15)
    avail   16-bit mask of pieces that can still be handed over

Everything else lives in two flat int64 arrays (few arguments keep the recursive
call cheap): the workspace ``W`` (tables, per-depth scratch, counters; offsets
below) and the transposition table ``TT`` (3 words per slot: key1, key2, info).
Per winning group ``g``, ``W[GCNT + g]`` counts its pieces and ``W[GSHR + g]`` is
the 8-bit value mask they all share (counted attributes only; see
``pieces.value_mask``); both are updated in place as pieces go down and come up.

Scores are for the side to move and absolute in time: a win is
``+(empties left after the winning placement + 1)``, a loss the negative of that,
a draw 0. So a faster win scores higher, a slower loss scores higher, and the same
number means the same thing in parent and child (negamax just negates). From a node
with ``e`` empties: an immediate win scores ``e``; a placement after which every
piece that could be handed over completes a group ("no safe piece") scores
``-(e - 1)``; with no immediate win the best possible is ``e - 2``.

"Safe piece" pruning: only pieces that cannot complete a group at once are handed
over (any other gift loses at once, which is never better than a safe one). So below
the root the piece in hand is always safe; the immediate-win test stays as a guard.

Move ordering (nodes with ``ORDER_MIN``+ empties): every (cell, safe piece) move is
scored by how many (cell, safe piece) replies it leaves the opponent and searched
fewest first, the table's move before all. A move leaving no reply wins in 3 plies,
the best possible without an immediate win, so the node stops there; with 3 empties
that makes the node exact without recursion. At nodes with ``ETC_MIN``+ empties the
children are looked up in the table before any is searched (enhanced transposition
cutoff).

Transposition table: two slots per bucket (depth-preferred, always-replace); an
entry is valid for one ``age`` (one solve), so no clearing between solves. Keys are
the full state, so they cannot collide: raw near the leaves, canonical under the
board and piece symmetries at nodes with many empties. The best move of an entry is
stored in the key's frame and translated back when read.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, objmode

# --- workspace layout (offsets into W) --------------------------------------------
# ctx: counters and settings
NODES = 0
ABORT = 1
ROOT_CELL = 2
ROOT_GIVE = 3
AGE = 4
ROOT_E = 5  # the root's empties: the node with this e records its best move
TT_MIN = 6  # use the table at nodes with at least this many empties
CANON_MIN = 7  # canonical keys at nodes with at least this many empties
DEDUPE = 8  # 1 when pieces with the same counted values are interchangeable (beginner)
ORDER_MIN = 9  # order moves by the opponent's safe replies at nodes with >= this many empties
TT_HITS = 10
NGROUPS = 11
NPERMS = 12
PROGRESS = 13  # > 0: print a progress line every this many seconds
NEXT_PRINT = 14  # when the next progress line is due (ms on the perf_counter clock)
ETC_MIN = 15  # probe the children in the table first at nodes with at least this many empties
CTX_SIZE = 16

GROUPS = 16  # [24] winning groups as cell masks
CGROUPS = GROUPS + 24  # [16][8] groups through each cell
CNG = CGROUPS + 128  # [16] how many
VMC = CNG + 16  # [16] counted value mask of each piece
POISON = VMC + 16  # [256] value mask -> pieces having one of those values
UFLAG = POISON + 256  # [4] 1 for attributes that do not count (beginner variant)
GCNT = UFLAG + 4  # [24]
GSHR = GCNT + 24  # [24]
SAVE = GSHR + 24  # [17][8] gshr saved per depth
T3 = SAVE + 136  # [17][16] per depth: values that win on each cell
ACC = T3 + 272  # [17][2] per depth: OR of T3 over the empty cells, and the values on 2+ cells
TINFO = ACC + 34  # [17][10] key frame per depth: perm, order[4], flips[4]
MOVES = TINFO + 170  # [17][16][3] per depth: cell, safe pieces, priority
SCR = MOVES + 816  # [16] scratch for the key
PCELL = SCR + 16  # [32][16] cell permutations
PINV = PCELL + 512  # [32][16] their inverses
PLO = PINV + 512  # [32][256] permuted mask of the low byte
PHI = PLO + 8192  # [32][256] permuted mask of the high byte
S2C = PHI + 8192  # [17][16] per depth: OR of the shared values of two-piece groups through a cell
LIST = S2C + 272  # [17][256][3] per depth: cell, piece, priority (ordered nodes)
W_SIZE = LIST + 17 * 768

INF = 100


try:  # the count-trailing-zeros instruction, as numba uses it internally
    from numba.cpython.unsafe.numbers import trailing_zeros as _ctz
except ImportError:  # pragma: no cover - older/newer numba without it
    _ctz = None

if _ctz is not None:
    @njit(cache=True, inline="always")
    def _lowbit_index(x):
        return _ctz(x)
else:  # pragma: no cover
    @njit(cache=True, inline="always")
    def _lowbit_index(x):
        i = 0
        while not (x >> i) & 1:
            i += 1
        return i


@njit(cache=True, inline="always")
def _popcount(x):
    """Bits set in a 16-bit mask (SWAR)."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


@njit(cache=True, inline="always")
def _pmask(W, pi, m):
    return W[PLO + pi * 256 + (m & 255)] | W[PHI + pi * 256 + (m >> 8)]


@njit(cache=True)
def key(W, e, occ, a0, a1, a2, a3, hand, canon):
    """(k1, k2) for the state; writes its frame (perm, order[4], flips[4]) to
    W[TINFO + 10 * e:]. Canonical: the lexicographically least key over the cell
    symmetries, each attribute complemented or not (the smaller of mask and
    occ ^ mask, with the hand's bit) and the attributes sorted."""
    t = TINFO + 10 * e
    am = SCR
    p = SCR + 4
    f = SCR + 8
    od = SCR + 12
    W[am] = a0
    W[am + 1] = a1
    W[am + 2] = a2
    W[am + 3] = a3
    if not canon:
        W[t] = 0
        for k in range(4):
            W[t + 1 + k] = k
            W[t + 5 + k] = 0
            W[p + k] = (W[UFLAG + k] << 17) | (W[am + k] << 1) | ((hand >> k) & 1)
        return (occ << 36) | (W[p] << 18) | W[p + 1], (W[p + 2] << 18) | W[p + 3]
    best1 = np.int64(1) << 62
    best2 = np.int64(1) << 62
    best_o = np.int64(1) << 20
    for pi in range(W[NPERMS]):
        o = _pmask(W, pi, occ)
        if o > best_o:
            continue
        for k in range(4):
            m = _pmask(W, pi, W[am + k])
            hb = (hand >> k) & 1
            x = (m << 1) | hb
            y = ((o ^ m) << 1) | (1 - hb)
            if y < x:
                x = y
                W[f + k] = 1
            else:
                W[f + k] = 0
            W[p + k] = (W[UFLAG + k] << 17) | x
            W[od + k] = k
        # insertion sort of the 4 attribute keys (this is the attribute permutation)
        for i in range(1, 4):
            j = i
            while j > 0 and W[p + W[od + j - 1]] > W[p + W[od + j]]:
                tmp = W[od + j - 1]
                W[od + j - 1] = W[od + j]
                W[od + j] = tmp
                j -= 1
        k1 = (o << 36) | (W[p + W[od]] << 18) | W[p + W[od + 1]]
        if k1 > best1:
            continue
        k2 = (W[p + W[od + 2]] << 18) | W[p + W[od + 3]]
        if k1 < best1 or k2 < best2:
            best1 = k1
            best2 = k2
            best_o = o
            W[t] = pi
            for i in range(4):
                W[t + 1 + i] = W[od + i]
                W[t + 5 + i] = W[f + W[od + i]]
    return best1, best2


@njit(cache=True, inline="always")
def _bucket(k1, k2, nslots):
    h = k1 * np.int64(-7046029254386353131) ^ (k2 * np.int64(-4658895280553007687))
    h ^= (h >> 29) & np.int64(0x7FFFFFFFF)
    return h & (nslots - 2)


@njit(cache=True)
def _to_frame(W, e, cell, piece):
    """Move in the node's frame -> move in the key's frame, packed cell * 16 + piece."""
    t = TINFO + 10 * e
    c = W[PCELL + 16 * W[t] + cell]
    q = 0
    for i in range(4):
        q |= (((piece >> W[t + 1 + i]) & 1) ^ W[t + 5 + i]) << i
    return c * 16 + q


@njit(cache=True)
def _from_frame(W, e, mv):
    """Inverse of :func:`_to_frame`: (cell, piece) in the node's frame."""
    t = TINFO + 10 * e
    c = W[PINV + 16 * W[t] + (mv >> 4)]
    qc = mv & 15
    q = 0
    for i in range(4):
        q |= (((qc >> i) & 1) ^ W[t + 5 + i]) << W[t + 1 + i]
    return c, q


@njit(cache=True, inline="always")
def _same_as_seen(W, seen, q):
    """Whether piece ``q`` plays like a piece in ``seen`` (same value column in ``W``):
    handing over either leads to the same search, so only one is tried."""
    y = seen
    while y:
        r = _lowbit_index(y)
        y &= y - 1
        if W[VMC + r] == W[VMC + q]:
            return True
    return False


@njit(cache=True)
def _ordered_moves(W, e, hand, avail, occ, tt_cell, tt_piece):
    """Fill W[LIST + 768 * e:] with every (cell, safe piece) move, sorted so that the
    opponent keeps the fewest (cell, safe piece) replies; the table's move first.
    A placement that leaves no safe piece appears once with piece -1 (last).
    Returns the number of moves, or -1 - index of a move after which the opponent
    has no reply that hands back a safe piece (a win in 3 plies, the best possible
    here when there is no immediate win)."""
    lst = LIST + 768 * e
    n = 0
    vh = W[VMC + hand]
    empties = 0xFFFF & ~occ
    t3 = T3 + 16 * e
    acc = W[ACC + 2 * e]
    dup = W[ACC + 2 * e + 1]
    sv = SAVE + 8 * e
    dedupe = W[DEDUPE]
    t3c = T3 + 16 * (e - 1)
    s2c = S2C + 16 * (e - 1)
    ng = W[NGROUPS]
    x = empties
    while x:
        c = _lowbit_index(x)
        x &= x - 1
        bit = 1 << c
        tnew = acc & (~W[t3 + c] | dup)
        for j in range(W[CNG + c]):
            g = W[CGROUPS + 8 * c + j]
            if W[GCNT + g] == 2:
                tnew |= W[GSHR + g] & vh
        safe = avail & ~W[POISON + tnew]
        if safe == 0:
            W[lst + 3 * n] = c
            W[lst + 3 * n + 1] = -1
            W[lst + 3 * n + 2] = 1 << 20
            n += 1
            continue
        # the board after placing the hand piece on c, as the opponent sees it
        ncg = W[CNG + c]
        for j in range(ncg):
            g = W[CGROUPS + 8 * c + j]
            W[sv + j] = W[GSHR + g]
            W[GSHR + g] &= vh
            W[GCNT + g] += 1
        nocc = occ | bit
        cempties = empties & ~bit
        y = cempties
        while y:
            c2 = _lowbit_index(y)
            y &= y - 1
            W[t3c + c2] = 0
            W[s2c + c2] = 0
        for g in range(ng):
            cnt = W[GCNT + g]
            if cnt == 3:
                W[t3c + _lowbit_index(W[GROUPS + g] & ~nocc)] |= W[GSHR + g]
            elif cnt == 2:
                y = W[GROUPS + g] & ~nocc
                while y:
                    c2 = _lowbit_index(y)
                    y &= y - 1
                    W[s2c + c2] |= W[GSHR + g]
        cacc = 0
        cdup = 0
        y = cempties
        while y:
            c2 = _lowbit_index(y)
            y &= y - 1
            cdup |= cacc & W[t3c + c2]
            cacc |= W[t3c + c2]
        seen = np.int64(0)
        rest = safe
        while rest:
            q = _lowbit_index(rest)
            rest &= rest - 1
            if dedupe:
                same = _same_as_seen(W, seen, q)
                seen |= 1 << q
                if same:
                    continue
            vq = W[VMC + q]
            navail = avail & ~(1 << q)
            replies = 0
            y = cempties
            while y:
                c2 = _lowbit_index(y)
                y &= y - 1
                t = W[t3c + c2]
                replies += _popcount(navail & ~W[POISON + ((cacc & (~t | cdup)) | (W[s2c + c2] & vq))])
            W[lst + 3 * n] = c
            W[lst + 3 * n + 1] = q
            W[lst + 3 * n + 2] = -1 if (c == tt_cell and q == tt_piece) else replies
            n += 1
            if replies == 0:
                for j in range(ncg):
                    g = W[CGROUPS + 8 * c + j]
                    W[GSHR + g] = W[sv + j]
                    W[GCNT + g] -= 1
                return -n
        for j in range(ncg):
            g = W[CGROUPS + 8 * c + j]
            W[GSHR + g] = W[sv + j]
            W[GCNT + g] -= 1
    # insertion sort on the priority (stable)
    for i in range(1, n):
        j = i
        while j > 0 and W[lst + 3 * (j - 1) + 2] > W[lst + 3 * j + 2]:
            for col in range(3):
                tmp = W[lst + 3 * (j - 1) + col]
                W[lst + 3 * (j - 1) + col] = W[lst + 3 * j + col]
                W[lst + 3 * j + col] = tmp
            j -= 1
    return n


def _print_progress(nodes, e):
    print(f"    ... {nodes / 1e6:.0f} M nodes, now at a node with {e} empty cells", flush=True)


@njit(cache=True)
def _progress(nodes, e):
    with objmode():
        _print_progress(nodes, e)


@njit(cache=True)
def _clock():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def negamax(W, TT, e, alpha, beta, hand, avail, occ, a0, a1, a2, a3, deadline):
    """Score of the node within (alpha, beta), fail-soft: a result <= alpha is an
    upper bound, >= beta a lower bound, in between exact. At the root (e == W[ROOT_E])
    the move giving the best score is written to W[ROOT_CELL], W[ROOT_GIVE]
    (give -1 when the game ends with the placement)."""
    W[NODES] += 1
    if W[ABORT]:
        return 0
    if deadline > 0.0 and (W[NODES] & 0x3FFF) == 0:
        now = _clock()
        if now > deadline:
            W[ABORT] = 1
            return 0
        if W[PROGRESS] > 0 and now * 1000.0 >= W[NEXT_PRINT]:
            W[NEXT_PRINT] = np.int64(now * 1000.0) + 1000 * W[PROGRESS]
            _progress(W[NODES], e)
    is_root = e == W[ROOT_E]
    empties = 0xFFFF & ~occ
    ng = W[NGROUPS]
    # threats: t3[c] = values that win when a piece with one of them goes on cell c
    t3 = T3 + 16 * e
    x = empties
    while x:
        c = _lowbit_index(x)
        x &= x - 1
        W[t3 + c] = 0
    for g in range(ng):
        if W[GCNT + g] == 3:
            W[t3 + _lowbit_index(W[GROUPS + g] & ~occ)] |= W[GSHR + g]
    vh = W[VMC + hand]
    x = empties
    while x:
        c = _lowbit_index(x)
        x &= x - 1
        if W[t3 + c] & vh:
            if is_root:
                W[ROOT_CELL] = c
                W[ROOT_GIVE] = -1
            return e
    if e == 1:
        if is_root:
            W[ROOT_CELL] = _lowbit_index(empties)
            W[ROOT_GIVE] = -1
        return 0
    hi_bound = e - 2
    lo_bound = -(e - 1)
    if not is_root:
        if beta > hi_bound:
            beta = hi_bound
            if alpha >= beta:
                return beta
        if alpha < lo_bound:
            alpha = lo_bound
            if alpha >= beta:
                return alpha

    # transposition table
    use_tt = e >= W[TT_MIN]
    tt_cell = -1
    tt_piece = -1
    k1 = np.int64(0)
    k2 = np.int64(0)
    slot = -1
    nslots = TT.shape[0] // 3
    if use_tt:
        k1, k2 = key(W, e, occ, a0, a1, a2, a3, hand, e >= W[CANON_MIN])
        b = _bucket(k1, k2, nslots)
        age = W[AGE]
        for s in range(b, b + 2):
            if TT[3 * s] == k1 and TT[3 * s + 1] == k2 and (TT[3 * s + 2] >> 32) & 0xFFFF == age:
                slot = s
                break
        if slot >= 0:
            W[TT_HITS] += 1
            info = TT[3 * slot + 2]
            lo = (info & 255) - 128
            hi = ((info >> 8) & 255) - 128
            mv = ((info >> 16) & 0xFFFF) - 1
            if mv >= 0:
                tt_cell, tt_piece = _from_frame(W, e, mv)
            if not is_root:
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi

    # the threats without cell c are acc & (~t3[c] | dup): the values on some
    # cell, less those only on c
    acc = 0
    dup = 0
    x = empties
    while x:
        c = _lowbit_index(x)
        x &= x - 1
        dup |= acc & W[t3 + c]
        acc |= W[t3 + c]
    W[ACC + 2 * e] = acc
    W[ACC + 2 * e + 1] = dup

    alpha0 = alpha
    best = -INF
    best_cell = -1
    best_piece = -1
    sv = SAVE + 8 * e
    if e >= W[ORDER_MIN]:
        n = _ordered_moves(W, e, hand, avail, occ, tt_cell, tt_piece)
        lst = LIST + 768 * e
        if n < 0:  # a move leaves the opponent no safe reply: win in 3 plies
            m = lst + 3 * (-n - 1)
            best = hi_bound
            best_cell = W[m]
            best_piece = W[m + 1]
            if is_root:
                W[ROOT_CELL] = best_cell
                W[ROOT_GIVE] = best_piece
            n = 0
        elif e >= W[ETC_MIN] and not is_root and e - 1 >= W[TT_MIN]:
            # enhanced transposition cutoff: a child already known to be bad
            # enough for the opponent ends the search here
            for mi in range(n):
                c = W[lst + 3 * mi]
                q = W[lst + 3 * mi + 1]
                if q < 0:
                    continue
                bit = 1 << c
                ck1, ck2 = key(W, e - 1, occ | bit, a0 | bit if hand & 1 else a0, a1 | bit if hand & 2 else a1,
                               a2 | bit if hand & 4 else a2, a3 | bit if hand & 8 else a3, q, e - 1 >= W[CANON_MIN])
                cb = _bucket(ck1, ck2, nslots)
                for cs in range(cb, cb + 2):
                    if TT[3 * cs] == ck1 and TT[3 * cs + 1] == ck2 and (TT[3 * cs + 2] >> 32) & 0xFFFF == W[AGE]:
                        chi = ((TT[3 * cs + 2] >> 8) & 255) - 128
                        if -chi >= beta:
                            best = -chi
                            best_cell = c
                            best_piece = q
                            n = 0
                        break
                if n == 0:
                    break
        for mi in range(n):
            c = W[lst + 3 * mi]
            q = W[lst + 3 * mi + 1]
            if q < 0:
                v = lo_bound
                q = _lowbit_index(avail)
            elif e == 3:
                # the opponent has a reply that hands back the last piece safely
                # (else _ordered_moves stopped at a win): a draw
                v = 0
            else:
                bit = 1 << c
                ncg = W[CNG + c]
                for j in range(ncg):
                    g = W[CGROUPS + 8 * c + j]
                    W[sv + j] = W[GSHR + g]
                    W[GSHR + g] &= vh
                    W[GCNT + g] += 1
                n0 = a0 | bit if hand & 1 else a0
                n1 = a1 | bit if hand & 2 else a1
                n2 = a2 | bit if hand & 4 else a2
                n3 = a3 | bit if hand & 8 else a3
                v = -negamax(W, TT, e - 1, -beta, -alpha, q, avail & ~(1 << q), occ | bit, n0, n1, n2, n3, deadline)
                for j in range(ncg):
                    g = W[CGROUPS + 8 * c + j]
                    W[GSHR + g] = W[sv + j]
                    W[GCNT + g] -= 1
                if W[ABORT]:
                    return 0
            if v > best:
                best = v
                best_cell = c
                best_piece = q
                if is_root:
                    W[ROOT_CELL] = c
                    W[ROOT_GIVE] = q
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
    else:
        # moves: (cell, safe pieces), TT cell first
        mvs = MOVES + 48 * e
        nmoves = 0
        x = empties
        while x:
            c = _lowbit_index(x)
            x &= x - 1
            # threats after placing the hand piece on c: the old ones not on c, plus
            # groups through c that now hold three pieces sharing a value with the hand
            tnew = acc & (~W[t3 + c] | dup)
            for j in range(W[CNG + c]):
                g = W[CGROUPS + 8 * c + j]
                if W[GCNT + g] == 2:
                    tnew |= W[GSHR + g] & vh
            safe = avail & ~W[POISON + tnew]
            m = mvs + 3 * nmoves
            W[m] = c
            W[m + 1] = safe
            if c == tt_cell:
                W[m + 2] = 0
            elif safe == 0:
                W[m + 2] = 99
            else:  # fewest safe pieces first: the placement that makes the most threats
                W[m + 2] = 1 + _popcount(safe)
            nmoves += 1
        for i in range(1, nmoves):  # stable insertion sort on the priority
            j = i
            while j > 0 and W[mvs + 3 * (j - 1) + 2] > W[mvs + 3 * j + 2]:
                for col in range(3):
                    tmp = W[mvs + 3 * (j - 1) + col]
                    W[mvs + 3 * (j - 1) + col] = W[mvs + 3 * j + col]
                    W[mvs + 3 * j + col] = tmp
                j -= 1

        dedupe = W[DEDUPE]
        for mi in range(nmoves):
            c = W[mvs + 3 * mi]
            safe = W[mvs + 3 * mi + 1]
            if safe == 0 or e == 2:
                # no safe piece: they win next ply; with one cell left after this
                # placement and the last piece safe: a draw
                v = lo_bound if safe == 0 else 0
                if v > best:
                    best = v
                    best_cell = c
                    best_piece = _lowbit_index(avail)
                    if is_root:
                        W[ROOT_CELL] = c
                        W[ROOT_GIVE] = best_piece
                    if v > alpha:
                        alpha = v
                if alpha >= beta:
                    break
                continue
            # place
            bit = 1 << c
            ncg = W[CNG + c]
            for j in range(ncg):
                g = W[CGROUPS + 8 * c + j]
                W[sv + j] = W[GSHR + g]
                W[GSHR + g] &= vh
                W[GCNT + g] += 1
            n0 = a0 | bit if hand & 1 else a0
            n1 = a1 | bit if hand & 2 else a1
            n2 = a2 | bit if hand & 4 else a2
            n3 = a3 | bit if hand & 8 else a3
            nocc = occ | bit
            first = -1
            if c == tt_cell and tt_piece >= 0 and (safe >> tt_piece) & 1:
                first = tt_piece
            rest = safe
            seen = np.int64(0)  # pieces already tried (for the beginner variant's duplicates)
            step = 0
            while True:
                if step == 0 and first >= 0:
                    q = first
                    rest &= ~(1 << q)
                else:
                    if rest == 0:
                        break
                    q = _lowbit_index(rest)
                    rest &= rest - 1
                step += 1
                if dedupe:
                    same = _same_as_seen(W, seen, q)
                    seen |= 1 << q
                    if same:
                        continue
                v = -negamax(W, TT, e - 1, -beta, -alpha, q, avail & ~(1 << q), nocc, n0, n1, n2, n3, deadline)
                if W[ABORT]:
                    break
                if v > best:
                    best = v
                    best_cell = c
                    best_piece = q
                    if is_root:
                        W[ROOT_CELL] = c
                        W[ROOT_GIVE] = q
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            for j in range(ncg):  # take back
                g = W[CGROUPS + 8 * c + j]
                W[GSHR + g] = W[sv + j]
                W[GCNT + g] -= 1
            if W[ABORT]:
                return 0
            if alpha >= beta:
                break

    if use_tt:
        if alpha0 < best < beta:
            lo = best
            hi = best
        elif best <= alpha0:
            lo = -INF
            hi = best
        else:
            lo = best
            hi = INF
        age = W[AGE]
        if slot >= 0 and TT[3 * slot] == k1 and TT[3 * slot + 1] == k2 and (TT[3 * slot + 2] >> 32) & 0xFFFF == age:
            old = TT[3 * slot + 2]
            lo = max(lo, (old & 255) - 128)
            hi = min(hi, ((old >> 8) & 255) - 128)
        else:
            b = _bucket(k1, k2, nslots)
            # slot b keeps the entry nearer the root, slot b + 1 takes the rest
            info_b = TT[3 * b + 2]
            if (info_b >> 32) & 0xFFFF != age or (info_b >> 48) <= e:
                slot = b
            else:
                slot = b + 1
        mv = _to_frame(W, e, best_cell, best_piece) if best_cell >= 0 else -1
        TT[3 * slot] = k1
        TT[3 * slot + 1] = k2
        TT[3 * slot + 2] = (lo + 128) | ((hi + 128) << 8) | ((mv + 1) << 16) | (age << 32) | (np.int64(e) << 48)
    return best
