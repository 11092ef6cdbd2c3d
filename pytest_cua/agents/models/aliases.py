"""Model aliases (``--agent ALIAS``) and the computer tool each model takes, dated like the price table.

Checked against the SDKs a fresh ``pip install openai anthropic`` gave on ``AS_OF`` (``CHECKED_WITH``): every
alias names a model id the SDK lists (``openai.types.shared.ChatModel`` / ``ResponsesModel``,
``anthropic.types.ModelParam``) and does not mark deprecated (OpenAI: the "Deprecated values" of ``ChatModel``;
Anthropic: ``anthropic._data.DEPRECATED_MODELS``). ``tests/models/test_aliases.py`` fails when the installed
SDK no longer lists an alias's model, or marks it deprecated: then this table is due.

Aliases whose model the SDK marks deprecated with a shutdown date are in ``DEPRECATED`` (the date as the SDK
gives it: OpenAI's "Announced shutdown date", Anthropic's end of life; the replacement ours, the SDK names none):
they run until that date with one warning naming it and the replacement (``pytest_cua.agents.deprecation``),
and from that date on ``--agent ALIAS`` is a usage error naming both. ``tests/models/test_deprecated_aliases.py``
fails when the installed SDK gives another date. Aliases that named models since retired stay in ``RETIRED`` so
that ``--agent claude-sonnet-4`` says what to use instead; the model itself is still reachable as
``PROVIDER:MODEL``.

The Claude computer tool (``computer_tool_for``): ``computer_toolset_20260801`` (GA, no beta header; one
``tools[]`` entry, replies are tool_use blocks named per member with ``toolset_name: "computer"``) for every
model Anthropic's computer-use page lists for it; the Claude 5.5 family and the 5.2 models take nothing else.
``computer_20251124`` / ``computer_20250124`` (beta headers) remain for older models and platforms that have no
toolset yet (``--cua-agent-option computer_tool=computer_20251124``).
"""

from __future__ import annotations

import datetime as dt
import re

from pytest_cua.agents.deprecation import Deprecation

AS_OF = "2026-12-04"
CHECKED_WITH = {"openai": "3.60.0", "anthropic": "2.16.0"}

#: alias -> model id sent (OpenAI Responses); all take function tools, gpt >= 5.4 the GA computer tool
OPENAI_MODELS: dict[str, str] = {
    "gpt-6.2-astra": "gpt-6.2-astra", "gpt-6-astra": "gpt-6-astra",
    "gpt-6.2-sol": "gpt-6.2-sol", "gpt-6.1-sol": "gpt-6.1-sol", "gpt-6-sol": "gpt-6-sol",
    "gpt-6.1-terra": "gpt-6.1-terra", "gpt-6-luna": "gpt-6-luna",
    "gpt-5.6-sol": "gpt-5.6-sol", "gpt-5.6-terra": "gpt-5.6-terra", "gpt-5.6-luna": "gpt-5.6-luna",
    "gpt-5.5": "gpt-5.5", "gpt-5.4": "gpt-5.4", "gpt-5.4-mini": "gpt-5.4-mini", "gpt-5.2": "gpt-5.2",
    "computer-use-preview": "computer-use-preview",
}

#: alias -> model id sent (Anthropic Messages); every one takes the computer toolset
ANTHROPIC_MODELS: dict[str, str] = {
    "claude-fable-5-2": "claude-fable-5-2", "claude-mythos-5-2": "claude-mythos-5-2",
    "claude-fable-5-1": "claude-fable-5-1", "claude-mythos-5-1": "claude-mythos-5-1",
    "claude-fable-5": "claude-fable-5", "claude-mythos-5": "claude-mythos-5",
    "claude-opus-5-5": "claude-opus-5-5", "claude-sonnet-5-5": "claude-sonnet-5-5",
    "claude-haiku-5-5": "claude-haiku-5-5", "claude-opus-5": "claude-opus-5", "claude-sonnet-5": "claude-sonnet-5",
    "claude-opus-4-8": "claude-opus-4-8", "claude-opus-4-7": "claude-opus-4-7", "claude-opus-4-6": "claude-opus-4-6",
    "claude-sonnet-4-6": "claude-sonnet-4-6", "claude-haiku-4-5": "claude-haiku-4-5-20251001",
}

_OPENAI_NOTE = "openai.types.shared.chat_model: ChatModel's \"Deprecated values\", announced shutdown date"
_ANTHROPIC_NOTE = "anthropic._data.DEPRECATED_MODELS: end of life"

