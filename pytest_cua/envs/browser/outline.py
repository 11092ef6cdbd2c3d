"""The element outline of a page: ``dom_script.js`` runs in every frame, gives each interactive element a short
id (``e12``, written into the page as a data attribute), and returns the accessibility outline lines
(``[e12] button "Save"``) and the elements' boxes. ``ElementIndex`` keeps which frame each id lives in, so an
action's id resolves to a frame and a locator; an id stays valid as long as its element stays in the page.
``render_dom`` writes the flattened DOM of those elements.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_cua.envs.browser.errors import ActionFailed, short_error
from pytest_cua.observations import Element
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

ID_ATTR = "data-cua-id"
FRAME_ATTR = "data-cua-frame"
SCRIPT = (Path(__file__).with_name("dom_script.js")).read_text(encoding="utf-8")
MAX_FRAMES = 20


@dataclass
class Resolved:
    """An element id resolved for one action."""

    id: str
    frame: "Frame"
    locator: "Locator"


class ElementIndex:
    """The elements of the latest observation by id, and the frame of each."""

    def __init__(self) -> None:
        self.next_id = 1
        self.frames_by_id: dict[str, Frame] = {}
        self.elements: dict[str, Element] = {}
        self.page_scroll: dict[str, float] = {}

    def reset(self) -> None:
        """A fresh context numbers its elements from e1 again (replays see the same ids)."""
        self.next_id = 1
        self.frames_by_id.clear()
        self.elements.clear()

    def collect(self, page: "Page") -> tuple[dict[str, Element], list[str]]:
        """Run the DOM script in every frame; return the elements by id and the outline lines."""
        self.frames_by_id.clear()
        elements: dict[str, Element] = {}
        outline = self._collect_frame(page.main_frame, "", (0.0, 0.0), elements, depth=0)
        self.elements = elements
        return elements, outline

    def _collect_frame(self, frame: "Frame", path: str, offset: tuple[float, float],
                       elements: dict[str, Element], depth: int) -> list[str]:
        result = json.loads(frame.evaluate(SCRIPT, {"next": self.next_id, "attr": ID_ATTR, "frameAttr": FRAME_ATTR,
                                                    "maxText": 200, "maxLines": 4000}))
        self.next_id = max(self.next_id, int(result["next"]))
        if not path:
            self.page_scroll = {"x": result["scroll"][0], "y": result["scroll"][1],
                                "page_height": result.get("height", 0)}
        ox, oy = offset
        for item in result["elements"]:
            x, y, w, h = item["bbox"]
            el = Element(id=item["id"], role=item["role"], name=item["name"], tag=item["tag"],
                         bbox=(round(x + ox, 1), round(y + oy, 1), round(w, 1), round(h, 1)),
                         attributes={k: redact(str(v)) if k in ("href", "value") else str(v)
                                     for k, v in item["attributes"].items()}, frame=path)
            elements[el.id] = el
            self.frames_by_id[el.id] = frame
        lines: list[str] = result["lines"]
        if not result["frames"] or depth >= 3:
            return [ln.split(" {{frame:")[0] if "{{frame:" in ln else ln for ln in lines]
        # match child frames to their iframe elements by the key the script wrote
        children: dict[str, Frame] = {}
        for child in frame.child_frames[:MAX_FRAMES]:
            try:
                handle = child.frame_element()
                key = handle.get_attribute(FRAME_ATTR)
                handle.dispose()
            except Exception:  # noqa: BLE001 - detached meanwhile
                continue
            if key:
                children[key] = child
        offsets = {f["key"]: (ox + f["x"], oy + f["y"]) for f in result["frames"]}
        out: list[str] = []
        for ln in lines:
            if "{{frame:" not in ln:
                out.append(ln)
                continue
            head, key = ln.split(" {{frame:", 1)
            key = key.rstrip("}")
            out.append(head)
            sub_frame = children.get(key)
            if sub_frame is None:
                continue
            indent = len(head) - len(head.lstrip(" "))
            sub_path = f"{path}/{key}" if path else key
            try:
                sub = self._collect_frame(sub_frame, sub_path, offsets.get(key, (ox, oy)), elements, depth + 1)
            except Exception as exc:  # noqa: BLE001 - a frame that navigated or is cross-process and closed
                sub = [f"(frame not readable: {short_error(exc, 120)})"]
            out.extend(" " * (indent + 2) + s for s in sub)
        return out

    def resolve(self, element_id: str) -> Resolved:
        """The frame and locator of an id from the latest observation; ActionFailed when it is gone."""
        frame = self.frames_by_id.get(element_id)
        if frame is None:
            raise ActionFailed(f"no element {element_id!r} in the latest observation; use an id shown there")
        if frame.is_detached():
            raise ActionFailed(f"element {element_id!r} is gone (its frame was replaced); observe again")
        locator = frame.locator(f'[{ID_ATTR}="{element_id}"]')
        try:
            count = locator.count()
        except Exception as exc:  # noqa: BLE001 - context destroyed by navigation
            raise ActionFailed(f"element {element_id!r} is gone (the page changed); observe again") from exc
        if count == 0:
            raise ActionFailed(f"element {element_id!r} is no longer on the page; observe again")
        return Resolved(element_id, frame, locator.first)


def render_dom(elements: dict[str, Element]) -> str:
    """The flattened DOM: one line per interactive element, ``[e3] <input type="text" value="x"> Name``."""
    lines = []
    for el in elements.values():
        attrs = []
        for key in ("type", "value", "placeholder", "checked", "href", "options", "disabled", "required",
                    "expanded", "selected"):
            value = el.attributes.get(key)
            if value not in (None, ""):
                attrs.append(f'{key}={json.dumps(value, ensure_ascii=False)}')
        if el.role and el.role != el.tag:
            attrs.insert(0, f'role="{el.role}"')
        frame = f" frame={el.frame}" if el.frame else ""
        attr_text = (" " + " ".join(attrs)) if attrs else ""
        lines.append(f"[{el.id}] <{el.tag}{attr_text}>{el.name}</{el.tag}>{frame}")
    return "\n".join(lines)
