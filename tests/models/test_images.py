"""The screenshot pipeline: target sizes, vendor limits, whole-request fitting; the encoding each vendor is sent,
the coordinates the faster scaling keeps, the cache of prepared images and the trajectory's lossless screenshot."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageDraw

from pytest_cua.agents.base import AgentContext
from pytest_cua.agents.models.coords import fit_within, pixel_space, smart_resize
from pytest_cua.agents.models.images import (VENDOR_LIMITS, ImageCache, ImageError, ImageLimits, PreparedImage,
                                             base64_length, fit_request, image_size, prepare_image)
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry
from pytest_cua.episode.trajectory import StepRecord, TrajectoryRecorder
from pytest_cua.observations import DECODED, DECODED_KEPT, Observation, decoded_pixels, keep_decoded
from pytest_cua.tasks.task import Task
from pytest_cua.testing.fake_models import ANTHROPIC_MEDIA_TYPES, FakeCall, FakeReply, ScriptedPolicy

UNLIMITED_SIDE = 100_000


def png(width: int, height: int, mode: str = "RGB") -> bytes:
    """A flat screenshot-like image (compresses well)."""
    image = Image.new(mode, (width, height), "white")
    image.paste("navy", (0, 0, max(1, width // 3), max(1, height // 4)))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def noise_png(width: int, height: int, seed: int = 0) -> bytes:
    """An incompressible image: random pixels from a fixed seed."""
    pixels = random.Random(seed).randbytes(width * height * 3)
    buffer = io.BytesIO()
    Image.frombytes("RGB", (width, height), pixels).save(buffer, "PNG")
    return buffer.getvalue()


def limits(**overrides: object) -> ImageLimits:
    values: dict[str, object] = dict(max_bytes=10**9, max_side=UNLIMITED_SIDE, max_side_many=None,
                                         many_threshold=None, max_images=None, max_request_bytes=None)
    values.update(overrides)
    return ImageLimits(**values)  # type: ignore[arg-type]


def decoded(image: PreparedImage) -> Image.Image:
    return Image.open(io.BytesIO(image.data))


# --- prepare_image ---------------------------------------------------------------------------------------

def test_untouched_screenshot_keeps_its_bytes():
    data = png(320, 200)
    image = prepare_image(data, limits=VENDOR_LIMITS["anthropic"])
    assert image.data == data
    assert (image.media_type, image.width, image.height) == ("image/png", 320, 200)
    assert (image.screen_width, image.screen_height) == (320, 200)
    assert image.sha256 == hashlib.sha256(data).hexdigest()


def test_same_size_is_not_resized():
    data = png(320, 200)
    assert prepare_image(data, size=(320, 200)).data == data


def test_resized_to_the_exact_target_size():
    target = fit_within(1920, 1080, 1280, 800)
    image = prepare_image(png(1920, 1080), size=target)
    assert (image.width, image.height) == target == (1280, 720)
    assert decoded(image).size == target
    assert (image.screen_width, image.screen_height) == (1920, 1080)
    assert image.media_type == "image/png"


def test_smart_resize_target_is_honoured_even_when_not_the_aspect():
    height, width = smart_resize(1080, 1920)
    image = prepare_image(png(1920, 1080), size=(width, height))
    assert (image.width, image.height) == (width, height)
    assert width % 28 == 0 and height % 28 == 0


def test_side_limit_downscales_keeping_the_aspect():
    image = prepare_image(png(9000, 90), limits=VENDOR_LIMITS["anthropic"])
    assert (image.width, image.height) == (8000, 80)
    assert decoded(image).size == (8000, 80)
    assert (image.screen_width, image.screen_height) == (9000, 90)


def test_many_image_side_limit_applies_only_when_many():
    data = png(2560, 1440)
    assert prepare_image(data, limits=VENDOR_LIMITS["anthropic"]).width == 2560
    many = prepare_image(data, limits=VENDOR_LIMITS["anthropic"], many=True)
    assert (many.width, many.height) == (2000, 1125)


def test_side_limit_after_the_target_size():
    image = prepare_image(png(4000, 2000), size=(3000, 1500), limits=limits(max_side=1000))
    assert (image.width, image.height) == (1000, 500)


def test_too_many_bytes_becomes_jpeg_at_the_same_size():
    data = noise_png(200, 150)
    assert base64_length(len(data)) > 60_000
    image = prepare_image(data, limits=limits(max_bytes=60_000))
    assert image.media_type == "image/jpeg"
    assert (image.width, image.height) == (200, 150)
    assert image.encoded_size <= 60_000
    assert decoded(image).format == "JPEG"


def test_still_too_many_bytes_downscales_in_steps_keeping_the_aspect():
    image = prepare_image(noise_png(400, 200), limits=limits(max_bytes=8_000))
    assert image.media_type == "image/jpeg"
    assert image.encoded_size <= 8_000
    assert image.width < 400 and abs(image.width / image.height - 2.0) < 0.05
    assert (image.screen_width, image.screen_height) == (400, 200)


def test_bytes_limit_is_checked_on_the_base64_length():
    data = noise_png(100, 100)
    raw = len(data)
    just_under_base64 = base64_length(raw) - 1
    assert raw < just_under_base64
    assert prepare_image(data, limits=limits(max_bytes=just_under_base64)).media_type == "image/jpeg"
    assert prepare_image(data, limits=limits(max_bytes=base64_length(raw))).data == data


def test_transparent_screenshot_becomes_an_opaque_jpeg():
    image = Image.frombytes("RGBA", (120, 80), random.Random(3).randbytes(120 * 80 * 4))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    prepared = prepare_image(buffer.getvalue(), limits=limits(max_bytes=20_000))
    assert prepared.media_type == "image/jpeg"
    assert decoded(prepared).mode == "RGB"


def test_jpeg_input_is_kept_as_jpeg():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "teal").save(buffer, "JPEG")
    image = prepare_image(buffer.getvalue())
    assert (image.media_type, image.data) == ("image/jpeg", buffer.getvalue())


def test_other_formats_are_sent_as_png():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "teal").save(buffer, "BMP")
    image = prepare_image(buffer.getvalue())
    assert image.media_type == "image/png"
    assert decoded(image).format == "PNG"


def test_base64_and_data_url():
    image = prepare_image(png(10, 10))
    assert base64.b64decode(image.base64()) == image.data
    assert image.data_url() == "data:image/png;base64," + image.base64()
    assert image.encoded_size == len(image.base64())


def test_preparing_is_deterministic():
    data = noise_png(300, 200)
    tight = limits(max_bytes=20_000)
    assert prepare_image(data, limits=tight).sha256 == prepare_image(data, limits=tight).sha256


def test_coordinates_follow_the_image_actually_sent():
    image = prepare_image(png(2560, 1440), size=(2560, 1440), limits=VENDOR_LIMITS["anthropic"], many=True)
    space = pixel_space((image.screen_width, image.screen_height), (image.width, image.height))
    assert space.to_screen(image.width / 2, image.height / 2) == (1280.0, 720.0)
    assert space.scale() == pytest.approx(2000 / 2560)


def test_image_size_reads_the_header():
    assert image_size(png(321, 123)) == (321, 123)


@pytest.mark.parametrize("data", [b"", b"not an image", b"\x89PNG\r\n\x1a\n", png(64, 64)[:-60]],
                         ids=["empty", "text", "signature-only", "truncated"])
def test_undecodable_input_is_an_error(data):
    with pytest.raises(ImageError, match="cannot decode the screenshot"):
        prepare_image(data)


@pytest.mark.parametrize("size", [(0, 10), (10, -1), (10.5, 10)])
def test_bad_target_size_is_an_error(size):
    with pytest.raises(ImageError, match="target size"):
        prepare_image(png(20, 20), size=size)


def test_vendor_limits_are_the_documented_ones():
    anthropic = VENDOR_LIMITS["anthropic"]
    assert (anthropic.max_bytes, anthropic.max_side, anthropic.max_side_many, anthropic.many_threshold,
            anthropic.max_images) == (5 * 1024 * 1024, 8000, 2000, 20, 100)
    assert anthropic.max_request_bytes is not None and anthropic.max_request_bytes <= 32 * 1024 * 1024
    openai = VENDOR_LIMITS["openai"]
    assert (openai.max_bytes, openai.max_images, openai.max_request_bytes) == (20 * 1024 * 1024, 500,
                                                                              50 * 1024 * 1024)
    compatible = VENDOR_LIMITS["openai-compatible"]
    assert compatible.max_request_bytes is not None and compatible.max_request_bytes <= 20 * 1024 * 1024


# --- fit_request -----------------------------------------------------------------------------------------

def test_request_at_the_threshold_is_untouched():
    images = [prepare_image(png(2560, 1440))] * 20
    assert fit_request(images, VENDOR_LIMITS["anthropic"]) == images


def test_request_over_the_threshold_gets_the_many_image_side_limit():
    big, small = prepare_image(png(2560, 1440)), prepare_image(png(800, 600))
    images = [big] * 20 + [small]
    fitted = fit_request(images, VENDOR_LIMITS["anthropic"])
    assert len(fitted) == 21
    assert all(max(image.width, image.height) <= 2000 for image in fitted)
    assert (fitted[0].width, fitted[0].height) == (2000, 1125)
    assert (fitted[0].screen_width, fitted[0].screen_height) == (2560, 1440)
    assert fitted[-1] is small


def test_request_total_bytes_shrinks_the_largest_first():
    large = prepare_image(noise_png(240, 160, seed=1))
    medium = prepare_image(noise_png(160, 100, seed=2))
    tiny = prepare_image(png(40, 40))
    budget = large.encoded_size  # the three together are well over it
    fitted = fit_request([tiny, large, medium], limits(max_request_bytes=budget))
    assert sum(image.encoded_size for image in fitted) <= budget
    assert fitted[0] is tiny
    assert fitted[1] is not large and fitted[1].encoded_size < large.encoded_size
    assert (fitted[1].screen_width, fitted[1].screen_height) == (240, 160)


def test_request_fitting_is_deterministic():
    images = [prepare_image(noise_png(200, 120, seed=seed)) for seed in range(3)]
    tight = limits(max_request_bytes=sum(image.encoded_size for image in images) // 3)
    first = [image.sha256 for image in fit_request(images, tight)]
    assert first == [image.sha256 for image in fit_request(images, tight)]


def test_request_within_the_limits_is_returned_as_is():
    images = [prepare_image(png(100, 100)), prepare_image(png(200, 100))]
    fitted = fit_request(images, VENDOR_LIMITS["openai"])
    assert fitted == images and all(a is b for a, b in zip(fitted, images))
    assert fit_request([], VENDOR_LIMITS["anthropic"]) == []


def test_too_many_images_is_an_error_naming_the_limit():
    images = [prepare_image(png(10, 10))] * 101
    with pytest.raises(ImageError, match="101 images in one request; the limit is 100"):
        fit_request(images, VENDOR_LIMITS["anthropic"])


def test_request_that_cannot_fit_is_an_error():
    with pytest.raises(ImageError, match="cannot shrink"):
        fit_request([prepare_image(png(8, 8))], limits(max_request_bytes=10))


# --- encoding per vendor ---------------------------------------------------------------------------------

@pytest.mark.parametrize("vendor", sorted(VENDOR_LIMITS))
def test_a_scaled_screenshot_is_sent_as_the_vendor_prefers(vendor):
    vendor_limits = VENDOR_LIMITS[vendor]
    assert vendor_limits.encode_as == "image/jpeg" and "image/jpeg" in vendor_limits.media_types
    image = prepare_image(png(1920, 1080), size=(1280, 720), limits=vendor_limits)
    assert (image.media_type, decoded(image).format, decoded(image).size) == ("image/jpeg", "JPEG", (1280, 720))
    # a screenshot that needs no change is sent as it came: the environment's lossless PNG
    untouched = prepare_image(png(1280, 720), size=(1280, 720), limits=vendor_limits)
    assert untouched.media_type == "image/png" and untouched.data == png(1280, 720)


def test_without_a_vendor_a_scaled_screenshot_stays_lossless():
    image = prepare_image(noise_png(300, 200), size=(150, 100))
    assert image.media_type == "image/png"
    expected = Image.open(io.BytesIO(noise_png(300, 200))).resize((150, 100), Image.Resampling.BOX)
    # lossless: the scaled pixels themselves (2x: Image.reduce, within one level of the box filter's rounding)
    assert max(high for _, high in ImageChops.difference(decoded(image), expected).getextrema()) <= 1
    assert decoded(image).tobytes() == Image.open(io.BytesIO(noise_png(300, 200))).reduce(2).tobytes()


def test_anthropic_media_types_are_the_pinned_sdk_schemas():
    schemas = json.loads((Path(__file__).parent / "vendor_schemas" / "anthropic.json").read_text(encoding="utf-8"))
    enums = {tuple(sorted(node["enum"])) for node in _walk(schemas)
             if isinstance(node, dict) and "image/png" in (node.get("enum") or [])}
    assert enums == {tuple(sorted(VENDOR_LIMITS["anthropic"].media_types))}
    assert set(VENDOR_LIMITS["anthropic"].media_types) == set(ANTHROPIC_MEDIA_TYPES)


def _walk(node):
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _walk(child)


def test_a_format_the_vendor_does_not_take_is_encoded():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "teal").save(buffer, "JPEG")
    png_only = limits(media_types=("image/png",))
    image = prepare_image(buffer.getvalue(), limits=png_only)
    assert (image.media_type, decoded(image).format) == ("image/png", "PNG")


def test_a_jpeg_too_large_falls_to_lower_qualities_then_smaller_sizes():
    data = noise_png(400, 300)
    first = prepare_image(data, size=(300, 225), limits=limits(encode_as="image/jpeg"))
    budget = first.encoded_size - 1  # quality 85 is just too large: a lower quality at the same size fits
    image = prepare_image(data, size=(300, 225), limits=limits(encode_as="image/jpeg", max_bytes=budget))
    assert image.media_type == "image/jpeg" and (image.width, image.height) == (300, 225)
    assert image.encoded_size <= budget < first.encoded_size


@pytest.mark.parametrize("field,value,message", [
    ("encode_as", "image/webp", "encode_as: 'image/webp' is not one of image/png, image/jpeg"),
    ("media_types", ("image/png",), "'image/jpeg' is not among the media types the vendor takes"),
    ("jpeg_quality", 0, "jpeg_quality: 0 is not within 1-95")])
def test_bad_encoding_settings_are_errors_naming_the_field(field, value, message):
    settings: dict[str, object] = {"encode_as": "image/jpeg", field: value}
    with pytest.raises(ValueError, match=re.escape(message)):
        limits(**settings)  # type: ignore[arg-type]


# --- the agent's coordinates are the same with the faster pipeline --------------------------------------

SCREEN = (1920, 1080)
# 96 marks (9x9 screen pixels, centred on the pixel given), one per cell of a 12x8 grid, off the pixel grid of
# every scale used here
MARKS = [(60 + gx * 150 + (gx * 7 + gy * 13) % 40, 40 + gy * 130 + (gx * 11 + gy * 5) % 40)
         for gx in range(12) for gy in range(8)]


def marked_screen() -> bytes:
    image = Image.new("RGB", SCREEN, (250, 250, 250))
    draw = ImageDraw.Draw(image)
    for x, y in MARKS:
        draw.rectangle([x - 4, y - 4, x + 4, y + 4], fill=(1, 118, 211))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def mark_at(image: Image.Image, x: float, y: float, radius: int = 8) -> tuple[float, float]:
    """The centre (image pixels, continuous) of the mark drawn near ``(x, y)``: its ink's centroid."""
    ink = 255.0 - np.asarray(image.convert("L"), dtype=float)
    x0, y0 = max(0, int(x) - radius), max(0, int(y) - radius)
    window = ink[y0:int(y) + radius + 1, x0:int(x) + radius + 1]
    ys, xs = np.mgrid[y0:y0 + window.shape[0], x0:x0 + window.shape[1]]
    weight = window.sum()
    assert weight > 0, f"no mark near ({x}, {y})"
    return float((xs * window).sum() / weight) + 0.5, float((ys * window).sum() / weight) + 0.5


