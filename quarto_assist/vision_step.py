"""One frame in, one board reading out: vision's full analysis when needed, its fast
per-frame step otherwise.

``VisionStep(recognizer, profile)(image, t)`` runs ``recognizer.analyze`` until a board
is found, then ``recognizer.track(frame, previous)`` on each frame, which reuses the
board geometry and only looks again at the cells. When tracking loses the board, full
analyses are tried again (at most every ``retry`` seconds of source time, so a long
stretch without a board does not cost a full analysis per frame). With a lens model in
the profile the frame is undistorted first and the centres mapped back to the frame as
given.
"""

from __future__ import annotations

import copy
import sys
import time

import cv2
import numpy as np

from vision.motion import Motion, estimate_motion
from vision.obstruction import obstructed_cells, top_down

from .tracker import JUMPED, _spacing

JUMP = 0.4  # cell spacings
JUMP_VOTES = 3
#: a clear view counts as still when at most this share of it changed since the last one
STILL_FRACTION = 0.005
#: source seconds a board must stand clear and still after a check renewed the reference
#: before its view is trusted as the bare board
TRUST_AFTER = 1.5
#: the picture of the board moved by at least this much (cell spacings, at the cell that
#: moved most) since it last stood clear and still: the camera was knocked or the board
#: pushed, and tracking follows
MOTION_MIN = 0.06
#: ... and it moved by less than this: the same view
MOTION_SAME = 0.02
#: a larger move is believed only when it makes the views agree as well as
#: ``MOTION_AGREE_HUGE`` (a camera knocked hard; the cells must stay in the picture)
MOTION_MAX = 2.5
MOTION_AGREE_HUGE = 0.97
#: a move is believed only when it makes the two views agree this well (correlation on the
#: board's region) and this much better than without it (a hand, pieces come since)
MOTION_AGREE = 0.8
MOTION_GAIN = 0.05
#: a move of more than a pitch (a hard knock: a cell lands near where another was) only when
#: it makes the views agree this well
MOTION_AGREE_FAR = 0.9
#: a creep (see ``VisionStep._creep``) is followed up to this far (cell spacings); further is
#: a knock's to judge. A clamp that sags moves the picture a few hundredths of a pitch
#: between two still views (the creep is followed as soon as it adds up to ``MOTION_MIN``);
#: a registration fooled by the many pieces set down since the reference view found a
#: 14-degree turn (0.87 pitch) that explained the picture a little better than none
CREEP_MAX = 0.35
#: while nobody plays (the picture standing still, say while a Quarto waits to be claimed),
#: every this many source seconds the picture is registered with the view in which it began
#: to stand still, and a creep is followed as after a hand
CREEP_EVERY = 2.0


