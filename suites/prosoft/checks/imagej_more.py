"""More ImageJ evaluators next to ``imagej.py``: pictures put through operations ``imaging_common`` does not
model, recomputed here the way ImageJ 1.53 computes them, binary masks, and the spatial calibration ImageJ
writes into a TIFF.

Kinds and their ground truth:

- ``imagej_processed``: the keys of ``imagej_image`` (``artifact``, ``format``, ``size``, ``mode``,
  ``blurrier_than`` / ``sharper_than``) plus ``source`` + ``ops`` + ``tolerance`` (mean absolute difference per
  value, default 1), where ``ops`` may also hold:

  - ``["median", r]``: Process > Filters > Median, radius r (ImageJ's circular kernel, edges padded with the
    nearest pixel)
  - ``["edges"]``: Process > Find Edges (3x3 Sobel, ``(int) sqrt(gx² + gy²)`` clipped at 255, edges padded)
  - ``["subtract", n]`` / ``["add", n]``: Process > Math (clipped to 0..255)
  - ``["zproject", "max" | "min" | "mean" | "sum"]``: Image > Stacks > Z Project over every slice of the
    (multi-page TIFF) source; as the first operation
  - every operation of ``imaging_common.transform`` (flip, rotate, crop, invert, blur, ...)

- ``imagej_mask``: a binary picture of the objects of ``source`` (Process > Binary > Convert to Mask or a
  threshold): ``artifact``, ``format``, ``source``, ``ops`` (applied to the source first, e.g. a Z projection),
  ``between`` [low, high] (the objects are the pixels above any threshold in that range: the background's
  highest value and the objects' lowest), ``tolerance`` (the share of pixels that may disagree, default 0.002).
  The picture must hold two values only; either polarity passes (ImageJ's inverted LUT or a black background).
- ``imagej_calibration``: a TIFF ImageJ saved after Analyze > Set Scale: ``artifact``, ``unit`` ("micron": µm,
  um and micron are the same unit), ``pixel_width`` (units per pixel, from the TIFF's XResolution, within
  ``rel`` default 0.001), ``source`` (the pixels must be the start file's, unchanged).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from .imaging_common import (FIXTURES, Check, artifact, as_mode, expected_image, image_checks, load,
                             mean_difference, open_image, picture_checks, transform)

OWN_OPS = ("median", "edges", "subtract", "add", "zproject")
UNITS = {"micron": "micron", "um": "micron", "µm": "micron", "\u03bcm": "micron", "\\u00B5m": "micron",
         "mm": "mm", "cm": "cm", "nm": "nm", "pixel": "pixel", "pixels": "pixel", "inch": "inch"}


def _array(image: Any) -> Any:
    import numpy as np

    return np.asarray(image, dtype=np.int64)


def _image(values: Any) -> Any:
    import numpy as np
    from PIL import Image

    return Image.fromarray(np.clip(values, 0, 255).astype(np.uint8), "L")


def kernel_offsets(radius: float) -> list[tuple[int, int]]:
    """The (dy, dx) of ImageJ's RankFilters circular kernel of ``radius`` (RankFilters.makeLineRadii)."""
    if 1.5 <= radius < 1.75:
        radius = 1.75
    elif 2.5 <= radius < 2.85:
        radius = 2.85
    r2 = int(radius * radius) + 1
    k = int(math.sqrt(r2 + 1e-10))
    out = []
    for dy in range(-k, k + 1):
        dx = int(math.sqrt(r2 - dy * dy + 1e-10))
        out += [(dy, x) for x in range(-dx, dx + 1)]
    return out


def median(image: Any, radius: float) -> Any:
    import numpy as np

    a = _array(image.convert("L"))
    offsets = kernel_offsets(radius)
    k = max(abs(dy) for dy, _ in offsets)
    padded = np.pad(a, k, mode="edge")
    h, w = a.shape
    stack = np.stack([padded[k + dy:k + dy + h, k + dx:k + dx + w] for dy, dx in offsets])
    return _image(np.rint(np.median(stack, axis=0)))


def find_edges(image: Any) -> Any:
    import numpy as np

    a = _array(image.convert("L"))
    p = np.pad(a, 1, mode="edge")
    h, w = a.shape

    def at(dy: int, dx: int) -> Any:
        return p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]

    p1, p2, p3, p4, p6, p7, p8, p9 = (at(-1, -1), at(-1, 0), at(-1, 1), at(0, -1), at(0, 1), at(1, -1), at(1, 0),
                                      at(1, 1))
    gx = p1 + 2 * p2 + p3 - p7 - 2 * p8 - p9
    gy = p1 + 2 * p4 + p7 - p3 - 2 * p6 - p9
    return _image(np.floor(np.sqrt(gx * gx + gy * gy)))


def frames(source: str) -> list[Any]:
    """Every page of a multi-page TIFF start file, as 8-bit pictures."""
    from PIL import ImageSequence

    path = FIXTURES / source
    if not path.is_file():
        raise ValueError(f"imagej ground truth: source {source!r} is not a start file ({path} not found)")
    with open_image(path) as image:
        return [page.convert("L").copy() for page in ImageSequence.Iterator(image)]


