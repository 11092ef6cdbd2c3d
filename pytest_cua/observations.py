"""Observation types: what an environment shows an agent at one step.

``kinds`` select what is produced (any combination): ``screenshot``, ``axtree`` (accessibility tree as text,
with a short id per interactive element), ``dom`` (flattened interactive elements with the same ids) and
``som`` (set-of-marks: the screenshot with numbered boxes matching those ids); ``vision`` adds marks found by
a vision detector on the screenshot for windows that export no accessibility tree (the desktop; see
``pytest_cua.envs.docker.vision_marks``). Url, title, tabs and the last action's error always come along.
Kinds are joined with ``,`` or ``+`` (``som+screenshot+axtree``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

OBSERVATION_KINDS: tuple[str, ...] = ("screenshot", "axtree", "dom", "som", "vision")
DEFAULT_KINDS: frozenset[str] = frozenset({"screenshot", "axtree"})


class ObservationKindError(ValueError):
    pass


def parse_kinds(value: str | Iterable[str], *, source: str = "--cua-observe") -> frozenset[str]:
    """Parse ``"screenshot,axtree"`` (or ``"som+screenshot"``) into a set of kinds; an unknown kind names where it
    came from."""
    items = value.replace("+", ",").split(",") if isinstance(value, str) else list(value)
    kinds = {k.strip() for k in items if k.strip()}
    unknown = sorted(kinds - set(OBSERVATION_KINDS))
    if unknown:
        raise ObservationKindError(
            f"{source}: unknown observation kind(s) {', '.join(unknown)}; choose from {', '.join(OBSERVATION_KINDS)}"
        )
    if not kinds:
        raise ObservationKindError(f"{source}: no observation kind given")
    return frozenset(kinds)


@dataclass
class Element:
    """An interactive element with the id an agent uses to target it."""

    id: str
    role: str
    name: str = ""
    tag: str = ""
    bbox: tuple[float, float, float, float] | None = None  # x, y, width, height in viewport pixels
    attributes: dict[str, str] = field(default_factory=dict)
    frame: str = ""  # frame path ("" for the main frame)


@dataclass
class Observation:
    """One step's view of the environment."""

    step: int = 0
    screenshot: bytes | None = None  # PNG
    axtree: str | None = None
    dom: str | None = None
    som: bytes | None = None  # PNG with numbered boxes
    elements: dict[str, Element] = field(default_factory=dict)
    url: str = ""
    title: str = ""
    tabs: list[dict[str, Any]] = field(default_factory=list)
    last_error: str | None = None  # error of the previous action, if it failed
    human_reply: str | None = None  # answer to the agent's last Ask, if any
    extra: dict[str, Any] = field(default_factory=dict)

    def text_parts(self) -> dict[str, Any]:
        """The text observations, for trajectories (images are stored as files)."""
        out: dict[str, Any] = {"url": self.url, "title": self.title, "tabs": self.tabs}
        if self.axtree is not None:
            out["axtree"] = self.axtree
        if self.dom is not None:
            out["dom"] = self.dom
        if self.last_error:
            out["last_error"] = self.last_error
        if self.human_reply is not None:
            out["human_reply"] = self.human_reply
        if self.extra:
            out["extra"] = self.extra
        return out
