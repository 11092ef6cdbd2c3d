"""What the GIMP and ImageJ checks share: finding an artifact, recomputing the expected picture from a start file
with Pillow, and comparing pictures by numbers (size, mode, mean difference, sharpness).

An expected picture is the start file (``source``, relative to ``fixtures/prosoft``) put through ``ops``, a list of
``[name, *arguments]`` applied in order:

- ``flip_h`` / ``flip_v``; ``rotate`` deg (clockwise: 90, 180, 270); ``scale`` w h (bicubic); ``crop`` l t r b
- ``gray``: luminance as GIMP 2.10 computes it (Rec. 709 weights in linear light, back to sRGB)
- ``invert``: 255 - value; ``blur`` sigma (Gaussian); ``to8bit``: 16-bit to 8-bit over the image's min..max
  (ImageJ's "Scale when converting")

Comparisons are done in the expected picture's mode ("L" or "RGB"); the tolerance is a mean absolute difference
per channel value (0..255), so an edge that a program anti-aliases differently does not fail a task, while a
flip, a wrong size or the untouched start file does.

This module has no ``KINDS``: it only serves ``gimp.py`` and ``imagej.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pytest_cua import fixtures_dir

from ..artifacts import Check, artifact, load  # noqa: F401 - the imaging checks import them from here
FIXTURES = fixtures_dir("prosoft")
FORMATS = {"png": "PNG", "jpeg": "JPEG", "jpg": "JPEG", "tif": "TIFF", "tiff": "TIFF"}


def open_image(path: Path) -> Any:
    """The picture at ``path`` fully loaded, or an AssertionError naming the file when it is not a picture."""
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(path)
        image.load()
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise AssertionError(f"{path.name}: not a readable picture ({exc})") from None
    return image


def _srgb_to_linear(v: float) -> float:
    v /= 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _linear_to_srgb(v: float) -> int:
    v = 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    return max(0, min(255, round(v * 255)))


_LINEAR = [_srgb_to_linear(v) for v in range(256)]


def pixels(image: Any) -> list[Any]:
    """Every pixel value, row by row (``get_flattened_data`` where Pillow has it: ``getdata`` is deprecated)."""
    flat = getattr(image, "get_flattened_data", None)
    return list(flat() if flat is not None else image.getdata())


def gimp_gray(image: Any) -> Any:
    """The "L" picture GIMP 2.10's Image > Mode > Grayscale makes of an 8-bit sRGB picture."""
    from PIL import Image

    rgb = image.convert("RGB")
    cache: dict[tuple[int, int, int], int] = {}
    out = []
    for r, g, b in pixels(rgb):
        key = (r, g, b)
        if key not in cache:
            cache[key] = _linear_to_srgb(0.2126 * _LINEAR[r] + 0.7152 * _LINEAR[g] + 0.0722 * _LINEAR[b])
        out.append(cache[key])
    gray = Image.new("L", rgb.size)
    gray.putdata(out)
    return gray


def to_8bit(image: Any) -> Any:
    """ImageJ's Image > Type > 8-bit of a 16-bit picture: min..max of the data mapped linearly onto 0..255."""
    from PIL import Image

    values = pixels(image)
    low, high = min(values), max(values)
    scale = 256.0 / (high - low + 1)
    out = Image.new("L", image.size)
    out.putdata([max(0, min(255, int((v - low) * scale))) for v in values])
    return out


def transform(image: Any, ops: Sequence[Sequence[Any]]) -> Any:
    """``image`` put through ``ops`` (see the module docstring)."""
    from PIL import Image, ImageFilter, ImageOps

    for op in ops:
        name, args = op[0], list(op[1:])
        if name == "flip_h":
            image = ImageOps.mirror(image)
        elif name == "flip_v":
            image = ImageOps.flip(image)
        elif name == "rotate":
            image = image.rotate(-int(args[0]), expand=True)
        elif name == "scale":
            image = image.resize((int(args[0]), int(args[1])), Image.Resampling.BICUBIC)
        elif name == "crop":
            image = image.crop(tuple(int(a) for a in args))
        elif name == "gray":
            image = gimp_gray(image)
        elif name == "invert":
            image = ImageOps.invert(image.convert("RGB") if image.mode not in ("L", "RGB") else image)
        elif name == "blur":
            image = image.filter(ImageFilter.GaussianBlur(float(args[0])))
        elif name == "to8bit":
            image = to_8bit(image)
        else:
            raise ValueError(f"imaging ops: unknown operation {name!r} (known: flip_h, flip_v, rotate, scale, crop, "
                             f"gray, invert, blur, to8bit)")
    return image


