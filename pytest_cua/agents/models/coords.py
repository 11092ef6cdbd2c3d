"""Coordinate spaces: how the numbers a model writes map to screen pixels, and back.

A model sees a screenshot that was usually scaled before it was sent, and answers in its own space:

* ``pixels``       pixels of the image it was sent (OpenAI computer use, Claude computer use, o3 on a scaled
                   screenshot);
* ``smart_resize`` pixels of the image after Qwen2.5-VL's ``smart_resize`` (UI-TARS-1.5, Qwen2.5-VL): the
                   same arithmetic as ``pixels``, with the image size given by the resize rule;
* ``relative``     fractions 0-1 of the image (OpenCUA);
* ``relative1000`` thousandths 0-1000 of the image (UI-TARS-1.0, Qwen3-VL style).

Every adapter declares its space with one of the constructors below and maps each coordinate it receives with
``to_screen``; ``from_screen`` is the inverse, used by round-trip tests and by fake models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SPACE_KINDS = ("pixels", "smart_resize", "relative", "relative1000")

# Qwen2.5-VL's processor defaults (min 4 patches of 28, max 16384 patches), as UI-TARS-1.5 uses them
QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 100 * 28 * 28
QWEN_MAX_PIXELS = 16384 * 28 * 28


@dataclass(frozen=True)
class CoordSpace:
    """A model's coordinate space over an image of ``width`` x ``height`` showing a screen of
    ``screen_width`` x ``screen_height`` pixels."""

    kind: str
    width: int
    height: int
    screen_width: int
    screen_height: int

    def __post_init__(self) -> None:
        if self.kind not in SPACE_KINDS:
            raise ValueError(f"unknown coordinate space {self.kind!r}; known: {', '.join(SPACE_KINDS)}")
        for name in ("width", "height", "screen_width", "screen_height"):
            if int(getattr(self, name)) <= 0:
                raise ValueError(f"coordinate space {self.kind}: {name} must be positive")

    @property
    def _span(self) -> tuple[float, float]:
        """The model's numbers for the full width and height of the image."""
        if self.kind == "relative":
            return 1.0, 1.0
        if self.kind == "relative1000":
            return 1000.0, 1000.0
        return float(self.width), float(self.height)

    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        """The screen point for the model's ``(x, y)``, clamped to the screen."""
        span_x, span_y = self._span
        sx = float(x) * self.screen_width / span_x
        sy = float(y) * self.screen_height / span_y
        return (min(max(sx, 0.0), self.screen_width - 1.0), min(max(sy, 0.0), self.screen_height - 1.0))

    def from_screen(self, x: float, y: float) -> tuple[float, float]:
        """The model's numbers for a screen point (the inverse of ``to_screen`` inside the screen)."""
        span_x, span_y = self._span
        return float(x) * span_x / self.screen_width, float(y) * span_y / self.screen_height

    def scale(self) -> float:
        """Image pixels per screen pixel (1.0 when the screenshot was sent unscaled)."""
        return self.width / self.screen_width

    def describe(self) -> dict[str, object]:
        return {"kind": self.kind, "image": [self.width, self.height],
                "screen": [self.screen_width, self.screen_height]}


def fit_within(width: int, height: int, max_width: int | None, max_height: int | None,
               max_pixels: int | None = None) -> tuple[int, int]:
    """The largest size with the aspect ratio of ``width`` x ``height`` that fits the bounds (never larger
    than the original)."""
    ratio = 1.0
    if max_width:
        ratio = min(ratio, max_width / width)
    if max_height:
        ratio = min(ratio, max_height / height)
    if max_pixels and width * height * ratio * ratio > max_pixels:
        ratio = min(ratio, math.sqrt(max_pixels / (width * height)))
    if ratio >= 1.0:
        return width, height
    return max(1, int(width * ratio)), max(1, int(height * ratio))


def _round_by(value: float, factor: int) -> int:
    return round(value / factor) * factor  # Python's round: half to even, as the reference processor


def _floor_by(value: float, factor: int) -> int:
    return math.floor(value / factor) * factor


def _ceil_by(value: float, factor: int) -> int:
    return math.ceil(value / factor) * factor


def smart_resize(height: int, width: int, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                 max_pixels: int = QWEN_MAX_PIXELS) -> tuple[int, int]:
    """Qwen2.5-VL's resize rule: both sides multiples of ``factor``, the area within the pixel bounds, the
    aspect ratio nearly kept. Returns ``(height, width)`` like the reference implementation."""
    if height <= 0 or width <= 0:
        raise ValueError(f"smart_resize: size must be positive, got {width}x{height}")
    if max(height, width) / min(height, width) > 200:
        raise ValueError(f"smart_resize: aspect ratio of {width}x{height} is over 200")
    h_bar = max(factor, _round_by(height, factor))
    w_bar = max(factor, _round_by(width, factor))
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, _floor_by(height / beta, factor))
        w_bar = max(factor, _floor_by(width / beta, factor))
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = _ceil_by(height * beta, factor)
        w_bar = _ceil_by(width * beta, factor)
    return h_bar, w_bar


# --- constructors ----------------------------------------------------------------------------------------

def pixel_space(screen: tuple[int, int], image: tuple[int, int] | None = None) -> CoordSpace:
    """Pixels of the image sent (``image`` defaults to the screen size: no scaling)."""
    iw, ih = image or screen
    return CoordSpace("pixels", iw, ih, screen[0], screen[1])


def smart_resize_space(screen: tuple[int, int], *, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                       max_pixels: int = QWEN_MAX_PIXELS) -> CoordSpace:
    """Pixels of the smart-resized image (the image is sent at that size)."""
    h, w = smart_resize(screen[1], screen[0], factor, min_pixels, max_pixels)
    return CoordSpace("smart_resize", w, h, screen[0], screen[1])


def relative_space(screen: tuple[int, int], image: tuple[int, int] | None = None) -> CoordSpace:
    iw, ih = image or screen
    return CoordSpace("relative", iw, ih, screen[0], screen[1])


def relative1000_space(screen: tuple[int, int], image: tuple[int, int] | None = None) -> CoordSpace:
    iw, ih = image or screen
    return CoordSpace("relative1000", iw, ih, screen[0], screen[1])
