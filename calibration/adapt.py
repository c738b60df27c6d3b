"""Adapting the default attribute models to one piece set, from unlabelled photos of all 16 pieces.

The default models (``vision.settings.VisionSettings().attributes``, trained by vision
on many rendered sets) already tell tall from short, dark from light ... roughly on a
new set; calibration makes them fit *this* set, light and camera, without labels:

1. on every calibration photo, the default models' per-cell probabilities are turned
   into the 16 pieces jointly (all different, each attribute 8/8: the Hungarian method,
   ``vision.assign``): these are the pseudo-labels;
2. per attribute, a small *stacked* model is fitted to them over all photos (the same
   physical set: the photos share the models): a logistic regression on [the default's
   score, a few hand-made measurements of ``ADAPT_FEATURES``], whose penalty pulls it
   towards the default (coefficient 1 on the default's score, 0 on the measurements), so
   16-48 pieces can only nudge it;
3. the stacked models re-assign the pieces of every photo, and 2-3 repeat until the
   labels stop changing (EM style).

A second start comes from the measurements alone (each attribute's main measurement,
``vision.attributes.PRIMARY_FEATURE``, split 8/8 per photo): when the default models do
not know the set at all, that start finds the classes and the default's score adds
nothing. It wins only when its models separate the classes ``MEASUREMENTS_MARGIN`` times
better (cross-validated d') than the default's start.

Finally each attribute keeps one of three forms, chosen by the log-likelihood of the
labels on pieces left out of the fit: the default **unchanged**, the default
**rescaled** (its score with this set's scale and offset), or **adapted** (stacked with
the measurements); a fitted form must beat the simpler one by ``MIN_GAIN_LOSS``. The
report says which form each attribute got, and why.

The stacked fit is a logistic regression whose L2 penalty is centred on the default
rather than on zero, which scikit-learn's ``LogisticRegression`` cannot express; it is
solved here by Newton's method (:func:`fit_towards`): a few columns, 16-48 rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision.assign import assign_pieces
from vision.attributes import MAX_STACK_DEPTH, PIECE_ATTRIBUTES, PRIMARY_FEATURE, models_from_dict

#: hand-made measurements (``vision.features``) added to the default's score, per attribute:
#: few and robust, each relative to the board where vision offers that
ADAPT_FEATURES = {
    "tall": ("height_any_rel", "column_top_rel", "edge_top_rel", "height"),
    "dark": ("lightness_rel", "lightness_top", "crop_L_rel", "crop_a_rel", "crop_b_rel"),
    "square": ("squareness", "side_edges", "top_fill"),
    "hollow": ("cup", "cup_ratio"),
}
#: penalty on (coefficient of the default's score - 1)^2, and on each measurement's
#: coefficient^2 (measurements standardised over the calibration pieces); the loss is
#: summed over the pieces, so 32 pieces of two photos weigh 32 against these. Not
#: critical: over 8 settings of these two and MIN_GAIN_LOSS (0.3-3, 0.8-1.0) the
#: development sessions read 34.4-39.1 % of pieces fully right (37.7 % with these)
PRIOR_BASE = 1.0
PRIOR_FEATURES = 1.0
#: a tiny penalty on the intercept keeps it finite when a class separates perfectly
PRIOR_INTERCEPT = 1e-3
#: the start from the measurements alone wins only when its models separate the classes
#: this many times better (summed cross-validated d') than the start from the default:
#: its labels agree with the measurements by construction, which flatters them, and on
#: rendered sets the default's start was the better one whenever the default knew the set
MEASUREMENTS_MARGIN = 2.0
#: EM rounds at most (labels usually stop changing after 2-3)
MAX_ROUNDS = 8
#: a fitted form (the default rescaled, then adapted with measurements) replaces the
#: simpler one only when its log-loss on pieces left out of the fit is below this share
#: of the simpler one's (against the same labels)
MIN_GAIN_LOSS = 0.95


@dataclass
class Adaptation:
    """What :func:`adapt_models` found.

    ``models``  attribute -> model dict for ``VisionSettings.attributes`` (a stacked
                model, or the default's own dict when it was kept).
    ``report``  attribute -> ``{"separation", "gap", "clean", "features", "model",
                "default_separation", "note"}`` (see :func:`adapt_models`).
    ``pieces``  per photo, the 16 pieces of the final joint assignment.
    ``start``   which start won: ``"default"`` or ``"measurements"``.
    ``rounds``  EM rounds run from the winning start.
    ``notes``   one line per start: its rounds and cross-validated separations.
    """

    models: dict[str, dict]
    report: dict[str, dict]
    pieces: list[list[int]]
    start: str = "default"
    rounds: int = 0
    notes: list[str] = field(default_factory=list)


def _bits(pieces) -> np.ndarray:
    return np.array([[(int(p) >> j) & 1 for j in range(4)] for p in pieces], float)


def _sigmoid(s: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(s, -40, 40)))


def fit_towards(b: np.ndarray, Z: np.ndarray, y: np.ndarray, prior_base: float | None = None,
                prior_features: float | None = None) -> np.ndarray:
    """Logistic regression of ``y`` (0/1) on ``[b, Z, 1]`` whose L2 penalty is centred on
    the default model (weights ``(1, 0, ..., 0, 0)``): ``b`` is the default's score,
    ``Z`` standardised measurements. Returns the weights ``[w_b, w_Z..., intercept]``.

    scikit-learn's ``LogisticRegression`` can only shrink towards 0, so this small
    convex problem (16-48 rows, a few columns) is solved here by Newton's method with
    step halving: a few microseconds per fit, exact to 1e-8.
    """
    prior_base = PRIOR_BASE if prior_base is None else prior_base
    prior_features = PRIOR_FEATURES if prior_features is None else prior_features
    n, k = Z.shape
    X = np.c_[b, Z, np.ones(n)]
    prior = np.r_[1.0, np.zeros(k), 0.0]
    lam = np.r_[prior_base, np.full(k, prior_features), PRIOR_INTERCEPT]
    t = 2.0 * np.asarray(y, float) - 1.0

    def loss(w):
        d = w - prior
        return np.logaddexp(0.0, -t * (X @ w)).sum() + (lam * d * d).sum()

    w = prior.copy()
    f = loss(w)
    for _ in range(50):
        p = _sigmoid(X @ w)
        grad = X.T @ (p - (t > 0)) + 2.0 * lam * (w - prior)
        hess = (X * (p * (1.0 - p))[:, None]).T @ X + np.diag(2.0 * lam)
        step = np.linalg.solve(hess, grad)
        for _ in range(30):
            w_new = w - step
            f_new = loss(w_new)
            if f_new <= f + 1e-12:
                break
            step = step / 2.0
        else:
            break
        converged = f - f_new < 1e-10 * max(1.0, abs(f))
        w, f = w_new, f_new
        if converged:
            break
    return w


def _dprime(score: np.ndarray, y: np.ndarray) -> float:
    """Separation of two classes along a score: (mean1 - mean0) / pooled std."""
    a, b = score[y == 1], score[y == 0]
    if len(a) < 2 or len(b) < 2:
        return 0.0
    return float((a.mean() - b.mean()) / (math.sqrt(0.5 * (a.var() + b.var())) + 1e-9))


def _photo_dprime(score: np.ndarray, y: np.ndarray) -> float:
    """d' within each photo (16 pieces), averaged over the photos: a score whose offset
    differs between photos (each scored by a model fitted without it) is not penalised."""
    return float(np.mean([_dprime(score[k:k + 16], y[k:k + 16]) for k in range(0, len(score), 16)]))


def _gap(score: np.ndarray, y: np.ndarray, nb: int) -> float:
    """The worst photo's margin between the classes (lowest score of a piece with the
    attribute minus highest without), in the score's pooled standard deviation: above 0,
    the score splits every photo's 16 pieces exactly as ``y`` does."""
    pooled = math.sqrt(0.5 * (score[y == 1].var() + score[y == 0].var())) + 1e-9
    return min(float(score[16 * k:16 * k + 16][y[16 * k:16 * k + 16] == 1].min()
                     - score[16 * k:16 * k + 16][y[16 * k:16 * k + 16] == 0].max()) for k in range(nb)) / pooled


