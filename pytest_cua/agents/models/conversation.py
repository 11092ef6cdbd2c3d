"""The vendor-neutral pieces of a model conversation that styles and adapters exchange.

A style builds a ``UserTurn`` (text, the prepared image, the results of the model's previous calls) and reads a
``Reply`` (text, reasoning, calls); an adapter turns both into and out of its vendor's wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_cua.agents.base import Usage

if TYPE_CHECKING:
    from pytest_cua.agents.models.images import PreparedImage


@dataclass(frozen=True)
class ToolSpec:
    """A function tool: name, description and the JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ComputerTool:
    """The vendor's own computer-use tool: ``kind`` is the wire type (``computer_use_preview``, ``computer``,
    ``computer_20250124``, ``computer_20251124``, ``computer_toolset_20260801``), ``display`` the size of the
    screenshots sent."""

    kind: str
    display: tuple[int, int]
    environment: str = "browser"  # OpenAI's preview tool: browser, linux, windows, mac, ubuntu
    beta: str | None = None  # Anthropic's beta header for this tool version


@dataclass
class Call:
    """One call the model made. ``arguments`` is None when ``raw_arguments`` did not decode (``error`` says
    why); a computer call's arguments are the vendor-native action (or ``{"actions": [...]}``)."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    kind: str = "function"  # or "computer"
    error: str | None = None
    safety_checks: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Reply:
    """What one model call returned."""

    text: str = ""
    reasoning: str = ""
    calls: list[Call] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    raw: Any = None  # the response as JSON data, for the trajectory (redacted on write)
    latency_s: float = 0.0
    attempts: int = 1
    request_id: str | None = None
    truncated: bool = False  # the output hit the token limit (Responses incomplete, finish_reason length, ...)
    refusal: str | None = None  # the model refused (its words): an OpenAI refusal part, Claude's stop_reason refusal
    refusal_category: str | None = None  # Claude's stop_details.category, when given
    paused: bool = False  # Claude's stop_reason pause_turn: the turn goes on when the reply is sent back as it is


@dataclass
class ToolResult:
    """The answer to one call: text, and for computer calls the next screenshot."""

    call_id: str
    text: str
    image: "PreparedImage | None" = None
    kind: str = "function"
    is_error: bool = False
    safety_checks: list[dict[str, Any]] = field(default_factory=list)
    current_url: str | None = None


@dataclass
class UserTurn:
    """What goes to the model at one step: results of its previous calls first, then text and images. The
    images and the observation text of a turn leave the prompt together once ``--cua-history`` newer steps
    came after it."""

    text: str | None = None
    image: "PreparedImage | None" = None
    results: list[ToolResult] = field(default_factory=list)
    #: the step's observation as text (the element list, the accessibility tree): kept as long as its images
    observation_text: str | None = None
    #: further images of the step, sent after ``image`` (the plain screenshot beside the set-of-marks one)
    more_images: list["PreparedImage"] = field(default_factory=list)

    def images(self) -> list["PreparedImage"]:
        found = [r.image for r in self.results if r.image is not None]
        return found + ([self.image] if self.image is not None else []) + list(self.more_images)
