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


class VisionStep:
    def __init__(self, recognizer, profile=None, retry: float = 0.3, recheck_after: float = 1.0, every: int = 1):
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
        self.full = 0
        self.tracked = 0
        self.seconds = 0.0

    def __call__(self, image, t: float = 0.0):
        from calibration.camera import prepare_frame, reading_to_original

        if self._last is not None and self._last.found and self._skip > 0:
            self._skip -= 1
            return self._last
        t0 = time.perf_counter()
        frame, mapping = prepare_frame(self.profile, image)
        try:
            reading = self._read(frame, t)
        except Exception as e:  # a frame vision chokes on must not end the game
            from vision.reading import BoardReading

            msg = f"{type(e).__name__}: {e}"
            if msg not in self.errors:
                self.errors.add(msg)
                print(f"WARNING vision failed on the frame at {t:.2f} s ({msg}); going on", file=sys.stderr)
            self.previous = None
            reading = BoardReading.not_found("vision failed on this frame")
        if not mapping.identity and reading.found:
            reading = reading_to_original(copy.copy(reading), mapping)
        self.seconds += time.perf_counter() - t0
        self._last = reading
        self._skip = self.every - 1
        return reading

    def _analyze(self, frame, t: float):
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
        if self.previous is None or not hasattr(self.recognizer, "track"):
            if self._failed is not None and t - self._failed[0] < self.retry:
                return self._failed[1]
            return self._analyze(frame, t)
        if self._last_clear is not None and t - self._last_clear > self.recheck_after:
            self._last_clear = t  # one check per period, not one per frame
            reading = self.recognizer.analyze(frame)
            self.full += 1
            if reading.found and reading.clear:
                self.previous = reading
                return reading
        self.tracked += 1
        reading = self.recognizer.track(frame, self.previous)
        if not reading.found:
            self.previous = None
            self._failed = (t, reading)
        elif reading.clear:
            self.previous = reading
            self._last_clear = t
        return reading
