"""``observations.decode_screenshot``: libspng for the PNGs screens produce, to the very pixels and mode Pillow
gives; Pillow for every other image; damaged bytes an error."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from pytest_cua.observations import _spng_mode, decode_screenshot


def encoded(image: Image.Image, **save: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **save)
    return buffer.getvalue()


def screen_like(mode: str, size: tuple[int, int] = (321, 123)) -> Image.Image:
    """Noise over flat areas and a gradient: every PNG filter type is used somewhere."""
    rng = np.random.default_rng(7)
    channels = len(mode)
    pixels = np.zeros((size[1], size[0], channels), np.uint8)
    pixels[: size[1] // 2] = rng.integers(0, 256, (size[1] // 2, size[0], channels), dtype=np.uint8)
    pixels[size[1] // 2:] = (np.arange(size[0]) % 256)[None, :, None]
    return Image.fromarray(pixels[:, :, 0] if channels == 1 else pixels, mode)


def pillow(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_pyspng_is_installed():
    """A dependency of the project: without it every screenshot would go the slow way without a word."""
    import pyspng  # noqa: F401


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
@pytest.mark.parametrize("level", [0, 1, 6, 9])
def test_a_screens_png_decodes_to_pillows_pixels(mode, level):
    data = encoded(screen_like(mode), compress_level=level)
    assert _spng_mode(data) == mode  # libspng's path is the one taken
    fast, reference = decode_screenshot(data), pillow(data)
    assert (fast.mode, fast.size, fast.format) == (reference.mode, reference.size, "PNG")
    assert fast.tobytes() == reference.tobytes()


@pytest.mark.parametrize("image,save", [
    (Image.new("P", (40, 30), 3), {}),  # a palette
    (Image.new("I;16", (40, 30), 4000), {}),  # 16 bits per sample
    (Image.new("1", (40, 30), 1), {}),  # 1 bit
    (Image.new("LA", (40, 30), (9, 200)), {}),  # grey with alpha: no such output in pyspng
    (Image.new("RGB", (40, 30), "navy"), {"transparency": (0, 0, 128)}),  # a tRNS chunk: Pillow keeps it in info
], ids=["palette", "16-bit", "1-bit", "grey-alpha", "trns"])
def test_other_pngs_go_through_pillow(image, save):
    data = encoded(image, **save)
    assert _spng_mode(data) is None
    fast, reference = decode_screenshot(data), pillow(data)
    assert (fast.mode, fast.info.get("transparency")) == (reference.mode, reference.info.get("transparency"))
    assert fast.tobytes() == reference.tobytes()


def test_other_formats_go_through_pillow():
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "red").save(buffer, "JPEG")
    image = decode_screenshot(buffer.getvalue())
    assert (image.format, image.size) == ("JPEG", (40, 30))


@pytest.mark.parametrize("cut", ["truncated", "damaged-header"])
def test_damaged_pngs_are_errors(cut):
    data = encoded(screen_like("RGB"), compress_level=1)
    bad = {"truncated": data[: len(data) // 2], "damaged-header": data[:40] + b"x" * 60 + data[100:]}[cut]
    with pytest.raises((OSError, ValueError)):
        decode_screenshot(bad)
