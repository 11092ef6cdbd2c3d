"""One screenshot pipeline: scale a screenshot to the size a style asked for, then keep it within a vendor's
limits before it is sent, never after a 400.

``prepare_image`` resizes to the exact target size (from ``coords.fit_within`` or ``coords.smart_resize``) and
then enforces the per-image limits: a side over the limit is scaled down (aspect kept); an image whose
base64 text is over ``max_bytes`` is re-encoded as JPEG at falling quality, then scaled down in steps until it
fits. ``fit_request`` does the same for a request as a whole (many-image side limit, total size).

The image actually sent is the truth: when a limit scales it down, its ``width`` x ``height`` differ from the
size asked for, and callers build their ``CoordSpace`` from the ``PreparedImage``, not from the request.

What it costs per model step (a 1920x1080 screenshot on a shared 2-core machine at load 1.5-6, benchmarks/README.md):
decoding the PNG is the floor (10-12 ms) unless the environment already holds the pixels; the rest is chosen
for speed where the result is the same to the model's coordinates:

* scaling down is a box filter (the area average of the source pixels under each target pixel), about 10 ms
  where bilinear took 16 ms and LANCZOS 38-43 ms; the target size, so the scale factors that map the model's
  coordinates back to the screen, is the same whatever the filter (tests/models/test_images.py checks that a
  mark lands on the same screen pixels). Scaling up (Qwen's ``smart_resize`` rounds 1080 up to 1092) stays
  bilinear, as a box filter would then repeat whole rows.
* an image that has to be encoded is encoded the way the vendor prefers among the formats it takes
  (``ImageLimits.encode_as``): JPEG at quality 85 for every vendor here, about 2 ms where PNG took 7-13 ms at
  compression level 1 (14-22 ms at Pillow's default); with no vendor, PNG (lossless). A screenshot that needs
  no scaling keeps its own bytes (the lossless PNG from the environment).
* ``ImageCache``: a screenshot whose bytes are those of one prepared a moment ago (a step that changed
  nothing on the screen, a set-of-marks image sent again) is not decoded again: its prepared image is reused.
* the environment's own pixels (``observations.keep_decoded``): the browser decodes each screenshot to draw
  its set-of-marks and keeps the marked pixels (and the plain screenshot's, when both are observed) for the
  bytes it hands over; preparing those very bytes scales the kept pixels instead of decoding the PNG again
  (10-13 ms of a 1920x1080 screenshot at load 3-5). The image sent is the same, byte for byte. A screenshot
  the environment did not decode (the computer style's plain screenshot) is decoded here: with the box
  scaling, that is the floor of this pipeline (a second, scaled capture by Chromium was measured at 65-88 ms
  median, more than the whole pipeline: benchmarks/README.md).
* a whole-number scale factor on both sides (a 3840x2160 screen sent at 1280x720) is ``Image.reduce``, the
  same area average as the box filter within one level of rounding, about 4x faster.

The trajectory keeps the environment's screenshot as it came (lossless PNG); what the model was sent is kept
beside it (``step_NNN_model.jpg``).
"""

from __future__ import annotations

import base64 as b64
import hashlib
import io
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

from PIL import Image, UnidentifiedImageError

from pytest_cua.agents.models.coords import fit_within

MB = 1024 * 1024
JPEG_QUALITIES = (85, 70, 55)  # tried in order at each size once the preferred encoding is too large
DOWNSCALE_STEP = 0.8  # each step keeps this fraction of each side
PNG_LEVEL = 1  # zlib level of the PNGs written here: 2-3x faster than Pillow's 6, a few % larger
_KEPT_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg"}
ENCODINGS = ("image/png", "image/jpeg")  # what prepare_image writes (ImageLimits.encode_as)
# the documented input formats; each vendor's list is what it takes, encode_as what is written for it
_OPENAI_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
_ANTHROPIC_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_COMPATIBLE_TYPES = ("image/png", "image/jpeg", "image/webp")


class ImageError(ValueError):
    """A screenshot that cannot be decoded, or cannot be made to fit the limits."""


