"""Semantic targets for demonstrations: resolved against an observation's elements to that step's id.

Element ids (``e12``) are valid only for the step that issued them, so a recorded demonstration names its
targets by what a person sees instead::

    role=button[name="Save"]          an element of that role whose accessible name is "Save"
    role=link[name="Acme"] >> nth=1   the second such element (0-based)
    role=link[name="Acme"] >> nth=-1  the last such element (the page's own, after the navigation's)
    label=Account Name                 any element whose accessible name is "Account Name" (form fields)
    text=Accounts                      same as label=, for links, tabs and buttons
    role=textbox[name*="Search"]       name contains "Search"

Names match after collapsing white space (and without the leading ``*`` of a required field's label); an
exact match wins over a case-insensitive one. The replay
agent resolves these; environments only ever see element ids or points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, TypeGuard

from pytest_cua.observations import Element

_LOCATOR = re.compile(
    r"""^(?:role=(?P<role>[a-z]+)(?:\[name(?P<op>\*?=)(?P<q>["'])(?P<rname>.*?)(?P=q)\])?
         |(?:label|text)=(?P<name>.+?))
        (?:\s*>>\s*nth=(?P<nth>-?\d+))?$""",
    re.VERBOSE,
)


class LocatorError(ValueError):
    pass


@dataclass(frozen=True)
class Locator:
    text: str
    role: str | None
    name: str | None
    contains: bool = False
    nth: int = 0


def is_locator(target: object) -> TypeGuard[str]:
    return isinstance(target, str) and (target.startswith("role=") or target.startswith("label=")
                                        or target.startswith("text="))


def parse_locator(text: str) -> Locator:
    m = _LOCATOR.match(text.strip())
    if m is None:
        raise LocatorError(f"not a locator: {text!r} (use role=ROLE[name=\"...\"], label=NAME or text=NAME)")
    if m.group("role"):
        return Locator(text, m.group("role"), m.group("rname"), m.group("op") == "*=", int(m.group("nth") or 0))
    return Locator(text, None, m.group("name").strip(), False, int(m.group("nth") or 0))


def _norm(s: str) -> str:
    """White space collapsed, and Lightning's required marker dropped: a required field's label starts with
    ``*`` (``<abbr title="required">*</abbr>Stage``), so its control is named "*Stage" on Salesforce."""
    out = " ".join(s.split())
    return out[1:].lstrip() if out.startswith("*") and len(out) > 1 else out


def resolve_locator(text: str, elements: Mapping[str, Element]) -> str:
    """The id of the element ``text`` names, among ``elements`` (in observation order)."""
    loc = parse_locator(text)
    candidates = [e for e in elements.values() if loc.role is None or e.role == loc.role]
    if loc.name is not None:
        want = _norm(loc.name)
        if loc.contains:
            matched = [e for e in candidates if want.lower() in _norm(e.name).lower()]
        else:
            matched = [e for e in candidates if _norm(e.name) == want]
            if not matched:
                matched = [e for e in candidates if _norm(e.name).lower() == want.lower()]
        candidates = matched
    if len(candidates) <= loc.nth or len(candidates) < -loc.nth:
        near = sorted({f"{e.role} {e.name!r}" for e in elements.values()
                       if loc.name and loc.name.lower()[:4] in e.name.lower()})[:8]
        hint = f"; similar: {', '.join(near)}" if near else ""
        raise LocatorError(f"no element matches {text!r} ({len(candidates)} found, wanted index {loc.nth}){hint}")
    return candidates[loc.nth].id
