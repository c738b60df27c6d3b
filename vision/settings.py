"""Every number that tunes vision, in one place.

``VisionSettings()`` is the built-in default profile (meant to work on common wooden sets
without calibration). Calibration stores ``VisionSettings.to_dict()`` inside the profile
file and reads it back with ``VisionSettings.from_dict``. Each pipeline stage receives only
its own sub-settings (``settings.image``, ``settings.cells``...), so a stage's knobs are
listed next to each other here and nowhere else.

Lengths on the board are in *pitch* units (the distance between neighbouring cell
centres); lengths in the image are in pixels of the working image unless a name says
otherwise.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Any


class SettingsError(ValueError):
    """A settings dict (from a profile file) that does not fit :class:`VisionSettings`."""


@dataclass
class ImageSettings:
    """Loading and normalising a frame (``vision.image``)."""

    #: frames are shrunk so the longer side is at most this many pixels before analysis
    work_long_side: int = 960
    #: images smaller than this (either side, pixels) cannot show 16 cells
    min_side: int = 64
    #: images larger than this (pixels, w * h) are refused as not a photo
    max_pixels: int = 120_000_000
    #: below this mean brightness (0-255) with too little contrast the frame is "too dark"
    too_dark_mean: float = 28.0
    #: ... and contrast (standard deviation of brightness) below this
    too_dark_std: float = 14.0


@dataclass
class CellSettings:
    """Finding cell-like blobs: rings, round recesses, drawn squares (``vision.cells``)."""

    #: Gaussian blur (kernel pixels, odd; 0 = none) against sensor noise before thresholds
    blur_pixels: int = 5
    #: adaptive-threshold window as a fraction of the working image's longer side
    block_fraction: float = 0.035
    #: adaptive-threshold offsets tried (grey levels); each with both polarities
    threshold_offsets: tuple = (6.0, 14.0)
    #: blob area bounds as fractions of the working image area
    min_area_fraction: float = 0.00012
    max_area_fraction: float = 0.03
    #: blob area / convex hull area at least this
    min_solidity: float = 0.86
    #: blob area / fitted ellipse area within these bounds (rings, discs, rounded squares)
    min_fill: float = 0.80
    max_fill: float = 1.16
    #: short/long axis of the fitted ellipse at least this (tilt up to ~60 degrees)
    min_axis_ratio: float = 0.28
    #: partial outlines (a ring lit on one side) count when their points lie within this
    #: mean relative distance of the fitted ellipse and cover this fraction of its turn
    arc_max_residual: float = 0.07
    arc_min_coverage: float = 0.45
    #: an outline with a bite out of it is refitted to the points near its ellipse when
    #: at least this fraction of them are
    arc_min_inliers: float = 0.45
    #: bright fragments (crescents of a ring lit from one side) of at least this many
    #: outline points are paired up to trace rings; at most this many are tried
    fragment_min_points: int = 24
    max_fragments: int = 120
    #: at most this many outlines per binary image are examined (the longest)
    max_contours: int = 300
    #: each fragment is paired with at most this many nearest fragments
    fragment_partners: int = 3
    #: at most this many blobs (the largest) go on to the lattice search
    max_blobs: int = 250
    #: also look at Canny edges for faint cells (wooden recesses)
    use_edges: bool = True
    canny_low: float = 30.0
    canny_high: float = 90.0
    #: blobs whose centres lie within this fraction of their radius are one cell
    merge_fraction: float = 0.35


@dataclass
class LatticeSettings:
    """Fitting a 4x4 lattice of cell centres (``vision.lattice``)."""

    #: neighbours considered when seeding a lattice hypothesis from one blob
    seed_neighbours: int = 5
    #: at most this many seed blobs (largest groups first) are tried
    max_seeds: int = 30
    #: blobs paired as lattice neighbours differ in area by at most this factor
    area_ratio: float = 2.2
    #: a seed's neighbour lies this many of its widths (along that direction) away
    min_spacing_ratio: float = 0.85
    max_spacing_ratio: float = 2.8
    #: a blob matches a lattice point when closer than this fraction of the local pitch
    match_tolerance: float = 0.28
    #: a blob's area over the area of one cell (pitch squared) at that place: rings and
    #: round cells cover about 0.3-0.7 of it, drawn squares up to 0.9
    min_cell_fill: float = 0.12
    max_cell_fill: float = 1.3
    #: once a lattice's cell size is known, its blobs are within this factor of it
    size_factor: float = 1.6
    #: a blob's ellipse may differ this much from the shape a circle on the board takes
    #: there (Frobenius distance of det-1 shape matrices; 0 = same shape)
    max_shape_mismatch: float = 1.2
    #: how much shape and size mismatch count against distance when choosing a blob
    shape_weight: float = 0.15
    size_weight: float = 0.15
    #: a seen cell's blob centre is used as the cell centre only within this many
    #: pitches of where the homography puts it (else it is a piece or merged outline)
    max_centre_offset: float = 0.08
    #: other lattices must show cell-outline evidence peaking at the grid by this ratio
    #: (see ``vision.outline.peak_ratio``)
    min_peak: float = 1.55
    #: a lattice with many cells and at most this residual (pitches) is taken as it is;
    #: others are polished by the cell-outline evidence
    precise_rms: float = 0.04
    #: RANSAC inlier threshold when refitting a lattice, in pitches
    ransac_pitch: float = 0.1
    #: at most this many lattice hypotheses are grown per frame (bounds the time spent
    #: on cluttered or noisy frames)
    max_hypotheses: int = 80
    #: when neither the lattice nor the outline finds a board, the lattice search is
    #: run once more with this many hypotheses
    retry_hypotheses: int = 200
    #: the search stops at a lattice with at least this many cells seen, none outside
    #: and this small a residual (pitches)
    early_stop_cells: int = 13
    early_stop_rms: float = 0.06
    #: weight of outline evidence (per cell, in units of the image's typical strong
    #: gradient) against one matched blob when choosing the board's 4x4 window
    window_support_weight: float = 2.0
    #: growing steps per hypothesis
    grow_iterations: int = 5
    #: a board needs at least this many of its 16 cells seen as blobs
    min_cells: int = 7
    #: the lattice's blobs must agree in size: max/min of matched blob areas, after
    #: correcting for perspective, at most this
    max_size_spread: float = 3.0
    #: at most this many matched blobs may lie on the lattice just outside the 4x4 window
    #: (a printed 5x5 pattern or tiles are not a Quarto board)
    max_outside: int = 2
    #: a cell's full circle (centre +- this many pitches) must lie inside the image,
    #: otherwise the board is "cut off at the image edge"
    inside_margin_pitch: float = 0.45
    #: the board's pitch (median, pixels) at least this fraction of the image's shorter
    #: side: a lattice of letters or fabric weave is not a board in view
    min_pitch_fraction: float = 0.04
    #: RMS residual of matched blobs to the fitted homography, in pitches, at most this
    max_rms_pitch: float = 0.12


@dataclass
class OutlineSettings:
    """Finding the board by its outline when pieces hide most cells (``vision.outline``)."""

    #: used when the cell lattice saw fewer than this many cells
    trigger_cells: int = 11
    #: coarse adaptive-threshold window, fraction of the longer side
    block_fraction: float = 0.25
    #: board outlines are looked for in the working image and in copies shrunk to these
    #: many pixels on the longer side (0 = the working image itself)
    quad_long_sides: tuple = (0.0, 480.0)
    #: opening (pixels of the working image) that cuts thin bridges between the board and
    #: its surroundings
    close_pixels: int = 7
    #: brightness regions are also closed with a disc of this fraction of the longer
    #: side (bridges ring lines, glare and light pieces across the board); 0 = off
    fill_fraction: float = 0.03
    #: outline area bounds as fractions of the image
    min_area_fraction: float = 0.04
    max_area_fraction: float = 0.9
    #: region area over its convex hull at least this (pieces bite into the region)
    min_solidity: float = 0.6
    #: straight sides: RANSAC trials per side, inlier distance (fraction of the region's
    #: size), and each side must hold this fraction of a quarter of the outline
    line_trials: int = 60
    #: outline points used for the straight sides (evenly thinned beyond this)
    max_outline_points: int = 400
    line_tolerance: float = 0.012
    min_side_fraction: float = 0.35
    #: the grid's side as a fraction of the board's side, searched in this range
    min_grid_scale: float = 0.6
    max_grid_scale: float = 0.96
    grid_scale_step: float = 0.02
    #: the grid's turn on the board (the Gigamic grid is turned 45 degrees)
    grid_angles: tuple = (0.0, 45.0)
    #: ... and the board's edge lies at least this many pitches beyond the outer cells'
    #: centres (their rings and the pieces' feet are on the board; the training boards
    #: have 0.6-0.9), which rules out big 45-degree grids
    cell_margin_pitch: float = 0.3
    #: a lattice is moved by whole cells to the middle of the board outline around it
    #: when it is this many pitches off that middle and the move brings it within
    #: ``centre_tolerance`` pitches
    off_centre: float = 0.6
    centre_tolerance: float = 0.35
    #: ... and a window hanging over the board's edge is moved wholly onto the board
    #: outline that holds at least this many of its cells
    recentre_min_cells: int = 6
    #: ... and is at most this many times the grid's area (a Gigamic board is ~2.1-2.4x
    #: its 45-degree grid)
    recentre_max_area: float = 3.0
    #: ... and the move leaves at most this many more cells without a blob than before
    #: (a lattice moved off cells it saw was right where it was)
    recentre_max_lost: int = 1
    #: cell outlines tried, radius in pitches (rings ~0.42, recesses ~0.38); negative =
    #: a square of that half side (drawn grids, checkered boards)
    cell_radii: tuple = (0.42, 0.36, 0.48, -0.5, -0.45)
    #: points per cell outline when scanning the grid placements (the refinement and
    #: the final scores use 32)
    scan_samples: int = 16
    #: local search on the grid corners: first step (pitches) and rounds
    refine_step_pitch: float = 0.1
    refine_rounds: int = 15
    #: the best this many grid placements are each refined
    refine_starts: int = 3
    #: ... and the best placement in each of the best this many outlines; the winner
    #: is the refined placement with the most support x peak ratio (capped at
    #: ``peak_cap``; see ``min_peak``)
    refine_quads: int = 4
    peak_cap: float = 3.0
    #: a grid must be a view of a square: ``vision.geometry.square_view_error`` at
    #: most this (true boards in the training renders: <= 0.09; boards found right
    #: on them: <= 0.11; the drawn test board without perspective: 0.16); applies to
    #: lattices too
    max_square_error: float = 0.2
    #: ... or when the lattice's mean outline support per cell is below this
    trigger_support: float = 0.55
    #: a board found this way needs its outline evidence to peak sharply where the grid
    #: is (support over that with the grid moved half a pitch, at least ``min_peak``)
    #: and support x peak at least ``min_evidence``
    min_peak: float = 1.6
    min_evidence: float = 0.9
    #: ... and must beat the lattice's evidence by this much to replace it
    prefer_lattice_by: float = 0.05
    #: cut-off board: the smallest outline holding at least this many of the grid's
    #: cells, at most this many times the grid's area, within this many pixels of the
    #: image border (see ``vision.outline.cut_off_by_outline``)
    cut_off_min_cells: int = 12
    cut_off_max_area: float = 3.0
    cut_off_border_px: float = 2.0


@dataclass
class BoardNetSettings:
    """The learned board-keypoint detector (``vision.board_net``), tried before the
    hand-made lattice / outline searches."""

    #: use the network at all
    enabled: bool = True
    #: ONNX file of the network ("" = the shipped ``vision/board_net.onnx``)
    model_path: str = ""
    #: ask a second network, trained on views turned by any angle: first on portrait
    #: frames, and on landscape ones when the first network finds no board, before the
    #: hand-made searches (a board it finds gets the same zoomed pass and polish)
    turned: bool = True
    #: ONNX file of that network ("" = the shipped ``vision/board_net_turned.onnx``)
    turned_model_path: str = ""
    #: ask a third network, trained with full boards seen from low cameras drawn more
    #: often, when neither of the others finds a board (before the hand-made searches)
    low: bool = True
    #: ONNX file of that network ("" = the shipped ``vision/board_net_low.onnx``)
    low_model_path: str = ""
    #: when no network finds a board, ask each again with the frame mirrored left to right
    #: and read the larger of its two maps at every point (a second opinion of the same
    #: view: the maps mark cells, corners and the board's surface without order)
    mirror_rescue: bool = True
    #: local maxima of a heatmap above this are keypoint candidates
    peak_threshold: float = 0.2
    #: at most this many cell-centre / corner candidates (the strongest)
    max_cell_peaks: int = 40
    max_corner_peaks: int = 7
    #: affine grids seeded by three neighbouring cell candidates: this many best kept
    lattice_starts: int = 8
    #: of all starting grids (corner quads, the cell candidates' hull, seeded grids) this
    #: many different ones, best first, are refitted to the candidates, in this many rounds
    refine_starts: int = 6
    refine_rounds: int = 2
    #: a candidate refits the board model when within this many pitches of its point
    match_tolerance: float = 0.35
    #: a board is accepted when the model explains the maps this well (weighted mean of
    #: the cell map at its 16 centres and the corner map at its 4 corners, 0..1) ...
    min_score: float = 0.32
    #: ... and the cell map's mean at the 16 centres is at least this, and the board
    #: region map's
    min_cells: float = 0.25
    min_region: float = 0.8
    #: a board found is looked at again, zoomed: the frame part around it shrunk less
    #: (its playing area filling ~2/3 of the network's canvas, at most ``zoom_max_scale``
    #: canvas pixels per frame pixel) and the board refitted to the finer peaks ...
    zoom: bool = True
    #: polish the grid on the cell outlines (below) also when the zoomed view placed it:
    #: ~13 ms of the full analysis (without: 91-95 ms instead of 105-108, within the 100 ms
    #: target), for mean centre error 3.31 instead of 3.44 px and 40 boards fully right
    #: instead of 35 of 199 on the held-out renders (cells fully right 77.19 / 77.26 %)
    polish_after_zoom: bool = True
    zoom_max_scale: float = 1.0
    #: ... when that enlarges it at least this many times over the whole-frame view ...
    zoom_min_gain: float = 1.15
    #: ... and the refit explains the zoomed maps (score as ``min_score``), uses at least
    #: this many of its 20 keypoints and moves no cell centre farther than
    #: ``zoom_max_shift`` pitches
    zoom_min_inliers: int = 10
    zoom_max_shift: float = 0.35
    #: ... or no farther than ``zoom_max_shift_better`` pitches when it explains the zoomed
    #: maps by ``zoom_better_by`` more than the board it started from (0 = never). Session
    #: 32: a grey copy of the Gigamic sample photo was read with its grid 0.37 pitch off, the
    #: refit (0.64 against 0.22) refused; on 96 development images (v2-dev, tests/data,
    #: samples) cells fully right 83.63 -> 83.70 %, mean centre error 2.90 -> 2.77 px; on 127
    #: held-out renders it never fired (docs/vision.md, "Session 32")
    zoom_max_shift_better: float = 0.6
    zoom_better_by: float = 0.1
    #: the zoomed refit uses the cell peaks alone (the corner peaks too only when fewer
    #: than ``zoom_min_inliers`` cells match); when false (since session 7), it is also
    #: made with the corner peaks, each cell peak counting ``zoom_cell_weight`` times a
    #: corner peak, and the one that explains the zoomed maps better is kept: boards
    #: found a fraction of a pitch off (a corner cell's foot hidden by a piece) fell from
    #: 22 to 13 of 392 training renders no network was trained on, centre error 2.71 ->
    #: 2.43 px (docs/vision.md, "Session 7: board"); corners at full weight gave the same
    #: count but put a drawn board's corner cell 0.18 pitch off
    zoom_cells_only: bool = False
    zoom_cell_weight: int = 2
    #: when no board passes but the best one scores at least this, look at it zoomed and
    #: accept a board that passes there (0 = never)
    zoom_rescue_min_score: float = 0.15
    #: a board found is polished on the cell outlines (``vision.outline.refine_board``)
    #: when that moves no cell centre farther than this (pitches; 0 = no polishing)
    polish_max_shift: float = 0.3
    #: ... by a local search starting with steps of this many pitches, at most this
    #: many rounds (0.04 / 5 rounds saved 8 ms of CPU but left a drawn square board
    #: 0.14 pitch off instead of 0.11)
    polish_step_pitch: float = 0.1
    polish_rounds: int = 15
    #: when the network finds no board, look with the hand-made searches too ...
    fallback: bool = True
    #: ... but only when the board
    #: region map peaks at least this high somewhere or cell candidates are at least
    #: ``fallback_min_peaks`` (a frame the network sees as empty is "no board" at once)
    fallback_min_region: float = 0.5
    fallback_min_peaks: int = 4
    #: a board the hand-made searches find is kept only when the network's board-region
    #: map averages at least this over its 16 cell centres
    fallback_min_region_support: float = 0.5
    #: when the network finds no board but its board region (map > 0.5) covers this
    #: fraction of the frame and touches the frame's edge, the board is cut off
    cut_off_min_region: float = 0.02


@dataclass
class CameraSettings:
    """The camera model used to stand pieces up on the board plane (``vision.geometry``)."""

    #: focal length guess as a multiple of the image's longer side, used when the
    #: board's homography cannot tell it (nearly square-on views)
    default_focal_factor: float = 1.0
    #: a focal length estimated from the homography is trusted within these bounds
    #: (multiples of the longer side)
    min_focal_factor: float = 0.45
    max_focal_factor: float = 3.5
    #: the board found is refitted as a pinhole camera sees it (its focal length from the
    #: board, ``vision.camera_guess.guess_focal``) before the pieces are read; False: the
    #: free homography as found
    pinhole: bool = True
    #: ... unless that camera leaves the cell centres more than this many pitches off (rms)
    pinhole_max_rms_pitch: float = 0.1
    #: setup advice (``vision.view_check``): a view is "steep" when a one-pitch vertical
    #: at the median cell is shorter than this many pitches in the picture (tall is read
    #: right for 83 % of pieces below 0.3, 98 % above, on the development renders), and
    #: "low" when the median cell is seen more than this many degrees from straight down
    #: (the pipeline is made for up to 50)
    steep_lean: float = 0.3
    low_view_deg: float = 55.0
    #: ... and "bright" when this share of the board's pixels is pure white (``WHITE``): a
    #: light piece there cannot be seen (game92: 0.32, every white piece missed; the stills
    #: with a board, read no worse for it: at most 0.19)
    bright_white: float = 0.25


@dataclass
class PieceSettings:
    """Reading what stands on each cell (``vision.features``)."""

    #: the piece network reads every board twice, as seen and mirrored left-right (a
    #: mirrored scene is as real as the one seen), and its logits are averaged; in the
    #: full analysis only: the per-frame step reads once (it feeds the watch's steady window;
    #: each new piece is named by a full analysis)
    mirror_average: bool = True
    #: the per-frame step (``Recognizer.track``) reads the pieces from the piece network's
    #: logits alone, without the hand-made measurements the attribute models also weigh
    #: (two thirds of the step's cost: 45 -> 15 ms); the full analysis, which the watch asks for
    #: once per placement to name the new piece, keeps the whole reading
    step_networks_only: bool = True
    #: in the full analysis, where the board's pieces fall clearly into two colour groups that
    #: differ more in hue than in lightness (green and red, red and blue), each piece's dark
    #: reading is told its group's (``vision.kinds``: the group read darker on the whole, +-2
    #: log odds) before the joint assignment (docs/vision.md, "Session 36")
    hue_kinds: bool = True
    #: the piece set's size (``vision.set_size``): "auto": judged from each board of 6 or more
    #: pieces, tall read from a window zoomed out to a large set's size when the board says
    #: the set is large (its short pieces otherwise read tall), and by the full analysis from
    #: each board of 7 or more, the four attributes read from a window zoomed in when it says
    #: the set is small (docs/vision.md, "Session 37"); "large" / "small" /
    #: "typical": known (judged by calibration from photos of all 16 pieces, or written into
    #: a profile by its user): tall read from a window zoomed out to the set's size on every
    #: board ("large"), the four attributes from one zoomed in ("small"), or the plain one
    set_size: str = "auto"
    #: the set's two colours as the camera sees them, learned by calibration from the
    #: bodies of its 16 pieces (``vision.crops.BODY_COLOUR_NAMES``): light L, a, b, dark L, a, b,
    #: and the spread within a kind (Lab units); empty when unknown (the built-in profile).
    #: The watch weighs each new piece's colour against them (``quarto_assist.silhouette``)
    set_colours: tuple = ()
    #: where a one-pitch vertical is at most the first of these many pitches long in the
    #: picture (a camera within ~15 degrees of straight down), these columns of the piece
    #: network's reading come from the network trained on views from above
    #: (``vision.net.overhead_net``, when shipped), blended linearly to none at the second
    #: (docs/vision.md, "Session 39"); a comma list of the network's outputs, "" = never
    overhead_columns: str = "tall"
    overhead_lean: tuple = (0.2, 0.35)

    #: heights sampled up the piece axis, in pitches
    max_height_pitch: float = 2.2
    height_steps: int = 23
    #: half-width of the strip sampled across the piece axis, in pitches
    strip_half_width_pitch: float = 0.18
    strip_samples: int = 5
    #: radius of the disc sampled on the board around each cell, in pitches
    ring_radius_pitch: float = 0.48
    #: radius of the piece's foot, in pitches (pieces are slightly smaller than a cell)
    piece_radius_pitch: float = 0.3
    #: heights at which the top face is read, in pitches; the one with the clearer top
    #: face wins
    top_patch_pixels: int = 24
    #: a piece's foot is looked for this far (pitches) around its cell centre, on a
    #: grid of this many steps a side; farther positions cost this much per pitch
    max_offset_pitch: float = 0.3
    offset_steps: int = 5
    offset_penalty: float = 0.3
    #: the silhouette: centre-vs-side colour distance (contrast units) above this, scanned
    #: from this height (pitches) up
    silhouette_threshold: float = 0.25
    silhouette_start_pitch: float = 0.15
    #: a side edge continues while at least this fraction of its strength at the foot
    edge_keep_fraction: float = 0.5
    #: cells whose foot differs this much from the bare board count as pieces when this
    #: board's two piece colours are estimated, and the two must differ by this much
    piece_foot_contrast: float = 0.25
    min_group_gap: float = 0.12
    #: ... and the two silhouette heights by this much (pitches)
    min_height_gap: float = 0.25
    #: cell outlines tried for the far/near outline evidence (pitches; negative = square)
    outline_radii: tuple = (0.42, 0.36, -0.5)
    #: pixels per pitch of the top-down view of the board plane
    top_down_pixels: int = 24
    #: the top-face sweep is also run with the outline radius scaled by these factors
    sweep_radius_factors: tuple = (0.7, 1.2)
    #: occupancy: a cell is occupied when its piece score exceeds this
    occupied_threshold: float = 0.5


@dataclass
class TrackSettings:
    """The per-frame step once the board is known (``vision.obstruction``)."""

    #: the board is compared in a top-down view of this many pixels a side
    warp_size: int = 96
    #: grey-level change that counts as "something moved"
    change_threshold: float = 28.0
    #: a changed region touching the board's edge and covering at least this fraction
    #: of a cell's area over this many cells is a hand or arm
    hand_min_cells: float = 1.2
    #: a cell is obstructed when this fraction of its area changed with the hand region
    cell_cover_fraction: float = 0.2
    #: lattice blobs must still be found at this fraction of the previously matched cells,
    #: otherwise the board moved and a full analysis is needed
    moved_fraction: float = 0.5


def _default_attribute_models() -> dict:
    # Imported late: attributes.py imports nothing from here, but keeping the default
    # model file next to the code that reads it.
    from vision.attributes import default_models_dict

    return default_models_dict()


@dataclass
class VisionSettings:
    """All of vision's knobs. ``VisionSettings()`` is the built-in default profile."""

    image: ImageSettings = field(default_factory=ImageSettings)
    cells: CellSettings = field(default_factory=CellSettings)
    lattice: LatticeSettings = field(default_factory=LatticeSettings)
    outline: OutlineSettings = field(default_factory=OutlineSettings)
    board_net: BoardNetSettings = field(default_factory=BoardNetSettings)
    camera: CameraSettings = field(default_factory=CameraSettings)
    pieces: PieceSettings = field(default_factory=PieceSettings)
    track: TrackSettings = field(default_factory=TrackSettings)
    #: attribute name ("occupied", "tall", "dark", "square", "hollow") -> model dict
    #: (see ``vision.attributes.AttributeModel``)
    attributes: dict = field(default_factory=_default_attribute_models)

    # --- (de)serialisation ------------------------------------------------------
    def to_dict(self) -> dict:
        """Plain JSON-ready dict (tuples become lists)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    @classmethod
    def from_dict(cls, data: Any) -> "VisionSettings":
        """Inverse of :meth:`to_dict`. Missing keys keep their defaults; unknown keys or
        values of the wrong type raise :class:`SettingsError` quoting them."""
        if not isinstance(data, dict):
            raise SettingsError(f"vision settings must be a JSON object, not {data!r:.80}")
        kwargs = {}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in data.items():
            if key not in fields:
                raise SettingsError(f"unknown vision setting {key!r} (known: {', '.join(fields)})")
            if key == "attributes":
                if not isinstance(value, dict):
                    raise SettingsError(f"vision setting 'attributes' must be an object, not {value!r:.80}")
                from vision.attributes import AttributeModel

                models = dict(_default_attribute_models())
                for name, model in value.items():
                    try:
                        AttributeModel.from_dict(model, name=name)  # validates
                    except ValueError as e:
                        raise SettingsError(str(e)) from None
                    models[name] = model
                kwargs[key] = models
                continue
            sub_cls = type(getattr(cls(), key)) if key != "attributes" else None
            kwargs[key] = _sub_from_dict(sub_cls, key, value)
        colours = getattr(kwargs.get("pieces"), "set_colours", ())
        if len(colours) not in (0, 7):
            raise SettingsError(f"bad value for vision setting pieces.set_colours: {list(colours)!r:.80} "
                                "(expected 7 numbers: light L, a, b, dark L, a, b, spread; or none)")
        columns = getattr(kwargs.get("pieces"), "overhead_columns", "")
        unknown = [c for c in columns.split(",") if c and c not in _NET_OUTPUTS]
        if unknown:
            raise SettingsError(f"bad value for vision setting pieces.overhead_columns: {columns!r:.80} "
                                f"(expected a comma list of {', '.join(_NET_OUTPUTS)}, or empty)")
        return cls(**kwargs)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "VisionSettings":
        """Read a JSON file holding either the settings dict or a profile with a
        ``"vision"`` key."""
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise SettingsError(f"profile {str(path)!r} is not valid JSON ({e.msg} at line {e.lineno})") from None
        if isinstance(data, dict) and "vision" in data:
            data = data["vision"]
        return cls.from_dict(data)


#: the piece network's outputs (``vision.net.NET_OUTPUTS``; not imported: the settings load
#: without the network's runtime)
_NET_OUTPUTS = ("occupied", "tall", "dark", "square", "hollow")


def _sub_from_dict(sub_cls, section: str, value: Any):
    if not isinstance(value, dict):
        raise SettingsError(f"vision setting {section!r} must be an object, not {value!r:.80}")
    defaults = sub_cls()
    names = {f.name for f in dataclasses.fields(sub_cls)}
    kwargs = {}
    for key, v in value.items():
        if key not in names:
            raise SettingsError(f"unknown vision setting {section}.{key!r} (known: {', '.join(sorted(names))})")
        default = getattr(defaults, key)
        kwargs[key] = _check_value(f"{section}.{key}", default, v)
    return sub_cls(**kwargs)


def _check_value(name: str, default: Any, v: Any) -> Any:
    bad = SettingsError(f"bad value for vision setting {name}: {v!r:.80} (expected like {default!r:.80})")
    if isinstance(default, bool):
        if not isinstance(v, bool):
            raise bad
        return v
    if isinstance(default, int):
        if isinstance(v, bool) or not isinstance(v, int):
            raise bad
        return v
    if isinstance(default, float):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
            raise bad
        return float(v)
    if isinstance(default, tuple):
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            raise bad
        return tuple(float(x) for x in v)
    if default is None:
        if v is not None and not isinstance(v, list):
            raise bad
        return v
    if isinstance(default, str):
        if not isinstance(v, str):
            raise bad
        if name in CHOICES and v not in CHOICES[name]:
            raise SettingsError(f"bad value for vision setting {name}: {v!r:.80} (expected "
                                f"{' or '.join(repr(c) for c in CHOICES[name])})")
        return v
    return v


#: settings that take one of a few words
CHOICES = {"pieces.set_size": ("auto", "large", "small", "typical")}


def override_argument(assignment: str) -> str:
    """``argparse`` type for ``--set SECTION.NAME=VALUE``: the assignment, checked on the
    default settings, so a bad one is refused with its reason when the options are read
    (``argparse.ArgumentTypeError``: usage and exit code 2)."""
    import argparse

    try:
        apply_override(VisionSettings(), assignment)
    except SettingsError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return assignment


def apply_override(settings: VisionSettings, assignment: str) -> None:
    """Change one setting of ``settings`` in place from ``SECTION.NAME=VALUE`` (VALUE as
    JSON, e.g. ``board_net.zoom=false``), checked as a profile file's value is."""
    key, sep, text = assignment.partition("=")
    section, dot, name = key.strip().partition(".")
    sub = getattr(settings, section, None) if dot and section != "attributes" else None
    if not sep or sub is None or not dataclasses.is_dataclass(sub):
        raise SettingsError(f"not a setting assignment SECTION.NAME=VALUE: {assignment!r}")
    if name not in {f.name for f in dataclasses.fields(sub)}:
        raise SettingsError(f"unknown vision setting {section}.{name!r} in {assignment!r}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise SettingsError(f"value of {assignment!r} is not JSON (strings need quotes)") from None
    setattr(sub, name, _check_value(f"{section}.{name}", getattr(type(sub)(), name), value))
