"""The browser's set-of-marks keeps the pixels it drew for the model agent: the same PNG as ``draw_marks``, and
a model style's image made from those pixels is the one decoding the PNG gives (no decode in the harness)."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from pytest_cua.agents.models.images import VENDOR_LIMITS, prepare_image
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.envs.browser.marks import draw_marks_kept
from pytest_cua.envs.marks import draw_marks
from pytest_cua.observations import DECODED, Element, decoded_pixels


@pytest.fixture(autouse=True)
def _no_kept_pixels():
    DECODED.clear()
    yield
    DECODED.clear()


def screenshot(mode: str = "RGB") -> bytes:
    image = Image.new(mode, (640, 400), "white")
    ImageDraw.Draw(image).rectangle([100, 100, 300, 140], fill="navy")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


ELEMENTS = {e.id: e for e in [
    Element("e1", "button", "Save", bbox=(100, 100, 200, 40)),
    Element("e2", "link", bbox=(5, 3, 60, 20)),  # near the top: the label goes inside
    Element("e3", "textbox", bbox=None),  # no box: no mark
    Element("e4", "checkbox", bbox=(-50, 10, 20, 20)),  # off the screen: no mark
    Element("e5", "option", bbox=(600, 380, 100, 50)),  # partly off the screen
    Element("x9", "row", bbox=(300, 200, 120, 30)),  # an id without "e"
    *(Element(f"e{i}", "cell", bbox=(20 + 45 * (i % 12), 180 + 25 * (i // 12), 40, 20)) for i in range(10, 40)),
]}


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_the_same_png_as_draw_marks(mode):
    png = screenshot(mode)
    assert draw_marks_kept(png, ELEMENTS) == draw_marks(png, ELEMENTS)


@pytest.mark.parametrize("keep_screenshot", [False, True])
def test_the_pixels_kept_are_the_pngs(keep_screenshot):
    png = screenshot()
    som = draw_marks_kept(png, ELEMENTS, keep_screenshot=keep_screenshot)
    with Image.open(io.BytesIO(som)) as image:
        assert decoded_pixels(som).tobytes() == image.convert("RGB").tobytes()
    if keep_screenshot:
        with Image.open(io.BytesIO(png)) as image:
            assert decoded_pixels(png).tobytes() == image.tobytes()  # the marks went on a copy
    else:
        assert decoded_pixels(png) is None


def test_an_observation_hands_its_pixels_to_the_model_image(env: BrowserEnvironment):
    """Real Chromium: the som and the screenshot of one observation are prepared from the kept pixels, and
    the images sent are those decoding the PNGs gives, byte for byte."""
    obs = env.observe(frozenset({"axtree", "som", "screenshot"}))
    assert obs.som is not None and obs.screenshot is not None and obs.elements
    for data in (obs.som, obs.screenshot):
        pixels = decoded_pixels(data)
        with Image.open(io.BytesIO(data)) as image:
            assert pixels is not None and pixels.size == image.size == (1280, 800)
            assert pixels.convert("RGB").tobytes() == image.convert("RGB").tobytes()
        for vendor, size in (("openai", (1024, 640)), ("anthropic", (1280, 800))):
            sent = prepare_image(data, size=size, limits=VENDOR_LIMITS[vendor])
            again = prepare_image(bytes(bytearray(data)), size=size, limits=VENDOR_LIMITS[vendor])  # decoded
            assert sent == again
    plain = env.observe(frozenset({"som"}))  # the screenshot not observed: only the som's pixels are kept
    assert plain.screenshot is None and decoded_pixels(plain.som) is not None
