"""Observation types: what an environment shows an agent at one step.

``kinds`` select what is produced (any combination): ``screenshot``, ``axtree`` (accessibility tree as text,
with a short id per interactive element), ``dom`` (flattened interactive elements with the same ids) and
``som`` (set-of-marks: the screenshot with numbered boxes matching those ids); ``vision`` adds marks found by
a vision detector on the screenshot for windows that export no accessibility tree (the desktop; see
``pytest_cua.envs.docker.vision_marks``). Url, title, tabs and the last action's error always come along.
Kinds are joined with ``,`` or ``+`` (``som+screenshot+axtree``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from PIL.Image import Image

OBSERVATION_KINDS: tuple[str, ...] = ("screenshot", "axtree", "dom", "som", "vision")
DEFAULT_KINDS: frozenset[str] = frozenset({"screenshot", "axtree"})


class ObservationKindError(ValueError):
    pass


def parse_kinds(value: str | Iterable[str], *, source: str = "--cua-observe") -> frozenset[str]:
    """Parse ``"screenshot,axtree"`` (or ``"som+screenshot"``) into a set of kinds; an unknown kind names where it
    came from."""
    items = value.replace("+", ",").split(",") if isinstance(value, str) else list(value)
    kinds = {k.strip() for k in items if k.strip()}
    unknown = sorted(kinds - set(OBSERVATION_KINDS))
    if unknown:
        raise ObservationKindError(
            f"{source}: unknown observation kind(s) {', '.join(unknown)}; choose from {', '.join(OBSERVATION_KINDS)}"
        )
    if not kinds:
        raise ObservationKindError(f"{source}: no observation kind given")
    return frozenset(kinds)


@dataclass
class Element:
    """An interactive element with the id an agent uses to target it."""

    id: str
    role: str
    name: str = ""
    tag: str = ""
    bbox: tuple[float, float, float, float] | None = None  # x, y, width, height in viewport pixels
    attributes: dict[str, str] = field(default_factory=dict)
    frame: str = ""  # frame path ("" for the main frame)


@dataclass
class Observation:
    """One step's view of the environment."""

    step: int = 0
    screenshot: bytes | None = None  # PNG
    axtree: str | None = None
    dom: str | None = None
    som: bytes | None = None  # PNG with numbered boxes
    elements: dict[str, Element] = field(default_factory=dict)
    url: str = ""
    title: str = ""
    tabs: list[dict[str, Any]] = field(default_factory=list)
    last_error: str | None = None  # error of the previous action, if it failed
    human_reply: str | None = None  # answer to the agent's last Ask, if any
    extra: dict[str, Any] = field(default_factory=dict)

    def text_parts(self) -> dict[str, Any]:
        """The text observations, for trajectories (images are stored as files)."""
        out: dict[str, Any] = {"url": self.url, "title": self.title, "tabs": self.tabs}
        if self.axtree is not None:
            out["axtree"] = self.axtree
        if self.dom is not None:
            out["dom"] = self.dom
        if self.last_error:
            out["last_error"] = self.last_error
        if self.human_reply is not None:
            out["human_reply"] = self.human_reply
        if self.extra:
            out["extra"] = self.extra
        return out


# --- pixels an environment already decoded ----------------------------------------------------------------

DECODED_KEPT = 2  # a step's set-of-marks and its plain screenshot


class _DecodedImages:
    """The decoded pixels of the last few images an environment made from pixels it had in hand (the browser's
    set-of-marks: it decodes the screenshot to draw the marks), by the identity of their encoded bytes. A
    consumer given the very same bytes object (a model style preparing the image it sends) takes the pixels
    instead of decoding the bytes again; equal bytes in another object, a copy sent over a wire, or an older
    image pushed out are decoded as before. Bounded (``DECODED_KEPT`` images, about 8 MB each at 1920x1080)
    and per process; the pixels must not be changed by whoever takes them (Pillow images: resize, convert and
    save make new ones)."""

    def __init__(self, size: int = DECODED_KEPT) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._entries: list[tuple[bytes, Any]] = []  # the bytes are held, so their identity cannot be reused

    def keep(self, data: bytes, image: Any) -> None:
        with self._lock:
            self._entries = [(data, image), *(e for e in self._entries if e[0] is not data)][: self.size]

    def get(self, data: bytes) -> Any | None:
        with self._lock:
            for kept, image in self._entries:
                if kept is data:
                    return image
        return None

    def clear(self) -> None:
        with self._lock:
            self._entries = []


DECODED = _DecodedImages()


def keep_decoded(data: bytes, image: Any) -> None:
    """Remember that ``data`` (an encoded image an environment just made) shows the Pillow image ``image``."""
    DECODED.keep(data, image)


def decoded_pixels(data: bytes) -> Any | None:
    """The pixels an environment kept for this very bytes object (``keep_decoded``), else None."""
    return DECODED.get(data)


# --- decoding a screenshot ----------------------------------------------------------------------------------

#: PNG colour types libspng decodes here to the mode Pillow gives them (8 bits per sample, no palette; pyspng
#: has no grey-with-alpha output)
_SPNG_MODES = {0: "L", 2: "RGB", 6: "RGBA"}
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def decode_screenshot(data: bytes) -> "Image":
    """``data`` (an encoded screenshot) as a fully decoded Pillow image with ``format`` set.

    The PNGs screens produce (Chromium's and the desktops': 8 bits per sample, grey, RGB or RGBA, not interlaced,
    no transparency chunk) are decoded by libspng (``pyspng``), about 3x faster than
    Pillow's decoder (2.6 against 7.8 ms for a 1920x1080 screenshot of the org) and to the same pixels
    (tests/core/test_decode_screenshot.py); anything else, or a machine without ``pyspng``, goes through Pillow.
    Bytes that are no image, or a damaged one, raise ``OSError`` (Pillow's) or ``ValueError``."""
    import io

    from PIL import Image

    mode = _spng_mode(data)
    if mode is not None:
        try:
            import pyspng
        except ImportError:
            pass
        else:
            try:
                pixels = pyspng.load(data, format=mode)
            except RuntimeError as exc:  # libspng's error for a damaged or truncated file
                raise ValueError(f"cannot decode the PNG: {exc}") from exc
            image = Image.fromarray(pixels)  # (h, w, 3) is RGB, (h, w, 4) RGBA, (h, w) L
            image.format = "PNG"
            return image
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def _spng_mode(data: bytes) -> str | None:
    """The Pillow mode of a PNG libspng decodes to the same pixels as Pillow (from its IHDR, and no tRNS
    chunk before the image data), else None."""
    if len(data) < 33 or not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    depth, colour, interlace = data[24], data[25], data[28]
    if depth != 8 or interlace != 0 or colour not in _SPNG_MODES:
        return None
    at = 33
    while at + 8 <= len(data):  # the chunks before the first IDAT: a tRNS one makes Pillow's mode differ
        length, kind = int.from_bytes(data[at:at + 4], "big"), data[at + 4:at + 8]
        if kind == b"IDAT":
            return _SPNG_MODES[colour]
        if kind == b"tRNS":
            return None
        at += 12 + length
    return None
