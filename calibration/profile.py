"""The profile: one versioned JSON file holding what calibration learned.

A profile describes one piece set, in one light, seen by one camera::

    {
      "format": "quarto-assist-profile",
      "version": 3,
      "created": "2026-11-30T10:00:00Z",
      "name": "beech-walnut, kitchen lamp",
      "source_images": ["a.jpg", "b.jpg"],
      "vision": { ... vision.settings.VisionSettings.to_dict() ... },
      "attributes": {"tall": {"separation": 9.1, "margin": 0.42, "clean": true}, ...},
      "warnings": ["dark vs light barely separate: ..."],
      "camera": null | {"K": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
                        "dist": [k1, k2, p1, p2, k3], "image_size": [w, h],
                        "rms": 0.31, "images_used": 12}
    }

``vision`` is everything recognition needs (its own format, owned by ``vision``);
``attributes`` and ``warnings`` say how well the classes separated when the profile was
made; ``camera`` is optional lens calibration (see :mod:`calibration.camera`).

Reading checks everything and raises :class:`ProfileError` quoting the file and saying
what is wrong. Writing is atomic: a failed or interrupted write never leaves a half
file, and an existing file is replaced only by a complete new one.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .camera import CameraError, CameraModel

FORMAT = "quarto-assist-profile"
#: 1: the first format. 2: attribute models may be *stacked* (a ``"base"`` model plus a
#: few features, ``vision.attributes.AttributeModel``), which calibration now writes;
#: a program reading version 1 would take them for corrupt, hence the new number.
#: 3: vision settings ``pieces.step_networks_only`` and ``pieces.set_colours`` (the set's
#: two colours, which calibration now writes for the watch); a version-2 reader refuses
#: unknown settings.
#: 4: vision setting ``pieces.set_size`` ("auto", or "large" / "typical" when the set's size
#: is known; ``vision.set_size``).
#: 5: ``pieces.set_size`` may be "small", and calibration writes "small" or "large" when
#: its photos show the set's size (a version-4 reader would refuse "small").
VERSION = 5


def _from_version_1(data: dict) -> dict:
    """Version 1 -> 2: nothing to change (every version-1 model is a valid plain model)."""
    return data


def _from_version_2(data: dict) -> dict:
    """Version 2 -> 3: nothing to change (the new settings take their defaults: no set
    colours known)."""
    return data


def _from_version_3(data: dict) -> dict:
    """Version 3 -> 4: nothing to change (the set's size is judged on each board, "auto")."""
    return data


def _from_version_4(data: dict) -> dict:
    """Version 4 -> 5: nothing to change (a version-4 profile's set size is one of 5's)."""
    return data


#: old version -> function turning a dict of that version into one of version + 1.
#: Version 1 is the first published format; older numbers were never written by a
#: release. Add an entry here with each bump.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {1: _from_version_1, 2: _from_version_2, 3: _from_version_3,
                                                 4: _from_version_4}

#: A committed profile built from training renders of wooden sets (see docs/calibration.md);
#: when absent, the built-in default is vision's own default settings.
DEFAULT_PROFILE_PATH = Path(__file__).with_name("default_profile.json")


class ProfileError(ValueError):
    """A profile file that cannot be used; the message names the file and the problem."""


def set_colours(profile) -> tuple:
    """The set's two colours a profile holds for the watch (``vision.pieces.set_colours``:
    light L, a, b, dark L, a, b, spread), or ``()`` when it holds none or there is no
    profile."""
    colours = tuple(getattr(getattr(getattr(profile, "vision", None), "pieces", None), "set_colours", ()) or ())
    return colours if len(colours) == 7 else ()


def _vision_settings_class():
    from vision.settings import VisionSettings  # calibration sits above vision

    return VisionSettings


@dataclass
class Profile:
    """What recognition needs for one set, light and camera.

    ``vision``          a ``vision.settings.VisionSettings``.
    ``camera``          a :class:`calibration.camera.CameraModel`, or ``None``.
    ``report``          how well the classes separated: ``{"attributes": {...},
                        "warnings": [...]}`` (empty for the built-in default).
    ``source_images``   the photos calibration learned from (as given on the command line).
    """

    vision: Any
    camera: CameraModel | None = None
    report: dict = field(default_factory=dict)
    source_images: list[str] = field(default_factory=list)
    created: str = ""
    name: str = ""
    path: str | None = None  # where it was loaded from, if anywhere

    @property
    def warnings(self) -> list[str]:
        return list(self.report.get("warnings", []))

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "created": self.created or _now(),
            "name": self.name,
            "source_images": [str(p) for p in self.source_images],
            "vision": self.vision.to_dict(),
            "attributes": self.report.get("attributes", {}),
            "warnings": self.report.get("warnings", []),
            "camera": None if self.camera is None else self.camera.to_dict(),
        }


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def default_profile() -> Profile:
    """The built-in profile used when no ``--profile`` is given.

    The committed ``calibration/default_profile.json`` when present (built from training
    renders of wooden sets, see docs/calibration.md), else vision's default settings.
    """
    if DEFAULT_PROFILE_PATH.exists():
        return load_profile(DEFAULT_PROFILE_PATH)
    return Profile(vision=_vision_settings_class()(), name="built-in default",
                   report={"attributes": {}, "warnings": []})


