"""The screenshot pipeline: target sizes, vendor limits, whole-request fitting."""

from __future__ import annotations

import base64
import hashlib
import io
import random

import pytest
from PIL import Image

from pytest_cua.agents.models.coords import fit_within, pixel_space, smart_resize
from pytest_cua.agents.models.images import (VENDOR_LIMITS, ImageError, ImageLimits, PreparedImage,
                                             base64_length, fit_request, image_size, prepare_image)

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


def limits(**overrides: int | None) -> ImageLimits:
    values: dict[str, int | None] = dict(max_bytes=10**9, max_side=UNLIMITED_SIDE, max_side_many=None,
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