@dataclass(frozen=True)
class ImageLimits:
    """What a vendor accepts. Byte sizes are measured on the base64 text (the size that travels), which is
    what Anthropic checks and is conservative for vendors that count raw bytes."""

    max_bytes: int  # base64 length of one image
    max_side: int  # pixels per side
    max_side_many: int | None  # pixels per side when a request has more than many_threshold images
    many_threshold: int | None
    max_images: int | None  # images per request
    max_request_bytes: int | None  # base64 length of all the images of one request
    #: the media types the vendor takes: a screenshot in one of them that needs no change is sent as it is
    media_types: tuple[str, ...] = ENCODINGS
    #: how an image that has to be encoded (scaled, or shrunk to fit) is written: "image/png" (lossless) or
    #: "image/jpeg" at ``jpeg_quality``
    encode_as: str = "image/png"
    jpeg_quality: int = JPEG_QUALITIES[0]

    def __post_init__(self) -> None:
        if self.encode_as not in ENCODINGS:
            raise ValueError(f"ImageLimits.encode_as: {self.encode_as!r} is not one of {', '.join(ENCODINGS)}")
        if self.encode_as not in self.media_types:
            raise ValueError(f"ImageLimits.encode_as: {self.encode_as!r} is not among the media types the vendor "
                             f"takes ({', '.join(self.media_types)})")
        if not 1 <= self.jpeg_quality <= 95:
            raise ValueError(f"ImageLimits.jpeg_quality: {self.jpeg_quality!r} is not within 1-95")

    def side_limit(self, many: bool) -> int:
        """The side limit for one image, in a request with more than ``many_threshold`` images if ``many``."""
        if many and self.max_side_many:
            return min(self.max_side, self.max_side_many)
        return self.max_side


VENDOR_LIMITS: dict[str, ImageLimits] = {
    # platform.claude.com vision docs: 5 MB per image, checked on the base64 length (the API's error reads
    # "image exceeds 5 MB maximum: N bytes > 5242880 bytes"); 8000 px per side, 2000 px once a request
    # has more than 20 images; 100 images per API request; 32 MB per Messages request, of which 2 MB is
    # left here for text and tools. Media types: the image block's base64 source takes image/jpeg, image/png,
    # image/gif and image/webp (the SDK's Base64ImageSourceParam, pinned in tests/models/vendor_schemas).
    "anthropic": ImageLimits(max_bytes=5 * MB, max_side=8000, max_side_many=2000, many_threshold=20,
                             max_images=100, max_request_bytes=30 * MB, media_types=_ANTHROPIC_TYPES,
                             encode_as="image/jpeg"),
    # OpenAI's images-and-vision guide: 20 MB per image, 500 images and 50 MB of image bytes per request;
    # PNG, JPEG, WEBP and non-animated GIF. Responses' input_image and the computer tool's computer_screenshot
    # are both an image_url (a data URL here); the computer-use guide's examples send PNG and name no other
    # formats, so the vision guide's are taken to hold for it too. It documents no side limit (high detail is
    # scaled server-side to fit 2048 px, then 768 px on the short side); 8000 px is our bound.
    "openai": ImageLimits(max_bytes=20 * MB, max_side=8000, max_side_many=None, many_threshold=None,
                          max_images=500, max_request_bytes=50 * MB, media_types=_OPENAI_TYPES,
                          encode_as="image/jpeg"),
    # OpenAI-compatible servers (vLLM and the like) document no limits of their own; the image count is the
    # server's --limit-mm-per-prompt. These bounds are conservative guesses, not documented figures. vLLM
    # opens a data URL's image with Pillow (any format it reads); Gemini's OpenAI endpoint takes PNG, JPEG,
    # WEBP, HEIC and HEIF: PNG, JPEG and WEBP are what all of them take.
    "openai-compatible": ImageLimits(max_bytes=10 * MB, max_side=8000, max_side_many=None,
                                     many_threshold=None, max_images=None, max_request_bytes=20 * MB,
                                     media_types=_COMPATIBLE_TYPES, encode_as="image/jpeg"),
}


@dataclass(frozen=True)
class PreparedImage:
    """An encoded image ready to send, with the size it has and the size of the screen it shows."""

    data: bytes
    media_type: str  # "image/png" or "image/jpeg"
    width: int
    height: int
    screen_width: int  # the original screenshot's size
    screen_height: int
    sha256: str  # of data

    @property
    def encoded_size(self) -> int:
        """The length of the base64 text of ``data``."""
        return base64_length(len(self.data))

    def base64(self) -> str:
        """The base64 text of ``data`` (made once: an image reused from the cache is not encoded again)."""
        text = self.__dict__.get("_base64")
        if text is None:
            text = b64.b64encode(self.data).decode("ascii")
            object.__setattr__(self, "_base64", text)  # a memo, not a field: equality and hash ignore it
        return text

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"


