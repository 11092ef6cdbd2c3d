"""Turn an agent's raw output into typed actions (``pytest_cua.actions``). Nothing here executes anything.

Accepted formats (``parse_actions`` picks the right one):

* typed actions and our own wire form: ``{"type": "click", "target": "e3"}``;
* function calls, OpenAI / Anthropic tool-call style: ``{"name": "click", "arguments": {"element_id": "e3"}}``
  (``arguments`` may be a JSON string; ``input``/``args``/``parameters`` are accepted too), OpenAI's
  ``{"type": "function", "function": {...}}`` wrapper, Anthropic's ``{"type": "tool_use", ...}`` blocks and the
  computer-use tool (``{"name": "computer", "input": {"action": "left_click", "coordinate": [x, y]}}``);
  a list of any of these;
* browser-use style action dicts: ``{"click_element": {"index": 5}}``, ``{"input_text": {"index": 3,
  "text": "x"}}``, ``{"go_to_url": {"url": ...}}``, ``{"done": {"text": ...}}``; also wrapped as
  ``{"action": [...]}``;
* pyautogui-style call strings (``pyautogui.click(100, 200)``, ``pyautogui.write('abc')``,
  ``pyautogui.hotkey('ctrl', 's')`` ...) and the pseudo-calls ``DONE``, ``FAIL``, ``WAIT`` (bare or called).
  Strings are parsed with ``ast.parse``; only whitelisted calls with literal arguments
  (``ast.literal_eval`` on each argument node) are accepted. Anything else is an ``ActionError``.

JSON text (optionally inside a Markdown code fence) is decoded first. Every error is an ``ActionError`` whose
message can be shown to the agent as-is.

Modules:

* ``output``: ``parse_actions``, an agent's whole output (JSON or text, one action or a list);
* ``calls``: named actions with arguments, ``parse_function_call`` and ``parse_browser_use``;
* ``pyautogui_code``: ``parse_pyautogui``, pyautogui-style call strings read with ``ast``, never run;
* ``arguments``: the limits (``MAX_OUTPUT_CHARS`` ...) and the readers of the values inside an action.

May import the core modules (``pytest_cua.actions``) only.
"""

from __future__ import annotations

from pytest_cua.agents.action_parser.arguments import (DEFAULT_SCROLL_PX, MAX_ACTIONS, MAX_COORDINATE, MAX_OUTPUT_CHARS,
                                                       MAX_TEXT_CHARS, SCROLL_CLICK_PX, normalize_element_id)
from pytest_cua.agents.action_parser.calls import parse_browser_use, parse_function_call
from pytest_cua.agents.action_parser.output import parse_actions
from pytest_cua.agents.action_parser.pyautogui_code import parse_pyautogui

__all__ = ["parse_actions", "parse_function_call", "parse_browser_use", "parse_pyautogui", "normalize_element_id",
           "MAX_OUTPUT_CHARS", "MAX_TEXT_CHARS", "MAX_ACTIONS", "MAX_COORDINATE", "SCROLL_CLICK_PX",
           "DEFAULT_SCROLL_PX"]