def expected_image(source: str, ops: Sequence[Sequence[Any]]) -> Any:
    """The start file ``source`` (relative to fixtures/prosoft) put through ``ops``."""
    path = FIXTURES / source
    if not path.is_file():
        raise ValueError(f"imaging ground truth: source {source!r} is not a start file ({path} not found)")
    image = open_image(path)
    if image.mode not in ("L", "RGB", "I;16", "I"):
        image = image.convert("RGB")
    return transform(image, ops)


def as_mode(image: Any, mode: str) -> Any:
    """``image`` in ``mode`` ("L" or "RGB"), flattened onto white when it has an alpha channel."""
    from PIL import Image

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, rgba)
    if image.mode in ("I;16", "I;16B", "I"):
        image = to_8bit(image)
    return image.convert(mode)


def mean_difference(actual: Any, expected: Any) -> float:
    """Mean absolute difference per channel value of two pictures of one size and mode."""
    from PIL import ImageChops, ImageStat

    diff = ImageChops.difference(actual, expected)
    return sum(ImageStat.Stat(diff).mean) / len(diff.getbands())


def sharpness(image: Any) -> float:
    """Mean edge strength (Pillow's FIND_EDGES over the luminance): a blurred picture has much less."""
    from PIL import ImageFilter, ImageStat

    gray = image.convert("L")
    return ImageStat.Stat(gray.filter(ImageFilter.FIND_EDGES).crop((1, 1, gray.width - 1, gray.height - 1))).mean[0]


def is_gray(image: Any, tolerance: int = 2) -> bool:
    """One channel, or three channels that agree everywhere (within ``tolerance``)."""
    from PIL import ImageChops

    if image.mode in ("L", "LA", "1", "I", "I;16", "F"):
        return True
    r, g, b = image.convert("RGB").split()
    spreads = [ImageChops.difference(x, y).getextrema() for x, y in ((r, g), (g, b))]
    return all(isinstance(high, (int, float)) and high <= tolerance for _, high in spreads)


