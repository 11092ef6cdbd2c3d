"""The desktop's accessibility tree on the host side: the nodes of the executor's ``axtree`` op (AT-SPI, see
``executor_axtree.py``) become the observation's ``axtree`` text and its ``elements``, in the browser's form::

    application "soffice"
      frame "sales.xlsx - LibreOffice Calc" [active]
        [e1] menu "File"
        tool bar "Standard"
          [e14] push button "Save"
        table "Sheet Data" [focused]
          [e40] table cell "A1" [value="Region", focused, editable]

Ids go to the interactive nodes (buttons, menus, text fields, cells, ...) in the walk's order (pre-order, the
registry's application order), numbered from ``e1`` at every observation: an unchanged screen gives the same
ids, and an id names what the last observation showed. Unnamed containers (panels, fillers) are left out of
the text; their children move up. Element boxes are screen pixels; an action on an id goes to the centre of
the part of its box that is on the screen (``target_point``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pytest_cua.actions import Point
from pytest_cua.observations import Element
from pytest_cua.redaction import redact

INTERACTIVE_ROLES = frozenset({
    "push button", "toggle button", "check box", "radio button", "menu", "menu item", "check menu item",
    "radio menu item", "tearoff menu item", "combo box", "text", "entry", "password text", "spin button",
    "slider", "page tab", "list item", "table cell", "tree item", "link", "icon", "split button",
    "push button menu", "table column header", "table row header", "column header", "row header",
    "color chooser", "date editor", "font chooser", "calendar", "terminal", "document text", "editbar",
})
#: roles that only group others: never an id, and left out of the text when unnamed
CONTAINER_ROLES = frozenset({
    "application", "frame", "window", "dialog", "alert", "file chooser", "panel", "filler", "root pane",
    "layered pane", "glass pane", "internal frame", "scroll pane", "viewport", "split pane", "tool bar",
    "menu bar", "status bar", "page tab list", "table", "tree table", "tree", "list", "list box",
    "document spreadsheet", "document frame", "document presentation", "document web", "document email",
    "embedded", "section", "form", "grouping", "option pane", "desktop frame", "canvas", "drawing area",
    "scroll bar", "separator", "redundant object", "unknown", "image", "label", "static", "heading",
    "paragraph", "caption", "tool tip", "info bar", "notification", "block quote", "article", "landmark",
})
#: unnamed nodes of these roles still get a line (they structure what is below them)
STRUCTURE_ROLES = frozenset({"application", "frame", "window", "dialog", "alert", "file chooser", "menu bar",
                             "tool bar", "status bar", "page tab list", "table", "tree table", "tree", "list",
                             "list box", "document spreadsheet", "document presentation", "document frame"})
#: states shown in the text (``focusable`` is known but would be on almost every line)
SHOWN_STATES = ("focused", "selected", "checked", "pressed", "indeterminate", "expanded", "collapsed", "editable",
                "disabled", "active", "modal", "required", "read_only")
#: roles whose children pop up over the rest (an open menu hides what is under it)
POPUP_ROLES = frozenset({"menu", "combo box", "push button menu", "split button"})
#: roles whose lines leave out ``editable`` (every cell of a spreadsheet is; the element keeps it)
IMPLIED_EDITABLE = frozenset({"table cell"})
MAX_LINE_TEXT = 120


@dataclass
class Tree:
    """One observation's tree: the text, the elements by id, what the walk said about itself."""

    text: str
    elements: dict[str, Element] = field(default_factory=dict)
    apps: list[dict[str, Any]] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)
    nodes: int = 0


def interactive(node: Mapping[str, Any]) -> bool:
    """Whether a node gets an id: an interactive role, or a focusable or editable node that is no container."""
    role = str(node.get("role", ""))
    if role in INTERACTIVE_ROLES:
        return True
    states = node.get("states") or ()
    return role not in CONTAINER_ROLES and ("focusable" in states or "editable" in states)


