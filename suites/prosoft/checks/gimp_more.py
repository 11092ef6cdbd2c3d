"""More GIMP evaluators next to ``gimp.py``'s ``gimp_image``: the exported picture against the start picture put
through operations ``imaging_common`` does not model (GIMP 2.10's Desaturate, Brightness-Contrast, Canvas Size,
Unsharp Mask), recomputed here the way GIMP computes them.

Kind ``gimp_adjusted``: the keys of ``gimp_image`` (``artifact``, ``format``, ``size``, ``gray``,
``blurrier_than`` / ``sharper_than``) plus ``source`` + ``ops`` + ``tolerance``, where ``ops`` may also hold:

- ``["desaturate"]``: Colors > Desaturate > Desaturate, mode Luminance (linear-light luminance, kept as RGB)
- ``["brightness", b]``: Colors > Brightness-Contrast with brightness ``b`` (-127..127) and contrast 0: in
  perceptual values v, ``v + (1 - v) * b / 254`` for b >= 0, ``v * (1 + b / 254)`` below
- ``["posterize", n]``: Colors > Posterize to n levels per channel (perceptual values rounded to n steps)
- ``["canvas", w, h, x, y]``: Image > Canvas Size to w x h with the picture at offset (x, y); the new area is
  transparent (white once flattened)
- ``["unsharp"]``: Filters > Enhance > Unsharp Mask with its defaults (radius 3, amount 0.5): sharper, not
  modelled pixel for pixel; use it with ``sharper_than`` and a tolerance that allows the sharpening

and every operation of ``imaging_common.transform`` (flip_h, flip_v, rotate, scale, crop, gray, invert, blur).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .imaging_common import (Check, expected_image, gimp_gray, picture_checks, transform)

OWN_OPS = ("desaturate", "brightness", "posterize", "canvas", "unsharp")


def transform_more(image: Any, ops: Sequence[Sequence[Any]]) -> Any:
    """``image`` put through ``ops`` (this module's and ``imaging_common``'s)."""
    from PIL import Image

    for op in ops:
        name, args = op[0], list(op[1:])
        if name == "desaturate":
            image = gimp_gray(image).convert("RGB")
        elif name == "brightness":
            b = float(args[0]) / 254.0
            lut = [max(0, min(255, round(255 * ((v / 255) + (1 - v / 255) * b if b >= 0 else (v / 255) * (1 + b)))))
                   for v in range(256)]
            image = image.convert("RGB").point(lut * 3)
        elif name == "posterize":
            n = int(args[0]) - 1
            image = image.convert("RGB").point([round(round(v / 255 * n) / n * 255) for v in range(256)] * 3)
        elif name == "canvas":
            w, h, x, y = (int(a) for a in args)
            canvas = Image.new("RGB", (w, h), (255, 255, 255))
            canvas.paste(image.convert("RGB"), (x, y))
            image = canvas
        elif name == "unsharp":
            continue
        else:
            image = transform(image, [op])
    return image


def gimp_adjusted_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    for key in ("blurrier_than", "sharper_than"):
        own = [op[0] for op in (truth.get(key) or {}).get("ops") or [] if op[0] in OWN_OPS]
        if own:
            raise ValueError(f"gimp_adjusted ground truth: {key} ops {own} are not modelled for the reference "
                             f"picture (use imaging_common's, e.g. gray for desaturate)")
    return picture_checks(ctx, truth, "gimp_adjusted",
                          lambda source, ops: transform_more(expected_image(source, []), ops), 4)


KINDS = {"gimp_adjusted": gimp_adjusted_checks}
