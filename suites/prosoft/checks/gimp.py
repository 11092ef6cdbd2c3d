"""GIMP checks: the picture GIMP exported, and (for GIMP -> Writer pipelines) the picture a .docx embeds.

Kinds:

- ``gimp_image``: see :func:`imaging_common.image_checks` (format, size, grayscale, content against the start
  picture put through the expected operations, blurred).
- ``docx_image``: ``artifact`` (a .docx, default "document"); ``size`` [w, h] of the embedded picture in pixels;
  ``source`` + ``ops`` + ``tolerance`` as for ``gimp_image``. Passes when some picture in ``word/media/`` has
  that size and content, so the check does not depend on where in the text the picture was anchored.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any, Mapping

from .imaging_common import Check, artifact, as_mode, expected_image, image_checks, mean_difference


def gimp_image_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    return image_checks(ctx, truth, "gimp_image")


def _docx_pictures(ctx: Any, name: str) -> list[tuple[str, Any]]:
    from PIL import Image, UnidentifiedImageError

    path = artifact(ctx, name, "docx")
    try:
        with zipfile.ZipFile(path) as z:
            media = {n: z.read(n) for n in sorted(z.namelist()) if n.startswith("word/media/")}
    except zipfile.BadZipFile:
        raise AssertionError(f"{name}: {path.name} is not a .docx (zip) file") from None
    out = []
    for member, data in media.items():
        try:
            image = Image.open(io.BytesIO(data))
            image.load()
        except (UnidentifiedImageError, OSError):
            continue  # e.g. a vector preview: not the picture asked for
        out.append((member, image))
    return out


def docx_image_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    checks: list[Check] = []

    def check_present() -> None:
        assert _docx_pictures(ctx, name), f"{name}: the document embeds no picture (word/media/ is empty)"
    checks.append((f"{name} embeds a picture", check_present))
    if "size" in truth or "source" in truth:
        size = tuple(int(v) for v in truth["size"]) if "size" in truth else None
        ops = truth.get("ops") or []
        tolerance = float(truth.get("tolerance", 8))

        def check_picture() -> None:
            pictures = _docx_pictures(ctx, name)
            assert pictures, f"{name}: the document embeds no picture"
            found = []
            for member, image in pictures:
                found.append(f"{member} {image.width}x{image.height}")
                if size is not None and image.size != size:
                    continue
                if "source" in truth:
                    expected = expected_image(truth["source"], ops)
                    if image.size != expected.size:
                        continue
                    diff = mean_difference(as_mode(image, expected.mode), expected)
                    found[-1] += f" (differs by {diff:.1f})"
                    if diff > tolerance:
                        continue
                return
            want = f"{size[0]}x{size[1]} px" if size else "the expected size"
            raise AssertionError(f"{name}: no embedded picture of {want} showing {truth.get('source', 'it')}; "
                                 f"found: {', '.join(found)}")
        label = f"{name} embeds the {size[0]}x{size[1]} picture" if size else f"{name} embeds the picture"
        checks.append((label, check_picture))
    return checks


KINDS = {"gimp_image": gimp_image_checks, "docx_image": docx_image_checks}
