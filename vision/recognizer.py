"""The recogniser: runs the stages on a frame and hands back a ``BoardReading``.

Stages (each a plain function in its own module, arrays in, arrays out)::

    frame --image--> working grey --cells--> blobs (N, 6) --lattice--> homography (3, 3)
          --features--> (16, D) --attributes--> (16, 5) probabilities --assign--> 16 pieces

``Recognizer.analyze`` does all of it; ``Recognizer.track`` is the per-frame step once
the board is known: it keeps the homography, checks for hands over the board and re-reads
the cells. Both fill ``reading.timings`` (stage -> seconds).
"""

from __future__ import annotations

import dataclasses
import time

import cv2
import numpy as np

from vision.assign import assign_pieces, piece_log_likelihood
from vision.attributes import models_from_dict, network_models, networks_only, predict_proba
from vision.board_net import (LOW_MODEL_PATH, MODEL_PATH, TURNED_MODEL_PATH, UNIT_CORNERS, BoardNet, board_hypotheses, explain_score, input_scale,
                              output_to_frame, peaks, refine, sample, zoom_affine)
from vision.cells import find_blobs
from vision.features import board_region, body_colours, features_from_work
from vision.geometry import apply_homography, cell_grid, cell_pitch_px, square_view_error
from vision.image import shrink, shrink_region, to_bgr8, too_dark, too_small
from vision.kinds import dark_with_hue_kinds
from vision.lattice import fit_lattice, image_gradient, match_cells, orient
from vision.outline import board_quads, centre_on_board, cut_off_by_outline, fit_outline, peak_ratio, refine_board
from vision.obstruction import obstructed_cells, top_down
from vision.reading import BoardReading
from vision.settings import VisionSettings

NO_BOARD = "no board in view"
CUT_OFF = "board cut off at the image edge"
TOO_DARK = "too dark"
TOO_SMALL = "image too small to show a board"
HAND = "hand over the board"
BOARD_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])  # cells 0, 3, 15, 12