def old_pipeline(data: bytes, size: tuple[int, int]) -> Image.Image:
    """What was sent before the box filter and JPEG: bilinear with a reducing gap, written losslessly."""
    with Image.open(io.BytesIO(data)) as image:
        return image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)


@pytest.mark.parametrize("vendor,size", [
    ("openai", (1280, 720)), ("openai", (1024, 576)), ("anthropic", (1280, 720)),
    ("openai-compatible", smart_resize(1080, 1920)[::-1])],  # 1932x1092: a scale up
    ids=["browser-1280", "openai-computer-1024", "claude-computer-1280", "vlm-smart-resize"])
def test_marks_map_to_the_same_screen_pixels_as_before(vendor, size):
    data = marked_screen()
    sent = prepare_image(data, size=size, limits=VENDOR_LIMITS[vendor])
    before = old_pipeline(data, size)
    # the scale factors: the coordinate space of the image sent is the one the old pipeline gave
    space = pixel_space(SCREEN, (sent.width, sent.height))
    assert space == pixel_space(SCREEN, before.size)
    half_pixel = 0.5 * max(SCREEN[0] / sent.width, SCREEN[1] / sent.height)  # in screen pixels
    now = decoded(sent)
    for x, y in MARKS:
        near = space.from_screen(x + 0.5, y + 0.5)
        new_mark, old_mark = mark_at(now, *near), mark_at(before, *near)
        # where a model would point: the same image pixel in both, so the same screen pixel once mapped
        assert (int(new_mark[0]), int(new_mark[1])) == (int(old_mark[0]), int(old_mark[1])), (x, y)
        assert space.to_screen(int(new_mark[0]), int(new_mark[1])) == space.to_screen(int(old_mark[0]),
                                                                                      int(old_mark[1]))
        # and the mark is where it is on the screen, within half an image pixel
        sx, sy = space.to_screen(*new_mark)
        assert abs(sx - (x + 0.5)) <= half_pixel and abs(sy - (y + 0.5)) <= half_pixel, (x, y, sx, sy)