class VisionStep:
    def __init__(self, recognizer, profile=None, retry: float = 0.3, recheck_after: float = 0.5, every: int = 1):
        """``retry``: source seconds between full analyses while no board is in view.
        ``recheck_after``: source seconds of tracking without a clear view after which
        one full analysis checks the board is still where tracking thinks it is.
        ``every``: run vision's track step on every n-th frame only and hand back the
        last reading in between (the pixel tracker looks at every frame itself; vision
        is needed for hands and for which piece stands where, which do not change from
        one frame to the next)."""
        if every < 1:
            raise ValueError(f"invalid vision step interval: {every!r} (must be 1 or more frames)")
        self.every = every
        self._skip = 0
        self._last = None
        self.recognizer = recognizer
        self.profile = profile
        self.previous = None  # last found reading, in analysed-frame pixels
        self.retry = retry
        self.recheck_after = recheck_after
        self._last_clear: float | None = None
        self._failed: tuple[float, object] | None = None
        self.errors: set[str] = set()
        self._anchor: np.ndarray | None = None  # cell centres of the board believed in
        self._jumps: list[np.ndarray] = []
        self._analysed = False
        self._view: tuple | None = None  # (homography, top-down view) at the last vision step
        self._still = True  # the board's picture did not change since the last vision step
        self._clear_view: tuple | None = None  # (homography, vision's view) last clear and still
        self._after_check = False  # a check renewed vision's reference; its views are not trusted yet
        self._still_since: float | None = None  # since when the board stands clear and still
        self._settled: tuple | None = None  # (frame, homography) last clear and still
        # (frame, homography, creep) the view in which the board's place was last set, or a
        # later one and the (3, 3) move of the picture from that setting to it
        self._creep_ref: tuple | None = None
        self._unsettled = False  # the picture changed since it was last compared with that
        # (frame, homography, time) the view with which the picture began to stand still, and
        # when it was last compared with that view for a creep
        self._hold: tuple | None = None
        self.full = 0
        self.tracked = 0
        self.seconds = 0.0

    def __call__(self, image, t: float = 0.0):
        if self._last is not None and self._last.found and self._skip > 0:
            self._skip -= 1
            if self._last.motion is not None:  # the move is told once
                self._last = copy.copy(self._last)
                self._last.motion = self._last.picture_motion = None
            return self._last
        try:
            reading = self._on_frame(image, lambda frame: self._read(frame, t))
        except Exception as e:  # a frame vision chokes on must not end the game
            from vision.reading import BoardReading

            msg = f"{type(e).__name__}: {e}"
            if msg not in self.errors:
                self.errors.add(msg)
                print(f"WARNING vision failed on the frame at {t:.2f} s ({msg}); going on", file=sys.stderr)
            self.previous = None
            reading = BoardReading.not_found("vision failed on this frame")
        self._last = reading
        self._skip = self.every - 1
        return reading

    def look_closely(self, image):
        """Vision's full analysis of ``image`` (the board found afresh, every cell read as
        seen and mirrored): slower than the per-frame step and a better reading. The
        tracker asks for it once per placement. ``None`` when vision fails on the frame."""
        try:
            reading = self._on_frame(image, self.recognizer.analyze)
        except Exception:  # the per-frame reading stands; a failure here costs nothing
            return None
        self.full += 1
        return reading

    def _on_frame(self, image, read):
        """``read`` (frame -> reading) on ``image`` as vision sees it (undistorted with the
        profile's lens model), the reading mapped back to ``image``'s pixels; timed."""
        from calibration.camera import prepare_frame, reading_to_original

        t0 = time.perf_counter()
        try:
            frame, mapping = prepare_frame(self.profile, image)
            reading = read(frame)
            if not mapping.identity and reading.found:
                reading = reading_to_original(copy.copy(reading), mapping)
            return reading
        finally:
            self.seconds += time.perf_counter() - t0

    def _analyze(self, frame, t: float):
        self._analysed = True
        self.full += 1
        reading = self.recognizer.analyze(frame)
        if reading.found:
            self.previous = reading
            self._failed = None
            if reading.clear:
                self._last_clear = t
        else:
            self._failed = (t, reading)
        return reading

    def _read(self, frame, t: float):
        """A reading, guarded against a board that jumps: a full analysis now and then
        fits the lattice one cell off (a ring pattern repeats). A board whose cells moved
        by more than ``JUMP`` cell spacings is believed only when ``JUMP_VOTES`` readings
        in a row agree on the new place; until then tracking goes on with the board as
        it was, and the jumped reading is handed on as no clear view (reason ``JUMPED``):
        the game's tracker waits."""
        previous = self.previous
        self._analysed = False
        reading = self._read_unguarded(frame, t)
        if not reading.found or reading.cell_centers is None:
            return reading
        centers = np.asarray(reading.cell_centers, float)
        if not self._analysed and previous is not None and previous.cell_centers is not None and \
                _same_board(np.asarray(previous.cell_centers, float), centers):
            return reading  # tracked on the board as it was: no news about where it is
        if self._anchor is None or _same_board(self._anchor, centers):
            self._anchor = centers
            self._jumps = []
            return reading
        if self._jumps and not _same_board(self._jumps[-1], centers):
            self._jumps = []
        self._jumps.append(centers)
        if len(self._jumps) >= JUMP_VOTES:  # it really moved
            self._anchor = centers
            self._jumps = []
            return reading
        self.previous = previous if previous is not None and previous.found else self.previous
        # not yet believed: handed on as no clear view, so that the game's tracker neither
        # judges it nor matches its cells again on it (a knock followed a frame later would
        # then move cells already matched)
        jumped = copy.copy(reading)
        jumped.reason = JUMPED
        return jumped

    def _read_unguarded(self, frame, t: float):
        if self.previous is None or not hasattr(self.recognizer, "track"):
            if self._failed is not None and t - self._failed[0] < self.retry:
                return self._failed[1]
            return self._analyze(frame, t)
        self._look(frame)
        motion, doubt = self._follow(frame, t)
        # the check waits for a still picture: taken while an arm is leaving, its view of
        # the board (the reference for hands) would hold part of the arm
        if motion is None and self._last_clear is not None and t - self._last_clear > self.recheck_after \
                and self._still:
            self._last_clear = t  # one check per period, not one per frame
            self._after_check = True
            reading = self.recognizer.analyze(frame)
            self._analysed = True
            self.full += 1
            if reading.found and reading.clear:
                c = np.asarray(reading.cell_centers, float)
                if self._anchor is not None and not _same_board(self._anchor, c):
                    if self._jumps and not _same_board(self._jumps[-1], c):
                        self._jumps = []
                    self._jumps.append(c)
                    if len(self._jumps) >= JUMP_VOTES:  # analyses agree: the board really moved
                        self.previous = reading
                        return reading
            # the board is where tracking has it (or the analysis found nothing, or put it
            # elsewhere once): keep tracking's geometry (views of the board stay comparable),
            # but compare from now on against the present view (a reference taken with a
            # hand in it would call every later frame obstructed)
            self._analysed = False  # what follows is no news about where the board is
            fresh = copy.copy(self.previous)
            fresh.reference = None
            self.tracked += 1
            reading = self.recognizer.track(frame, fresh)
            if reading.found and reading.clear:
                self.previous = reading
                self._last_clear = t
            return reading
        self.tracked += 1
        reading = self._verified(frame, self.recognizer.track(frame, self.previous), t)
        if motion is not None:
            reading.motion = motion[0].affine
            reading.picture_motion = None if motion[1] is None else motion[1].affine
        if reading.found and reading.clear and self._still and motion is None and not doubt:
            # the view a knock is measured against: the last one clear and still
            self._settled = (frame, self.previous.homography)
            if self._creep_ref is None or self._creep_ref[1] is not self.previous.homography:
                self._creep_ref = (frame, self.previous.homography, np.eye(3))
        if not reading.found:
            self.previous = None
            self._failed = (t, reading)
        elif reading.clear:
            self._steady_reference(reading)
            self.previous = reading
            self._last_clear = t
        return reading

    def _follow(self, frame, t: float):
        """The camera knocked or the board pushed while tracking: when the picture stands
        still again after a change, register it with the last view that stood clear and
        still (:func:`vision.motion.estimate_motion`); a move of ``MOTION_MIN`` to
        ``MOTION_MAX`` cell spacings that makes the views agree is followed at once (the
        homography, the cells and the corners moved with it; vision's reference view taken
        afresh). Returns ``(motion, doubt)``: the move followed or ``None``, and whether a
        move was seen but not believed (the view compared with is then kept). The move is
        ``(board, picture)``: :class:`vision.motion.Motion` of the board's place, and of the
        picture since the last still view when that differs (a creep followed at last), else
        ``None``; the game's tracker moves its pictures by the latter. Without this the
        per-frame step would read every cell where it used to be: a knock of a few degrees
        moves the cells by a third of a pitch and looks like no hand at all. A larger move
        is followed only when it makes the views agree nearly perfectly
        (``MOTION_AGREE_HUGE``) and keeps every cell in the picture; else it is left to the
        full analyses (``JUMP_VOTES``). A camera creeping is followed by
        :meth:`_creep` when no knock is seen, and by :meth:`_creep_while_still` while the
        picture stands still (``t``: the frame's source time)."""
        prev = self.previous
        if not self._still:
            self._unsettled = True
            return None, False
        if prev is None or prev.homography is None or prev.cell_centers is None:
            return None, False
        if self._settled is None or self._settled[1] is not prev.homography:
            return None, False
        if not self._unsettled:
            return self._creep_while_still(frame, t), False
        self._unsettled = False
        self._hold = (frame, prev.homography, t)
        try:
            m = estimate_motion(self._settled[0], frame, prev.homography, hard=True)
        except (cv2.error, np.linalg.LinAlgError):
            m = None
        if m is None:
            return None, False
        centers = np.asarray(prev.cell_centers, float)
        shift = _shift(m, centers)
        if shift < MOTION_MIN:
            creep = self._creep(frame, m)
            if creep is not None:
                return creep, False
        if shift < MOTION_SAME:
            return None, False
        if shift < MOTION_MIN or m.after < MOTION_AGREE or m.after - m.before < MOTION_GAIN \
                or (shift > 1.0 and m.after < MOTION_AGREE_FAR) \
                or (shift > MOTION_MAX and (m.after < MOTION_AGREE_HUGE or not _inside(m.apply(centers), frame))):
            return None, True
        self._move(frame, m)
        return (m, None), False

    def _move(self, frame, m) -> None:
        """Tracking's board moved by ``m`` (:class:`vision.motion.Motion`), seen in ``frame``."""
        prev = self.previous
        moved = copy.copy(prev)
        moved.homography = m.homography() @ prev.homography
        moved.cell_centers = m.apply(np.asarray(prev.cell_centers, float))
        if prev.corners is not None:
            moved.corners = m.apply(prev.corners)
        moved.reference = None
        self.previous = moved
        self._anchor, self._jumps = moved.cell_centers, []
        self._settled = (frame, moved.homography)
        self._creep_ref = (frame, moved.homography, np.eye(3))
        self._view, self._clear_view = None, None

    def _creep_while_still(self, frame, t: float):
        """The picture has stood still since the view it began to stand still with (``_hold``):
        every ``CREEP_EVERY`` seconds register it with that view, and follow a creep as
        :meth:`_creep` does after a hand. A camera creeping all through a long wait would
        otherwise move every cell's picture a little at a time, never enough between two
        frames to be a change, until a cell on a sharp edge of the board looked like a new
        piece set down with no hand (or a piece like another). Returns what :meth:`_creep`
        returns."""
        prev = self.previous
        hold = self._hold
        if hold is None or hold[1] is not prev.homography:
            self._hold = (frame, prev.homography, t)
            return None
        if t - hold[2] < CREEP_EVERY:
            return None
        self._hold = (hold[0], hold[1], t)
        try:
            m = estimate_motion(hold[0], frame, prev.homography)
        except (cv2.error, np.linalg.LinAlgError):
            return None
        if m is None or _shift(m, np.asarray(prev.cell_centers, float)) < MOTION_SAME:
            return None
        creep = self._creep(frame, m)
        if creep is not None:
            self._hold = (frame, self.previous.homography, t)
        return creep

    def _creep(self, frame, since_still):
        """The picture settled within ``MOTION_MIN`` of the last still view
        (``since_still``: that move): register it with the view in which the board's place
        was last set too, and follow the creep when it adds up to ``MOTION_MIN``. Returns
        ``(board move, picture move since the last still view)`` when followed, else
        ``None``."""
        ref = self._creep_ref
        prev = self.previous
        if ref is None or ref[1] is not prev.homography:
            return None
        if ref[0] is self._settled[0]:
            m = since_still  # that view is the last still one: registered already
        else:
            try:
                m = estimate_motion(ref[0], frame, prev.homography)
            except (cv2.error, np.linalg.LinAlgError):
                m = None
        if m is None or m.after < m.before:
            # the move does not explain the picture (many pieces came since that view):
            # start again from this one, the creep so far kept
            self._creep_ref = (frame, prev.homography, ref[2])
            return None
        total = m.homography() @ ref[2]
        board = Motion(total[:2].copy(), m.before, m.after)
        shift = _shift(board, np.asarray(prev.cell_centers, float))
        if shift < MOTION_MIN or shift > CREEP_MAX or m.after - m.before < MOTION_GAIN:
            return None
        self._move(frame, board)
        return board, since_still

    def _steady_reference(self, reading) -> None:
        """Vision compares each frame with a reference view of the board to see hands.
        A clear view becomes that reference only when the picture stands still: an arm
        leaving the board is clear of the cells for a frame or two while still moving at
        the edge, and a reference taken then would call the bare board "a hand" once the
        arm has gone."""
        old = getattr(self.previous, "reference", None)
        if not self._still and old is not None and getattr(reading, "reference", None) is not None \
                and self.previous.homography is reading.homography:
            reading.reference = old

    def _verified(self, frame, reading, t: float):
        """A hand seen against a reference view from the check made while a hand stays
        (see ``recheck_after``) is looked at once more against the last view of the
        board that stood clear and still: that check may have taken a hand that held still,
        setting a piece down, into its view, so that the bare board reads as "a hand" once
        the hand has gone, until the next check."""
        before = self._clear_view
        if not reading.found:
            return reading
        if reading.clear:
            if not self._still:
                self._still_since = None
            elif self._still_since is None:
                self._still_since = t
            # after a check, a view is trusted only once the board has stood clear and
            # still for a while (a hand rarely holds still that long)
            if self._after_check and self._still_since is not None and t - self._still_since >= TRUST_AFTER:
                self._after_check = False
            if self._still and not self._after_check and getattr(reading, "reference", None) is not None:
                self._clear_view = (reading.homography, reading.reference)
            return reading
        self._still_since = None
        if before is None or before[0] is not reading.homography or self.previous is None \
                or self.previous.reference is before[1]:
            return reading
        fresh = copy.copy(self.previous)
        fresh.reference = before[1]
        self.tracked += 1
        again = self.recognizer.track(frame, fresh)
        if again.found and again.clear:
            self._after_check = False  # the view from before the hand came was right
            return again
        return reading

    def _look(self, frame) -> None:
        """Whether the board's picture stands still since the last vision step
        (``self._still``), from a small top-down view of the board as vision last placed it."""
        prev = self.previous
        if prev is None or getattr(prev, "homography", None) is None or not hasattr(self.recognizer, "settings"):
            self._view, self._still = None, True
            return
        grey = _grey(frame)
        track = self.recognizer.settings.track
        view = top_down(grey, prev.homography, track.warp_size)
        last, self._view = self._view, (prev.homography, view)
        if last is None or last[0] is not prev.homography:
            self._still = True  # a new board geometry: nothing to compare with
            return
        _, changed = obstructed_cells(view, last[1], track)
        self._still = changed <= STILL_FRACTION


def _shift(m, centers: np.ndarray) -> float:
    """How far the move ``m`` takes the cell that moves most, in cell spacings."""
    return float(np.linalg.norm(m.apply(centers) - centers, axis=1).max()) / _spacing(centers)


def _inside(points: np.ndarray, frame: np.ndarray) -> bool:
    """Whether every (x, y) of ``points`` lies in ``frame``'s picture."""
    h, w = frame.shape[:2]
    return bool(np.all((points[:, 0] >= 0) & (points[:, 0] < w) & (points[:, 1] >= 0) & (points[:, 1] < h)))


def _grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame[..., :3], cv2.COLOR_BGR2GRAY)


def _same_board(a: np.ndarray, b: np.ndarray) -> bool:
    """Do two (16, 2) sets of cell centres describe the same board (in any numbering)?"""
    d = np.linalg.norm(a[:, None] - b[None], axis=2)
    return bool(d.min(axis=1).max() <= JUMP * _spacing(a) and len(set(d.argmin(axis=1))) == 16)