class Recognizer:
    """Frame in, ``BoardReading`` out. ``settings``: ``VisionSettings`` (default profile
    when omitted)."""

    def __init__(self, settings: VisionSettings | None = None):
        self.settings = settings or VisionSettings()
        self.models = models_from_dict(self.settings.attributes)
        #: the per-frame step's models: the network's logits alone, or the full models
        self._step_models = network_models() if self.settings.pieces.step_networks_only else self.models
        #: whether each set of models needs only the network (then nothing else is measured)
        self._only_net = (networks_only(self.models), networks_only(self._step_models))
        self._nets: dict[str, BoardNet] = {}  # board networks by file, loaded on first use

    # --- full analysis ------------------------------------------------------------------
    def analyze(self, frame: np.ndarray) -> BoardReading:
        """Find the board and read every cell. ``frame``: ``(H, W, 3)`` uint8 BGR (grey,
        BGRA and 16-bit frames are converted). Falsy reading with a reason when there is
        no readable board."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # degenerate lattice hypotheses produce inf/nan that the checks reject
            return self._analyze(frame)

    def find_board(self, frame: np.ndarray) -> BoardReading:
        """Only the board: like :meth:`analyze` without reading the cells (``cells`` stay
        empty). For board-finding benchmarks."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self._analyze(frame, read_cells=False)

    def _analyze(self, frame: np.ndarray, read_cells: bool = True) -> BoardReading:
        timings: dict[str, float] = {}
        t = time.perf_counter()
        st = self.settings
        bgr = to_bgr8(frame, st.image)
        if too_small(bgr.shape, st.image):
            return _failed(f"{TOO_SMALL} ({bgr.shape[1]}x{bgr.shape[0]} pixels)", timings, bgr)
        scale, work, gray = _working_image(bgr, st.image)
        t = _lap(timings, "prepare", t)
        if too_dark(gray, st.image):
            return _failed(TOO_DARK, timings, bgr)
        net_reason, net_region = NO_BOARD, None
        if st.board_net.enabled:
            # the learned keypoint detector first: cheap, and it sees cells under pieces
            # the first network is trained on landscape frames turned by at most 25 degrees,
            # the second on frames turned by any angle (a camera at the table's corner or
            # side, a photo taken upright): it looks first at a portrait frame, and at
            # any frame where the first sees no board; the third, trained with full boards
            # seen from low cameras drawn more often, when neither sees one
            order = ["first", "turned"] if st.board_net.turned else ["first"]
            if bgr.shape[0] > bgr.shape[1]:
                order = order[::-1]
            if st.board_net.low:
                order.append("low")
            plain_maps = {}
            for k, kind in enumerate(order):
                net = self._board_net(kind)
                found = self._net_board(net, bgr, scale, (gray.shape[1], gray.shape[0]))
                if k == 0:
                    H_net, net_reason, search, net_info, net_region = found[:5]
                if found[0] is not None:
                    H_net, net_info = found[0], {**found[3], "net": kind} if kind != "first" else found[3]
                    break
                plain_maps[kind] = found[5]
            if H_net is None and st.board_net.mirror_rescue:
                # a second opinion of the same view: each network's maps of the frame
                # mirrored, the larger of the two at every point (docs/vision.md "Session 38")
                for kind in order:
                    if plain_maps.get(kind) is None:
                        continue
                    net = self._board_net(kind)
                    maps, A = net.mirrored_heatmaps(bgr)
                    maps = np.maximum(maps, plain_maps[kind])
                    to_work = np.diag([scale, scale, 1.0]) @ output_to_frame(A)
                    found = self._net_accept(board_hypotheses(maps, st.board_net), to_work,
                                             (gray.shape[1], gray.shape[0]))
                    if found is not None:
                        H_net, net_info = found[0], {**net_info, **found[1], "net": kind, "mirror": True}
                        break
            t = _lap(timings, "board_net", t)
            if H_net is not None:
                if st.board_net.zoom and net_info.get("zoom") != "rescue":
                    # the maps are coarse (8 pixels of a 1280-pixel frame): look again,
                    # zoomed on the board, and refit on the finer peaks
                    H_net = self._net_zoom(net, bgr, H_net, scale, net_info)
                    t = _lap(timings, "board_zoom", t)
                if st.board_net.polish_max_shift > 0 and (st.board_net.polish_after_zoom
                                                          or net_info.get("zoom") not in ("used", "rescue")):
                    # the maps are coarse (8 pixels of a 1280-pixel frame): polish the grid
                    # on the cell outlines, unless that moves it far (pieces' outlines)
                    polish = dataclasses.replace(st.outline, refine_step_pitch=st.board_net.polish_step_pitch,
                                                 refine_rounds=st.board_net.polish_rounds)
                    H_pol = _polish(H_net, gray, polish)
                    pitch = float(np.median(cell_pitch_px(H_net)))
                    shift = np.abs(apply_homography(H_pol, cell_grid()) - apply_homography(H_net, cell_grid()))
                    net_info["polish_shift"] = round(float(shift.max()) / pitch, 3)
                    if np.isfinite(shift).all() and shift.max() <= st.board_net.polish_max_shift * pitch:
                        H_net = H_pol
                t = _lap(timings, "board_net", t)
                return self._finish(H_net, np.zeros((0, 6)), {"method": "net", **net_info}, False,
                                    bgr, work, gray, scale, timings, t, read_cells)
            if not search:
                return _failed(net_reason, timings, bgr)
        # the hand-made searches say "cut off" (a grid or an outline running out of the
        # picture) only when the network, where it looked, also sees a board surface
        # reaching the frame's edge: a checked tablecloth's grid runs out of any frame, and
        # two whole boards in view were called cut off (docs/vision.md, "Session 26")
        edge_seen = net_region is None or net_reason == CUT_OFF
        blobs = find_blobs(gray, st.cells)
        t = _lap(timings, "cells", t)
        gradient = image_gradient(gray)
        grown: dict = {}  # lattice hypotheses, shared with the wider retry below
        fit = fit_lattice(blobs, st.lattice, (gray.shape[1], gray.shape[0]), gradient, grown)
        cut_off = fit is not None and fit.cut_off
        if cut_off:
            fit = None
        t = _lap(timings, "lattice", t)
        details: dict = {"cells_seen": 0 if fit is None else fit.inside}
        quads = None  # board outlines, found once when needed (see vision.outline.board_quads)
        # candidates: (support, H, method); every board homography is polished by the
        # cell-outline evidence, which is sharper than blob centres (recesses, checkers)
        cands = []
        lattice_evidence = 0.0  # support x peak ratio (capped), as the outline search ranks
        precise = fit is not None and fit.inside >= st.outline.trigger_cells and fit.rms <= st.lattice.precise_rms
        if fit is not None:
            if precise:
                # many crisp cells: their centres are the best evidence there is
                H_l, s_l = fit.H, 1e9
            else:
                H_l, s_l, r_l = refine_board(fit.H, gradient, st.outline)
                details["lattice_support"] = round(s_l, 3)
                details["lattice_peak"] = round(peak_ratio(H_l, r_l, gradient), 2)
            square = square_view_error(H_l, (gray.shape[1], gray.shape[0])) <= st.outline.max_square_error
            if square and (precise or details["lattice_peak"] >= st.lattice.min_peak):
                cands.append((s_l, H_l, "lattice"))
                lattice_evidence = s_l if precise else s_l * min(details["lattice_peak"], st.outline.peak_cap)
        if (not cands or fit.inside < st.outline.trigger_cells or cands[0][0] < st.outline.trigger_support):
            # most cells hidden (a full board), none seen, or a doubtful lattice: try
            # the board's outline and keep whichever explains the cells better (also when
            # the only lattice left the image: that is often a checked tablecloth, and
            # the final check below still refuses a board whose cells leave the image)
            quads = board_quads(gray, st.outline, work)
            out = fit_outline(gray, blobs, gradient, st.outline, work, quads=quads)
            t = _lap(timings, "outline", t)
            if out is not None:
                peak = peak_ratio(out[0], out[2], gradient)
                details.update(outline_support=round(out[1], 3), outline_peak=round(peak, 2))
                credible = peak >= st.outline.min_peak and out[1] * peak >= st.outline.min_evidence
                # a sharp lattice is not replaced by a flatter outline grid with a little
                # more support (a printed card beside the board)
                evidence = out[1] * min(peak, st.outline.peak_cap)
                if credible and (not cands or evidence > lattice_evidence + st.outline.prefer_lattice_by):
                    cands = [(out[1], out[0], "outline")]
        if not cands and not cut_off and st.lattice.retry_hypotheses > st.lattice.max_hypotheses:
            # a hard frame (clutter, a low view): search the lattice harder before giving up
            wide = dataclasses.replace(st.lattice, max_hypotheses=st.lattice.retry_hypotheses)
            fit = fit_lattice(blobs, wide, (gray.shape[1], gray.shape[0]), gradient, grown)
            t = _lap(timings, "lattice", t)
            if fit is not None and fit.cut_off:
                cut_off, fit = True, None
            if fit is not None:
                H_l, s_l, r_l = refine_board(fit.H, gradient, st.outline)
                if peak_ratio(H_l, r_l, gradient) >= st.lattice.min_peak and \
                        square_view_error(H_l, (gray.shape[1], gray.shape[0])) <= st.outline.max_square_error:
                    cands.append((s_l, H_l, "lattice"))
                details.update(lattice_support=round(s_l, 3), cells_seen=fit.inside, retried=True)
        if not cands:
            return _failed(CUT_OFF if cut_off and edge_seen else net_reason, timings, bgr)
        support, H_fit, details["method"] = cands[0]
        if net_region is not None:
            # the network looked first and found no board: what the hand-made searches
            # found must at least lie where it sees a board's surface
            details["net_region_support"] = round(net_region(H_fit), 3)
            if details["net_region_support"] < st.board_net.fallback_min_region_support:
                return _failed(net_reason, timings, bgr)
        if quads is None:
            quads = board_quads(gray, st.outline, work)
        if details["method"] == "lattice":
            # the grid sits in the middle of its board: a lattice found one row off (cells
            # of the first row hidden behind pieces) is moved back
            H_moved, moved = centre_on_board(H_fit, quads, st.outline)
            if moved:
                # ... but not away from cells it saw: the outline that asks for the move
                # may be a shadow or a board merged with a hand
                lost = int((match_cells(H_fit, blobs, st.lattice) >= 0).sum()) - \
                    int((match_cells(H_moved, blobs, st.lattice) >= 0).sum())
                if lost <= st.outline.recentre_max_lost:
                    H_fit = H_moved
                    details["recentred"] = moved
                else:
                    details["recentre_refused"] = moved
        doubtful = not precise and support < st.outline.trigger_support
        if doubtful and cut_off_by_outline(H_fit, quads, (gray.shape[1], gray.shape[0]), st.outline):
            # weak cell evidence and the board's outline runs out of the picture: what
            # was found may be part of a bigger grid (a clear lattice, all in view, is a
            # board even when the board's rim is cut off)
            return _failed(CUT_OFF if edge_seen else net_reason, timings, bgr)
        return self._finish(H_fit, blobs, details, precise, bgr, work, gray, scale, timings, t, read_cells)

    def _finish(self, H_fit, blobs, details, precise, bgr, work, gray, scale, timings, t, read_cells):
        """From a board homography (unit square -> working image) to the reading: cell
        numbering, centres, the last cut-off checks, then (``read_cells``) the pieces."""
        st = self.settings
        matched = match_cells(H_fit, blobs, st.lattice) if len(blobs) else np.full(16, -1)
        H_work, perm = orient(H_fit)
        matched = matched[perm]
        centres_work = _cell_centres(H_work, matched, blobs, st.lattice.max_centre_offset)
        seen = matched >= 0
        if precise and seen.sum() >= 6:
            # refit to the perspective-corrected blob centres
            H_refit, _ = cv2.findHomography(cell_grid()[seen], centres_work[seen], cv2.RANSAC,
                                            st.lattice.ransac_pitch * float(np.median(cell_pitch_px(H_work))))
            if H_refit is not None:
                H_work = H_refit / H_refit[2, 2]
                centres_work = _cell_centres(H_work, matched, blobs, st.lattice.max_centre_offset)
        h, w = gray.shape
        pitch = cell_pitch_px(H_work)
        if np.median(pitch) < st.lattice.min_pitch_fraction * min(h, w):
            return _failed(NO_BOARD, timings, bgr)
        m = st.lattice.inside_margin_pitch * pitch
        if np.any(centres_work[:, 0] - m < 0) or np.any(centres_work[:, 1] - m < 0) or \
                np.any(centres_work[:, 0] + m > w - 1) or np.any(centres_work[:, 1] + m > h - 1):
            return _failed(CUT_OFF, timings, bgr)
        S_inv = np.diag([1 / scale, 1 / scale, 1.0])
        reading = BoardReading(
            found=True,
            corners=apply_homography(S_inv @ H_work, BOARD_CORNERS),
            cell_centers=centres_work / scale,
            homography=S_inv @ H_work,
            image_size=(bgr.shape[1], bgr.shape[0]),
            details=details,
        )
        t = _lap(timings, "board", t)
        if not read_cells:
            reading.timings = timings
            timings["total"] = sum(timings.values())
            return reading
        self._read_cells(work, H_work, reading, timings, t, grey=gray)
        reading.reference = top_down(gray, H_work, st.track.warp_size)
        reading.timings = timings
        timings["total"] = sum(timings.values())
        return reading

    def _board_net(self, kind: str) -> BoardNet:
        """The board network ``kind``: "first", "turned" (trained on views turned by any
        angle) or "low" (trained with full boards seen from low cameras drawn more often)."""
        st = self.settings.board_net
        path = {"first": st.model_path or MODEL_PATH, "turned": st.turned_model_path or TURNED_MODEL_PATH,
                "low": st.low_model_path or LOW_MODEL_PATH}[kind]
        if path not in self._nets:
            self._nets[path] = BoardNet(path)
        return self._nets[path]

    def _net_board(self, net: BoardNet, bgr: np.ndarray, scale: float, work_size: tuple[int, int]):
        """The learned detector ``net``'s verdict ``(H, reason, search, details, region, maps)``: the board's
        homography (unit square -> working image) or None; when None, the reason to give
        (``CUT_OFF`` when the board region the network sees runs out of the frame, else
        ``NO_BOARD``) and whether the hand-made searches should still look (not when
        the network sees no board region and hardly any cell); details for
        ``reading.details``; (when no board) a function giving the board-region map's
        support for a homography found otherwise; and the network's maps of the frame (the
        mirrored second look combines them with its own)."""
        st = self.settings.board_net
        maps, A = net.heatmaps(bgr)
        hyps = board_hypotheses(maps, st)
        to_work = np.diag([scale, scale, 1.0]) @ output_to_frame(A)
        region = maps[2] > 0.5
        info = {"net_hypotheses": len(hyps), "net_region_area": round(float(region.mean()), 3)}
        found = self._net_accept(hyps, to_work, work_size)
        if found is not None:
            info.update(found[1])
            return found[0], "", False, info, None, maps
        if hyps:
            info.update(hyps[0][2], net_score=round(hyps[0][0], 3))
        if st.zoom and st.zoom_rescue_min_score > 0 and hyps and hyps[0][0] >= st.zoom_rescue_min_score:
            # a doubtful board (a hand over it, a small one far away): look at it zoomed,
            # where the network sees its cells larger, and accept what passes there
            maps_z, to_frame, _ = self._zoomed_maps(net, bgr, output_to_frame(A) @ hyps[0][1])
            if maps_z is not None:
                S = np.diag([scale, scale, 1.0])
                found = self._net_accept(board_hypotheses(maps_z, st), S @ to_frame, work_size)
                if found is not None:
                    info.update(found[1], zoom="rescue")
                    return found[0], "", False, info, None, maps
        from_work = np.linalg.inv(to_work)

        def region_support(H_work):
            """Mean of the board-region map at the cell centres of ``H_work``."""
            return float(sample(maps[2], apply_homography(from_work @ H_work, cell_grid())).mean())

        # the frame's part of the maps (the canvas is padded at the bottom / right)
        w_in, h_in = A[0, 0] * bgr.shape[1], A[1, 1] * bgr.shape[0]
        ow, oh = int(np.ceil(w_in / 2)), int(np.ceil(h_in / 2))
        region = region[:oh, :ow]
        n_peaks = len(peaks(maps[0][:oh, :ow], st.peak_threshold, st.max_cell_peaks))
        info["net_peaks"] = n_peaks
        if region.mean() >= st.cut_off_min_region and (region[0].any() or region[-1].any() or
                                                      region[:, 0].any() or region[:, -1].any()):
            return None, CUT_OFF, st.fallback, info, region_support, maps
        search = float(maps[2][:oh, :ow].max()) >= st.fallback_min_region or n_peaks >= st.fallback_min_peaks
        return None, NO_BOARD, search and st.fallback, info, region_support, maps

    def _net_accept(self, hyps, to_work: np.ndarray, work_size: tuple[int, int]):
        """The first of the 3 best network hypotheses (unit square -> output map) that the
        maps explain well enough and that is a view of a square, as ``(H, info)`` with
        ``H`` mapped by ``to_work`` to the working image; None when none is."""
        st = self.settings.board_net
        for score, H_out, h_info in hyps[:3]:
            H = to_work @ H_out
            H = H / H[2, 2]
            square = square_view_error(H, work_size) <= self.settings.outline.max_square_error
            if score >= st.min_score and h_info["net_cells"] >= st.min_cells and \
                    h_info["net_region"] >= st.min_region and square:
                return H, {**h_info, "net_score": round(score, 3)}
        return None

    def _net_zoom(self, net: BoardNet, bgr: np.ndarray, H_work: np.ndarray, scale: float, info: dict) -> np.ndarray:
        """The board ``H_work`` (unit square -> working image) refitted on the network's
        peaks in a zoomed view of it (see ``BoardNetSettings.zoom``), or as it was when the
        zoom gains little or the refit is doubtful (``info["zoom"]`` says which)."""
        st = self.settings.board_net
        S = np.diag([scale, scale, 1.0])
        H_frame = np.linalg.inv(S) @ H_work
        maps, to_frame, gain = self._zoomed_maps(net, bgr, H_frame)
        if maps is None:
            info["zoom"] = f"gain {gain:.2f}"
            return H_work
        H_out = np.linalg.inv(to_frame) @ H_frame
        H_out = H_out / H_out[2, 2]
        cells = peaks(maps[0], st.peak_threshold, st.max_cell_peaks)
        corners = peaks(maps[1], st.peak_threshold, st.max_corner_peaks)
        # the cell peaks alone, and with the playing area's corners (an extrapolation half
        # a pitch outside the outer cells, where a drawn board's rim may pull it, counted
        # half as much as a cell): whichever explains the zoomed maps better. A corner
        # cell whose foot a piece hides leaves the cells-only grid free to swing there
        before = explain_score(H_out, maps)[0] if np.isfinite(H_out).all() else 0.0
        H_new, n = refine(H_out, cells, np.zeros((0, 3)), st.match_tolerance, st.refine_rounds + 1)
        score = explain_score(H_new, maps)[0] if np.isfinite(H_new).all() else 0.0
        if n < st.zoom_min_inliers or not st.zoom_cells_only:
            weight = 1 if st.zoom_cells_only else max(1, st.zoom_cell_weight)
            H_k, n_k = refine(H_out, cells, corners, st.match_tolerance, st.refine_rounds + 1, weight)
            score_k = explain_score(H_k, maps)[0] if np.isfinite(H_k).all() else 0.0
            if n < st.zoom_min_inliers or score_k > score:
                H_new, n, score = H_k, n_k, score_k
        H_new = S @ to_frame @ H_new
        H_new = H_new / H_new[2, 2]
        pitch = float(np.median(cell_pitch_px(H_work)))
        shift = np.hypot(*(apply_homography(H_new, cell_grid()) - apply_homography(H_work, cell_grid())).T)
        info.update(zoom_gain=round(float(gain), 2), zoom_inliers=n, zoom_score=round(score, 3),
                    zoom_score_before=round(before, 3),
                    zoom_shift=round(float(shift.max()) / pitch, 3) if np.isfinite(shift).all() else None)
        # a refit moving the board farther than zoom_max_shift is believed only where it
        # explains the zoomed maps that much better than the board it started from
        limit = st.zoom_max_shift_better if score - before >= st.zoom_better_by > 0 else st.zoom_max_shift
        if n < st.zoom_min_inliers or score < st.min_score or not np.isfinite(shift).all() or \
                shift.max() > limit * pitch:
            info["zoom"] = "refused"
            return H_work
        info["zoom"] = "used"
        return H_new

    def _zoomed_maps(self, net: BoardNet, bgr: np.ndarray, H_frame: np.ndarray):
        """The network ``net``'s maps of the zoomed view of the board ``H_frame`` (unit square ->
        frame pixels; see :func:`vision.board_net.zoom_affine`), the output map -> frame
        map and the zoom's gain over the whole-frame view: ``(maps, to_frame, gain)``, the
        first two None when the gain is below ``zoom_min_gain`` (the board already fills
        the frame)."""
        st = self.settings.board_net
        h, w = bgr.shape[:2]
        A = zoom_affine(apply_homography(H_frame, UNIT_CORNERS), w, h, max_scale=st.zoom_max_scale)
        gain = float(A[0, 0] / input_scale(w, h))
        if gain < st.zoom_min_gain:
            return None, None, gain
        maps, used = net.zoomed_heatmaps(bgr, A)
        return maps, output_to_frame(used), gain

    def analyze_timed(self, frame: np.ndarray) -> tuple[BoardReading, dict[str, float]]:
        """:meth:`analyze` plus its per-stage timings (seconds), as in chesscog's timed
        recogniser."""
        r = self.analyze(frame)
        return r, dict(r.timings)

    # --- per-frame step -----------------------------------------------------------------
    def track(self, frame: np.ndarray, previous: BoardReading) -> BoardReading:
        """Re-read the cells of a board already found in ``previous`` (same camera); see
        :meth:`_track`."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self._track(frame, previous)

    def _track(self, frame: np.ndarray, previous: BoardReading) -> BoardReading:
        """Re-read the cells of a board already found in ``previous`` (same camera).

        Keeps the homography; cells covered by a hand are marked ``obstructed`` (their
        content carried over from ``previous``) and ``reason`` is ``"hand over the
        board"``. When the board seems to have moved, or there was no board before, runs
        a full :meth:`analyze`.
        """
        if previous is None or not previous.found or previous.homography is None:
            return self.analyze(frame)
        timings: dict[str, float] = {}
        t = time.perf_counter()
        st = self.settings
        bgr = to_bgr8(frame, st.image)
        if previous.image_size is not None and tuple(previous.image_size) != (bgr.shape[1], bgr.shape[0]):
            return self.analyze(bgr)
        # only the part of the frame the board and its pieces take is brought to working
        # scale: the same pixels there as for the whole frame, ~3 ms less
        scale, work, region = shrink_region(bgr, st.image, board_region(previous.homography, bgr.shape))
        if region is None:
            gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
            seen = gray
        else:
            x0, y0, x1, y1 = region
            gray = np.zeros(work.shape[:2], np.uint8)
            gray[y0:y1, x0:x1] = cv2.cvtColor(work[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
            seen = gray[y0:y1, x0:x1]
        t = _lap(timings, "prepare", t)
        if too_dark(seen, st.image):
            return _failed(TOO_DARK, timings, bgr)
        H_work = np.diag([scale, scale, 1.0]) @ previous.homography
        view = top_down(gray, H_work, st.track.warp_size)
        reference = previous.reference if previous.reference is not None else view
        obstructed, changed = obstructed_cells(view, reference, st.track)
        t = _lap(timings, "obstruction", t)
        if changed > st.track.moved_fraction and obstructed.sum() >= 12:
            # most of the board changed: the camera or board moved, or an arm covers it all
            again = self.analyze(bgr)
            if again.found:
                return again
            obstructed[:] = True
        reading = BoardReading(
            found=True,
            corners=previous.corners,
            cell_centers=previous.cell_centers,
            homography=previous.homography,
            image_size=previous.image_size,
            obstructed=obstructed,
            reason=HAND if obstructed.any() else "",
        )
        self._read_cells(work, H_work, reading, timings, t, keep=previous if obstructed.any() else None, grey=gray,
                         mirror=False, step=True)
        reading.reference = view if not obstructed.any() else reference
        reading.timings = timings
        timings["total"] = sum(timings.values())
        return reading

    # --- shared -------------------------------------------------------------------------
    def _read_cells(self, work, H_work, reading: BoardReading, timings, t, keep: BoardReading | None = None,
                    grey=None, mirror: bool | None = None, step: bool = False):
        st = self.settings
        models = self._step_models if step else self.models
        info = {}
        # the per-frame step reads square through the plain window alone: the watch names each
        # new piece by a full analysis, and the three windows in the step changed no figure on
        # 30 game videos (docs/vision.md, "Session 35")
        feats = features_from_work(work, H_work, st, grey, mirror=mirror, only_net=self._only_net[step], info=info,
                                   windows=not step)
        t = _lap(timings, "features", t)
        probs = predict_proba(feats, models)
        occupied = probs[:, 0] > st.pieces.occupied_threshold
        if st.pieces.hue_kinds and not step:
            probs[:, 2] = dark_with_hue_kinds(probs[:, 2], body_colours(feats), occupied)
        exclude = ()
        if keep is not None:
            # obstructed cells keep what was there; those pieces are not elsewhere
            occupied = occupied & ~reading.obstructed
            exclude = [p for i, p in enumerate(keep.cells) if reading.obstructed[i] and p is not None]
        cells = assign_pieces(occupied, probs[:, 1:], exclude=exclude)
        if keep is not None:
            for i in np.flatnonzero(reading.obstructed):
                cells[i] = keep.cells[i]
        reading.cells = cells
        reading.features = feats
        reading.large_set = info.get("large_set")
        reading.small_set = info.get("small_set")
        reading.probabilities = probs
        reading.confidence = _confidence(cells, probs)
        _lap(timings, "pieces", t)


def _confidence(cells, probs) -> np.ndarray:
    """Per cell: how sure the reading is (occupancy probability times the assigned
    piece's share of the likelihood among all 16 pieces)."""
    conf = np.zeros(16)
    ll = piece_log_likelihood(probs[:, 1:])
    for i, p in enumerate(cells):
        if p is None:
            conf[i] = 1.0 - probs[i, 0]
        else:
            post = np.exp(ll[i] - ll[i].max())
            conf[i] = probs[i, 0] * post[p] / post.sum()
    return conf


def _cell_centres(H: np.ndarray, matched: np.ndarray, blobs: np.ndarray, max_offset_pitch: float = 0.08) -> np.ndarray:
    """``(16, 2)`` cell centres: the blob seen at a cell where there is one, else the
    homography's prediction shifted by the mean offset of the nearest seen cells (which
    absorbs mild lens distortion)."""
    pred = apply_homography(H, cell_grid())
    seen = matched >= 0
    out = pred.copy()
    out[seen] = blobs[matched[seen], :2] - _perspective_bias(H, matched, blobs)[seen]
    # a blob far from where the board's homography puts its cell is a piece or a
    # merged outline, not the cell: trust the homography there
    pitch = cell_pitch_px(H)
    far = seen & (np.hypot(*(out - pred).T) > max_offset_pitch * pitch)
    out[far] = pred[far]
    seen = seen & ~far
    if seen.any():
        offs = out[seen] - pred[seen]
        grid = cell_grid()
        for i in np.flatnonzero(~seen):
            d = np.hypot(*(grid[seen] - grid[i]).T)
            w = 1.0 / (d + 0.05) ** 2
            out[i] = pred[i] + (offs * w[:, None]).sum(0) / w.sum()
    return out


def _perspective_bias(H: np.ndarray, matched: np.ndarray, blobs: np.ndarray) -> np.ndarray:
    """``(16, 2)``: how far the centre of a cell circle's image (an ellipse) lies from the
    image of the circle's centre. Under perspective the two differ by up to a few pixels;
    the blob centre is the former, the cell centre the latter."""
    out = np.zeros((16, 2))
    grid = cell_grid()
    ang = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    circle = np.stack([np.cos(ang), np.sin(ang)], 1)
    right = apply_homography(H, grid + [0.25, 0]) - apply_homography(H, grid)
    down = apply_homography(H, grid + [0, 0.25]) - apply_homography(H, grid)
    cell_area = np.abs(right[:, 0] * down[:, 1] - right[:, 1] * down[:, 0])
    for i in np.flatnonzero(matched >= 0):
        rel = blobs[matched[i], 5] / max(cell_area[i], 1e-6)
        rho = 0.25 * np.sqrt(rel / np.pi)  # the blob's radius in board units
        pts = apply_homography(H, grid[i] + rho * circle).astype(np.float32)
        (ex, ey), _, _ = cv2.fitEllipse(pts)
        out[i] = (ex, ey) - apply_homography(H, grid[i : i + 1])[0]
    return out




def _polish(H: np.ndarray, gray: np.ndarray, settings) -> np.ndarray:
    """The board ``H`` (unit square -> ``gray`` pixels) polished on the cell outlines
    (:func:`vision.outline.refine_board` with ``settings``), the gradients taken only
    around the board: farther beyond the playing area than the polish's steps can move
    a corner plus the outlines' reach, so the result is the whole image's (the window
    starts at multiples of 4, where the board's contrast is sampled); ~2 ms less."""
    h, w = gray.shape
    quad = apply_homography(H, UNIT_CORNERS)
    reach = settings.refine_rounds * settings.refine_step_pitch + 0.5  # pitches
    margin = reach * float(np.max(cell_pitch_px(H))) + 4
    if not np.isfinite(quad).all() or not np.isfinite(margin):
        return refine_board(H, image_gradient(gray), settings)[0]
    x0, y0 = (max(0, int(v - margin) // 4 * 4) for v in quad.min(0))
    x1, y1 = (min(n, int(np.ceil(v + margin))) for v, n in zip(quad.max(0), (w, h)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return refine_board(H, image_gradient(gray), settings)[0]
    T = np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
    H_roi, _, _ = refine_board(np.linalg.inv(T) @ H, image_gradient(gray[y0:y1, x0:x1]), settings)
    H_pol = T @ H_roi
    return H_pol / H_pol[2, 2]


def _working_image(bgr: np.ndarray, image_settings) -> tuple[float, np.ndarray, np.ndarray]:
    """The working image (shrunk for speed): its scale to ``bgr``, colour ``(h, w, 3)`` and
    grey ``(h, w)``, both uint8."""
    scale, work = shrink(bgr, image_settings)
    return scale, work, cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)


def _lap(timings: dict, name: str, t0: float) -> float:
    t = time.perf_counter()
    timings[name] = timings.get(name, 0.0) + (t - t0)
    return t


def _failed(reason: str, timings: dict, bgr: np.ndarray) -> BoardReading:
    r = BoardReading.not_found(reason)
    r.timings = timings
    r.image_size = (bgr.shape[1], bgr.shape[0])
    timings["total"] = sum(timings.values())
    return r