# --- the environment's own pixels: not decoded again, the same image sent --------------------------------

def kept(data: bytes, image: Image.Image | None = None) -> bytes:
    """A bytes object of its own equal to ``data``, whose pixels are kept as an environment keeps them."""
    own = bytes(bytearray(data))
    if image is None:
        image = Image.open(io.BytesIO(data))
        image.load()
    keep_decoded(own, image)
    return own


@pytest.fixture(autouse=True)
def _no_kept_pixels():
    DECODED.clear()
    yield
    DECODED.clear()


@pytest.mark.parametrize("vendor,size", [
    ("openai", (1280, 720)), ("openai", (1024, 576)), ("anthropic", (1280, 720)),
    ("openai-compatible", smart_resize(1080, 1920)[::-1]), (None, (1280, 720)), ("anthropic", (1920, 1080))],
    ids=["browser-1280", "openai-computer-1024", "claude-computer-1280", "vlm-smart-resize", "no-vendor",
         "not-scaled"])
def test_the_environments_pixels_give_the_image_decoding_gives(vendor, size, monkeypatch):
    data = marked_screen()
    limits_ = VENDOR_LIMITS[vendor] if vendor else None
    decoded_once = prepare_image(data, size=size, limits=limits_)
    own = kept(data)
    from pytest_cua.agents.models import images

    def no_decoding(_data: bytes) -> Image.Image:
        raise AssertionError("decoded although the environment kept the pixels")

    monkeypatch.setattr(images, "_decoded", no_decoding)
    sent = prepare_image(own, size=size, limits=limits_)
    assert sent == decoded_once  # byte for byte: the same coordinate space, the same pixels
    assert pixel_space(SCREEN, (sent.width, sent.height)) == pixel_space(SCREEN, (decoded_once.width,
                                                                                decoded_once.height))
    if size == SCREEN:
        assert sent.data is own  # an untouched screenshot still goes as it came


