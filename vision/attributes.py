"""From per-cell features to attribute probabilities, and learning that mapping without labels.

A model per attribute (``"occupied"``, ``"tall"``, ``"dark"``, ``"square"``, ``"hollow"``) is
a logistic regression on a few named features (see ``vision.features.FEATURE_NAMES``):
``p = 1 / (1 + exp(-(coef . (x - mean) / scale + intercept)))``. Models are plain dicts
inside ``VisionSettings.attributes`` so a profile file carries them.

``fit_unsupervised`` learns the four piece attributes from boards on which all 16 pieces
stand, with no labels, from what the game guarantees: each attribute splits the 16 pieces
8/8, and the 16 pieces are all different.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
from dataclasses import dataclass, field

import numpy as np

#: the four piece attributes, in bit order (1 tall, 2 dark, 4 square, 8 hollow)
PIECE_ATTRIBUTES = ("tall", "dark", "square", "hollow")
#: every model a profile holds
MODEL_NAMES = ("occupied",) + PIECE_ATTRIBUTES

#: for unsupervised learning: the feature that by construction orders the pieces of an
#: attribute (sign +1: larger means the attribute is set), and the features its model uses
PRIMARY_FEATURE = {
    "tall": ("height_any_rel", +1.0),
    "dark": ("lightness_rel", -1.0),
    "square": ("squareness", +1.0),
    "hollow": ("cup", +1.0),
}
MODEL_FEATURES = {
    "occupied": ("occupancy", "foot_contrast", "column_contrast", "patch_dev", "patch_var", "outline_far_ratio"),
    "tall": ("height_any_rel", "height_any", "column_top_rel", "height"),
    "dark": ("lightness_rel", "lightness", "lightness_top"),
    "square": ("squareness", "side_edges", "top_fill"),
    "hollow": ("cup", "cup_ratio"),
}

DEFAULT_MODELS_FILE = os.path.join(os.path.dirname(__file__), "default_models.json")


class ModelError(ValueError):
    """An attribute model dict that cannot be used."""


@dataclass
class AttributeModel:
    """Logistic regression on named features. ``predict_proba`` takes ``(N, D)`` features
    laid out as ``feature_names`` (all of ``FEATURE_NAMES``) and returns ``(N,)``
    probabilities that the attribute is set.

    A *stacked* model (``base`` set; what calibration writes when it adapts a default
    model to one piece set) scores ``coef[0] * base_logit + coef[1:] . (x - mean) / scale
    + intercept``: ``base_logit`` is the ``base`` model's score (``decision``), and
    ``features``/``mean``/``scale`` describe only the few named features added to it.
    Its dict form is the plain one plus ``"base": {model dict}``; plain dicts (no
    ``"base"``) read exactly as before.

    A plain model may have one *hidden layer* (what the built-in default models trained
    on many rendered sets use, ``vision.training``): ``coef . relu(z @ W + b) +
    intercept`` with ``z = (x - mean) / scale``. In the dict: ``"hidden": {"units": n,
    "weights": base64 of W as little-endian float16 (features x units, row-major),
    "bias": [n floats]}``; ``coef`` then has ``n`` entries.
    """

    name: str
    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float = 0.0
    #: how cleanly the classes separated when this model was learned (d', larger is better)
    separation: float | None = None
    extra: dict = field(default_factory=dict)
    #: the model whose score a stacked model builds on (``None``: a plain model)
    base: "AttributeModel | None" = None
    #: hidden layer ``(W (features, units), b (units,))`` of a plain model, or ``None``
    hidden: "tuple[np.ndarray, np.ndarray] | None" = None

    def decision(self, X: np.ndarray, feature_names) -> np.ndarray:
        """``(N,)`` scores (log-odds that the attribute is set)."""
        idx = self._columns(feature_names)
        if self.hidden is not None:
            # float32 arrays made once (W came as float16): the product is most of the cost
            mean, inv, W, b, coef = self._arrays()
            z = ((np.asarray(X, np.float32)[:, idx] - mean) * inv) @ W + b
            return np.maximum(z, 0.0).astype(np.float64) @ coef + self.intercept
        mean, scale, coef = self._plain_arrays()
        z = (np.asarray(X, float)[:, idx] - mean) / scale
        if self.base is None:
            return z @ coef + self.intercept
        if coef[0] == 0.0:
            # the base has no weight (a stack at network weight 1, the network alone:
            # ``bench/pieces_eval.py --net-weight 1``): its measurements need not be made
            return z @ coef[1:] + self.intercept
        return coef[0] * self.base.decision(X, feature_names) + z @ coef[1:] + self.intercept

    def uses(self) -> set[str]:
        """The features this model's score depends on (a base without weight adds none)."""
        own = set(self.features)
        if self.base is not None and float(self.coef[0]) != 0.0:
            own |= self.base.uses()
        return own

    def _arrays(self):
        """A hidden-layer model's numbers as float32 arrays, cached: ``(mean, 1 / scale, W,
        b, output weights (float64))``."""
        cache = getattr(self, "_array_cache", None)
        if cache is None:
            W, b = self.hidden
            cache = (np.asarray(self.mean, np.float32), (1.0 / np.asarray(self.scale, float)).astype(np.float32),
                     W.astype(np.float32), b.astype(np.float32), np.asarray(self.coef, float))
            self._array_cache = cache
        return cache

    def _plain_arrays(self):
        """A model's ``(mean, scale, coef)`` as float64 arrays, cached (lists of ~1900
        numbers cost ~0.1 ms each to convert)."""
        cache = getattr(self, "_plain_cache", None)
        if cache is None:
            cache = (np.asarray(self.mean, float), np.asarray(self.scale, float), np.asarray(self.coef, float))
            self._plain_cache = cache
        return cache

    def predict_proba(self, X: np.ndarray, feature_names) -> np.ndarray:
        s = self.decision(X, feature_names)
        return 1.0 / (1.0 + np.exp(-np.clip(s, -40, 40)))

    def _columns(self, feature_names) -> "slice | np.ndarray":
        """Column of each of the model's features in ``feature_names`` (cached: models
        on crop features have over a thousand)."""
        key = tuple(feature_names)
        cache = getattr(self, "_col_cache", None)
        if cache is None or cache[0] != key:
            pos = {n: i for i, n in enumerate(key)}
            try:
                cols = np.array([pos[f] for f in self.features], np.intp)
            except KeyError as e:
                raise ModelError(f"model {self.name!r} uses unknown feature {e.args[0]!r}") from None
            if len(cols) and np.array_equal(cols, np.arange(cols[0], cols[0] + len(cols))):
                # one run of columns (the usual case: a model on all crop features) is a
                # slice, a view instead of a gathered copy: ~0.2 ms less per model and frame
                cols = slice(int(cols[0]), int(cols[0]) + len(cols))
            cache = (key, cols)
            self._col_cache = cache
        return cache[1]

    def to_dict(self) -> dict:
        d = {
            "features": list(self.features),
            "mean": [float(v) for v in self.mean],
            "scale": [float(v) for v in self.scale],
            "coef": [float(v) for v in self.coef],
            "intercept": float(self.intercept),
        }
        if self.separation is not None:
            d["separation"] = float(self.separation)
        if self.extra:
            d["extra"] = self.extra
        if self.base is not None:
            d["base"] = self.base.to_dict()
        if self.hidden is not None:
            W, b = self.hidden
            d["hidden"] = {"units": int(W.shape[1]),
                           "weights": base64.b64encode(np.asarray(W, "<f2").tobytes()).decode("ascii"),
                           "bias": [float(v) for v in b]}
        return d

    @classmethod
    def from_dict(cls, d, name: str = "?", _depth: int = 0) -> "AttributeModel":
        from vision.features import FEATURE_INDEX

        if not isinstance(d, dict):
            raise ModelError(f"attribute model {name!r} must be an object, not {d!r:.80}")
        base = None
        if d.get("base") is not None:
            if _depth >= MAX_STACK_DEPTH:
                raise ModelError(f"attribute model {name!r} stacks more than {MAX_STACK_DEPTH} models on each other")
            base = cls.from_dict(d["base"], name=name, _depth=_depth + 1)
        try:
            feats = list(d["features"])
            n = len(feats)
            hidden = None if d.get("hidden") is None else _hidden_layer(d["hidden"], n)
            m = cls(
                name=name,
                features=feats,
                mean=[float(v) for v in d["mean"]],
                scale=[float(v) for v in d["scale"]],
                coef=[float(v) for v in d["coef"]],
                intercept=float(d.get("intercept", 0.0)),
                separation=None if d.get("separation") is None else float(d["separation"]),
                extra=dict(d.get("extra", {})),
                base=base,
                hidden=hidden,
            )
        except (KeyError, TypeError, ValueError, binascii.Error) as e:
            raise ModelError(f"attribute model {name!r} is malformed ({e}): {json.dumps(d)[:120]}") from None
        unknown = [f for f in feats if f not in FEATURE_INDEX]
        if unknown:
            raise ModelError(f"attribute model {name!r} uses unknown feature {unknown[0]!r}")
        if hidden is not None and base is not None:
            raise ModelError(f"attribute model {name!r}: a stacked model cannot have a hidden layer")
        n_coef = n + (base is not None) if hidden is None else hidden[0].shape[1]
        if not (len(m.mean) == len(m.scale) == n and len(m.coef) == n_coef) or any(s <= 0 for s in m.scale):
            raise ModelError(f"attribute model {name!r} has mismatched lengths or a non-positive scale"
                             + (" (a stacked model has one coefficient more than features: the base's)"
                                if base is not None else ""))
        if not all(math.isfinite(v) for v in m.mean + m.scale + m.coef + [m.intercept]) or (
                hidden is not None and not (np.isfinite(hidden[0]).all() and np.isfinite(hidden[1]).all())):
            raise ModelError(f"attribute model {name!r} holds a non-finite number")
        return m


