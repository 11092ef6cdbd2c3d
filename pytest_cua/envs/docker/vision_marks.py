"""Set-of-marks for windows that export no accessibility tree (GIMP 2.10, ImageJ, R's Tk and xterm windows):
widgets and text boxes found on the screenshot by OpenCV, on the host, with no downloaded weights.

``detect(png, regions, avoid)`` looks inside ``regions`` (the client areas of the windows without a tree) and
returns boxes in screen pixels, each a ``widget`` (a closed outline: a button, a field, a check box) or a
``text`` (a line of glyphs with no outline of its own):

- widgets: Canny edges, closed a little, their contours; a contour with edges along most of its bounding
  box's border (an outline) and of a control's size (``MIN_SIDE`` to a quarter of the region) is a widget;
- text: the morphological gradient, Otsu's threshold, glyphs joined along the line by a wide closing; a
  connected component of a text line's height is a text box;
- then: near duplicates are merged (the smaller kept), a box that holds two or more others is a container
  and is dropped, a box inside a remaining widget (its label) is dropped (the widget is what is clicked), a
  box that meets a tree mark (``avoid``) is dropped; the marks come in reading order (rows top to bottom, left
  to right within a row), at most ``max_marks`` of them (widgets before text boxes when there are more).

The same screenshot gives the same boxes (OpenCV's operations here are deterministic). ``vision_elements``
turns the boxes into the observation's elements: ids go on from the tree's (``e41``, ``e42``, ...), the role
says what was detected (``detected_widget``, ``detected_text``), and an action on such an id clicks the
centre of its box as it does for a tree element.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from pytest_cua.observations import Element

Box = tuple[int, int, int, int]  # x, y, width, height in screen pixels

MAX_MARKS = 80  # at most this many vision marks per observation
MIN_SIDE = 8  # the smallest widget side (a check box is ~13 px)
MIN_WIDGET_AREA = 150
TEXT_HEIGHT = (7, 40)  # a line of text is this high
OUTLINE_COVER = 0.8  # a widget has edges along at least this share of its bounding box's border
DUPLICATE_IOU = 0.6
ROLES = {"widget": "detected_widget", "text": "detected_text"}


class VisionUnavailable(RuntimeError):
    """OpenCV is not installed (``pip install 'pytest-cua[desktop]'``)."""


@dataclass(frozen=True)
class Mark:
    """One detected box and what it looks like."""

    box: Box
    kind: str  # widget or text


def _cv() -> tuple[Any, Any]:
    try:
        import cv2
        import numpy
    except ImportError as exc:  # pragma: no cover - the desktop extra brings it
        raise VisionUnavailable("vision marks need OpenCV: pip install 'pytest-cua[desktop]' "
                                "(opencv-python-headless)") from exc
    return cv2, numpy


def detect(png: bytes, regions: Sequence[Box] | None = None, avoid: Iterable[tuple[float, float, float, float]] = (),
           *, max_marks: int = MAX_MARKS) -> list[Mark]:
    """The widgets and text boxes inside ``regions`` (default: the whole image) that meet no box of ``avoid``,
    at most ``max_marks``, in reading order."""
    cv2, np = _cv()
    image = cv2.imdecode(np.frombuffer(png, dtype=np.uint8), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise ValueError("vision marks: the screenshot is not a decodable image")
    height, width = image.shape[:2]
    areas = [_clip(r, width, height) for r in (regions if regions is not None else [(0, 0, width, height)])]
    found: list[Mark] = []
    for area in areas:
        if area is None:
            continue
        x0, y0, w, h = area
        crop = image[y0:y0 + h, x0:x0 + w]
        found += [Mark((x + x0, y + y0, bw, bh), kind) for (x, y, bw, bh), kind in _marks_in(crop)]
    blocked: list[Box] = [(round(b[0]), round(b[1]), round(b[2]), round(b[3])) for b in avoid]
    kept = _reading_order([m for m in _tidy(found) if not any(_meets(m.box, b) for b in blocked)])
    if len(kept) > max_marks:  # widgets first (what is clicked), then text boxes, each in reading order
        chosen = {id(m) for m in ([m for m in kept if m.kind == "widget"] + [m for m in kept if m.kind != "widget"])
                  [:max(0, max_marks)]}
        kept = [m for m in kept if id(m) in chosen]
    return kept


def _marks_in(gray: Any) -> list[tuple[Box, str]]:
    cv2, np = _cv()
    h, w = gray.shape[:2]
    if w < MIN_SIDE or h < MIN_SIDE:
        return []
    largest = w * h / 4
    out: list[tuple[Box, str]] = []
    edges = cv2.Canny(gray, 40, 120)
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        x, y, bw, bh = (int(v) for v in cv2.boundingRect(contour))
        if bw < MIN_SIDE or bh < MIN_SIDE or bw * bh < MIN_WIDGET_AREA or bw * bh > largest:
            continue
        if bw >= w - 2 and bh >= h - 2:
            continue  # the window's own frame
        if _outline_cover(edges, (x, y, bw, bh)) < OUTLINE_COVER:
            continue  # no edge along most of its box's border: a word, a curve, a diagonal, not a control
        out.append(((x, y, bw, bh), "widget"))
    gradient = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    _, binary = cv2.threshold(gradient, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    lines = cv2.morphologyEx(binary, cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_RECT, (9, 1)))
    count, _, stats, _ = cv2.connectedComponentsWithStats(lines, connectivity=8)
    for label in range(1, int(count)):  # 0 is the background
        x, y, bw, bh = (int(v) for v in stats[label][:4])
        if TEXT_HEIGHT[0] <= bh <= TEXT_HEIGHT[1] and bw >= bh and bw * bh <= largest:
            out.append(((x, y, bw, bh), "text"))
    return out


def _outline_cover(edges: Any, box: Box, depth: int = 1) -> float:
    """The share of the border of ``box`` that has an edge pixel within ``depth`` pixels inside it."""
    x, y, w, h = box
    area = edges[y:y + h, x:x + w] > 0
    d = max(1, min(depth, w // 3, h // 3))
    top, bottom = area[:d, :].any(axis=0), area[h - d:, :].any(axis=0)
    left, right = area[:, :d].any(axis=1), area[:, w - d:].any(axis=1)
    covered = int(top.sum() + bottom.sum() + left.sum() + right.sum())
    return covered / float(2 * (w + h))


def _tidy(marks: list[Mark]) -> list[Mark]:
    """Near duplicates merged (the smaller kept, a widget before a text box), containers (a box holding two
    or more others) dropped, then whatever lies inside a remaining widget (its label) dropped."""
    ordered = sorted(marks, key=lambda m: (_area(m.box), m.kind != "widget", m.box))  # smallest first
    kept: list[Mark] = []
    for mark in ordered:
        if any(_iou(mark.box, k.box) >= DUPLICATE_IOU for k in kept):
            continue
        kept.append(mark)
    kept = [m for m in kept if sum(1 for o in kept if o is not m and _inside(o.box, m.box)) < 2]
    widgets = [m for m in kept if m.kind == "widget"]
    return [m for m in kept if not any(w is not m and _inside(m.box, w.box) for w in widgets)]


def _reading_order(marks: list[Mark]) -> list[Mark]:
    """Rows top to bottom (a mark joins the row whose first mark's vertical middle it spans), left to right."""
    rows: list[list[Mark]] = []
    for mark in sorted(marks, key=lambda m: (m.box[1], m.box[0], m.box[2], m.box[3])):
        middle = mark.box[1] + mark.box[3] / 2
        for row in rows:
            first = row[0].box
            if first[1] <= middle <= first[1] + first[3]:
                row.append(mark)
                break
        else:
            rows.append([mark])
    return [m for row in rows for m in sorted(row, key=lambda m: (m.box[0], m.box[1], m.box[2], m.box[3]))]


def vision_elements(marks: Sequence[Mark], first_number: int, window: str = "") -> dict[str, Element]:
    """The marks as elements, numbered from ``first_number`` (``e{n}``), boxes in screen pixels."""
    out: dict[str, Element] = {}
    for offset, mark in enumerate(marks):
        element_id = f"e{first_number + offset}"
        out[element_id] = Element(id=element_id, role=ROLES[mark.kind], name="",
                                  bbox=(float(mark.box[0]), float(mark.box[1]), float(mark.box[2]), float(mark.box[3])),
                                  attributes={"source": "vision", **({"window": window} if window else {})})
    return out


def _clip(box: Sequence[float], width: int, height: int) -> Box | None:
    x, y = max(0, int(box[0])), max(0, int(box[1]))
    right, bottom = min(width, int(box[0] + box[2])), min(height, int(box[1] + box[3]))
    return (x, y, right - x, bottom - y) if right - x >= MIN_SIDE and bottom - y >= MIN_SIDE else None


def _area(box: Box) -> int:
    return box[2] * box[3]


def _inside(inner: Box, outer: Box, slack: int = 2) -> bool:
    return (inner != outer and inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[0] + inner[2] <= outer[0] + outer[2] + slack and inner[1] + inner[3] <= outer[1] + outer[3] + slack)


def _intersection(a: Box, b: Box) -> int:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0


def _iou(a: Box, b: Box) -> float:
    shared = _intersection(a, b)
    return shared / (_area(a) + _area(b) - shared) if shared else 0.0


def _meets(a: Box, b: Box) -> bool:
    return _intersection(a, b) > 0