def profile_from_dict(data: Any, where: str = "profile") -> Profile:
    """Check and convert a parsed profile; ``where`` names the source in error messages."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        hint = ""
        if isinstance(data, dict):
            keys = ", ".join(sorted(map(str, data))[:6])
            hint = f" (found keys: {keys})" if keys else " (an empty object)"
        else:
            hint = f" (found a JSON {type(data).__name__})"
        raise ProfileError(f"{where} is not a quarto-assist profile: no \"format\": \"{FORMAT}\"{hint}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProfileError(f"{where} has an invalid version {version!r} (expected an integer)")
    if version > VERSION:
        raise ProfileError(
            f"{where} is a profile of format version {version}, newer than this program reads "
            f"(version {VERSION}): update quarto-assist or calibrate again with this version")
    while version < VERSION:
        if version not in MIGRATIONS:
            raise ProfileError(
                f"{where} is a profile of format version {version}, older than this program reads "
                f"(version {VERSION}) and it cannot be converted: run 'quarto-assist calibrate' again")
        data = MIGRATIONS[version](dict(data))
        version += 1

    if "vision" not in data:
        raise ProfileError(f"{where} is corrupt: it has no \"vision\" settings")
    if not isinstance(data["vision"], dict):
        raise ProfileError(f"{where} is corrupt: \"vision\" must be an object, not {type(data['vision']).__name__}")
    try:
        vision = _vision_settings_class().from_dict(data["vision"])
    except (ValueError, TypeError, KeyError) as e:
        raise ProfileError(f"{where} is corrupt: bad vision settings: {e}") from None

    camera = None
    if data.get("camera") is not None:
        try:
            camera = CameraModel.from_dict(data["camera"])
        except CameraError as e:
            raise ProfileError(f"{where} is corrupt: {e}") from None

    attributes = data.get("attributes", {})
    if not isinstance(attributes, dict):
        raise ProfileError(f"{where} is corrupt: \"attributes\" must be an object")
    warnings = data.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise ProfileError(f"{where} is corrupt: \"warnings\" must be a list of strings")
    sources = data.get("source_images", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise ProfileError(f"{where} is corrupt: \"source_images\" must be a list of file names")
    created = data.get("created", "")
    name = data.get("name", "")
    if not isinstance(created, str) or not isinstance(name, str):
        raise ProfileError(f"{where} is corrupt: \"created\" and \"name\" must be strings")
    return Profile(vision=vision, camera=camera, report={"attributes": attributes, "warnings": warnings},
                   source_images=sources, created=created, name=name)


def load_profile(path: str | os.PathLike) -> Profile:
    """Read and check a profile file. Raises :class:`ProfileError` (a ``ValueError``)
    quoting the file for anything wrong with it, ``OSError`` when it cannot be read."""
    where = f"profile '{os.fspath(path)}'"
    p = Path(path)
    if p.is_dir():
        raise ProfileError(f"{where} is a directory, not a profile file")
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ProfileError(f"{where} does not exist") from None
    except OSError as e:
        raise ProfileError(f"{where} cannot be read: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProfileError(f"{where} is not a text file (not a quarto-assist profile)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if not text.strip():
            raise ProfileError(f"{where} is empty (not a quarto-assist profile)") from None
        raise ProfileError(f"{where} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    profile = profile_from_dict(data, where)
    profile.path = os.fspath(path)
    return profile


def save_profile(profile: Profile, path: str | os.PathLike) -> None:
    """Write ``profile`` to ``path`` atomically (temporary file in the same folder, then
    ``os.replace``). On any failure the previous content of ``path`` is untouched."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ProfileError(f"cannot write profile '{os.fspath(path)}': it is a directory")
    if not folder.is_dir():
        raise ProfileError(f"cannot write profile '{os.fspath(path)}': folder '{folder}' does not exist")
    text = json.dumps(profile.to_dict(), indent=2, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600); a profile is an ordinary file, so give it
        # the permissions any new file gets (0666 less the umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