def test_the_kept_pixels_are_neither_closed_nor_changed():
    data = noise_png(400, 300)
    image = Image.open(io.BytesIO(data))
    image.load()
    before = image.tobytes()
    own = kept(data, image)
    first = prepare_image(own, size=(200, 150), limits=VENDOR_LIMITS["openai"])
    again = prepare_image(own, size=(300, 225), limits=VENDOR_LIMITS["anthropic"])
    assert image.tobytes() == before and decoded_pixels(own) is image
    assert first == prepare_image(data, size=(200, 150), limits=VENDOR_LIMITS["openai"])
    assert again == prepare_image(data, size=(300, 225), limits=VENDOR_LIMITS["anthropic"])


def test_only_the_very_bytes_object_takes_the_kept_pixels():
    data = noise_png(64, 48)
    own = kept(data, Image.new("RGB", (64, 48), "red"))  # not its pixels: shows which path was taken
    red = prepare_image(own, size=(32, 24))
    assert decoded(red).getpixel((5, 5)) == (255, 0, 0)
    assert prepare_image(data, size=(32, 24)) != red  # equal bytes in another object are decoded
    keep_decoded(own, Image.new("RGB", (10, 10), "red"))  # pixels of another size are not these bytes'
    assert prepare_image(own, size=(32, 24)) == prepare_image(data, size=(32, 24))