def _clean(score: np.ndarray, y: np.ndarray, nb: int, min_separation: float) -> bool:
    """The classes separate well (d' at least ``min_separation``) and on every photo."""
    return bool(_photo_dprime(score, y) >= min_separation and _gap(score, y, nb) > 0)


class _Stack:
    """Standardised measurements of one attribute over the calibration pieces, and the
    stacked model's dict once fitted."""

    def __init__(self, attr: str, X: np.ndarray, feature_names):
        self.attr = attr
        pos = {n: i for i, n in enumerate(feature_names)}
        self.features = [f for f in ADAPT_FEATURES[attr] if f in pos]
        self.cols = [pos[f] for f in self.features]
        V = X[:, self.cols]
        self.mean = V.mean(0)
        self.scale = V.std(0)
        # a measurement that does not vary over the calibration pieces says nothing
        keep = self.scale > 1e-9
        self.features = [f for f, k in zip(self.features, keep) if k]
        self.cols = [c for c, k in zip(self.cols, keep) if k]
        self.mean, self.scale = self.mean[keep], self.scale[keep]

    def z(self, X: np.ndarray) -> np.ndarray:
        return (X[:, self.cols] - self.mean) / self.scale

    def model_dict(self, w: np.ndarray, base: dict) -> dict:
        return {"features": list(self.features), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": [float(v) for v in w[:-1]], "intercept": float(w[-1]), "base": base}


def adapt_models(feature_sets: list[np.ndarray], base_models: dict[str, dict], feature_names,
                 min_separation: float = 2.5) -> Adaptation:
    """Adapt ``base_models`` (attribute -> model dict, e.g. the default profile's) to the
    set shown on ``feature_sets`` (per photo, ``(16, D)`` ``vision.features.cell_features``
    of a board holding all 16 pieces). See the module text for how.

    ``report[attr]``: ``separation`` d' of the chosen model between the two classes of
    the final labels within each photo (for a fitted model cross-validated: each photo
    scored by a model fitted without it; over four folds of pieces with one photo),
    ``gap`` the smallest margin on any photo between the closest pieces of the two
    classes under the stored model, in pooled standard deviations (negative: they
    overlap), ``clean`` (d' >= ``min_separation`` and gap > 0), ``model`` which form was
    kept (``"default"`` unchanged, ``"rescaled"``: the default's score with this set's
    scale and offset, ``"adapted"``: stacked with measurements), ``default_separation``
    the default's d' against the same labels, and ``note`` saying why.
    """
    boards = [np.asarray(f, float) for f in feature_sets]
    if not boards:
        raise ValueError("adapt_models needs at least one board with all 16 pieces")
    for i, f in enumerate(boards):
        if f.shape != (16, len(feature_names)) or not np.all(np.isfinite(f)):
            raise ValueError(f"feature set {i} has shape {f.shape} or non-finite values; "
                             f"expected (16, {len(feature_names)})")
    X = np.concatenate(boards)
    nb = len(boards)
    base_models = {a: _shallow_enough(base_models[a]) for a in PIECE_ATTRIBUTES}
    base = models_from_dict(base_models)
    B = np.stack([base[a].decision(X, feature_names) for a in PIECE_ATTRIBUTES], 1)  # (16 nb, 4)
    stacks = {a: _Stack(a, X, feature_names) for a in PIECE_ATTRIBUTES}
    Zs = {a: stacks[a].z(X) for a in PIECE_ATTRIBUTES}

    def assign(S: np.ndarray) -> np.ndarray:
        """(16 nb, 4) scores -> (16 nb, 4) labels of the per-photo joint assignment."""
        return np.concatenate([_bits(assign_pieces(np.ones(16), _sigmoid(S[16 * k:16 * k + 16])))
                               for k in range(nb)])

    def Z(a, rows, form):
        return Zs[a][rows] if form is None else np.zeros((len(rows), 0))

    def fit_all(Y, rows=None, form=None):
        """attribute -> stacked weights; ``form="rescale"``: on the default's score alone."""
        rows = np.arange(len(X)) if rows is None else rows
        return {a: fit_towards(B[rows, j], Z(a, rows, form), Y[rows, j]) for j, a in enumerate(PIECE_ATTRIBUTES)}

    def scores(W, rows=None, form=None):
        rows = np.arange(len(X)) if rows is None else rows
        return np.stack([np.c_[B[rows, j], Z(a, rows, form), np.ones(len(rows))] @ W[a]
                         for j, a in enumerate(PIECE_ATTRIBUTES)], 1)

    def em(Y):
        W, rounds = None, 0
        for rounds in range(1, MAX_ROUNDS + 1):
            W = fit_all(Y)
            Y_new = assign(scores(W))
            if np.array_equal(Y_new, Y):
                break
            Y = Y_new
        return Y, W, rounds

    def folds():
        if nb >= 2:
            return [np.arange(16 * k, 16 * k + 16) for k in range(nb)]
        rng = np.random.default_rng(0)
        order = rng.permutation(16)
        return [np.sort(order[i::4]) for i in range(4)]

    def cross_scores(Y, W_of=None):
        """Scores of every piece by models fitted without its photo (its fold)."""
        S = np.zeros_like(B)
        for test in folds():
            train = np.setdiff1d(np.arange(len(X)), test)
            S[test] = scores(fit_all(Y, train, W_of), test, W_of)
        return S

    starts = {"default": assign(B)}
    notes = []
    pos = {n: i for i, n in enumerate(feature_names)}
    if all(PRIMARY_FEATURE[a][0] in pos for a in PIECE_ATTRIBUTES):
        starts["measurements"] = assign(_primary_scores(boards, pos))

    best = None
    for name, Y0 in starts.items():
        Y, W, rounds = em(Y0)
        S_cv = cross_scores(Y)
        cv = [_photo_dprime(S_cv[:, j], Y[:, j]) for j in range(4)]
        notes.append(f"start from the {name}: {rounds} rounds, separation on pieces left out "
                     + ", ".join(f"{a} {v:.1f}" for a, v in zip(PIECE_ATTRIBUTES, cv)))
        if best is None or sum(cv) > MEASUREMENTS_MARGIN * sum(best[4]):
            best = (name, Y, W, rounds, cv, S_cv)
    start, Y, W, rounds, cv, S_cv = best
    # the same fit on the default's score alone (its scale and offset for this set)
    S_rescaled = cross_scores(Y, W_of="rescale")
    W_rescaled = fit_all(Y, None, "rescale")

    models, report = {}, {}
    for j, a in enumerate(PIECE_ATTRIBUTES):
        y = Y[:, j]
        options = {  # name -> (scores of pieces, cross-validated where fitted)
            "default": B[:, j],
            "rescaled": S_rescaled[:, j],
            "adapted": S_cv[:, j],
        }
        loss = {k: _log_loss(v, y) for k, v in options.items()}
        choice = "default"
        # started from the default, the labels are its own reading of the photos: where it does
        # not split the pieces of every photo cleanly, fitting to them learns its mistakes (measured on the
        # held-out sessions, session 7: adapting tall seen from straight above cost 6 points)
        trusted = start != "default" or _clean(B[:, j], y, nb, min_separation)
        for k in ("rescaled", "adapted"):  # a fitted form must clearly beat the simpler ones
            if trusted and loss[k] < MIN_GAIN_LOSS * loss[choice]:
                choice = k
        s = options[choice]
        d = _photo_dprime(s, y)
        d_base = _photo_dprime(B[:, j], y)
        if choice == "adapted":
            models[a] = stacks[a].model_dict(W[a], dict(base_models[a]))
        elif choice == "rescaled":
            models[a] = {"features": [], "mean": [], "scale": [], "coef": [float(W_rescaled[a][0])],
                         "intercept": float(W_rescaled[a][1]), "base": dict(base_models[a])}
        else:
            models[a] = dict(base_models[a])
        losses = ", ".join(f"{k} {v:.3f}" for k, v in loss.items())
        note = {"default": (f"default kept: adapting did not clearly fit better (log-loss per piece left out of "
                            f"the fit: {losses})") if trusted else
                           ("default kept: its reading of the photos does not split this class cleanly, so there "
                            f"is nothing sure to learn from (log-loss per piece left out of the fit: {losses})"),
                "rescaled": f"default rescaled for this set (log-loss per piece left out of the fit: {losses})",
                "adapted": f"adapted (log-loss per piece left out of the fit: {losses})"}[choice]
        if choice != "default" and start != "default":
            note += "; classes found from the measurements alone, the default did not know this set"
        # the margin of the model as stored (fitted on all photos), in its own pooled std
        s = {"default": B[:, j], "rescaled": np.c_[B[:, j], np.ones(len(X))] @ W_rescaled[a],
             "adapted": np.c_[B[:, j], Zs[a], np.ones(len(X))] @ W[a]}[choice]
        gap = _gap(s, y, nb)
        if choice != "default":
            models[a]["separation"] = round(d, 3)
            models[a]["extra"] = {"calibration": choice}
        report[a] = {
            "separation": round(d, 2),
            "gap": round(gap, 2),
            "clean": bool(d >= min_separation and gap > 0),
            "features": ["default score"] + (stacks[a].features if choice == "adapted" else []),
            "model": choice,
            "default_separation": round(d_base, 2),
            "note": note,
        }
    pieces = [[int(sum(int(Y[16 * k + i, j]) << j for j in range(4))) for i in range(16)] for k in range(nb)]
    return Adaptation(models=models, report=report, pieces=pieces, start=start, rounds=rounds, notes=notes)


def _primary_scores(boards: list[np.ndarray], pos: dict) -> np.ndarray:
    """(16 nb, 4) scores from each attribute's main measurement alone (height, lightness,
    squareness, cup depth: ``vision.attributes.PRIMARY_FEATURE``), centred on each
    photo's median and scaled by its spread, so that each photo splits about 8/8."""
    out = []
    for f in boards:
        cols = []
        for a in PIECE_ATTRIBUTES:
            feat, sign = PRIMARY_FEATURE[a]
            v = sign * f[:, pos[feat]]
            spread = np.percentile(v, 75) - np.percentile(v, 25)
            cols.append(4.0 * (v - np.median(v)) / (spread + 1e-9))
        out.append(np.stack(cols, 1))
    return np.concatenate(out)


def _shallow_enough(model: dict) -> dict:
    """``model``, or when stacking on it would nest deeper than a profile may
    (``vision.attributes.MAX_STACK_DEPTH``: each calibration from a calibrated profile
    adds a level), the model that its oldest stacked level was built on."""
    chain = [model]
    while isinstance(chain[-1], dict) and chain[-1].get("base") is not None:
        chain.append(chain[-1]["base"])
    return model if len(chain) <= MAX_STACK_DEPTH else chain[-MAX_STACK_DEPTH]


def _log_loss(score: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of 0/1 labels ``y`` under ``sigmoid(score)``."""
    return float(np.mean(np.logaddexp(0.0, -(2.0 * y - 1.0) * score)))
