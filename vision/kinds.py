"""The two kinds of a piece set's colours on one board, and what they say about dark.

A set comes in two colours, and "dark" is the darker of the two (../shared/QUARTO.md).
Where the two differ mostly in lightness, the piece network reads dark well by itself.
Where they differ mostly in hue and little in lightness (green and red, red and blue
paint), the network's lightness reading is unsure piece by piece and the light in the
room can tip it either way; but the pieces of one kind are still alike, so the board's
pieces fall into two groups by colour. :func:`hue_kinds_log_odds` then tells every piece
of one group the same thing: the group the network reads darker on the whole is dark.
"""

from __future__ import annotations

import numpy as np

#: the body colours' kinds are told by hue when their means differ in lightness (L*) by
#: less than this share of their difference in a*, b*
HUE_GATE = 0.5
#: log odds of dark each piece's kind adds to its own reading (not a certainty: a piece's
#: body colour may be caught in shade or on a neighbour)
HUE_WEIGHT = 2.0


def two_groups(x: np.ndarray, rank: np.ndarray, least: int = 2,
               share: float = 0.5) -> tuple[np.ndarray, np.ndarray] | None:
    """Two-means of the rows of ``x`` (n, d), started from the rows lowest and highest in
    ``rank`` (n,): ``(high, centres)``, ``high`` (n,) bool for the rows nearer the group
    started from the highest, ``centres`` (2, d) the low group's mean and the high one's;
    ``None`` when a group would hold fewer than ``least`` rows or a row is not clearly
    nearer its own group (farther than ``share`` of its distance to the other mean)."""
    x = np.asarray(x, float)
    if len(x) < 2 * least:
        return None
    centres = np.stack([x[rank.argmin()], x[rank.argmax()]])
    for _ in range(10):
        high = np.linalg.norm(x - centres[1], axis=1) < np.linalg.norm(x - centres[0], axis=1)
        if min(high.sum(), (~high).sum()) < least:
            return None  # one piece alone is no kind of the set: a glint or a shadow, maybe
        centres = np.stack([x[~high].mean(0), x[high].mean(0)])
    own = np.linalg.norm(x - centres[np.where(high, 1, 0)], axis=1)
    other = np.linalg.norm(x - centres[np.where(high, 0, 1)], axis=1)
    if (own > share * other).any():
        return None  # a piece between the groups: a shaded or glossy one, a silhouette found in part
    return high, centres


def hue_kinds_log_odds(lab: np.ndarray, occupied: np.ndarray, dark_prob: np.ndarray,
                       gate: float = HUE_GATE, weight: float = HUE_WEIGHT) -> np.ndarray:
    """``(16,)`` log odds of dark to add to each cell's reading from its piece's kind:
    ``lab`` (16, 3) the body colours (CIE Lab) of the cells, ``occupied`` (16,) bool,
    ``dark_prob`` (16,) the reading's probability of dark. Zero everywhere unless the
    pieces fall clearly into two colour groups (:func:`two_groups`, 2 or more each) whose
    means differ in lightness by less than ``gate`` times their difference in hue; then
    ``+weight`` for the group the reading's mean log odds put darker, ``-weight`` for the
    other."""
    out = np.zeros(16)
    idx = np.flatnonzero(occupied)
    if len(idx) < 4:
        return out
    x = np.asarray(lab, float)[idx]
    got = two_groups(x, -x[:, 0])
    if got is None:
        return out
    high, centres = got
    d_light = abs(centres[1, 0] - centres[0, 0])
    d_hue = float(np.hypot(*(centres[1, 1:] - centres[0, 1:])))
    if d_light >= gate * d_hue:
        return out  # lightness tells the two apart: the network reads that itself
    logit = _log_odds(np.asarray(dark_prob, float)[idx], 0.02)  # capped: one sure piece must not decide
    high_darker = logit[high].mean() > logit[~high].mean()
    out[idx] = weight * np.where(high == high_darker, 1.0, -1.0)
    return out


def dark_with_hue_kinds(dark_prob: np.ndarray, lab: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """``(16,)`` the probabilities of dark ``dark_prob`` with :func:`hue_kinds_log_odds`
    added to their log odds (unchanged where it says nothing, as it does for body colours
    not measured: all zero)."""
    dark_prob = np.asarray(dark_prob, float)
    add = hue_kinds_log_odds(lab, occupied, dark_prob)
    if not add.any():
        return dark_prob
    return 1.0 / (1.0 + np.exp(-(_log_odds(dark_prob, 1e-6) + add)))


def _log_odds(p: np.ndarray, cap: float) -> np.ndarray:
    """Log odds of ``p`` kept within ``cap`` .. 1 - ``cap``."""
    p = np.clip(p, cap, 1 - cap)
    return np.log(p / (1 - p))