def test_the_kept_pixels_are_few():
    shots = [kept(noise_png(40, 30, seed=seed)) for seed in range(DECODED_KEPT + 1)]
    assert decoded_pixels(shots[0]) is None  # the oldest was let go
    assert all(decoded_pixels(shot) is not None for shot in shots[1:])


# --- a whole-number scale factor: Image.reduce, the same area average ------------------------------------

@pytest.mark.parametrize("factor,size", [(2, (1920, 1080)), (3, (1280, 720)), (2, (960, 540))])
def test_a_whole_number_factor_maps_marks_as_the_box_filter(factor, size):
    """A 2x or 3x screen (3840x2160 at 1280x720): ``reduce`` gives the box filter's image within one level,
    so every mark is on the same image pixel and maps to the same screen pixel."""
    screen = (size[0] * factor, size[1] * factor)
    with Image.open(io.BytesIO(marked_screen())) as base:
        big = base.resize(screen, Image.Resampling.NEAREST) if screen != SCREEN else base.copy()
    buffer = io.BytesIO()
    big.save(buffer, "PNG")
    sent = prepare_image(buffer.getvalue(), size=size, limits=limits(encode_as="image/png"))
    box = big.resize(size, Image.Resampling.BOX)
    now = decoded(sent).convert("RGB")
    assert now.size == box.size == size
    assert max(high for _, high in ImageChops.difference(now, box).getextrema()) <= 1
    space = pixel_space(screen, size)
    for x, y in MARKS:
        near = space.from_screen((x + 0.5) * screen[0] / SCREEN[0], (y + 0.5) * screen[1] / SCREEN[1])
        new_mark, box_mark = mark_at(now, *near), mark_at(box, *near)
        assert (int(new_mark[0]), int(new_mark[1])) == (int(box_mark[0]), int(box_mark[1])), (x, y)


