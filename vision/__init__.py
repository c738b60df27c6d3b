"""Vision: a frame in, a board reading out (homography, cells, pieces, confidence).

    from vision import Recognizer, VisionSettings
    reading = Recognizer(VisionSettings()).analyze(frame_bgr)
    if reading: print(reading.cells)
    else: print(reading.reason)
"""

from vision.reading import BoardReading
from vision.recognizer import Recognizer
from vision.settings import VisionSettings

__all__ = ["BoardReading", "Recognizer", "VisionSettings"]
