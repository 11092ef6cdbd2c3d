"""The element list a browser-style model reads: one line per interactive element of the observation.

    [e12] button "Save"
    [e7] textbox "Last Name" value="Lopez" required
    [e9] combobox "Rating" value="Warm" options=["Hot", "Warm", "Cold"]
    [e41] detected_widget "" box=[95, 104, 116, 27]      (a vision mark: its box on the screen, x y w h)

``render_elements`` writes it from an observation's elements; ``parse_elements`` reads it back (fake models in
the tests use it to find a control by role and name, as a model reads the list).
"""

from __future__ import annotations

import json
import re
from typing import Iterable

from pytest_cua.observations import Element

LINE = re.compile(r'^\[(?P<id>[A-Za-z0-9_.:-]+)\] (?P<role>\S+) (?P<name>"(?:[^"\\]|\\.)*")(?P<rest>.*)$')
_SHOWN = ("value", "placeholder", "checked", "selected", "expanded", "disabled", "required", "href", "options")


def render_elements(elements: Iterable[Element], *, max_name: int = 120) -> str:
    lines = []
    for el in elements:
        name = (el.name or "").replace("\n", " ").strip()
        if len(name) > max_name:
            name = name[: max_name - 3] + "..."
        parts = [f"[{el.id}] {el.role or el.tag or 'element'} {json.dumps(name, ensure_ascii=False)}"]
        for key in _SHOWN:
            value = el.attributes.get(key)
            if value in (None, "", "false"):
                continue
            if value == "true":
                parts.append(key)
            elif key == "options":
                parts.append(f"options={value if str(value).startswith('[') else json.dumps(value)}")
            else:
                parts.append(f"{key}={json.dumps(str(value)[:200], ensure_ascii=False)}")
        if el.frame:
            parts.append(f"frame={el.frame}")
        if el.attributes.get("source") == "vision" and el.bbox is not None:  # found on the screenshot: no name
            parts.append("box=[" + ", ".join(str(int(v)) for v in el.bbox) + "]")
        lines.append(" ".join(parts))
    return "\n".join(lines)


def parse_elements(text: str) -> dict[str, Element]:
    """The elements of a rendered list (lines that are not element lines are ignored)."""
    found: dict[str, Element] = {}
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        attributes: dict[str, str] = {}
        for key, value in re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\[[^\]]*\])', m["rest"]):
            attributes[key] = json.loads(value) if value.startswith('"') else value
        for flag in re.findall(r'(?:^| )(checked|selected|expanded|disabled|required)(?= |$)', m["rest"]):
            attributes[flag] = "true"
        found[m["id"]] = Element(id=m["id"], role=m["role"], name=json.loads(m["name"]), attributes=attributes)
    return found