def test_a_palette_image_at_a_whole_number_factor_is_still_scaled():
    image = Image.new("P", (400, 300))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    assert (prepare_image(buffer.getvalue(), size=(200, 150)).width, 150) == (200, 150)


# --- box scaling in bands of rows on several cores: the very pixels of one scaling ------------------------

SCREEN_NOISE = np.random.default_rng(3).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)


BAND_CASES = [("RGB", size, workers)  # 1080/512 = 135/128: three bands must start at multiples of 128 rows
              for size in [(1024, 576), (1280, 720), (1366, 768), (1280, 540), (960, 512)] for workers in (2, 3, 4)]
BAND_CASES += [("RGBA", (1024, 576), 2), ("L", (1280, 720), 3), ("RGBA", (960, 512), 3)]


@pytest.mark.parametrize("mode,size,workers", BAND_CASES)
def test_box_scaling_in_bands_gives_the_pixels_of_one_scaling(size, workers, mode, monkeypatch):
    from pytest_cua.agents.models import images

    screen = Image.fromarray(SCREEN_NOISE).convert(mode)  # noise: a band off by one source row would show
    bands = images.strip_rows(screen.size, size, workers)
    assert bands is not None and len(bands) >= 2 and bands[0][0] == 0 and bands[-1][1] == size[1]
    assert all(top < bottom for top, bottom in bands) and all(a[1] == b[0] for a, b in zip(bands, bands[1:]))
    monkeypatch.setattr(images, "_strip_workers", lambda: workers)
    assert images._box(screen, size).tobytes() == screen.resize(size, Image.Resampling.BOX).tobytes()


