"""Learning a piece set and its light from photos of all 16 pieces on the board, without labels.

Stages, each a plain function:

1. :func:`examine_photo`: one photo -> a :class:`PhotoCheck` (board reading, per-cell
   features, or the reason the photo cannot be used: no board, something in the way,
   fewer than 16 pieces).
2. :func:`learn_profile`: the usable photos -> a new :class:`~calibration.profile.Profile`
   whose attribute models are the base profile's models adapted to the set by
   :func:`calibration.adapt.adapt_models` (the base's joint reading of each photo, where
   each attribute splits the 16 pieces 8/8 and all 16 are different, serves as labels;
   a class keeps the base model when adapting does not clearly help), checked for
   consistency (refused when the learned models are sure that a class does not split
   8/8 on a photo or that two cells hold the same piece), with warnings naming any
   class that separates poorly and what photo would help.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np

from .camera import prepare_frame
from .profile import Profile, _now

ATTRIBUTES = ("tall", "dark", "square", "hollow")
OPPOSITE = {"tall": "short", "dark": "light", "square": "round", "hollow": "solid"}
#: what photo helps each class separate (said in warnings and refusals)
ADVICE = {
    "tall": "take a photo from lower down (camera tilted 30-50 degrees from straight above) so heights show",
    "dark": "take a photo in brighter, even light, without coloured lamps or hard shadows",
    "square": "take a photo from higher up, with the square pieces turned at different angles",
    "hollow": "take a photo from higher up, with light from above so the cups on top show",
}
#: a full board may show a few pieces the base profile does not see (a green piece on green
#: felt: the set is new to it, which is why the user calibrates). Up to this many cells read
#: as empty are taken as pieces, trusting the user; the 8/8 and all-different checks after
#: learning still catch a missing piece that spoils the split. More empty-looking cells
#: than this is not a full board (or the pieces cannot be seen): refused.
MAX_DOUBTED_EMPTY = 4
#: separation (d': distance between the class means in pooled standard deviations) below
#: which a class is reported as barely separating even when every photo split 8/8: with
#: the boundary midway, one piece read alone is wrong with probability Phi(-d'/2), 0.13 %
#: at d' = 6, already a visible error rate over a game's 16 pieces x 4 attributes
WARN_SEPARATION = 6.0
#: a cell counts in the consistency checks (8/8 per class, 16 different pieces) only
#: where a model (the learned one, or the one calibration started from) is this sure of
#: an attribute (either way): a class that the photos separate poorly is warned about,
#: not held against the photos
SURE = 0.97
#: a photo is refused when at least this many pieces are surely on one side of a class,
UNEVEN = 11
#: or at least this many pairs of cells are surely the same piece (``_sure_problems``)
DUPLICATE_PAIRS = 3
#: a class is also warned about when the closest pieces of opposite classes on a photo
#: were nearer than this (in the same pooled standard deviations)
WARN_GAP = 0.5


class CalibrationRefused(ValueError):
    """The photos do not show 16 distinct pieces on a board; the message says why."""


@dataclass
class PhotoCheck:
    """One calibration photo after analysis.

    ``frame`` is the image analysis ran on (undistorted when the base profile has a
    camera model); ``reading`` a ``vision.reading.BoardReading`` in ``frame`` pixels;
    ``features`` (16, D) per-cell features (``vision.features.cell_features``), ``None``
    when the photo cannot be used, ``problem`` then says why; ``note`` says what was
    assumed (cells that looked empty, taken as pieces).
    """

    path: str
    frame: np.ndarray
    reading: object = None
    features: np.ndarray | None = None
    #: the features as read for each set size calibration weighs (:data:`SET_SIZES`), when
    #: it judges the size (the starting profile's ``pieces.set_size`` is "auto")
    features_by_size: dict = field(default_factory=dict)
    problem: str = ""
    note: str = ""
    seconds: float = 0.0

    @property
    def usable(self) -> bool:
        return not self.problem


@dataclass
class Calibration:
    """What :func:`learn_profile` found.

    ``profile``     the new profile.
    ``photos``      the photos it learned from.
    ``pieces``      per photo, 16 piece ints (cell order of that photo's reading).
    ``probs``       per photo, (16, 4) probabilities of tall, dark, square, hollow.
    ``report``      attribute -> separation figures and which model was kept
                    (``calibration.adapt.adapt_models``).
    ``warnings``    what did not separate cleanly, and what photo would help.
    """

    profile: Profile
    photos: list[PhotoCheck]
    pieces: list[list[int]]
    probs: list[np.ndarray]
    report: dict
    warnings: list[str] = field(default_factory=list)
    #: the set's size when calibration judged it other than typical ("small", "large"),
    #: else ``None`` (:func:`choose_set_size`)
    set_size: str | None = None


def examine_photo(path: str, image: np.ndarray, recognizer, settings, base: Profile | None = None) -> PhotoCheck:
    """Find the board in ``image`` (H, W, 3) uint8 BGR and read per-cell features.

    A photo is usable when the board is found, nothing covers it and at most
    ``MAX_DOUBTED_EMPTY`` cells look empty (those are taken as pieces). Expected failures
    come back as ``problem`` text, not exceptions.
    """
    from vision.features import FEATURE_INDEX, NET_FEATURE_NAMES, cell_features

    t0 = time.perf_counter()
    frame, _ = prepare_frame(base, image)
    reading = recognizer.analyze(frame)
    check = PhotoCheck(path=path, frame=frame, reading=reading)
    if not reading.found:
        check.problem = reading.reason or "no board in view"
    elif np.any(getattr(reading, "obstructed", np.zeros(16, bool))):
        cells = np.flatnonzero(reading.obstructed).tolist()
        check.problem = f"something covers the board (cells {_cells_text(cells)}): take the photo without hands in view"
    else:
        empty = [i for i, c in enumerate(reading.cells) if c is None]
        if len(empty) > MAX_DOUBTED_EMPTY:
            check.problem = (f"only {16 - len(empty)} of 16 cells hold a piece (cells "
                             f"{_cells_text(empty)} look empty): calibration needs all 16 pieces standing on the "
                             "board; if they are, they blend into the board: take the photo in brighter light")
        elif empty:
            check.note = (f"cell{'s' if len(empty) > 1 else ''} {_cells_text(empty)} looked empty to the "
                          "profile calibration starts from; taken as holding a piece, as calibration photos "
                          "show all 16")
    if not check.problem:
        check.features = np.asarray(cell_features(frame, reading, settings), float)
        if check.features.shape[0] != 16 or not np.all(np.isfinite(check.features)):
            check.problem = "the pieces could not be measured (features missing)"
            check.features = None
    if not check.problem and settings.pieces.set_size == "auto":
        # the pieces read through the window of each size (vision.set_size): only the piece
        # network's columns depend on it, the hand-made measurements are the photo's
        net = slice(FEATURE_INDEX[NET_FEATURE_NAMES[0]], FEATURE_INDEX[NET_FEATURE_NAMES[-1]] + 1)
        for size in SET_SIZES:
            sized = copy.deepcopy(settings)
            sized.pieces.set_size = size
            check.features_by_size[size] = check.features.copy()
            check.features_by_size[size][:, net] = cell_features(frame, reading, sized, only_net=True)[:, net]
    check.seconds = time.perf_counter() - t0
    return check


#: the set sizes calibration tells apart (``vision.set_size``): pieces read through the plain
#: window, one zoomed in (a small set, ``SMALL_ZOOM``) and one zoomed out (a large set,
#: ``LARGE_ZOOM``)
SET_SIZES = ("typical", "small", "large")
#: the network outputs each size's window reads (``vision.features``: a small set's four
#: attributes come from the zoomed-in window, a large set's tall alone from the zoomed-out one)
SIZE_READS = {"small": ("tall", "dark", "square", "hollow"), "large": ("tall",)}
#: a size other than typical is chosen only when its window splits the pieces 8/8 this much
#: more clearly than the plain window, over the attributes it reads (the gaps between the 8th
#: and 9th highest logits, :func:`eight_eight_gap`, mean over the photos, summed over those
#: attributes; 3 nats: odds 20 times as clear)
SIZE_MARGIN = 3.0


def eight_eight_gap(logits: np.ndarray) -> float:
    """How far apart the piece network's logits of one attribute for 16 pieces put the 8
    highest from the 8 lowest (every attribute splits a set 8/8): the 8th highest minus
    the 9th."""
    s = np.sort(np.asarray(logits, float))[::-1]
    return float(s[7] - s[8])


def choose_set_size(photos: list[PhotoCheck]) -> tuple[str | None, dict[str, float]]:
    """The set's size judged from calibration photos of all 16 pieces: the size whose
    window (:data:`SET_SIZES`) splits the network's readings of the attributes it reads
    (:data:`SIZE_READS`) 8/8 most clearly, when it beats the plain window's reading of the
    same attributes by :data:`SIZE_MARGIN`; else ``None`` (the profile keeps judging from
    each board). Also returns each size's gain over the plain window."""
    from vision.features import FEATURE_INDEX

    judged = [p for p in photos if len(p.features_by_size) == len(SET_SIZES)]
    if not judged:
        return None, {}

    def gap(size: str, attribute: str) -> float:
        k = FEATURE_INDEX[f"net_{attribute}"]
        return float(np.mean([eight_eight_gap(p.features_by_size[size][:, k]) for p in judged]))

    gains = {size: sum(gap(size, a) - gap("typical", a) for a in reads) for size, reads in SIZE_READS.items()}
    best = max(gains, key=gains.get)
    return (best if gains[best] >= SIZE_MARGIN else None), gains


def _cells_text(cells: list[int]) -> str:
    return ", ".join(str(c) for c in cells[:6]) + (" ..." if len(cells) > 6 else "")


def learn_profile(photos: list[PhotoCheck], base: Profile, name: str = "") -> Calibration:
    """Fit the attribute models to the usable ``photos`` and build the new profile.

    ``base`` supplies everything not learned here (board finding, occupancy model,
    camera); its piece models are the ones adapted (:func:`calibration.adapt.adapt_models`).
    Photos that cannot be used (no board, a hand in the way, a game in progress) are left
    out, with a warning naming each; raises :class:`CalibrationRefused` when no photo can
    be used or a model is sure a photo does not hold 16 different pieces (a class surely
    not split 8/8, two cells surely the same piece).
    """
    from vision.attributes import models_from_dict
    from vision.assign import assign_pieces
    from vision.features import FEATURE_NAMES
    from vision.view_check import check_view

    from .adapt import adapt_models

    if not photos:
        raise CalibrationRefused("no photos given: calibration needs at least one photo of all 16 pieces on the board")
    bad = [p for p in photos if not p.usable]
    if len(bad) == len(photos):
        raise CalibrationRefused("; ".join(f"photo '{p.path}' cannot be used: {p.problem}" for p in bad))
    # learn from the photos that show the set; say which were left out and why
    left_out = [f"photo '{p.path}' was left out: {p.problem}" for p in bad]
    photos = [p for p in photos if p.usable]
    # the set's size: when one window splits the pieces 8/8 clearly better, the models
    # are fitted on the pieces as read through it, and the profile reads them so
    size, _ = choose_set_size(photos)
    if size is not None:
        for p in photos:
            p.features = p.features_by_size[size]

    adaptation = adapt_models([p.features for p in photos], base.vision.attributes, FEATURE_NAMES)
    models, report = adaptation.models, adaptation.report
    advice = dict(ADVICE)
    # where the camera stands, from each photo's board alone (vision.view_check, as analyze
    # and watch tell it): "steep" when most photos look nearly straight down
    views = [{a.code: a for a in check_view(getattr(p.reading, "homography", None), p.frame.shape, base.vision.camera)}
             for p in photos]
    steep = _steep_angle(photos, views)
    if steep is not None:
        advice["tall"] = (f"the camera looks almost straight down ({steep:.0f} degrees from vertical), where tall and "
                          "short pieces look alike: place it lower, 30-50 degrees from vertical, and calibrate again")
    learned = models_from_dict(models)
    started = models_from_dict({a: base.vision.attributes[a] for a in ATTRIBUTES})
    # the starting models speak in the checks only for classes whose scores fall in two
    # clear groups on every photo (an unknown set can make them sure and wrong)
    trusted = np.array([min(_split_separation(started[a].decision(p.features, FEATURE_NAMES)) for p in photos)
                        >= WARN_SEPARATION for a in ATTRIBUTES])

    all_probs, all_pieces, problems = [], [], []
    for photo in photos:
        probs = np.stack([learned[a].predict_proba(photo.features, FEATURE_NAMES) for a in ATTRIBUTES], axis=1)
        all_probs.append(probs)
        start_probs = np.stack([started[a].predict_proba(photo.features, FEATURE_NAMES) for a in ATTRIBUTES], axis=1)
        problems += (_sure_problems(photo, probs, advice)
                     or _sure_problems(photo, np.where(trusted, start_probs, 0.5), advice))
        all_pieces.append([int(p) for p in assign_pieces(np.ones(16), probs)])
    if problems:
        raise CalibrationRefused(problems[0] + (f" (and {len(problems) - 1} more problem"
                                                f"{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else ""))

    warnings = list(left_out)
    low = [(p.path, v["low"]) for p, v in zip(photos, views) if "low" in v]
    if low:
        warnings.append(f"photo{'s' if len(low) > 1 else ''} {', '.join(repr(q) for q, _ in low)}: "
                        f"{low[0][1].message}, and calibrate again")
    weak = []
    for j, attr in enumerate(ATTRIBUTES):
        r = report.get(attr, {})
        sep = float(r.get("separation", 0.0))
        gap = float(r.get("gap", 0.0))
        if not r.get("clean", False) or sep < WARN_SEPARATION or gap < WARN_GAP:
            weak.append(attr)
            kept = {"default": "; the starting model is kept unchanged, adapting it to these photos did not help",
                    "rescaled": "; the starting model is kept, only rescaled for this set",
                    "adapted": ""}.get(r.get("model", ""), "")
            unsure = _unsure_pieces(all_pieces, all_probs, j)
            said = f"; unsure of piece{'s' if len(unsure) > 1 else ''} {', '.join(unsure)}" if unsure else ""
            warnings.append(f"{attr} vs {OPPOSITE[attr]} barely separate (separation {sep:.1f}, "
                            f"margin {gap:.2f}){said}{kept}")
    if weak:
        warnings.append(what_would_help(weak, steep))

    vision = copy.deepcopy(base.vision)
    if size is not None:
        vision.pieces.set_size = size
    merged = dict(vision.attributes)
    merged.update(models)
    vision.attributes = merged
    # the set's two colours in this light, for the watch, when dark and light split cleanly
    vision.pieces.set_colours = (measure_set_colours(photos, all_pieces) if report.get("dark", {}).get("clean", False)
                                 else ())
    profile = Profile(
        vision=vision,
        camera=base.camera,
        report={"attributes": report, "warnings": warnings},
        source_images=[p.path for p in photos],
        created=_now(),
        name=name or f"calibrated from {len(photos)} photo{'s' if len(photos) > 1 else ''}",
    )
    return Calibration(profile=profile, photos=photos, pieces=all_pieces, probs=all_probs, report=report,
                       warnings=warnings, set_size=size)


def measure_set_colours(photos: list[PhotoCheck], pieces: list[list[int]]) -> tuple:
    """The set's two colours as this camera sees them: the mean Lab body colour
    (``vision.crops.BODY_COLOUR_NAMES``) of the pieces read light and of those read dark over the
    photos, and the spread within a kind (root mean square distance from the kind's mean
    over the three channels), as ``VisionSettings.pieces.set_colours``; empty when the
    photos lack the colours."""
    from vision.features import body_colours

    body = np.concatenate([body_colours(p.features) for p in photos])
    dark = np.concatenate([[(q & 2) > 0 for q in ps] for ps in pieces])
    if len(body) != len(dark) or not dark.any() or dark.all() or not np.abs(body).sum():
        return ()
    light_mean, dark_mean = body[~dark].mean(0), body[dark].mean(0)
    resid = np.concatenate([body[~dark] - light_mean, body[dark] - dark_mean])
    spread = float(np.sqrt((resid ** 2).sum(1).mean() / 3.0))
    return tuple(round(float(v), 2) for v in (*light_mean, *dark_mean, spread))


def _sure_problems(photo: PhotoCheck, probs: np.ndarray, advice: dict) -> list[str]:
    """What is wrong with ``photo`` for sure under (16, 4) attribute probabilities
    ``probs``: a class with clearly more than 8 pieces surely on one side, or several
    pairs of cells surely the same piece (empty when nothing is sure to be wrong).

    The built-in models are over-confident on sets they never saw (on held-out renders
    about 6 % of the readings they give at least 0.97 are wrong), so one or two sure
    readings against the rules happen on good photos: only a clear excess (``UNEVEN``
    pieces on one side, ``DUPLICATE_PAIRS`` pairs) is a photo of something else -- two
    sets mixed give eight pairs, a half set twelve or more on one side."""
    problems = []
    sure_yes, sure_no = probs >= SURE, probs <= 1 - SURE
    # a class is uneven when the models are sure of clearly more than 8 pieces on one side
    over = [(a, int(sure_yes[:, j].sum()), int(sure_no[:, j].sum())) for j, a in enumerate(ATTRIBUTES)
            if sure_yes[:, j].sum() >= UNEVEN or sure_no[:, j].sum() >= UNEVEN]
    if len(over) >= 2:
        # several classes at once: the cells do not look like 16 different pieces at all
        problems.append(
            f"the 16 cells of '{photo.path}' do not look like 16 different pieces ("
            + ", ".join(f"{y} {a}" if y > 8 else f"{n} {OPPOSITE[a]}" for a, y, n in over)
            + " instead of 8 each): put all 16 pieces of one set on the board, "
            "take the photo with the camera tilted 30-50 degrees from straight down, in even light")
    elif over:
        attr, y, n = over[0]
        many, word = (y, attr) if y > 8 else (n, OPPOSITE[attr])
        problems.append(
            f"{attr} vs {OPPOSITE[attr]} do not split 8/8 on '{photo.path}' ({many} pieces look {word}"
            f"{'' if many == 16 else ' for sure'}): are all 16 pieces of one set on the board? If so, "
            f"{advice[attr]}; take every photo in the same light")
    codes = (probs > 0.5).astype(int) @ (1 << np.arange(4))
    sure = np.all(sure_yes | sure_no, axis=1)
    seen: dict[int, int] = {}
    pairs = []
    for cell in np.flatnonzero(sure).tolist():
        code = int(codes[cell])
        if code in seen:
            pairs.append((seen[code], cell, code))
        else:
            seen[code] = cell
    if len(pairs) >= DUPLICATE_PAIRS:
        listed = ", ".join(f"{a} and {b}" for a, b, _ in pairs[:3])
        problems.append(f"{len(pairs)} pairs of cells of '{photo.path}' read as the same piece (cells {listed}, "
                        f"e.g. {_words(pairs[0][2])}): the board must hold the 16 different pieces of one set")
    return problems


def _split_separation(score: np.ndarray) -> float:
    """d' between the scores above and below the model's own boundary (0), with no labels:
    large only when the scores fall in two clear groups (a single bell of scores cut in
    two gives about 2.7)."""
    a, b = score[score > 0], score[score <= 0]
    if len(a) < 2 or len(b) < 2:
        return 0.0
    return float((a.mean() - b.mean()) / (np.sqrt(0.5 * (a.var() + b.var())) + 1e-9))


def _steep_angle(photos: list[PhotoCheck], views: list[dict]) -> float | None:
    """When most photos look nearly straight down (``vision.view_check``'s "steep"), the
    median camera angle from vertical over them (degrees), else ``None``."""
    if 2 * sum("steep" in v for v in views) <= len(views):
        return None
    from vision.view_check import view_measures

    angles = []
    for p, v in zip(photos, views):
        if "steep" in v:
            try:
                angles.append(view_measures(p.reading.homography, p.frame.shape)[1])
            except (np.linalg.LinAlgError, ValueError):
                pass
    return float(np.median(angles)) if angles else None


#: below this probability of either value, an attribute of a piece counts as unsure (the
#: picture, ``calibration.sheet``, marks those of the first photo with '?')
UNSURE = 0.8


def _unsure_pieces(pieces: list[list[int]], probs: list[np.ndarray], j: int) -> list[str]:
    """Digits of the pieces whose attribute ``j`` was unsure (``UNSURE``) on any photo."""
    out = set()
    for photo_pieces, p in zip(pieces, probs):
        for cell, piece in enumerate(photo_pieces):
            if max(p[cell, j], 1.0 - p[cell, j]) < UNSURE:
                out.add(piece)
    return [format(q, "X") for q in sorted(out)]


def what_would_help(weak: list[str], steep: float | None) -> str:
    """One piece of advice for all the classes in ``weak`` that separated poorly, so the
    user is not told "from lower down" for one class and "from higher up" for another:
    heights show from low down, tops from high up, and 30-40 degrees shows both.
    ``steep``: the camera's angle from vertical when it looks nearly straight down
    (:func:`_steep_angle`), else ``None``."""
    parts = []
    tops = [a for a in ("square", "hollow") if a in weak]
    if "tall" in weak and steep is not None:
        parts.append(f"the camera lower: it looks almost straight down ({steep:.0f} degrees from vertical), where "
                     "tall and short pieces look alike; 30-40 degrees from vertical shows heights and tops")
    elif "tall" in weak and tops:
        parts.append("the camera 30-40 degrees from straight above, so both the heights and the tops of the pieces show")
    elif "tall" in weak:
        parts.append("the camera lower (30-50 degrees from straight above) so heights show")
    elif tops:
        parts.append("the camera higher (nearer straight above) so the tops of the pieces show")
    if "dark" in weak:
        parts.append("brighter, even light, without coloured lamps or hard shadows")
    if "hollow" in weak:
        parts.append("light from above so the cups on top show")
    if "square" in weak:
        parts.append("the square pieces turned at different angles")
    return ("a photo that would help: all 16 pieces, " + "; ".join(parts)
            + ". Calibrate again from all the photos")


def _words(code: int) -> str:
    return " ".join(a if code >> j & 1 else OPPOSITE[a] for j, a in enumerate(ATTRIBUTES))
