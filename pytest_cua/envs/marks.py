"""Set-of-marks: a screenshot with a numbered box per element of the observation, the number of its id
(``e12`` is drawn as 12). Shared by every environment that offers ``som``: the browser (page elements) and the
docker desktop (accessibility-tree elements)."""

from __future__ import annotations

import io
from typing import Any, Mapping

from pytest_cua.observations import Element, decode_screenshot

_MARK_COLORS = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 140, 140),
                (240, 50, 230), (128, 128, 0), (0, 0, 128), (170, 110, 40))


_FONT: list[Any] = []


def _font() -> Any:
    from PIL import ImageFont

    if not _FONT:
        try:
            _FONT.append(ImageFont.load_default(size=13))
        except TypeError:  # Pillow < 10.1
            _FONT.append(ImageFont.load_default())
    return _FONT[0]


def mark_image(image: Any, elements: Mapping[str, Element]) -> None:
    """Draw a box and a number label per element with a box on it on the RGB Pillow ``image`` (in place; boxes in
    the image's pixels)."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    font = _font()
    W, H = image.size
    for i, el in enumerate(elements.values()):
        if el.bbox is None:
            continue
        x, y, w, h = el.bbox
        if w <= 0 or h <= 0 or x + w < 0 or y + h < 0 or x >= W or y >= H:
            continue
        color = _MARK_COLORS[i % len(_MARK_COLORS)]
        draw.rectangle((x, y, x + w, y + h), outline=color, width=2)
        label = el.id[1:] if el.id.startswith("e") else el.id
        tw = draw.textlength(label, font=font)
        lx, ly = max(0, x), max(0, y - 15) if y >= 15 else max(0, y)
        draw.rectangle((lx, ly, lx + tw + 4, ly + 15), fill=color)
        draw.text((lx + 2, ly + 1), label, fill=(255, 255, 255), font=font)


def encode_png(image: Any) -> bytes:
    """A marked image as the environments hand it over: PNG at zlib level 1."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def draw_marks(png: bytes, elements: Mapping[str, Element], viewport: tuple[int, int] | None = None) -> bytes:
    """The screenshot ``png`` with ``mark_image``'s boxes and labels (``viewport`` is accepted for the browser's
    callers, the image's own size is what counts)."""
    decoded = decode_screenshot(png)
    image = decoded if decoded.mode == "RGB" else decoded.convert("RGB")  # a new image: drawn on in place
    mark_image(image, elements)
    return encode_png(image)