@pytest.mark.parametrize("screen,size,workers", [
    ((1920, 1080), (1451, 816), 2),  # 1080/816 is not exact in binary: a band's filter windows would move
    ((1920, 1080), (711, 400), 4),
    ((640, 480), (320, 200), 2),  # too small to be worth a thread
    ((1920, 1080), (1024, 576), 1),  # one core
], ids=["inexact-816", "inexact-400", "small", "one-core"])
def test_no_bands_where_they_would_change_the_pixels_or_save_nothing(screen, size, workers):
    from pytest_cua.agents.models import images

    assert images.strip_rows(screen, size, workers) is None


def test_prepare_image_of_a_screen_is_the_same_with_and_without_bands(monkeypatch):
    from pytest_cua.agents.models import images

    buffer = io.BytesIO()
    Image.fromarray(SCREEN_NOISE).save(buffer, "PNG", compress_level=1)
    data = buffer.getvalue()
    monkeypatch.setattr(images, "_strip_workers", lambda: 2)
    banded = prepare_image(data, size=(1024, 576), limits=VENDOR_LIMITS["openai"])
    monkeypatch.setattr(images, "_strip_workers", lambda: 1)
    assert prepare_image(data, size=(1024, 576), limits=VENDOR_LIMITS["openai"]) == banded


@pytest.mark.parametrize("cores,load,workers", [(2, 0.4, 2), (2, 1.8, 1), (2, 6.0, 1), (8, 3.0, 4), (1, 0.0, 1)])
def test_bands_only_while_a_core_is_free(cores, load, workers, monkeypatch):
    from pytest_cua.agents.models import images

    monkeypatch.setattr(images, "_cores", lambda: cores)
    monkeypatch.setattr(images.os, "getloadavg", lambda: (load, load, load))
    assert images._strip_workers() == workers


# --- the cache of prepared images ------------------------------------------------------------------------

