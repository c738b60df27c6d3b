"""The watch session: the app loop that owns time, devices and the user.

Frames come from a source (:mod:`quarto_assist.capture`), readings from a step
(:class:`quarto_assist.vision_step.VisionStep` or a scripted fake), changes from the
:class:`~quarto_assist.tracker.Tracker`, rulings from the
:class:`~quarto_assist.referee.Referee`. The session turns them into the game record,
events, speech, the window and coaching. Every delay runs on the source's time ``t``.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

import numpy as np

from engine.pieces import describe_values, piece_symbol, piece_words
from engine.position import Position, PositionError
from engine.rules import CLASSIC, Variant, cell_name, mask_cells

from .capture import CameraLost
from .clock import Clock, WallClock
from .events import EventLog, point
from .game import WatchedGame
from .phrases import Phrases
from .pixel_tracker import PixelSettings, PixelTracker
from .referee import Referee, Ruling
from .tablewords import cell_keys, group_key
from .tracker import Tracker, TrackerSettings, TrackEvent


#: flags from the most to the least important; only the first of a batch is spoken
FLAG_PRIORITY = ("moved", "disappeared", "two_new", "duplicate", "changed")
#: a piece that merely reads differently is shown, not spoken (usually a misreading)
SPOKEN_FLAGS = ("moved", "disappeared", "two_new", "duplicate")
FLAG_EVERY = 5.0  # seconds of source time between spoken flags
#: a piece is marked for checking ("?" on the board, the placed event's "unsure") while the
#: camera gives any of its attributes, as the game has it, less than this probability. Chosen
#: as the largest of 0.5-0.9 that marks at most one in ten pieces named right: on the fourteen
#: game videos (session 11) 0.6 marks, when placed, 5 of the 22 pieces named wrongly and 13 of
#: the 146 named right (0.8: 11 and 27); vision is often wrong and sure, so most wrong names
#: go unmarked
DOUBT = 0.6
#: seconds of source time without a board, from the first frame, before the user is told
#: (once) what the camera should show
NO_BOARD_NOTE = 5.0
NO_BOARD_ADVICE = "show the whole board, from a camera tilted 30-50 degrees from straight down, in even light"
#: pieces placed, all read as one colour, after which the watch advises calibrating the set
SAME_COLOUR_ADVICE = 6


class ResumeMismatch(ValueError):
    """The board in view does not agree with the record being resumed."""


@dataclass
class WatchOptions:
    variant: Variant = CLASSIC
    grace: float = 3.0
    settle: float | None = None  # seconds; None: the tracker's own default
    language: str = "en"
    coach: bool = False
    record_path: str | None = None
    resumed_from: str | None = None
    pace: bool = False  # play files at their own speed (with a window)
    grace_slack: float = 0.5  # seconds added to the grace period (see _placed)
    #: an unclaimed line is announced only when the camera's reading makes it at least this
    #: likely (see referee); less sure lines are shown, not spoken
    min_confidence: float = 0.0
    pixels: bool = True  # find where the board changed from the picture (PixelTracker)
    join: bool = False  # a new game starts from the pieces seen on the board, not an empty board
    retry_first: float = 0.5  # camera retry: first wait, doubled up to retry_max
    retry_max: float = 5.0
    speech_timeout: float = 60.0


@dataclass
class Message:
    t: float
    text: str
    kind: str = "info"  # info | quarto | flag | coach


@dataclass
class ViewState:
    """What the window draws (besides the frame): all in image pixels."""

    t: float = 0.0
    reading: object = None
    centers: np.ndarray | None = None
    board: list = field(default_factory=lambda: [None] * 16)
    last_cell: int | None = None
    winning: list[list[int]] = field(default_factory=list)
    unsure: list[list[int]] = field(default_factory=list)  # lines the camera is not sure of
    flagged_cells: list[int] = field(default_factory=list)
    coach_place: int | None = None
    coach_give: int | None = None
    coach_poison: list[int] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    status: str = ""
    setup: list[str] = field(default_factory=list)  # short setup advice, shown all game
    #: cell -> the attributes (as the game has them, e.g. ["dark"]) the camera is unsure of
    doubtful: dict[int, list[str]] = field(default_factory=dict)
    edit: str | None = None  # keys typed so far in correct mode, e.g. "b"
    variant: str = "classic"
    grace: float = 3.0
    coach: bool = False
    over: bool = False


class Watcher:
    def __init__(self, source, step, speaker, log: EventLog, options: WatchOptions | None = None,
                 clock: Clock | None = None, game: WatchedGame | None = None, window=None, coach=None,
                 out=None):
        self.source = source
        self.step = step
        self.speaker = speaker
        self.log = log
        self.opt = options or WatchOptions()
        self.clock = clock or WallClock()
        self.window = window
        self.coach = coach
        self.out = out or (lambda s: print(s, flush=True))
        self.phrases = Phrases(self.opt.language)
        self.resuming = game is not None
        self.game = game or WatchedGame(variant=self.opt.variant)
        if self.resuming:
            self.opt.variant = self.game.variant
        expected = self.game.board() if self.resuming else None
        settle = {} if self.opt.settle is None else {"settle": self.opt.settle}
        if self.opt.pixels:
            self.tracker = PixelTracker(PixelSettings(join=self.opt.join, **settle), board=expected)
        else:
            self.tracker = Tracker(TrackerSettings(**settle), board=expected)
        if self.opt.pixels:
            # once per placement the tracker asks vision for its closer look at the frame
            self.tracker.look = getattr(step, "look_closely", None)
            # a calibrated profile knows the set's two colours in this light: the watch
            # weighs each new piece's colour against them from the first piece on
            from calibration.profile import set_colours

            self.tracker.set_colours = set_colours(getattr(step, "profile", None))
        self.referee = self._referee(self.game.board())
        if self.game.ended:
            self.referee.over = True
        self.view = ViewState(variant=str(self.opt.variant), grace=self.opt.grace, coach=self.opt.coach,
                              board=self.game.board())
        self.t = 0.0
        self.quit = False
        self.frames = 0
        self._first_t: float | None = None
        self._noboard_noted = False
        self._view_checked = False
        self._colours_advised = False  # the advice to calibrate a set whose colours look alike: once a game
        self._doubt_key = None  # what view.doubtful was computed for (see _update_doubt)
        self._coach_turn = None
        self._flag_said: float | None = None

    def _referee(self, cells) -> Referee:
        return Referee(self.opt.variant, self.opt.grace, cells=cells, belief=self.tracker.belief,
                       min_confidence=self.opt.min_confidence)

    # --- output -----------------------------------------------------------------
    def _say(self, t: float, text: str, kind: str = "info") -> None:
        self.out(f"{t:8.2f}s  {text}")
        self.speaker.say(text)
        self.view.messages.append(Message(t, text, kind))
        del self.view.messages[:-6]

    def _note(self, t: float, text: str) -> None:
        """Shown and printed, not spoken."""
        self.out(f"{t:8.2f}s  {text}")
        self.view.messages.append(Message(t, text, "info"))
        del self.view.messages[:-6]

    def _center(self, cell: int):
        if self.tracker.centers is None:
            return [0.0, 0.0]
        return point(self.tracker.centers[cell])

    def _save(self) -> None:
        if not self.opt.record_path:
            return
        try:
            self.game.save(self.opt.record_path)
        except OSError as e:
            self.out(f"WARNING cannot save the game record {self.opt.record_path!r}: {e}")
            self.opt.record_path = None

    def _position(self) -> str:
        return Position(self.game.board(), None).board_text()

    # --- the loop ---------------------------------------------------------------
    def run(self) -> int:
        self.log.emit(0.0, "started", source=self.source.name, variant=str(self.opt.variant),
                      grace=self.opt.grace, language=self.opt.language, coach=self.opt.coach,
                      record=self.opt.record_path, resumed=self.opt.resumed_from)
        reason = "source ended"
        wall0 = self.clock.now()
        try:
            while not self.quit:
                try:
                    frame = self.source.read()
                except CameraLost as e:
                    if not self._reconnect(e):
                        reason = "quit"
                        break
                    continue
                if frame is None:
                    break
                if self.opt.pace and not self.source.live:
                    ahead = frame.t - (self.clock.now() - wall0)
                    if ahead > 0:
                        self.clock.sleep(ahead)
                self.process(frame.t, self.step(frame.image, frame.t), frame.image)
            else:
                reason = "quit"
        except KeyboardInterrupt:
            reason = "interrupted"
        self.finish(reason)
        return 0

    def process(self, t: float, reading, image=None) -> None:
        """One frame's reading at source time ``t`` (the loop's body; tests call it)."""
        self.t = t
        self.frames += 1
        if not self._view_checked and reading.found and image is not None:
            self._check_view(t, reading, image)
        for ev in self.tracker.update(t, reading, image):
            self._on_track(ev, t)
        for r in self.referee.tick(t):
            self._on_ruling(r)
        if self.coach is not None:
            for advice in self.coach.poll():
                self._on_advice(advice)
        self.view.t = t
        self.view.reading = reading
        self.view.centers = self.tracker.centers
        self.view.board = self.game.board()
        self._update_doubt()
        self.view.flagged_cells = sorted({c for i in self.tracker.issues for c in i.cells})
        self.view.over = self.referee.over
        if self._first_t is None:
            self._first_t = t
        if not reading.found:
            self.view.status = self.phrases.t["status_noboard"] + (f" ({reading.reason})" if reading.reason else "")
            if self.tracker.centers is None and not self._noboard_noted and t - self._first_t >= NO_BOARD_NOTE:
                # a headless run shows nothing else until a board turns up: say what to do
                self._noboard_noted = True
                why = f" ({reading.reason})" if reading.reason and reading.reason != "no board in view" else ""
                self._note(t, f"no board in view yet{why}: {NO_BOARD_ADVICE}")
        elif not reading.clear:
            self.view.status = self.phrases.t["status_hand"]
        else:
            self.view.status = ""
        if self.window is not None and image is not None:
            for action in self.window.show(image, self.view):
                self.act(action)

    def doubts(self) -> dict[int, list[str]]:
        """Cells whose piece the camera is unsure of (any attribute, as the game has it,
        below ``DOUBT``), with the words of those attributes: what the player should check
        and correct (key ``e``) if wrong. Cells the user set are sure."""
        board = self.game.board()
        out = {}
        for cell, b in self.tracker.belief().items():
            piece = board[cell]
            if piece is None:
                continue
            words = piece_words(piece).split()  # tall/short, dark/light, ...: the belief's order
            unsure = [w for k, w in enumerate(words) if b[k] < DOUBT]
            if unsure:
                out[cell] = unsure
        return out

    def _update_doubt(self) -> None:
        """``view.doubtful``, recomputed only when the game's board or its placements
        changed (the tracker's evidence changes with them) or the user corrected a piece."""
        key = (tuple(self.game.board()), len(self.game.placements))
        if key != self._doubt_key:
            self._doubt_key = key
            self.view.doubtful = self.doubts()

    def _check_view(self, t: float, reading, image) -> None:
        """Once, at the first board in view: is the camera where pieces can be read
        (``vision.view_check``)? Shown, printed and logged; not spoken."""
        from vision.view_check import check_view

        H = getattr(reading, "homography", None)
        if H is None:
            return
        self._view_checked = True
        profile = getattr(self.step, "profile", None)
        camera = getattr(getattr(profile, "vision", None), "camera", None)
        for a in check_view(H, image.shape, camera, image):
            self.log.emit(t, "view_advice", **a.to_json())
            self._note(t, f"camera: {a.message}")
            self.view.setup.append(a.short)

    def finish(self, reason: str) -> None:
        for ev in self.tracker.finish(self.t):
            self._on_track(ev, self.t)
        for r in self.referee.finish(self.t):
            self._on_ruling(r)
        result = "unfinished"
        if self.referee.result is not None:
            result = "won" if self.referee.result.kind == "claimed" else "draw"
        seen = self.tracker.centers is not None
        skipped = list(getattr(self.source, "skipped", ()))
        if skipped:
            names = ", ".join(skipped[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
            self._note(self.t, f"{len(skipped)} file(s) of {self.source.name} could not be read as images "
                               f"and were skipped: {names}")
        if not self.frames:
            self._note(self.t, f"no frame could be read from {self.source.name}: nothing was watched")
        elif not seen:
            self._note(self.t, f"no board was seen in the {self.frames} frames of {self.source.name}: {NO_BOARD_ADVICE}")
        self.log.emit(self.t, "ended", reason=reason, result=result, position=self._position(),
                      placements=len(self.game.placements), record=self.opt.record_path, board_seen=seen)
        self._save()
        if self.coach is not None:
            self.coach.close()
        self.speaker.close(self.opt.speech_timeout)
        if self.window is not None:
            self.window.close()

    def _reconnect(self, err: Exception) -> bool:
        """The camera stopped: say so, keep the game, retry with growing waits.
        Returns False when the user quit meanwhile."""
        t = self.t
        self.log.emit(t, "camera_lost", message=str(err))
        self._say(t, self.phrases.say("camera_lost"), "flag")
        self.tracker.update(t, _NotFound("camera lost"))
        wait = self.opt.retry_first
        tries = 0
        while True:
            self.clock.sleep(wait)
            tries += 1
            if self.window is not None:
                for action in self.window.poll():
                    self.act(action)
                if self.quit:
                    return False
            try:
                self.source.reopen()
            except CameraLost:
                wait = min(wait * 2, self.opt.retry_max)
                continue
            self.log.emit(t, "camera_back", tries=tries)
            self._say(t, self.phrases.say("camera_back"))
            return True

    # --- the user ---------------------------------------------------------------
    def act(self, action: tuple) -> None:
        """A user action: ``("quit",)``, ``("claim",)``, ``("undo",)``,
        ``("correct", cell, piece_or_None)``, ``("given", piece)`` (coach: the piece
        handed over)."""
        kind = action[0]
        t = self.t
        if kind == "quit":
            self.quit = True
        elif kind == "claim":
            self.log.emit(t, "claim_key")
            for r in self.referee.claim(t):
                self._on_ruling(r)
        elif kind == "undo":
            p = self.game.undo()
            if p is None:
                self._note(t, "nothing to undo")
                return
            self.tracker.remove(p.cell)
            self.referee.reset(self.game.board())
            self.view.last_cell = self.game.placements[-1].cell if self.game.placements else None
            self.view.winning = []
            self.view.unsure = []
            self.log.emit(t, "undo", piece=piece_symbol(p.piece), cell_center=self._center(p.cell),
                          position=self._position())
            self._note(t, f"undone: {piece_symbol(p.piece)} on {cell_name(p.cell)} (take it off the board too)")
            self._save()
        elif kind == "correct":
            cell, piece = action[1], action[2]
            try:
                self.game.set_cell(cell, piece)
            except PositionError as e:
                self._note(t, f"cannot correct: {e}")
                return
            self.tracker.correct(cell, piece)
            self._doubt_key = None  # the tracker dropped its evidence for the cell: look again
            last = self.game.placements[-1].cell if self.game.placements else None
            rulings = self.referee.reset(self.game.board(), t, last if last == cell else None)
            self.view.winning = []
            self.view.unsure = []
            self.log.emit(t, "corrected", cell_center=self._center(cell),
                          piece=None if piece is None else piece_symbol(piece), position=self._position())
            self._note(t, f"corrected {cell_name(cell)}: {'empty' if piece is None else piece_symbol(piece)}")
            self._save()
            for r in rulings:
                self._on_ruling(r)
        elif kind == "given":
            piece = action[1]
            self.log.emit(t, "given", piece=piece_symbol(piece))
            board = self.game.board()
            if piece in board:
                self._note(t, f"piece {piece_symbol(piece)} is already on the board")
                return
            self.tracker.expect(piece)  # the next piece set down is read as this one, unless vision surely disagrees
            if self._coach_may_ask():
                self._coach_turn = ("place", len(self.game.placements), piece)
                self.coach.ask(self._coach_turn, Position(board, piece), self.opt.variant)

    # --- tracker ----------------------------------------------------------------
    def _on_track(self, ev: TrackEvent, now: float) -> None:
        if ev.kind == "board_found":
            self._board_found(ev, now)
        elif ev.kind == "placed":
            self._placed(ev, now)
        elif ev.kind == "reread":
            self._reread(ev, now)
        elif ev.kind == "relocated":
            self._relocated(ev, now)
        elif ev.kind == "flagged":
            occupied = {c for c, p in enumerate(self.game.board()) if p is not None}
            gone = {i.cells[0] for i in ev.issues if i.kind == "disappeared"}
            cleared = ev.board is not None and all(c is None for c in ev.board)
            if len(occupied) >= 2 and (cleared or gone == occupied):
                self._new_game(now)
                return
            # the game is over and the players are clearing the board: nothing to scold
            quiet = self.referee.over and all(i.kind == "disappeared" for i in ev.issues)
            # say only the most important issue, and not more often than FLAG_EVERY seconds
            # (a reading that flickers must not talk over the game); the rest is shown
            ranked = sorted(ev.issues, key=lambda i: FLAG_PRIORITY.index(i.kind))
            spoken = ranked[0] if ranked and not quiet and ranked[0].kind in SPOKEN_FLAGS and \
                (self._flag_said is None or now - self._flag_said >= FLAG_EVERY) else None
            if spoken is not None:
                self._flag_said = now
            for issue in ranked:
                text = self._issue_text(issue)
                if issue is spoken:
                    self._say(now, text, "flag")
                else:
                    self._note(now, text)
                self.log.emit(now, "flagged", kind=issue.kind, cells=[self._center(c) for c in issue.cells],
                              pieces=[piece_symbol(p) for p in issue.pieces if p is not None], text=text)
        elif ev.kind == "cleared":
            self._say(now, self.phrases.say("cleared"))
            self.log.emit(now, "flag_cleared")
        elif ev.kind == "hand":
            if self.game.placements:
                self.referee.hand_over(now)
        elif ev.kind == "lost":
            self.log.emit(now, "board_lost", reason=ev.reason)
        elif ev.kind == "found":
            self.log.emit(now, "board_back")
        elif ev.kind == "moved_board":
            self.log.emit(now, "board_moved", cell_centers=[self._center(c) for c in range(16)])
            self._note(now, "the board was moved; cells matched again")
        elif ev.kind == "unmatched":
            self.log.emit(now, "board_unmatched")
            self._say(now, self.phrases.say("unmatched"), "flag")

    def _new_game(self, now: float) -> None:
        """The board was cleared: the game in the record stays as it was, a new one starts
        (in a new record file beside it)."""
        self._save()
        old = self.opt.record_path
        if old:
            base, ext = os.path.splitext(old)
            m = re.match(r"(.*)-game(\d+)$", base)
            n = int(m.group(2)) + 1 if m else 2
            self.opt.record_path = f"{m.group(1) if m else base}-game{n}{ext}"
        self.game = WatchedGame(variant=self.opt.variant)
        self._colours_advised = False
        self.tracker.new_game()
        self.referee = self._referee(None)
        self.view.last_cell = None
        self.view.winning = []
        self.view.unsure = []
        self._clear_coach_marks()
        self.log.emit(now, "new_game", previous_record=old, record=self.opt.record_path)
        self._say(now, self.phrases.say("new_game"))
        self._save()
        self._ask_give(now)

    def _board_found(self, ev: TrackEvent, now: float) -> None:
        seen = list(ev.board)
        if self.resuming:
            extra = [c for c in ev.mismatch if self.game.board()[c] is None and seen[c] is not None]
            if len(ev.mismatch) > 1 or len(extra) != len(ev.mismatch):
                raise ResumeMismatch(self._mismatch_text(seen, ev.mismatch))
        elif any(p is not None for p in seen):
            try:
                Position.parse(Position(seen, None).board_text() + " -", self.opt.variant, allow_won=True)
            except PositionError as e:
                raise ResumeMismatch(f"the board in view cannot start a game: {e}") from None
            self.game.start = seen
            self.referee.cells = list(seen)
            self._note(now, f"started from the board as it stands: {Position(seen, None).board_text()}")
        self.log.emit(now, "board_found", cell_centers=[self._center(c) for c in range(16)],
                      position=self._position())
        self._save()
        self._ask_give(now)

    def _mismatch_text(self, seen, cells) -> str:
        want = self.game.board()
        parts = []
        for c in cells[:4]:
            w = "empty" if want[c] is None else piece_symbol(want[c])
            s = "empty" if seen[c] is None else piece_symbol(seen[c])
            parts.append(f"{cell_name(c)} should be {w} but the camera sees {s}")
        where = self.opt.resumed_from or "the record"
        return (f"the board in view does not agree with {where!r}: " + "; ".join(parts) +
                f" (record: {Position(want, None).board_text()}, seen: {Position(list(seen), None).board_text()})")

    def _placed(self, ev: TrackEvent, now: float) -> None:
        cell, piece = ev.cell, ev.piece
        fields = dict(piece=piece_symbol(piece), cell_center=self._center(cell), cell=cell_name(cell))
        if self.referee.over:
            self.log.emit(ev.t, "placed", **fields, counted=False)
            self._note(now, f"{piece_symbol(piece)} placed after the game ended: not counted")
            return
        self.game.place(cell, piece, ev.t)
        self._save()
        self.view.last_cell = cell
        self.view.winning = []
        self.view.unsure = []
        self.view.coach_place = None
        self._update_doubt()  # once per placement: the frame's own update then finds it done
        unsure = self.view.doubtful.get(cell)
        if unsure:
            fields["unsure"] = unsure
        self.log.emit(ev.t, "placed", **fields, position=self._position())
        self._note(now, self.phrases.say("placed", piece=piece, symbol=piece_symbol(piece)))
        self._colour_advice(ev.t, now)
        # the grace period counts from a little after the piece was first seen still: the
        # placing hand may linger near the board a moment longer than the picture shows
        for r in self.referee.placed(now, cell, piece, settled_t=ev.t + self.opt.grace_slack):
            self._on_ruling(r)
        self._ask_give(now)

    def _colour_advice(self, t: float, now: float) -> None:
        """Once a game, when the first ``SAME_COLOUR_ADVICE`` pieces or more all read as one
        colour and the profile does not know the set's two colours: a set has eight of each,
        so that happens by chance in about one game in 140 (``2 * C(8, 6) / C(16, 6)``), and
        far more often when the camera cannot tell the set's two colours apart (a white and
        a pale pink set, say). Says what would help: calibrating the set."""
        if self._colours_advised or getattr(self.tracker, "set_colours", ()):
            return
        pieces = [p for p in self.game.board() if p is not None]
        if len(pieces) < SAME_COLOUR_ADVICE or len({p & 2 for p in pieces}) != 1:
            return
        self._colours_advised = True
        kind = "dark" if pieces[0] & 2 else "light"
        text = (f"every piece so far reads {kind}; a set has eight of each: if its two colours look alike from "
                "here, calibrate it (quarto-assist calibrate) and watch with --profile")
        self.log.emit(t, "advice", kind="calibrate_colours", text=text)
        self._note(now, text)

    def _reread(self, ev: TrackEvent, now: float) -> None:
        """Pieces placed earlier were read again together with the new one (all pieces
        differ): the game and the referee take the new reading before the new piece."""
        new = {c: q for c, (_, q) in ev.changes.items()}
        try:
            self.game.reread(new)
        except PositionError as e:  # cannot happen with a consistent tracker; never corrupt the game
            self._note(now, f"not re-read: {e}")
            return
        for c, q in new.items():
            self.referee.cells[c] = q
        for c, (old, q) in ev.changes.items():
            self.log.emit(ev.t, "reread", cell_center=self._center(c), cell=cell_name(c),
                          piece=piece_symbol(q), was=piece_symbol(old), position=self._position())
            self._note(now, f"read again with the new piece: {cell_name(c)} holds {piece_symbol(q)}, "
                            f"not {piece_symbol(old)}")
        self._save()

    def _relocated(self, ev: TrackEvent, now: float) -> None:
        """A piece placed earlier was seen to stand on a cell beside the one it was put on
        (a new piece came there): the game and the referee move it before the new piece."""
        (old, (was, _)), = [(c, v) for c, v in ev.changes.items() if v[1] is None]
        try:
            self.game.relocate(old, ev.cell, ev.piece)
        except PositionError as e:  # cannot happen with a consistent tracker; never corrupt the game
            self._note(now, f"not moved: {e}")
            return
        self.referee.cells[old], self.referee.cells[ev.cell] = None, ev.piece
        self.log.emit(ev.t, "relocated", cell_center=self._center(ev.cell), cell=cell_name(ev.cell),
                      piece=piece_symbol(ev.piece), was_center=self._center(old), was_cell=cell_name(old),
                      was=piece_symbol(was), position=self._position())
        same = "" if ev.piece == was else f" (read there as {piece_symbol(ev.piece)})"
        self._note(now, f"{piece_symbol(was)} stands on {cell_name(ev.cell)}, not {cell_name(old)}{same}: "
                        f"a new piece came on {cell_name(old)}")
        self._save()

    def _issue_text(self, issue) -> str:
        p = self.phrases
        if issue.kind in ("disappeared", "moved", "duplicate"):
            return p.say(issue.kind, piece=issue.pieces[0])
        if issue.kind == "changed":
            return p.say("changed", old=issue.pieces[0], new=issue.pieces[1])
        return p.say("two_new")

    # --- referee ----------------------------------------------------------------
    def _group_fields(self, mask: int, values: int) -> dict:
        cells = mask_cells(mask)
        return dict(cells=[self._center(c) for c in cells], attributes=describe_values(values),
                    line=Phrases("en").place(self._group_key(mask)))

    def _group_key(self, mask: int):
        centers = self.tracker.centers
        if centers is None:
            centers = np.array([[c % 4, 3 - c // 4] for c in range(16)], float)
        return group_key(mask, centers)

    def _on_ruling(self, r: Ruling) -> None:
        p = self.phrases
        if r.kind == "quarto":
            for mask, values in r.groups:
                text = p.quarto(self._group_key(mask), values)
                self._say(r.t, text, "quarto")
                self.log.emit(r.t, "quarto", **self._group_fields(mask, values), window=r.window, text=text,
                              confidence=round(r.confidence, 3))
            self.view.winning = [mask_cells(m) for m, _ in r.groups]
        elif r.kind == "unsure":
            mask, values = r.groups[0]
            text = p.unsure(self._group_key(mask), values)
            self._note(r.t, text)
            self.view.unsure = [mask_cells(m) for m, _ in r.groups]
            self.log.emit(r.t, "quarto_unsure", **self._group_fields(mask, values), window=r.window, text=text,
                          confidence=round(r.confidence, 3))
        elif r.kind == "claimed":
            mask, values = r.groups[0]
            text = p.claim_ok(self._group_key(mask), values)
            self._say(r.t, text, "quarto")
            self.log.emit(r.t, "claim", valid=True, window=r.window, **self._group_fields(mask, values), text=text)
            self.view.winning = [mask_cells(m) for m, _ in r.groups]
            self.game.ended = True
            self._save()
        elif r.kind == "false_claim":
            text = p.say("claim_false")
            self._say(r.t, text, "flag")
            self.log.emit(r.t, "claim", valid=False, text=text)
        elif r.kind == "line_lost":
            text = p.say("line_lost")
            self._say(r.t, text)
            for mask, values in r.groups:
                self.log.emit(r.t, "line_lost", **self._group_fields(mask, values))
            self.view.winning = []
            self.view.unsure = []
        elif r.kind == "draw":
            text = p.say("draw")
            self._say(r.t, text)
            self.log.emit(r.t, "draw", position=self._position())
            self.game.ended = True
            self._save()

    # --- coach ------------------------------------------------------------------
    def _coach_may_ask(self) -> bool:
        """Whether the coach has a move to advise on: a game going on, and no line that can
        still be claimed (the referee calls that one; the coach's marks of the turn before
        are taken down). A line nobody claimed in its move is past: the coach plays on."""
        if self.coach is None or self.referee.over:
            return False
        if self.referee.pending is not None:
            self._clear_coach_marks()
            return False
        return True

    def _clear_coach_marks(self) -> None:
        self.view.coach_place = self.view.coach_give = None
        self.view.coach_poison = []

    def _ask_give(self, now: float) -> None:
        if not self._coach_may_ask():
            return
        board = self.game.board()
        if all(c is not None for c in board):
            return
        self._coach_turn = ("give", len(self.game.placements))
        self.coach.ask(self._coach_turn, Position(board, None), self.opt.variant)

    def _on_advice(self, a) -> None:
        if a.key != self._coach_turn:
            return
        if a.error:  # no advice for this turn: the last turn's marks would mislead
            self._clear_coach_marks()
            return
        p = self.phrases
        t = self.t
        parts = []
        if a.key[0] == "give":
            if a.give is not None:
                parts.append(p.say("coach_give", piece=a.give))
            poison = [q for q in a.poison if q != a.give]
            if a.available and len(a.poison) >= len(a.available):
                parts.append(p.say("coach_all_poison"))
            elif poison:
                parts.append(p.say("coach_poison", pieces=poison[:3]))
            self.view.coach_give = a.give
            self.view.coach_place = None
        else:
            if a.place is not None and self.tracker.centers is not None:
                where = p.cell(cell_keys(a.place, self.tracker.centers))
                parts.append(p.say("coach_place", piece=a.hand, cell=where))
            self.view.coach_place = a.place
            self.view.coach_give = a.give
        if a.key[0] == "place" and a.value == "win" and a.plies == 1:
            parts.append(p.say("coach_call"))
        elif a.value in ("win", "draw", "loss"):
            parts.append(p.say(f"coach_{a.value}"))
        self.view.coach_poison = list(a.poison)
        if parts:
            text = " ".join(parts)
            self._say(t, text, "coach")
            self.log.emit(t, "coach", advice=a.key[0], give=None if a.give is None else piece_symbol(a.give),
                          place=None if a.place is None else self._center(a.place),
                          poison=[piece_symbol(q) for q in a.poison], value=a.value, text=text)


class _NotFound:
    """A reading meaning "no frame": breaks the tracker's steady run."""

    found = False
    clear = False

    def __init__(self, reason: str):
        self.reason = reason


def warn(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
