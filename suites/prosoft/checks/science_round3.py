"""ImageJ evaluators for the third group of natural-science tasks: pictures put through filters neither
``imaging_common`` nor ``imagej_more`` models, recomputed the way ImageJ 1.53 computes them. (The QGIS tasks of
the group reuse ``qgis_more``'s ``gis_layer``.)

Kind and its ground truth:

- ``imagej_filtered``: the keys of ``imagej_processed`` (``artifact``, ``format``, ``size``, ``mode``, ``source``,
  ``ops``, ``tolerance``: mean absolute difference per value, default 1), where ``ops`` may also hold:

  - ``["smooth"]``: Process > Smooth (3x3 mean, ``(sum + 4) / 9``, edges padded with the nearest pixel)
  - ``["sharpen"]``: Process > Sharpen (the 3x3 kernel -1 ... 12 ... -1 divided by its weight 4, clipped)
  - ``["maximum", r]`` / ``["minimum", r]``: Process > Filters > Maximum / Minimum (RankFilters' circular
    kernel of radius r, as Median's)
  - ``["ij8bit"]``: Image > Type > 8-bit of a 16-bit picture as ImageJ rounds it (min..max onto 0..255,
    ``(int) ((v - min) * 256 / (max - min + 1) + 0.5)``; ``imaging_common``'s ``to8bit`` truncates, which a
    later 3x3 filter shows as half a value per pixel)
  - ``["shrink", f]``: Image > Scale by the integer factor 1/f with 'Average when downsizing' (each f x f block
    averaged)

  Every operation of ``imagej_more`` (median, edges, subtract, add, zproject first) and of
  ``imaging_common.transform`` (flip, rotate, crop, invert, blur, to8bit, ...) comes before, after or between.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .imagej_more import _array, _image, find_edges, kernel_offsets, median, processed
from .imaging_common import Check, expected_image, picture_checks, transform

NEW_OPS = ("ij8bit", "smooth", "sharpen", "maximum", "minimum", "shrink")


def _neighbours(image: Any, offsets: Sequence[tuple[int, int]]) -> Any:
    """The picture's values shifted by each (dy, dx) of ``offsets``, edges padded with the nearest pixel."""
    import numpy as np

    a = _array(image.convert("L"))
    k = max(max(abs(dy), abs(dx)) for dy, dx in offsets)
    padded = np.pad(a, k, mode="edge")
    h, w = a.shape
    return np.stack([padded[k + dy:k + dy + h, k + dx:k + dx + w] for dy, dx in offsets])


SQUARE = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


def smooth(image: Any) -> Any:
    return _image((_neighbours(image, SQUARE).sum(axis=0) + 4) // 9)


def sharpen(image: Any) -> Any:
    import numpy as np

    values = _neighbours(image, SQUARE)
    total = 13 * values[4] - values.sum(axis=0)  # 12 x the centre minus its 8 neighbours
    return _image(np.trunc((total + 2) / 4))


def rank(image: Any, radius: float, how: str) -> Any:
    values = _neighbours(image, kernel_offsets(radius))
    return _image(values.max(axis=0) if how == "maximum" else values.min(axis=0))


def shrink(image: Any, factor: int) -> Any:
    a = _array(image.convert("L"))
    h, w = a.shape[0] // factor * factor, a.shape[1] // factor * factor
    blocks = a[:h, :w].reshape(h // factor, factor, w // factor, factor)
    return _image((blocks.sum(axis=(1, 3)) + factor * factor // 2) // (factor * factor))


def ij_8bit(image: Any) -> Any:
    import numpy as np

    a = _array(image)
    low, high = int(a.min()), int(a.max())
    return _image(np.floor((a - low) * (256.0 / (high - low + 1)) + 0.5))


def apply(image: Any, op: Sequence[Any]) -> Any:
    """One operation on a picture (this module's, imagej_more's but zproject, or imaging_common's)."""
    import numpy as np

    name, args = op[0], list(op[1:])
    if name == "ij8bit":
        return ij_8bit(image)
    if name == "smooth":
        return smooth(image)
    if name == "sharpen":
        return sharpen(image)
    if name in ("maximum", "minimum"):
        return rank(image, float(args[0]), name)
    if name == "shrink":
        return shrink(image, int(args[0]))
    if name == "median":
        return median(image, float(args[0]))
    if name == "edges":
        return find_edges(image)
    if name in ("subtract", "add"):
        return _image(np.rint(_array(image.convert("L")) + float(args[0]) * (-1 if name == "subtract" else 1)))
    if name == "zproject":
        raise ValueError("imagej ops: zproject must come first")
    return transform(image, [op])


def filtered(source: str, ops: Sequence[Sequence[Any]]) -> Any:
    """The start file ``source`` put through ``ops``: the leading run imagej_more knows there, the rest here."""
    ops = list(ops)
    lead = next((i for i, op in enumerate(ops) if op[0] in NEW_OPS), len(ops))
    image = processed(source, ops[:lead]) if lead else expected_image(source, [])
    for op in ops[lead:]:
        image = apply(image, op)
    return image


def filtered_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    if "source" not in truth:
        raise ValueError(f"imagej_filtered ground truth for {truth.get('artifact', 'image')!r} names no source")
    return picture_checks(ctx, truth, "imagej_filtered", filtered, 1)


KINDS = {"imagej_filtered": filtered_checks}