#: aliases of earlier tables whose model the SDK marks deprecated with a shutdown date: they run until that date
#: (the anthropic SDK also warns on every call with such a model: ``sdk_warning``, silenced for the session's one)
DEPRECATED: dict[str, Deprecation] = {
    "o3": Deprecation("o3", "OpenAI", dt.date(2026, 12, 11), "gpt-5.5", _OPENAI_NOTE),
    "gpt-5": Deprecation("gpt-5", "OpenAI", dt.date(2026, 12, 11), "gpt-5.5", _OPENAI_NOTE),
    "gpt-4.1": Deprecation("gpt-4.1", "OpenAI", dt.date(2027, 1, 14), "gpt-5.4-mini", _OPENAI_NOTE),
    "claude-opus-4-5": Deprecation("claude-opus-4-5-20251101", "Anthropic", dt.date(2027, 1, 22), "claude-opus-4-8",
                                   _ANTHROPIC_NOTE, sdk_warning="The model 'claude-opus-4-5-20251101' is deprecated"),
}

#: aliases of earlier tables whose model the SDK no longer lists (or marks deprecated with no date): what to use
RETIRED: dict[str, str] = {
    "claude-sonnet-4": "claude-sonnet-5 (claude-sonnet-4-20250514 reached end of life on 2026-06-15)",
    "claude-sonnet-4-5": "claude-sonnet-4-6 or claude-sonnet-5 (claude-sonnet-4-5 is no longer in the SDK's list)",
    "claude-opus-4-1": "claude-opus-4-8 (claude-opus-4-1 is no longer in the SDK's list)",
}

TOOLSET = "computer_toolset_20260801"

# (model name pattern, tool version, beta header or "" for none); the first match wins
COMPUTER_TOOLS: tuple[tuple[str, str, str], ...] = (
    (r"claude-(fable|mythos)-5", TOOLSET, ""),
    (r"claude-mythos-preview", TOOLSET, ""),
    (r"claude-(opus|sonnet|haiku)-5", TOOLSET, ""),
    (r"claude-opus-4-[5-9]", TOOLSET, ""),
    (r"claude-sonnet-4-[5-9]", TOOLSET, ""),
    (r"claude-haiku-4-5", TOOLSET, ""),
    (r"claude-opus-4-1", "computer_20250124", "computer-use-2025-01-24"),
    (r"claude-(opus|sonnet)-4(-\d{8})?$", "computer_20250124", "computer-use-2025-01-24"),
    (r"claude-3-7-sonnet", "computer_20250124", "computer-use-2025-01-24"),
    (r"claude-3-5-sonnet", "computer_20241022", "computer-use-2024-10-22"),
)

#: every tool version and its beta header ("" : GA, none)
TOOL_BETAS: dict[str, str] = {TOOLSET: "", "computer_20251124": "computer-use-2025-11-24",
                              "computer_20250124": "computer-use-2025-01-24",
                              "computer_20241022": "computer-use-2024-10-22"}

#: models that take only the toolset (a beta tool version is a 400 for them on the Claude API)
TOOLSET_ONLY = re.compile(r"claude-(opus|sonnet|haiku)-5-5|claude-(fable|mythos)-5-2")


def computer_tool_for(model: str) -> tuple[str, str]:
    """The computer tool version and beta header ("" when none) for ``model``; unknown: a clear error."""
    name = model.split("/")[-1]
    for pattern, version, beta in COMPUTER_TOOLS:
        if re.match(pattern, name):
            return version, beta
    raise ValueError(f"no computer-use tool version is known for {model!r}; set one with --cua-agent-option "
                     f"computer_tool={TOOLSET} (or computer_20251124, computer_20250124)")


def beta_for_tool(version: str, model: str = "") -> str:
    """The beta header of a chosen tool version; ValueError for an unknown one or one the model refuses."""
    if version not in TOOL_BETAS:
        raise ValueError(f"unknown computer tool version {version!r} (known: {', '.join(TOOL_BETAS)})")
    if version != TOOLSET and TOOLSET_ONLY.match(model.split("/")[-1]):
        raise ValueError(f"--cua-agent-option computer_tool={version}: {model} takes only {TOOLSET}")
    return TOOL_BETAS[version]


def gpt_version(model: str) -> tuple[int, int] | None:
    """(major, minor) of a ``gpt-N[.M]`` model name."""
    match = re.match(r"gpt-(\d+)(?:\.(\d+))?(?:-|$)", model.split("/")[-1])
    return (int(match[1]), int(match[2] or 0)) if match else None


def ga_computer(model: str) -> bool:
    """OpenAI's GA ``computer`` tool: gpt-5.4 and later (gpt-6.x included)."""
    version = gpt_version(model)
    return version is not None and version >= (5, 4)
