"""An agent's whole output to typed actions (``parse_actions``): JSON text (optionally inside a Markdown code
fence) is decoded first, then each action is read in the format it is written in (typed actions and our wire
form, function calls, browser-use dicts, pyautogui code), a list of them in order."""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from pytest_cua.actions import ACTION_TYPES, Action, ActionError, Point
from pytest_cua.agents.action_parser.arguments import MAX_ACTIONS, MAX_OUTPUT_CHARS, checked_sizes
from pytest_cua.agents.action_parser.calls import parse_browser_use, parse_function_call
from pytest_cua.agents.action_parser.pyautogui_code import parse_pyautogui


def parse_actions(output: Any, *, pointer: Point | None = None) -> list[Action]:
    """Parse one agent output into a list of actions.

    ``pointer`` is where the mouse is (for ``pyautogui.dragTo`` without a preceding ``moveTo``).
    Raises ``ActionError`` with a message fit to show to the agent.
    """
    actions = _parse_any(output, pointer, depth=0)
    if not actions:
        raise ActionError("no action found in the output; reply with at least one action")
    if len(actions) > MAX_ACTIONS:
        raise ActionError(f"too many actions in one output ({len(actions)}); at most {MAX_ACTIONS}")
    return actions


def _parse_any(output: Any, pointer: Point | None, depth: int) -> list[Action]:
    if depth > 4:
        raise ActionError("actions are nested too deeply")
    if isinstance(output, Action):
        return [output]
    if isinstance(output, str):
        return _parse_text(output, pointer, depth)
    if isinstance(output, Mapping):
        return _parse_mapping(output, pointer, depth)
    if isinstance(output, (list, tuple)):
        if len(output) > MAX_ACTIONS:
            raise ActionError(f"too many actions in one output ({len(output)}); at most {MAX_ACTIONS}")
        out: list[Action] = []
        for i, item in enumerate(output):
            try:
                out.extend(_parse_any(item, pointer, depth + 1))
            except ActionError as exc:
                raise ActionError(f"action #{i + 1}: {exc}") from None
        return out
    raise ActionError(f"cannot read an action from a {type(output).__name__}")


_FENCE = re.compile(r"```[A-Za-z0-9_+-]*\s*\n?(.*?)```", re.S)


def _parse_text(text: str, pointer: Point | None, depth: int) -> list[Action]:
    if len(text) > MAX_OUTPUT_CHARS:
        raise ActionError(f"the output is too long ({len(text)} characters; at most {MAX_OUTPUT_CHARS})")
    fenced = _FENCE.findall(text)
    if fenced:
        text = "\n".join(fenced)
    stripped = text.strip()
    if not stripped:
        raise ActionError("the output is empty; reply with at least one action")
    if stripped[0] in "{[":
        try:
            data = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as exc:
            msg = getattr(exc, "msg", "too deeply nested")
            raise ActionError(f"the output looks like JSON but is not valid JSON: {msg}") from None
        return _parse_any(data, pointer, depth + 1)
    return parse_pyautogui(stripped, pointer=pointer)


def _parse_mapping(data: Mapping[str, Any], pointer: Point | None, depth: int) -> list[Action]:
    kind = data.get("type")
    if "function" in data and isinstance(data.get("function"), Mapping):  # OpenAI tool_calls entry
        return [parse_function_call(data["function"])]
    if kind == "tool_use" or ("name" in data and ("arguments" in data or "input" in data or "args" in data
                                                  or "parameters" in data or set(data) == {"name"})):
        return [parse_function_call(data)]
    if isinstance(kind, str) and kind in ACTION_TYPES:
        return [Action.from_dict(checked_sizes(data))]
    for key in ("action", "actions", "tool_calls"):
        if key in data and isinstance(data[key], (list, Mapping)):
            return _parse_any(data[key], pointer, depth + 1)
    if len(data) == 1:
        return [parse_browser_use(data)]
    if kind is not None:
        raise ActionError(f"unknown action type {kind!r}; known types: {', '.join(sorted(ACTION_TYPES))}")
    raise ActionError("cannot read an action from this object: expected {\"type\": ...}, "
                      "{\"name\": ..., \"arguments\": {...}} or a single-key browser action like "
                      "{\"click_element\": {\"index\": 3}}")
