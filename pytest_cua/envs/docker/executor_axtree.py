#!/usr/bin/env python3
"""The desktop's accessibility tree: op ``axtree`` of the executor (runs inside the container).

The walk reads AT-SPI (pyatspi, the image's own Python) from the applications registered on the accessibility
bus the executor started: GTK 3 programs (atk-bridge), LibreOffice with its gtk3 front end, Qt 5 programs
started with ``QT_ACCESSIBILITY=1``. Programs that speak no AT-SPI (xterm, Tk, Java/Swing without the
bridge, such as ImageJ) are absent; the host says which windows have no tree.

The walk is bounded (depth, node count, seconds) and keeps what is on the screen: a node that is not showing,
has no size or lies outside the screen is skipped with its subtree. A table that manages its descendants
(a spreadsheet: a million rows) is read cell by cell over the visible area only. Each node carries its role,
name, kept states, value or text (truncated) and its screen box, in pre-order: the host numbers the nodes in
that order, so an unchanged screen gives the same ids.

Screen boxes: LibreOffice 7.x with the gtk3 front end reports its own (VCL) widgets relative to a window origin
that ignores the GTK menu bar above them, while the GTK widgets it embeds report true positions (they carry the
attribute ``toolkit:gtk``). A non-GTK node with exactly its GTK parent's size but another origin is re-anchored
at the parent's origin, and that shift carries to its non-GTK descendants.

It runs in a child process per request (``executor_axtree.py walk``): a fresh AT-SPI connection has no stale
cache and no queued events, and a program that hangs the bus is cut off by the process timeout, never the
executor.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

MAX_NODES = 3000
MAX_DEPTH = 40
MAX_SECONDS = 20.0
MAX_TEXT = 200
MAX_CELLS = 800  # visible cells read from one table that manages its descendants
MAX_CHILDREN = 400  # children looked at under one node (lists of thousands: the first ones)
HIDDEN_RUN = 3  # cells (rows) with no size in a row that end a table's row (the scan)
EXIT_GRACE_S = 10.0  # the walk's own deadline, plus this, is the child process's hard limit

#: states kept (AT-SPI names); ``disabled`` is added when a node is neither enabled nor sensitive
KEPT_STATES = ("focused", "selected", "checked", "pressed", "indeterminate", "expanded", "editable",
               "focusable", "active", "modal", "required", "read_only", "multi_selectable")
#: roles whose text is read (the name of a cell is its address, its text the content)
TEXT_ROLES = frozenset({"text", "entry", "table cell", "spin button", "paragraph", "heading", "label",
                        "terminal", "document text", "caption", "static", "link", "list item", "combo box"})
VALUE_ROLES = frozenset({"slider", "spin button", "scroll bar", "progress bar", "level bar", "dial"})
SECRET_ROLES = frozenset({"password text"})
#: containers whose children are clipped to them (scrolled content outside is not on the screen)
CLIP_ROLES = frozenset({"viewport", "scroll pane", "table", "tree table", "tree", "list", "list box"})
#: nodes whose children pop up over other windows: their clip is the screen again
POPUP_ROLES = frozenset({"menu", "combo box", "push button menu", "split button"})


def op_axtree(request: dict[str, Any]) -> dict[str, Any]:
    """The op: walk in a child process, bounded; ``available: false`` with the reason when the accessibility
    bus is down or the walk failed (screenshots and actions do not depend on it)."""
    main = sys.modules.get("__main__")
    status = getattr(main, "A11Y", None)
    if isinstance(status, dict) and not status.get("enabled"):
        return {"available": False, "reason": str(status.get("reason") or "the accessibility bus is not running")}
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return {"available": False, "reason": "no session bus (DBUS_SESSION_BUS_ADDRESS unset)"}
    options = {
        "max_nodes": _bounded(request, "max_nodes", MAX_NODES, 1, 20000),
        "max_depth": _bounded(request, "max_depth", MAX_DEPTH, 1, 200),
        "max_seconds": _bounded(request, "max_seconds", MAX_SECONDS, 0.1, 120.0),
        "max_text": _bounded(request, "max_text", MAX_TEXT, 0, 5000),
        "max_cells": _bounded(request, "max_cells", MAX_CELLS, 0, 20000),
        "screen": request.get("screen") or _screen(main),
    }
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "walk", json.dumps(options)],
                              capture_output=True, timeout=float(options["max_seconds"]) + EXIT_GRACE_S,
                              env=dict(os.environ))
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": f"the accessibility walk did not finish within "
                                              f"{float(options['max_seconds']) + EXIT_GRACE_S:g} s (a program "
                                              f"blocks the bus?)"}
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        return {"available": False, "reason": f"the accessibility walk failed (exit status {proc.returncode}): "
                                              + " | ".join(tail)[-600:]}
    answer = json.loads(proc.stdout)
    answer["available"] = True
    answer["screen"] = options["screen"]
    answer["process_s"] = round(time.monotonic() - started, 4)
    return answer


def _bounded(request: dict[str, Any], name: str, default: float, low: float, high: float) -> Any:
    value = request.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"field {name!r} must be a number from {low:g} to {high:g}, got {value!r}")
    return value


def _screen(main: Any) -> list[int]:
    try:
        return list(main.screen_size())
    except Exception:  # noqa: BLE001 - imported outside the executor (tests): the default screen
        return [1280, 800]


OPS = {"axtree": op_axtree}


# --- the walk (child process) ------------------------------------------------------------------------------------

class Walk:
    """One pass over the registry's applications, bounded; ``nodes`` in pre-order."""

    def __init__(self, options: dict[str, Any]) -> None:
        import pyatspi  # type: ignore[import-not-found]  # the image's python3-pyatspi

        self.at = pyatspi
        self.max_nodes = int(options["max_nodes"])
        self.max_depth = int(options["max_depth"])
        self.max_text = int(options["max_text"])
        self.max_cells = int(options["max_cells"])
        self.deadline = time.monotonic() + float(options["max_seconds"])
        self.screen = (0, 0, int(options["screen"][0]), int(options["screen"][1]))
        self.nodes: list[dict[str, Any]] = []
        self.truncated: list[str] = []
        self.errors = 0
        self.state_names = {getattr(pyatspi, "STATE_" + s.upper()): s for s in KEPT_STATES
                            if hasattr(pyatspi, "STATE_" + s.upper())}

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        desktop = self.at.Registry.getDesktop(0)
        apps = []
        for i in range(desktop.childCount):
            app = _safe(lambda: desktop.getChildAtIndex(i))
            if app is None:
                continue
            name = _safe(lambda: app.name) or ""
            at = len(self.nodes)
            self.nodes.append({"role": "application", "name": name, "depth": 0, "box": None, "states": []})
            windows: list[str] = []
            for j in range(min(_safe(lambda: app.childCount) or 0, MAX_CHILDREN)):
                child = _safe(lambda: app.getChildAtIndex(j))
                if child is not None and self._room():
                    before = len(self.nodes)
                    self.visit(child, 1, None, False, (0, 0), self.screen)
                    if len(self.nodes) > before:
                        windows.append(self.nodes[before]["name"])
            if len(self.nodes) == at + 1:  # nothing of it on the screen
                self.nodes.pop()
            apps.append({"name": name, "windows": windows, "nodes": max(0, len(self.nodes) - at - 1)})
        return {"nodes": self.nodes, "apps": apps, "truncated": sorted(set(self.truncated)), "errors": self.errors,
                "walk_s": round(time.monotonic() - started, 4)}

    def _room(self) -> bool:
        if len(self.nodes) >= self.max_nodes:
            self.truncated.append(f"node limit {self.max_nodes}")
            return False
        if time.monotonic() > self.deadline:
            self.truncated.append("time limit")
            return False
        return True

    def visit(self, acc: Any, depth: int, parent: tuple[tuple[int, int, int, int], tuple[int, int]] | None,
              parent_gtk: bool, offset: tuple[int, int], clip: tuple[int, int, int, int]) -> None:
        """Record ``acc`` and its children. ``parent``: the parent's reported box and corrected origin."""
        at = self.at
        try:
            states = acc.getState()
            if not (states.contains(at.STATE_SHOWING) and states.contains(at.STATE_VISIBLE)):
                return
            role = acc.getRoleName()
            name = acc.name or ""
            attributes = acc.getAttributes() or []
        except Exception:  # noqa: BLE001 - gone meanwhile, or a program that does not answer
            self.errors += 1
            return
        gtk = "toolkit:gtk" in attributes
        reported = self._extents(acc)
        box = None
        if reported is not None:
            x, y, w, h = reported
            if gtk:
                offset = (0, 0)
            elif parent_gtk and parent is not None and parent[0][2:] == (w, h) and parent[1] != (x, y):
                offset = (parent[1][0] - x, parent[1][1] - y)  # a VCL subtree under its GTK host (see above)
            box = (x + offset[0], y + offset[1], w, h)
            if w <= 0 or h <= 0 or not _overlaps(box, clip):
                return
        node: dict[str, Any] = {"role": role, "name": _cut(name, self.max_text), "depth": depth,
                                "box": list(box) if box else None, "states": self._states(states, role)}
        self._content(acc, role, name, node)
        self.nodes.append(node)
        if depth >= self.max_depth:
            self.truncated.append(f"depth limit {self.max_depth}")
            return
        if role in POPUP_ROLES:  # a menu's items pop out of the bar (and its viewport) that holds it
            clip = self.screen
        elif box is not None and role in CLIP_ROLES:
            clip = _intersect(clip, box)
        here = (reported, (box[0], box[1])) if reported is not None and box is not None else parent
        try:
            count = acc.childCount
            manages = states.contains(at.STATE_MANAGES_DESCENDANTS)
        except Exception:  # noqa: BLE001
            self.errors += 1
            return
        if manages and reported is not None and box is not None and self._visible_cells(
                acc, depth + 1, reported, box, offset, clip):
            return
        if count > MAX_CHILDREN:
            self.truncated.append(f"{role} {name[:40]!r}: first {MAX_CHILDREN} of {count} children")
        for i in range(min(count, MAX_CHILDREN)):
            if not self._room():
                return
            child = _safe(lambda: acc.getChildAtIndex(i))
            if child is not None:
                self.visit(child, depth + 1, here, gtk, offset, clip)

    def _visible_cells(self, acc: Any, depth: int, reported: tuple[int, int, int, int],
                       box: tuple[int, int, int, int], offset: tuple[int, int],
                       clip: tuple[int, int, int, int]) -> bool:
        """The cells of a table that manages its descendants, over its visible area only: from the cell at the
        top left corner, row by row and column by column while the cells start inside. False when it is no
        such table (the children are walked as usual)."""
        at = self.at
        try:
            table = acc.queryTable()
            corner = acc.queryComponent().getAccessibleAtPoint(reported[0] + 1, reported[1] + 1, at.DESKTOP_COORDS)
            index = corner.getIndexInParent()
            row0, col0 = table.getRowAtIndex(index), table.getColumnAtIndex(index)
            rows, cols = table.nRows, table.nColumns
        except Exception:  # noqa: BLE001 - not a table, or no cell at the corner
            return False
        right, bottom = reported[0] + reported[2], reported[1] + reported[3]
        cells, empty_rows, row = 0, 0, row0
        # a cell off the visible area reports no size; a hidden row or column does too, so the scan
        # stops after a few in a row
        while row < rows and empty_rows < HIDDEN_RUN and self._room():
            shown, misses, col = 0, 0, col0
            while col < cols and misses < HIDDEN_RUN:
                if cells >= self.max_cells:
                    self.truncated.append(f"table {acc.name[:40]!r}: first {self.max_cells} visible cells")
                    return True
                cell = _safe(lambda: table.getAccessibleAt(row, col))
                extents = self._extents(cell) if cell is not None else None
                col += 1
                if extents is None or extents[0] >= right or extents[1] >= bottom:
                    break
                if extents[2] <= 0 or extents[3] <= 0:
                    misses += 1
                    continue
                misses = 0
                self._cell(cell, depth, extents, offset, clip)
                cells += 1
                shown += 1
            empty_rows = 0 if shown else empty_rows + 1
            row += 1
        return True

    def _cell(self, cell: Any, depth: int, extents: tuple[int, int, int, int], offset: tuple[int, int],
              clip: tuple[int, int, int, int]) -> None:
        x, y, w, h = extents
        box = (x + offset[0], y + offset[1], w, h)
        if w <= 0 or h <= 0 or not _overlaps(box, clip):
            return
        try:
            role = cell.getRoleName()
            name = cell.name or ""
            states = cell.getState()
        except Exception:  # noqa: BLE001
            self.errors += 1
            return
        node: dict[str, Any] = {"role": role, "name": _cut(name, self.max_text), "depth": depth, "box": list(box),
                                "states": self._states(states, role)}
        self._content(cell, role, name, node)
        self.nodes.append(node)

    def _extents(self, acc: Any) -> tuple[int, int, int, int] | None:
        try:
            e = acc.queryComponent().getExtents(self.at.DESKTOP_COORDS)
        except NotImplementedError:
            return None
        except Exception:  # noqa: BLE001
            self.errors += 1
            return None
        return int(e.x), int(e.y), int(e.width), int(e.height)

    def _states(self, states: Any, role: str) -> list[str]:
        at = self.at
        out = [name for state, name in self.state_names.items() if states.contains(state)]
        if not (states.contains(at.STATE_ENABLED) or states.contains(at.STATE_SENSITIVE)) and role != "application":
            out.append("disabled")
        if states.contains(at.STATE_EXPANDABLE) and not states.contains(at.STATE_EXPANDED):
            out.append("collapsed")
        return out

    def _content(self, acc: Any, role: str, name: str, node: dict[str, Any]) -> None:
        """Text (truncated) for text-like roles, the current value for ranges; never a password's text."""
        if role in SECRET_ROLES or self.max_text <= 0:
            return
        if role in VALUE_ROLES:
            try:
                node["value"] = f"{acc.queryValue().currentValue:g}"
            except Exception:  # noqa: BLE001 - no Value interface
                pass
        if role in TEXT_ROLES:
            try:
                text_iface = acc.queryText()
                if role == "table cell":  # short as a rule: one call instead of two
                    text = text_iface.getText(0, -1)[:self.max_text + 1]
                else:
                    text = text_iface.getText(0, min(text_iface.characterCount, self.max_text + 1))
            except Exception:  # noqa: BLE001 - no Text interface
                return
            text = text.replace("\ufffc", "").strip()
            if text and text != name:
                node["text"] = _cut(text, self.max_text)


def _safe(get: Any) -> Any:
    try:
        return get()
    except Exception:  # noqa: BLE001
        return None


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:max(0, limit - 3)] + "..."


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _intersect(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x, y = max(a[0], b[0]), max(a[1], b[1])
    return x, y, max(0, min(a[0] + a[2], b[0] + b[2]) - x), max(0, min(a[1] + a[3], b[1] + b[3]) - y)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "walk":
        print("usage: executor_axtree.py walk OPTIONS_JSON", file=sys.stderr)
        return 2
    result = Walk(json.loads(argv[1])).run()
    sys.stdout.write(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