class ImageCache:
    """The last few images prepared for one conversation, by the screenshot's bytes and what was asked: a
    screenshot identical to one of them (the screen did not change since the last step) is not decoded, scaled
    or encoded again. One per style instance (a task); not shared between threads."""

    def __init__(self, size: int = 4) -> None:
        self.size = size  # the browser style prepares two images a step (set-of-marks and plain) at most
        self._entries: list[tuple[bytes, tuple[object, ...], PreparedImage]] = []
        self.hits = 0

    def get(self, data: bytes, key: tuple[object, ...]) -> PreparedImage | None:
        for seen, seen_key, prepared in self._entries:
            if seen_key == key and (seen is data or seen == data):
                self.hits += 1
                return prepared
        return None

    def put(self, data: bytes, key: tuple[object, ...], prepared: PreparedImage) -> None:
        self._entries = [(data, key, prepared), *self._entries][: self.size]


def base64_length(n_bytes: int) -> int:
    """The length of the base64 text of ``n_bytes`` bytes (padded)."""
    return 4 * math.ceil(n_bytes / 3)


def image_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` of an encoded image, read from its header."""
    with _open(png) as image:
        return image.size


def prepare_image(png: bytes, *, size: tuple[int, int] | None = None, limits: ImageLimits | None = None,
                  many: bool = False, cache: ImageCache | None = None) -> PreparedImage:
    """The screenshot ``png`` at ``size`` (only when it differs), then within ``limits`` (the many-image side
    limit if ``many``), encoded as ``limits.encode_as`` (PNG without limits). An image left untouched keeps its
    original bytes. With a ``cache``, a screenshot prepared the same way a moment ago is not prepared again.

    Scaling down is a box filter, scaling up bilinear; see the module's docstring for the costs."""
    key: tuple[object, ...] = (size, limits, many)
    if cache is not None:
        found = cache.get(png, key)
        if found is not None:
            return found
    pixels = _kept_pixels(png)
    if pixels is not None:  # the environment's own pixels of these bytes: not decoded again, not closed here
        image, image_format = pixels
        prepared = _prepare(png, image, image_format, size, limits, many)
    else:
        with _decoded(png) as image:
            prepared = _prepare(png, image, image.format, size, limits, many)
    if cache is not None:
        cache.put(png, key, prepared)
    return prepared


def _prepare(png: bytes, image: Image.Image, image_format: str | None, size: tuple[int, int] | None,
             limits: ImageLimits | None, many: bool) -> PreparedImage:
    """``prepare_image`` on the decoded ``image`` of ``png`` (its format ``image_format``)."""
    screen = image.size
    kept = _KEPT_FORMATS.get(image_format or "")
    if kept and limits is not None and kept not in limits.media_types:
        kept = None
    target = _checked_size(size) if size else screen
    if target != screen:
        image = _resize(image, target)
        kept = None
    side = limits.side_limit(many) if limits else None
    if kept and (side is None or max(screen) <= side) and _fits(len(png), limits):
        return _prepared(png, kept, screen, screen)
    return _encode_within(image, screen, limits, side)


def fit_request(images: list[PreparedImage], limits: ImageLimits) -> list[PreparedImage]:
    """The images of one request, re-prepared so the request fits ``limits``: with more than
    ``many_threshold`` images each is within ``max_side_many``; then, while the total is over
    ``max_request_bytes``, the largest image (the first of equals) is shrunk a step. Images that need no
    change are returned as they are, in the same order."""
    if limits.max_images is not None and len(images) > limits.max_images:
        raise ImageError(f"{len(images)} images in one request; the limit is {limits.max_images} "
                         f"(drop older screenshots before sending)")
    fitted = list(images)
    if limits.many_threshold is not None and len(fitted) > limits.many_threshold:
        side = limits.side_limit(many=True)
        done: dict[tuple[str, int, int], PreparedImage] = {}  # a screenshot sent twice is re-prepared once
        for image in fitted:
            if _key(image) not in done:
                done[_key(image)] = _within_side(image, side, limits)
        fitted = [done[_key(image)] for image in fitted]
    if limits.max_request_bytes is not None:
        while sum(image.encoded_size for image in fitted) > limits.max_request_bytes:
            largest = max(range(len(fitted)), key=lambda i: (fitted[i].encoded_size, -i))
            fitted[largest] = _shrink_once(fitted[largest])
    return fitted


# --- internals -------------------------------------------------------------------------------------------

def _open(data: bytes) -> Image.Image:
    try:
        return Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError) as exc:
        raise ImageError(f"cannot decode the screenshot ({len(data)} bytes): {exc}") from exc


def _kept_pixels(data: bytes) -> tuple[Image.Image, str | None] | None:
    """The pixels the environment kept for this very bytes object (``observations.keep_decoded``: the browser's
    set-of-marks), with the format its header names; None when it kept none (then ``data`` is decoded)."""
    from pytest_cua.observations import decoded_pixels

    image = decoded_pixels(data)
    if image is None:
        return None
    with _open(data) as header:  # the header only (format and size): nothing is decoded
        if header.size != image.size:
            return None
        return image, header.format


def _checked_size(size: tuple[int, int]) -> tuple[int, int]:
    width, height = size
    if int(width) != width or int(height) != height or width <= 0 or height <= 0:
        raise ImageError(f"target size must be two positive integers, got {size!r}")
    return int(width), int(height)


def _fits(n_bytes: int, limits: ImageLimits | None) -> bool:
    return limits is None or base64_length(n_bytes) <= limits.max_bytes


def _prepared(data: bytes, media_type: str, size: tuple[int, int], screen: tuple[int, int]) -> PreparedImage:
    return PreparedImage(data=data, media_type=media_type, width=size[0], height=size[1], screen_width=screen[0],
                         screen_height=screen[1], sha256=hashlib.sha256(data).hexdigest())


_REDUCIBLE_MODES = ("RGB", "RGBA", "L", "LA")


def _resize(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` at ``size``: a box filter when no side grows (the area average: as sharp as bilinear's
    triangle at a downscale, and faster), bilinear when one does. A whole-number factor on both sides (a
    3840x2160 screen sent at 1280x720) is ``Image.reduce``, the same area average about 4x faster (within one
    level of the box filter's rounding)."""
    if size[0] <= image.width and size[1] <= image.height:
        if image.width % size[0] == 0 and image.height % size[1] == 0 and image.mode in _REDUCIBLE_MODES:
            return image.reduce((image.width // size[0], image.height // size[1]))
        return _box(image, size)
    return image.resize(size, Image.Resampling.BILINEAR)


#: a box scaling of at least this many source pixels is split into bands of rows scaled on several cores
STRIP_MIN_PIXELS = 1_000_000
_strip_pool: ThreadPoolExecutor | None = None
_strip_lock = threading.Lock()


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _strip_workers() -> int:
    """How many bands a box scaling is split into now: one per core (at most 4) while a core is free by the
    1-minute load average, else one (on a machine that is busy already, more threads only wait for a core)."""
    cores = _cores()
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system
        load = 0.0
    return min(4, cores) if cores > 1 and load < cores - 0.25 else 1


def _box(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """The box filter's scaling of ``image`` to ``size``, in bands of rows on several cores where the result is
    the same byte for byte (``strip_rows``); Pillow lets go of the GIL while it scales, so two bands take about
    half the time of one on two cores with one free (a 1920x1080 screenshot to 1024x576: 8.1 -> 4.7 ms). The
    calling thread scales the first band itself."""
    workers = _strip_workers()
    bands = strip_rows(image.size, size, workers) if image.mode in _REDUCIBLE_MODES else None
    if bands is None:
        return image.resize(size, Image.Resampling.BOX)
    image.load()  # the bands read it at once: a lazily decoded image must not be decoded by each of them
    global _strip_pool
    with _strip_lock:
        if _strip_pool is None:
            _strip_pool = ThreadPoolExecutor(3, thread_name_prefix="cua-image")  # the other bands (4 at most)
    width, height = image.size
    scale = Fraction(height, size[1])

    def band(rows: tuple[int, int]) -> Image.Image:
        top, bottom = rows
        return image.resize((size[0], bottom - top), Image.Resampling.BOX,
                            box=(0, int(top * scale), width, int(bottom * scale)))

    others = [_strip_pool.submit(band, rows) for rows in bands[1:]]
    parts = [band(bands[0]), *(future.result() for future in others)]
    out = Image.new(image.mode, size)
    for (top, _), part in zip(bands, parts):
        out.paste(part, (0, top))
    return out


def strip_rows(screen: tuple[int, int], size: tuple[int, int], workers: int) -> list[tuple[int, int]] | None:
    """Bands of the target's rows ``[(top, bottom), ...]`` whose box scaling, each from its own band of source
    rows, gives the very pixels of one scaling of the whole image; None when the image is small, one worker
    is all there is, or no such split exists.

    Pillow places each target row's filter window at ``band start + (row + 0.5) * scale`` in floating point,
    so a band gives the same window as the whole image only where that sum is exact: the vertical scale
    ``source height / target height`` must be a dyadic fraction (exact in binary, as 1080/576 = 1.875 and
    1080/768 = 1.40625 are) and each band must start at a target row that maps to a whole source row. Each
    band is scaled over the full width, so the horizontal scale does not matter."""
    (width, height), target = screen, size[1]
    if workers < 2 or width * height < STRIP_MIN_PIXELS or target < 2 * workers:
        return None
    scale = Fraction(height, target)
    if scale.denominator & (scale.denominator - 1):  # not a power of two: the float sum is not exact
        return None
    step = scale.denominator  # the target rows whose source row is whole: multiples of the denominator
    cuts = sorted({round(target * i / workers / step) * step for i in range(1, workers)} - {0, target})
    if not cuts:
        return None
    edges = [0, *cuts, target]
    return list(zip(edges, edges[1:]))


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=PNG_LEVEL)
    return buffer.getvalue()


def _encoded(image: Image.Image, limits: ImageLimits | None) -> tuple[bytes, str]:
    """``image`` written as the vendor prefers (PNG without limits)."""
    if limits is not None and limits.encode_as == "image/jpeg":
        return _jpeg(image, limits.jpeg_quality), "image/jpeg"
    return _png(image), "image/png"


def _jpeg(image: Image.Image, quality: int) -> bytes:
    if image.mode not in ("RGB", "L"):
        rgba = image.convert("RGBA")
        image = Image.new("RGB", rgba.size, "white")
        image.paste(rgba, mask=rgba.getchannel("A"))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    return buffer.getvalue()


def _step_down(size: tuple[int, int]) -> tuple[int, int]:
    """The next smaller size in the downscaling steps (aspect kept)."""
    width, height = size
    if width == 1 and height == 1:
        raise ImageError("cannot shrink the image below 1x1 pixel to fit the limits")
    return fit_within(width, height, max(1, math.floor(width * DOWNSCALE_STEP)),
                      max(1, math.floor(height * DOWNSCALE_STEP)))


def _encode_within(image: Image.Image, screen: tuple[int, int], limits: ImageLimits | None,
                   side: int | None) -> PreparedImage:
    """``image`` within ``side`` and ``limits.max_bytes``: in the vendor's preferred encoding if it fits, else
    JPEG at falling quality, scaled down in steps until one fits."""
    if side and max(image.size) > side:
        image = _resize(image, fit_within(image.width, image.height, side, side))
    data, media_type = _encoded(image, limits)
    if _fits(len(data), limits):
        return _prepared(data, media_type, image.size, screen)
    tried = limits.jpeg_quality if limits is not None and media_type == "image/jpeg" else 101
    qualities = [q for q in JPEG_QUALITIES if q < tried]
    while True:
        for quality in qualities:
            data = _jpeg(image, quality)
            if _fits(len(data), limits):
                return _prepared(data, "image/jpeg", image.size, screen)
        image = _resize(image, _step_down(image.size))
        qualities = list(JPEG_QUALITIES)


def _key(prepared: PreparedImage) -> tuple[str, int, int]:
    return prepared.sha256, prepared.screen_width, prepared.screen_height


def _decoded(data: bytes) -> Image.Image:
    """``data`` fully decoded (a truncated file fails here, not at the vendor): libspng for a screen's PNG,
    Pillow for the rest (``observations.decode_screenshot``)."""
    from pytest_cua.observations import decode_screenshot

    try:
        return decode_screenshot(data)
    except (OSError, SyntaxError, ValueError) as exc:  # Pillow's UnidentifiedImageError is an OSError
        raise ImageError(f"cannot decode the screenshot ({len(data)} bytes): {exc}") from exc


def _within_side(prepared: PreparedImage, side: int, limits: ImageLimits) -> PreparedImage:
    if max(prepared.width, prepared.height) <= side:
        return prepared
    screen = (prepared.screen_width, prepared.screen_height)
    return _encode_within(_decoded(prepared.data), screen, limits, side)


def _shrink_once(prepared: PreparedImage) -> PreparedImage:
    """A strictly smaller encoding of ``prepared``: a PNG becomes JPEG at the same size if that is smaller,
    otherwise the image is scaled down a step (as often as needed)."""
    image = _decoded(prepared.data)
    screen = (prepared.screen_width, prepared.screen_height)
    if prepared.media_type == "image/png":
        data = _jpeg(image, JPEG_QUALITIES[0])
        if len(data) < len(prepared.data):
            return _prepared(data, "image/jpeg", image.size, screen)
    while True:
        image = _resize(image, _step_down(image.size))
        data = _jpeg(image, JPEG_QUALITIES[0])
        if len(data) < len(prepared.data):
            return _prepared(data, "image/jpeg", image.size, screen)