def test_an_unchanged_screenshot_reuses_the_prepared_image():
    cache = ImageCache()
    data = noise_png(400, 300)
    first = prepare_image(data, size=(200, 150), limits=VENDOR_LIMITS["openai"], cache=cache)
    again = prepare_image(bytes(data), size=(200, 150), limits=VENDOR_LIMITS["openai"], cache=cache)  # equal bytes
    assert again is first and cache.hits == 1
    assert first.base64() is again.base64()  # the payload text is made once too


@pytest.mark.parametrize("change", ["pixels", "size", "limits", "many"])
def test_a_changed_screenshot_or_request_is_prepared_anew(change):
    cache = ImageCache()
    data, size, vendor_limits, many = noise_png(400, 300), (200, 150), VENDOR_LIMITS["anthropic"], False
    first = prepare_image(data, size=size, limits=vendor_limits, many=many, cache=cache)
    if change == "pixels":
        data = noise_png(400, 300, seed=1)
    elif change == "size":
        size = (100, 75)
    elif change == "limits":
        vendor_limits = VENDOR_LIMITS["openai"]
    else:
        many = True
    second = prepare_image(data, size=size, limits=vendor_limits, many=many, cache=cache)
    assert second is not first and cache.hits == 0
    assert second == prepare_image(data, size=size, limits=vendor_limits, many=many)


def test_the_cache_keeps_the_newest_few():
    cache = ImageCache(size=2)
    shots = [noise_png(40, 30, seed=seed) for seed in range(3)]
    for shot in shots:
        prepare_image(shot, size=(20, 15), cache=cache)
    prepare_image(shots[0], size=(20, 15), cache=cache)  # pushed out by the two after it
    assert cache.hits == 0
    prepare_image(shots[2], size=(20, 15), cache=cache)
    assert cache.hits == 1


# --- through a model agent: the cache per step, the trajectory's lossless screenshot -------------------------

@pytest.mark.usefixtures("keys")
def test_a_step_on_an_unchanged_screen_sends_the_same_image_and_the_trajectory_keeps_the_png(server, tmp_path):
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("computer", {"type": "wait"})]),
                                    FakeReply(calls=[FakeCall("computer", {"type": "wait"})]),
                                    FakeReply(text="done")])
    agent = AgentRegistry()
    spec = agent.resolve("computer-use-preview", {"model_settings": ModelSettings(
        base_url=server.openai_base_url, options={"retries": "1"})})
    agent.validate(spec)
    built = agent.create(spec)
    task = Task(id="create_lead_1", instruction="Create a lead", template="create_lead", suite="scuba")
    built.start(task, AgentContext(observation_kinds=built.observation_kinds, options={"environment": "browser"}))
    shot = marked_screen()
    recorder = TrajectoryRecorder(tmp_path)
    for index, screen in enumerate([shot, bytes(shot), noise_png(1920, 1080)]):
        observation = Observation(step=index, screenshot=screen, url="https://org.test/", title="t")
        turn = built.step(observation)
        recorder.record_step(StepRecord.of_turn(turn, index=index, observation=observation, results=[]))
    assert not server.violations
    assert built.style.image_cache.hits == 1  # the second step's screen was the first's
    first, second, third = (request.last_image for request in server.requests)
    assert first == second != third
    assert [request.image_size() for request in server.requests] == [(1024, 576)] * 3
    for index, screen in enumerate([shot, shot, noise_png(1920, 1080)]):
        saved = tmp_path / f"step_{index:03d}.png"
        assert saved.read_bytes() == screen  # the environment's screenshot as it came
        with Image.open(saved) as image:
            assert image.format == "PNG" and image.size == SCREEN
        sent = tmp_path / f"step_{index:03d}_model.jpg"  # what the model was sent, beside it
        with Image.open(sent) as image:
            assert image.format == "JPEG" and image.size == (1024, 576)