def _hidden_layer(h, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """``(W, b)`` from a model dict's ``"hidden"`` entry (see :class:`AttributeModel`)."""
    units = int(h["units"])
    W = np.frombuffer(base64.b64decode(h["weights"], validate=True), "<f2").astype(np.float64)
    b = np.asarray([float(v) for v in h["bias"]])
    if units < 1 or W.size != n_features * units or b.shape != (units,):
        raise ValueError(f"hidden layer of {units} units does not fit {n_features} features")
    return W.reshape(n_features, units), b


#: how many stacked models may build on each other (each calibration from a calibrated
#: profile adds one)
MAX_STACK_DEPTH = 4


def models_from_dict(models: dict) -> dict[str, AttributeModel]:
    """``VisionSettings.attributes`` -> name -> :class:`AttributeModel`."""
    return {name: AttributeModel.from_dict(d, name=name) for name, d in models.items()}


def _hand_set_models() -> dict:
    """Physically motivated defaults used until a trained default file exists: one
    feature per attribute with its expected decision point (see ``vision.features``)."""
    thresholds = {
        "occupied": ("occupancy", 0.5, 0.15, +1),
        "tall": ("column_top", 1.05, 0.2, +1),
        "dark": ("lightness", 0.0, 0.15, -1),
        "square": ("squareness", 0.5, 0.1, +1),
        "hollow": ("cup", 0.0, 0.1, +1),
    }
    return {
        name: {"features": [f], "mean": [mid], "scale": [sc], "coef": [4.0 * sign], "intercept": 0.0}
        for name, (f, mid, sc, sign) in thresholds.items()
    }


def default_models_dict() -> dict:
    """The built-in default models: the trained file shipped beside this module when
    present, else hand-set thresholds."""
    if os.path.exists(DEFAULT_MODELS_FILE):
        with open(DEFAULT_MODELS_FILE, encoding="utf-8") as f:
            return json.load(f)["models"]
    return _hand_set_models()


#: weight of the piece network's logit when it is averaged with a model's score (the shipped
#: models' weight: chosen among 0.3 / 0.5 / 0.7 / 1.0 on held-out renders, docs/vision.md)
NET_WEIGHT = 0.7


def with_net(models: dict, weight: float = NET_WEIGHT) -> dict:
    """Model dicts (``VisionSettings.attributes``) that average each model's score with the
    convolutional piece network's logit for the same attribute (feature ``net_<name>``,
    ``vision.net``): a stacked model, ``(1 - weight) * base score + weight * net logit``.
    A model that already is such an average is rebuilt on its own base, so this can be
    applied again (e.g. after the network was retrained) without stacking twice."""
    out = {}
    for name, d in models.items():
        base = d["base"] if d.get("extra", {}).get("net_weight") is not None else d
        out[name] = {"features": [f"net_{name}"], "mean": [0.0], "scale": [1.0],
                     "coef": [round(1.0 - weight, 9), weight], "intercept": 0.0, "base": base,
                     "extra": {"net_weight": weight}}
    return out


def network_models() -> dict[str, AttributeModel]:
    """Models that read every attribute from the piece network's logit alone (feature
    ``net_<name>``): the per-frame step's reading (``VisionSettings.pieces.step_networks_only``)."""
    return models_from_dict({n: {"features": [f"net_{n}"], "mean": [0.0], "scale": [1.0], "coef": [1.0],
                                 "intercept": 0.0} for n in MODEL_NAMES})


def networks_only(models: dict[str, AttributeModel]) -> bool:
    """Whether ``models`` read the pieces from the piece network's logits alone (features
    ``net_*``), so that the hand-made measurements need not be made
    (``vision.features.features_from_work(..., only_net=True)``)."""
    return all(f.startswith("net_") for m in models.values() for f in m.uses())


def predict_proba(features: np.ndarray, models: dict[str, AttributeModel]) -> np.ndarray:
    """``(16, D)`` features -> ``(16, 5)`` probabilities, columns ``MODEL_NAMES``
    (occupied, tall, dark, square, hollow)."""
    from vision.features import FEATURE_NAMES

    return np.stack([models[n].predict_proba(features, FEATURE_NAMES) for n in MODEL_NAMES], axis=1)


# --- supervised fitting (building the default profile from rendered truth) -------------
def _standardised(name: str, X: np.ndarray, y: np.ndarray, features):
    """The columns a model uses (``features``, default ``MODEL_FEATURES[name]``) of ``(N, D)``
    features, standardised: ``(features, mean, scale, Z, y as int)``."""
    from vision.features import FEATURE_NAMES

    features = list(features or MODEL_FEATURES[name])
    idx = [FEATURE_NAMES.index(f) for f in features]
    Xs = np.asarray(X, float)[:, idx]
    mean = Xs.mean(0)
    scale = Xs.std(0) + 1e-6
    y = np.asarray(y).astype(int)
    if len(set(y.tolist())) < 2:
        raise ModelError(f"cannot fit {name!r}: all examples have the same label")
    return features, mean, scale, (Xs - mean) / scale, y


def fit_logistic(name: str, X: np.ndarray, y: np.ndarray, features=None, C: float = 1.0) -> AttributeModel:
    """Fit one model on ``(N, D)`` features (all ``FEATURE_NAMES``) and ``(N,)`` 0/1 labels."""
    from sklearn.linear_model import LogisticRegression

    features, mean, scale, Z, y = _standardised(name, X, y, features)
    lr = LogisticRegression(C=C, max_iter=1000)
    lr.fit(Z, y)
    s = Z @ lr.coef_[0] + lr.intercept_[0]
    return AttributeModel(
        name=name, features=features, mean=mean.tolist(), scale=scale.tolist(),
        coef=lr.coef_[0].tolist(), intercept=float(lr.intercept_[0]), separation=_dprime(s, y),
    )


def fit_hidden(name: str, X: np.ndarray, y: np.ndarray, features=None, units: int = 64, alpha: float = 1.0,
               seed: int = 0, ensemble: int = 1) -> AttributeModel:
    """Like :func:`fit_logistic` with one hidden layer of ``units`` ReLUs (scikit-learn's
    ``MLPClassifier``, L2 penalty ``alpha``, a tenth of the examples held back to stop
    early; seeded). ``ensemble`` > 1 trains that many networks (seeds ``seed``,
    ``seed + 1`` ...) and averages their scores, which is again one hidden layer (their
    units side by side, output weights divided by ``ensemble``): steadier than one
    network, whose result varies with its seed. The weights are stored as float16, so
    the model is scored as it will be read back."""
    from sklearn.neural_network import MLPClassifier

    from vision.features import FEATURE_NAMES

    features, mean, scale, Z, y = _standardised(name, X, y, features)
    nets = []
    for k in range(ensemble):
        net = MLPClassifier((units,), alpha=alpha, max_iter=300, early_stopping=True, validation_fraction=0.1,
                            n_iter_no_change=30, random_state=seed + k)
        nets.append(net.fit(Z, y))
    W = np.hstack([n.coefs_[0] for n in nets]).astype("<f2").astype(np.float64)
    m = AttributeModel(
        name=name, features=features, mean=mean.tolist(), scale=scale.tolist(),
        coef=(np.concatenate([n.coefs_[1][:, 0] for n in nets]) / ensemble).tolist(),
        intercept=float(np.mean([n.intercepts_[1][0] for n in nets])),
        hidden=(W, np.concatenate([n.intercepts_[0] for n in nets]).astype(np.float64)),
    )
    m.separation = _dprime(m.decision(X, FEATURE_NAMES), y)
    return m


def _dprime(score: np.ndarray, y: np.ndarray) -> float:
    """Separation of two classes along a score: (mean1 - mean0) / pooled std."""
    a, b = score[y == 1], score[y == 0]
    if len(a) < 2 or len(b) < 2:
        return 0.0
    pooled = math.sqrt(0.5 * (a.var() + b.var())) + 1e-9
    return float((a.mean() - b.mean()) / pooled)


# --- unsupervised fitting (calibration) ---------------------------------------------------
def _balanced_split(score: np.ndarray) -> np.ndarray:
    """``(16,)`` scores -> ``(16,)`` 0/1 labels with the 8 largest set."""
    y = np.zeros(len(score), int)
    y[np.argsort(-score, kind="stable")[: len(score) // 2]] = 1
    return y


def fit_unsupervised(feature_sets: list[np.ndarray], iterations: int = 4, min_separation: float = 2.5):
    """Learn tall/dark/square/hollow from boards on which all 16 pieces stand, with no labels.

    ``feature_sets``: list of ``(16, D)`` arrays (``vision.features.cell_features`` of one
    board each, all 16 cells occupied). Returns ``(models, report)``:

    - ``models``: attribute name -> model dict (for ``VisionSettings.attributes``); the
      ``"occupied"`` model is not learned here and is absent.
    - ``report``: attribute name -> ``{"separation": d', "gap": g, "clean": bool,
      "features": [...], "distinct_boards": k}`` where d' is the distance between the two
      classes' mean scores in pooled standard deviations, ``gap`` the smallest margin
      between the 8th and 9th piece of any board in those units (negative = overlap), and
      ``clean`` says whether the classes separated well enough to trust (d' at least
      ``min_separation`` and a positive gap).

    How: on every board, the primary feature of each attribute (height, lightness,
    squareness, cup depth) ranks the 16 pieces and the top 8 get the attribute; a
    logistic model on the attribute's features is fitted to those labels over all boards,
    its scores re-rank the pieces 8/8 per board, and this repeats. Finally the 16
    pieces of each board are assigned jointly (all different) and the models are refitted
    to those labels.
    """
    from vision.assign import assign_pieces
    from vision.features import FEATURE_NAMES

    boards = [np.asarray(f, float) for f in feature_sets]
    if not boards:
        raise ValueError("fit_unsupervised needs at least one board with all 16 pieces")
    for i, f in enumerate(boards):
        if f.shape != (16, len(FEATURE_NAMES)) or not np.all(np.isfinite(f)):
            raise ValueError(f"feature set {i} has shape {f.shape} or non-finite values; expected (16, {len(FEATURE_NAMES)})")
    X = np.concatenate(boards)

    labels: dict[str, np.ndarray] = {}
    for attr in PIECE_ATTRIBUTES:
        feat, sign = PRIMARY_FEATURE[attr]
        j = FEATURE_NAMES.index(feat)
        labels[attr] = np.concatenate([_balanced_split(sign * b[:, j]) for b in boards])

    models: dict[str, AttributeModel] = {}
    for _ in range(iterations):
        for attr in PIECE_ATTRIBUTES:
            m = _fit_or_primary(attr, X, labels[attr])
            models[attr] = m
            s = _logit(m.predict_proba(X, FEATURE_NAMES))
            labels[attr] = np.concatenate([_balanced_split(s[16 * k : 16 * k + 16]) for k in range(len(boards))])

    # joint step: the 16 pieces of a board are all different
    new = {a: [] for a in PIECE_ATTRIBUTES}
    distinct_before = 0
    for k, b in enumerate(boards):
        probs = np.stack([models[a].predict_proba(b, FEATURE_NAMES) for a in PIECE_ATTRIBUTES], 1)
        codes = {int(sum((probs[i, j] > 0.5) << j for j in range(4))) for i in range(16)}
        distinct_before += len(codes) == 16
        pieces = assign_pieces(np.ones(16), probs)
        for j, a in enumerate(PIECE_ATTRIBUTES):
            new[a].append(np.array([(p >> j) & 1 for p in pieces]))
    report = {}
    out = {}
    for attr in PIECE_ATTRIBUTES:
        y = np.concatenate(new[attr])
        m = _fit_or_primary(attr, X, y)
        s = _logit(m.predict_proba(X, FEATURE_NAMES))
        gaps = []
        for k in range(len(boards)):
            sk, yk = s[16 * k : 16 * k + 16], y[16 * k : 16 * k + 16]
            if yk.sum() and (1 - yk).sum():
                gaps.append(float(sk[yk == 1].min() - sk[yk == 0].max()))
        d = _dprime(s, y)
        pooled = _pooled_std(s, y)
        gap = min(gaps) / pooled if gaps else 0.0
        m.separation = d
        out[attr] = m.to_dict()
        report[attr] = {
            "separation": round(d, 2),
            "gap": round(gap, 2),
            "clean": bool(d >= min_separation and gap > 0),
            "features": list(m.features),
            "distinct_boards": distinct_before,
        }
    return out, report


def _pooled_std(s, y):
    a, b = s[y == 1], s[y == 0]
    return math.sqrt(0.5 * (a.var() + b.var())) + 1e-9


def _logit(p):
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return np.log(p / (1 - p))


def _fit_or_primary(attr, X, y) -> AttributeModel:
    """Logistic model on the attribute's features; strongly regularised because a
    calibration has only 16-48 examples."""
    return fit_logistic(attr, X, y, C=0.5)
