"""One screenshot pipeline: scale a screenshot to the size a style asked for, then keep it within a vendor's
limits before it is sent, never after a 400.

``prepare_image`` resizes to the exact target size (from ``coords.fit_within`` or ``coords.smart_resize``) and
then enforces the per-image limits: a side over the limit is scaled down (aspect kept); an image whose
base64 text is over ``max_bytes`` is re-encoded as JPEG at falling quality, then scaled down in steps until it
fits. ``fit_request`` does the same for a request as a whole (many-image side limit, total size).

The image actually sent is the truth: when a limit scales it down, its ``width`` x ``height`` differ from the
size asked for, and callers build their ``CoordSpace`` from the ``PreparedImage``, not from the request.
"""

from __future__ import annotations

import base64 as b64
import hashlib
import io
import math
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from pytest_cua.agents.models.coords import fit_within

MB = 1024 * 1024
JPEG_QUALITIES = (85, 70, 55)  # tried in order at each size once PNG is too large
DOWNSCALE_STEP = 0.8  # each step keeps this fraction of each side
_KEPT_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg"}


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

    def side_limit(self, many: bool) -> int:
        """The side limit for one image, in a request with more than ``many_threshold`` images if ``many``."""
        if many and self.max_side_many:
            return min(self.max_side, self.max_side_many)
        return self.max_side


VENDOR_LIMITS: dict[str, ImageLimits] = {
    # platform.claude.com vision docs: 5 MB per image, checked on the base64 length (the API's error reads
    # "image exceeds 5 MB maximum: N bytes > 5242880 bytes"); 8000 px per side, 2000 px once a request
    # has more than 20 images; 100 images per API request; 32 MB per Messages request, of which 2 MB is
    # left here for text and tools.
    "anthropic": ImageLimits(max_bytes=5 * MB, max_side=8000, max_side_many=2000, many_threshold=20,
                             max_images=100, max_request_bytes=30 * MB),
    # OpenAI's images-and-vision guide: 20 MB per image, 500 images and 50 MB of image bytes per request.
    # It documents no side limit (high detail is scaled server-side to fit 2048 px, then 768 px on the
    # short side); 8000 px is our bound.
    "openai": ImageLimits(max_bytes=20 * MB, max_side=8000, max_side_many=None, many_threshold=None,
                          max_images=500, max_request_bytes=50 * MB),
    # OpenAI-compatible servers (vLLM and the like) document no limits of their own; the image count is the
    # server's --limit-mm-per-prompt. These bounds are conservative guesses, not documented figures.
    "openai-compatible": ImageLimits(max_bytes=10 * MB, max_side=8000, max_side_many=None,
                                     many_threshold=None, max_images=None, max_request_bytes=20 * MB),
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
        return b64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"


def base64_length(n_bytes: int) -> int:
    """The length of the base64 text of ``n_bytes`` bytes (padded)."""
    return 4 * math.ceil(n_bytes / 3)


def image_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` of an encoded image, read from its header."""
    with _open(png) as image:
        return image.size


def prepare_image(png: bytes, *, size: tuple[int, int] | None = None, limits: ImageLimits | None = None,
                  many: bool = False) -> PreparedImage:
    """The screenshot ``png`` at ``size`` (only when it differs), then within ``limits`` (the many-image side
    limit if ``many``). An image left untouched keeps its original bytes.

    Scaling is bilinear with a reducing gap and PNGs are written at compression level 1: on a 1920x1080
    screenshot that is about 20 ms less per step than LANCZOS and the default level (benchmarks/model_bench.py),
    and text at the scales used here (at most 2x down) stays legible."""
    with _decoded(png) as image:
        screen = image.size
        kept = _KEPT_FORMATS.get(image.format or "")
        target = _checked_size(size) if size else screen
        if target != screen:
            image = image.resize(target, Image.Resampling.BILINEAR, reducing_gap=2.0)
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


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


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
    """``image`` within ``side`` and ``limits.max_bytes``: PNG if it fits, else JPEG at falling quality,
    scaled down in steps until one fits."""
    if side and max(image.size) > side:
        image = image.resize(fit_within(image.width, image.height, side, side), Image.Resampling.LANCZOS)
    data = _png(image)
    if _fits(len(data), limits):
        return _prepared(data, "image/png", image.size, screen)
    while True:
        for quality in JPEG_QUALITIES:
            data = _jpeg(image, quality)
            if _fits(len(data), limits):
                return _prepared(data, "image/jpeg", image.size, screen)
        image = image.resize(_step_down(image.size), Image.Resampling.LANCZOS)


def _key(prepared: PreparedImage) -> tuple[str, int, int]:
    return prepared.sha256, prepared.screen_width, prepared.screen_height


def _decoded(data: bytes) -> Image.Image:
    """``data`` opened and fully decoded (a truncated file fails here, not at the vendor)."""
    image = _open(data)
    try:
        image.load()
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageError(f"cannot decode the screenshot ({len(data)} bytes): {exc}") from exc
    return image


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
        image = image.resize(_step_down(image.size), Image.Resampling.LANCZOS)
        data = _jpeg(image, JPEG_QUALITIES[0])
        if len(data) < len(prepared.data):
            return _prepared(data, "image/jpeg", image.size, screen)