def image_checks(ctx: Any, truth: Mapping[str, Any], program: str) -> list[Check]:
    """Milestones for a picture a program saved. Ground-truth keys: ``artifact`` (default "image"); ``format``
    ("PNG", "JPEG", "TIFF"); ``size`` [w, h]; ``source`` + ``ops`` + ``tolerance`` (content compared with the
    recomputed picture); ``gray`` true (every pixel neutral); ``sharper_than`` / ``blurrier_than`` {"source",
    "ops", "factor"} (edge strength compared with a reference picture)."""
    name = truth.get("artifact", "image")
    checks: list[Check] = []

    def load_image() -> Any:
        return open_image(artifact(ctx, name, "image"))

    if "format" in truth:
        want = FORMATS.get(str(truth["format"]).lower(), str(truth["format"]).upper())

        def check_format() -> None:
            image = load_image()
            assert image.format == want, f"{name}: saved as {image.format}, expected {want}"
        checks.append((f"{name} is a {want} file", check_format))
    if "size" in truth:
        w, h = (int(v) for v in truth["size"])

        def check_size() -> None:
            image = load_image()
            assert image.size == (w, h), f"{name}: {image.width}x{image.height} px, expected {w}x{h}"
        checks.append((f"{name} is {w}x{h} px", check_size))
    if "mode" in truth:
        modes = {"L": ("L", "P"), "RGB": ("RGB", "RGBA", "P"), "I;16": ("I;16", "I;16B", "I")}.get(
            str(truth["mode"]), (str(truth["mode"]),))

        def check_mode() -> None:
            image = load_image()
            ok = image.mode in modes and (image.mode != "P" or truth["mode"] != "L" or is_gray(image.convert("RGB")))
            assert ok, f"{name}: pixel mode {image.mode}, expected {truth['mode']}"
        bits = {"L": "8-bit grayscale", "RGB": "RGB colour", "I;16": "16-bit grayscale"}.get(str(truth["mode"]),
                                                                                        str(truth["mode"]))
        checks.append((f"{name} is {bits}", check_mode))
    if truth.get("gray"):
        def check_gray() -> None:
            assert is_gray(load_image()), f"{name}: has colour ({load_image().mode}), expected grayscale"
        checks.append((f"{name} is grayscale", check_gray))
    if "source" in truth:
        ops = truth.get("ops") or []
        tolerance = float(truth.get("tolerance", 6))
        described = ", ".join(" ".join(str(a) for a in op) for op in ops) or "unchanged"

        def check_content() -> None:
            expected = expected_image(truth["source"], ops)
            image = load_image()
            assert image.size == expected.size, (
                f"{name}: {image.width}x{image.height} px, cannot match {truth['source']} after {described} "
                f"({expected.width}x{expected.height})")
            diff = mean_difference(as_mode(image, expected.mode), expected)
            assert diff <= tolerance, (
                f"{name}: differs from {truth['source']} after {described} by {diff:.1f} per value on average "
                f"(at most {tolerance} allowed)")
        checks.append((f"{name} shows {truth['source']} after {described}", check_content))
    for key, sign in (("blurrier_than", -1), ("sharper_than", 1)):
        if key in truth:
            spec = truth[key]

            def check_sharpness(spec: Mapping[str, Any] = spec, sign: int = sign, key: str = key) -> None:
                reference = sharpness(expected_image(spec["source"], spec.get("ops") or []))
                value = sharpness(load_image())
                factor = float(spec.get("factor", 1.5))
                ok = value * factor <= reference if sign < 0 else value >= reference * factor
                assert ok, (f"{name}: edge strength {value:.2f} vs {reference:.2f} of {spec['source']}: expected "
                            f"{'at most 1/' if sign < 0 else 'at least '}{factor:g} times that ({key})")
            word = "blurred" if sign < 0 else "sharpened"
            checks.append((f"{name} is {word}", check_sharpness))
    if not checks:
        raise ValueError(f"{program} ground truth for {name!r} asks for no checks (format, size, gray, source, "
                         f"blurrier_than)")
    return checks


def picture_checks(ctx: Any, truth: Mapping[str, Any], kind: str, expected_of: Callable[[str, list[Any]], Any],
                   default_tolerance: float) -> list[Check]:
    """The checks of a kind that compares a saved picture with its start picture after ``ops``: the size and
    property checks of :func:`image_checks` (any key besides ``source``, ``ops`` and ``tolerance``), then, with
    ``source``, the content against ``expected_of(source, ops)`` within ``tolerance`` per value on average."""
    name = truth.get("artifact", "image")
    base = {k: v for k, v in truth.items() if k not in ("source", "ops", "tolerance")}
    checks = image_checks(ctx, base, kind) if set(base) - {"artifact"} else []
    if "source" in truth:
        ops = list(truth.get("ops") or [])
        tolerance = float(truth.get("tolerance", default_tolerance))
        described = ", ".join(" ".join(str(a) for a in op) for op in ops) or "unchanged"

        def check_content() -> None:
            expected = expected_of(truth["source"], ops)
            image = open_image(artifact(ctx, name, "image"))
            assert image.size == expected.size, (
                f"{name}: {image.width}x{image.height} px, cannot match {truth['source']} after {described} "
                f"({expected.width}x{expected.height})")
            diff = mean_difference(as_mode(image, expected.mode), expected)
            assert diff <= tolerance, (f"{name}: differs from {truth['source']} after {described} by {diff:.2f} per "
                                       f"value on average (at most {tolerance} allowed)")
        checks.append((f"{name} shows {truth['source']} after {described}", check_content))
    if not checks:
        raise ValueError(f"{kind} ground truth for {name!r} asks for no checks")
    return checks