def z_project(source: str, how: str) -> Any:
    import numpy as np

    stack = np.stack([_array(f) for f in frames(source)])
    if how == "max":
        return _image(stack.max(axis=0))
    if how == "min":
        return _image(stack.min(axis=0))
    if how in ("mean", "sum"):  # ImageJ's average and sum projections are 32-bit: compared as 8-bit values
        values = stack.mean(axis=0) if how == "mean" else stack.sum(axis=0)
        return _image(np.rint(values))
    raise ValueError(f"imagej ops: zproject {how!r} (max, min, mean, sum)")


def processed(source: str, ops: Sequence[Sequence[Any]]) -> Any:
    """The start file ``source`` put through ``ops`` (this module's and ``imaging_common``'s)."""
    import numpy as np

    ops = list(ops)
    if ops and ops[0][0] == "zproject":
        image, ops = z_project(source, str(ops[0][1])), ops[1:]
    else:
        image = expected_image(source, [])
    for op in ops:
        name, args = op[0], list(op[1:])
        if name == "median":
            image = median(image, float(args[0]))
        elif name == "edges":
            image = find_edges(image)
        elif name in ("subtract", "add"):
            step = float(args[0]) * (-1 if name == "subtract" else 1)
            image = _image(np.rint(_array(image.convert("L")) + step))
        elif name == "zproject":
            raise ValueError("imagej ops: zproject must come first")
        else:
            image = transform(image, [op])
    return image


def processed_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    return picture_checks(ctx, truth, "imagej_processed", processed, 1)


def mask_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    import numpy as np

    name = truth.get("artifact", "image")
    checks = image_checks(ctx, {"artifact": name, "format": truth["format"]}, "imagej_mask") if "format" in truth else []

    def values() -> Any:
        return _array(as_mode(open_image(artifact(ctx, name, "image")), "L"))

    def check_binary() -> None:
        found = np.unique(values())
        assert len(found) == 2, (f"{name}: {len(found)} grey value(s) ({', '.join(str(v) for v in found[:6])}"
                                 f"{', ...' if len(found) > 6 else ''}), a binary mask has 2")
    checks.append((f"{name} is a binary mask", check_binary))
    if "source" in truth:
        low, high = (float(v) for v in truth["between"])
        share = float(truth.get("tolerance", 0.002))

        def check_objects() -> None:
            reference = _array(processed(truth["source"], truth.get("ops") or []))
            objects = reference > (low + high) / 2
            got = values()
            assert got.shape == objects.shape, (
                f"{name}: {got.shape[1]}x{got.shape[0]} px, the objects of {truth['source']} are "
                f"{objects.shape[1]}x{objects.shape[0]}")
            foreground = got == got.max()
            wrong = min(np.mean(foreground != objects), np.mean(foreground == objects))  # either polarity
            assert wrong <= share, (f"{name}: {wrong:.1%} of the pixels disagree with the objects of "
                                    f"{truth['source']} (at most {share:.1%})")
        checks.append((f"{name} separates the objects of {truth['source']}", check_objects))
    return checks


def tiff_calibration(path: Any) -> tuple[str, float, float]:
    """(unit, pixel width, pixel height) of a TIFF ImageJ saved: the unit from its ImageDescription
    (``unit=``), the pixel sizes from XResolution / YResolution (pixels per unit)."""
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "TIFF", f"{path.name}: a {image.format} file, not a TIFF"
        tags = image.tag_v2  # type: ignore[attr-defined]
        description = str(tags.get(270, ""))
        fields = dict(line.split("=", 1) for line in description.splitlines() if "=" in line)
        x, y = tags.get(282), tags.get(283)
    unit = fields.get("unit", "pixel" if not x else "")
    width = 1 / float(x) if x else 1.0
    height = 1 / float(y) if y else width
    return unit, width, height


def calibration_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "image")
    checks: list[Check] = []

    def calibration() -> tuple[str, float, float]:
        return load(ctx, name, "image", tiff_calibration)

    if "unit" in truth:
        want = UNITS.get(str(truth["unit"]), str(truth["unit"]))

        def check_unit() -> None:
            unit = calibration()[0]
            assert UNITS.get(unit, unit) == want, f"{name}: the unit is {unit or 'not set'!r}, expected {want}"
        checks.append((f"{name} calibrated in {want}", check_unit))
    if "pixel_width" in truth:
        want_w = float(truth["pixel_width"])
        rel = float(truth.get("rel", 0.001))

        def check_width() -> None:
            _, w, h = calibration()
            assert math.isclose(w, want_w, rel_tol=rel) and math.isclose(h, want_w, rel_tol=rel), (
                f"{name}: pixels are {w:g} x {h:g} units, expected {want_w:g}")
        checks.append((f"{name} pixel size {want_w:g}", check_width))
    if "source" in truth:
        def check_pixels() -> None:
            expected = expected_image(truth["source"], [])
            image = open_image(artifact(ctx, name, "image"))
            assert image.size == expected.size and mean_difference(as_mode(image, "L"), expected.convert("L")) == 0, (
                f"{name}: its pixels are not those of {truth['source']} (the calibration should leave them alone)")
        checks.append((f"{name} keeps the pixels of {truth['source']}", check_pixels))
    if not checks:
        raise ValueError(f"imagej_calibration ground truth for {name!r} asks for no checks (unit, pixel_width, "
                         f"source)")
    return checks


KINDS = {"imagej_processed": processed_checks, "imagej_mask": mask_checks, "imagej_calibration": calibration_checks}
