"""Set-of-marks for the browser: the drawing is shared with the desktop and lives in ``pytest_cua.envs.marks``;
this name stays importable for the browser's callers.

``draw_marks_kept`` is what the browser's observation calls: the same image, byte for byte, as ``draw_marks``
(tests/browser/test_marks_pixels.py checks it), and the pixels it had in hand are kept for the model agent
(``pytest_cua.observations.keep_decoded``): the marked image it just encoded, and, when the plain screenshot is
observed too, the screenshot it decoded to draw on. A model style preparing the image it sends then scales
those pixels instead of decoding the PNG again (10-13 ms of a 1920x1080 screenshot at load 3-5), and the
trajectory still writes the PNG bytes as they are.
"""

from __future__ import annotations

from typing import Mapping

from pytest_cua.envs.marks import draw_marks, encode_png, mark_image
from pytest_cua.observations import Element, decode_screenshot, keep_decoded

__all__ = ["draw_marks", "draw_marks_kept", "mark_image"]


def draw_marks_kept(png: bytes, elements: Mapping[str, Element], *, keep_screenshot: bool = False) -> bytes:
    """``draw_marks(png, elements)``, keeping the marked pixels for the bytes returned and, with
    ``keep_screenshot``, the decoded screenshot for ``png`` (the marks are then drawn on a copy of it)."""
    opened = decode_screenshot(png)
    # drawn on a copy when the screenshot's own pixels are kept too (and when they are not RGB)
    image = opened.convert("RGB") if keep_screenshot or opened.mode != "RGB" else opened
    mark_image(image, elements)
    data = encode_png(image)
    keep_decoded(data, image)
    if keep_screenshot:
        keep_decoded(png, opened)
    return data