def build_tree(nodes: Iterable[Mapping[str, Any]], screen: tuple[int, int]) -> Tree:
    """The text and the elements of the executor's nodes (pre-order, each with its ``depth``)."""
    nodes = list(nodes)
    popups = _popups(nodes)
    lines: list[str] = []
    elements: dict[str, Element] = {}
    shown_depths: list[int] = []  # depths of the ancestors that have a line, innermost last
    count = 0
    for index, node in enumerate(nodes):
        count += 1
        depth = int(node.get("depth", 0))
        if popups and _covered(index, node.get("box"), popups):
            continue  # under an open menu: AT-SPI still calls it showing, but nothing can reach it
        while shown_depths and shown_depths[-1] >= depth:
            shown_depths.pop()
        role = str(node.get("role", "")) or "unknown"
        name = redact(str(node.get("name") or ""))
        states = [s for s in SHOWN_STATES if s in (node.get("states") or ())]
        content = redact(str(node.get("text") if node.get("text") is not None else node.get("value") or ""))
        box = node.get("box")
        element_id = None
        if interactive(node) and box and _on_screen(box, screen):
            element_id = f"e{len(elements) + 1}"
            elements[element_id] = Element(id=element_id, role=role, name=name,
                                           bbox=(float(box[0]), float(box[1]), float(box[2]), float(box[3])),
                                           attributes=_attributes(node, content, states))
        elif not (name or content or role in STRUCTURE_ROLES):
            continue  # an unnamed panel, filler, viewport: its children move up
        elif not name:  # an unnamed label or heading: its text is its name
            name, content = content, ""
        if role in IMPLIED_EDITABLE:
            states = [s for s in states if s != "editable"]
        indent = "  " * len(shown_depths)
        head = f"[{element_id}] " if element_id else ""
        lines.append(f"{indent}{head}{role} {json.dumps(_short(name), ensure_ascii=False)}"
                     f"{_describe(content, states)}")
        shown_depths.append(depth)
    return Tree(text="\n".join(lines), elements=elements, nodes=count)


def _popups(nodes: list[Mapping[str, Any]]) -> list[tuple[int, int, tuple[float, float, float, float]]]:
    """The open menus (and combo box lists) that pop out of their own box: (first, last) node index of the
    subtree and the rectangle its children cover."""
    out = []
    for i, node in enumerate(nodes):
        if node.get("role") not in POPUP_ROLES:
            continue
        depth, last, boxes = int(node.get("depth", 0)), i, []
        while last + 1 < len(nodes) and int(nodes[last + 1].get("depth", 0)) > depth:
            last += 1
            child = nodes[last]
            if int(child.get("depth", 0)) == depth + 1 and child.get("box"):
                boxes.append(child["box"])
        if not boxes:
            continue
        left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
        right, bottom = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
        own = node.get("box")
        if own and left >= own[0] and top >= own[1] and right <= own[0] + own[2] and bottom <= own[1] + own[3]:
            continue  # inside its own box: nothing pops up
        out.append((i, last, (left, top, right, bottom)))
    return out


def _covered(index: int, box: Any, popups: list[tuple[int, int, tuple[float, float, float, float]]]) -> bool:
    """Whether the centre of ``box`` lies under an open popup the node is not part of."""
    if not box:
        return False
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    return any(not first <= index <= last and left <= cx < right and top <= cy < bottom
               for first, last, (left, top, right, bottom) in popups)


def _attributes(node: Mapping[str, Any], content: str, states: list[str]) -> dict[str, str]:
    """The element's attributes in the browser's names (``render_elements`` shows value, checked, selected,
    expanded, disabled, required)."""
    out: dict[str, str] = {}
    if content:
        out["value"] = content
    for state in states:
        out[state] = "true"
    if "pressed" in states:
        out["checked"] = "true"
    if "collapsed" in states:
        out["expanded"] = "false"
    return out


def _describe(content: str, states: list[str]) -> str:
    parts = [f"value={json.dumps(_short(content), ensure_ascii=False)}"] if content else []
    parts += states
    return f" [{', '.join(parts)}]" if parts else ""


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LINE_TEXT else text[:MAX_LINE_TEXT - 3] + "..."


def _on_screen(box: Any, screen: tuple[int, int]) -> bool:
    x, y, w, h = box
    return w > 0 and h > 0 and x < screen[0] and y < screen[1] and x + w > 0 and y + h > 0


def target_point(element: Element, screen: tuple[int, int]) -> Point:
    """Where an action on ``element`` goes: the centre of the part of its box on the screen."""
    assert element.bbox is not None
    x, y, w, h = element.bbox
    left, top = max(0.0, x), max(0.0, y)
    right, bottom = min(float(screen[0]), x + w), min(float(screen[1]), y + h)
    return Point(float(int((left + right) / 2)), float(int((top + bottom) / 2)))


def missing_windows(window_titles: Iterable[str], apps: Iterable[Mapping[str, Any]]) -> list[str]:
    """The titles of visible windows that no accessible application shows (xterm, Tk, Java programs)."""
    shown = {str(w) for app in apps for w in app.get("windows") or ()}
    return [t for t in window_titles if t and t not in shown]
