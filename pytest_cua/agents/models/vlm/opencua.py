"""OpenCUA: its prompt, and its replies ``## Thought:`` / ``## Action:`` / ``## Code:`` whose ```python block of
pyautogui calls (or ``computer.triple_click`` / ``computer.wait`` / ``computer.terminate`` / ``computer.call_user``)
is read with ``ast`` through the whitelisted ``pytest_cua.agents.action_parser.parse_pyautogui``.

OpenCUA-7B/32B (Qwen2.5-VL based) answer in pixels of the smart-resized image (factor 28, 3136 to 12845056
pixels); a point whose numbers both lie within 0-1 and are not both whole is read as fractions of the screen,
as the reference agent does. Qwen2-VL and Kimi-VL based OpenCUA models (``opencua-relative``): fractions 0-1.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Mapping

from pytest_cua.actions import (Action, ActionError, Answer, Ask, Done, Fail, Hotkey, Point, Press,
                                TripleClick)
from pytest_cua.agents.action_parser import parse_pyautogui
from pytest_cua.agents.models.coords import CoordSpace, relative_space
from pytest_cua.agents.models.vlm.arguments import key_combo, key_name, read_number, read_text, read_wait, screen_point
from pytest_cua.agents.models.vlm.grammar import (ASK_DEFAULT, QWEN_PROCESSOR_MAX_PIXELS, QWEN_PROCESSOR_MIN_PIXELS,
                                                  WAIT_SECONDS, ParsedTurn, answer_space, check_coordinates,
                                                  checked_reply, last_point, parsed_turn, quoted)

OPENCUA_PROMPT_VERSION = "1"

_OPENCUA_PROMPT = """You are a GUI agent. You are given a task and a screenshot of the screen, and you carry \
the task out step by step with pyautogui actions.

Reply to each step in this format:

## Thought:
  - Progress: what is done, what went wrong, how to recover from a wrong step
  - Next action: the options, the best one and what it will change
  - For typing: where the cursor is, how many key presses, the text expected
  - Reason in the first person, in {language}
## Action:
  The next action as one clear instruction: name the target element (in its own language) or describe its \
shape, colour and place, never its coordinates; for keyboard actions give the number of presses and the \
resulting text
## Code:
```python
the action as pyautogui code, or one of the functions below
```

Besides pyautogui you can call these functions:
{functions}

# Task Instruction:
{instruction}
"""


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> str:
    return "- " + json.dumps({"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required}}, ensure_ascii=False)


_OPENCUA_FUNCTIONS = (
    _function("computer.triple_click", "Triple-click at a point of the screen",
              {"x": {"type": "number", "description": "x of the point"},
               "y": {"type": "number", "description": "y of the point"}}, ["x", "y"]),
    _function("computer.wait", "Wait a few seconds for the screen to change", {}, []),
    _function("computer.terminate", "End the task and report whether it succeeded",
              {"status": {"type": "string", "enum": ["success", "failure"], "description": "How the task ended"},
               "answer": {"type": "string", "description": "The answer, when the task asks a question"}},
              ["status"]),
)
_OPENCUA_CALL_USER = _function(
    "computer.call_user", "Ask the user for help when the task cannot be done, or needs something only the "
    "user knows", {"question": {"type": "string", "description": "What you need from the user"}}, ["question"])

_SECTION = re.compile(r"^[ \t]*(?P<hashes>#{1,3})?[ \t]*(?P<name>observation|thought|action|code)\b[ \t]*"
                      r"(?P<colon>:)?[ \t]*(?P<rest>.*)$", re.I)
_STEP_HEADING = re.compile(r"^[ \t]*#[ \t]*step\b", re.I)
_FENCED = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
_LINE_PREFIX = re.compile(r"^line \d+: ")
_PYAUTOGUI_RENAMES = {
    "write": {"text": "message", "content": "message"},
    "typewrite": {"text": "message", "content": "message"},
    "press": {"key": "keys", "button": "keys"},
}
_OPENCUA_EXAMPLE = "## Code:\n```python\npyautogui.click(x=100, y=200)\n```"


def _opencua_sections(text: str) -> dict[str, str]:
    """The ``## Observation`` / ``## Thought`` / ``## Action`` / ``## Code`` sections (headings inside code
    fences do not count; a ``# Step N`` heading ends a section)."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence:
            head = _SECTION.match(line)
            if head and (head.group("hashes") or head.group("colon")):
                current = head.group("name").lower()
                sections[current] = [head.group("rest")]
                continue
            if _STEP_HEADING.match(line):
                current = None
                continue
        if current is not None:
            sections[current].append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def _opencua_code(body: str, sections: Mapping[str, str]) -> str:
    """The last fenced code block, else the ``## Code`` section."""
    blocks = _FENCED.findall(body)
    if blocks:
        return str(blocks[-1])
    if sections.get("code"):
        return sections["code"]
    raise ActionError("no code in the reply; end it with '## Code:' and a ```python block holding pyautogui "
                      "code or a computer.* call")


def _literal(node: ast.expr, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ActionError(f"{what}: arguments must be plain literals, not {quoted(ast.unparse(node))}") from None


def _fix_pyautogui_arguments(stmt: ast.stmt) -> ast.stmt:
    """Rename the keywords OpenCUA writes for pyautogui's (``write(text=)``, ``press(key=)``,
    ``hotkey(keys=[...])``) so the whitelisted parser reads them. Only the syntax tree changes."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "pyautogui"):
        return stmt
    renames = _PYAUTOGUI_RENAMES.get(call.func.attr, {})
    kept: list[ast.keyword] = []
    for kw in call.keywords:
        if call.func.attr == "hotkey" and kw.arg == "keys" and isinstance(kw.value, (ast.List, ast.Tuple)):
            call.args.extend(kw.value.elts)
        elif call.func.attr == "hotkey" and kw.arg and re.fullmatch(r"key\d*", kw.arg):
            call.args.append(kw.value)
        else:
            kw.arg = renames.get(kw.arg or "", kw.arg)
            kept.append(kw)
    call.keywords = kept
    return stmt


def _pyautogui_statement(stmt: ast.stmt, pointer: Point | None) -> list[Action]:
    """One statement of pyautogui code through the whitelisted parser (points stay in the model's space)."""
    try:
        return parse_pyautogui(ast.unparse(_fix_pyautogui_arguments(stmt)), pointer=pointer)
    except ActionError as exc:
        raise ActionError(f"line {stmt.lineno}: {_LINE_PREFIX.sub('', str(exc))}") from None


def _computer_call(stmt: ast.stmt) -> tuple[str, ast.Call] | None:
    """``(name, call)`` for a statement ``computer.name(...)``."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "computer"):
        return call.func.attr, call
    return None


def _normalised(action: Action, to_screen: Callable[[Point], Point]) -> Action:
    """``action`` with its points mapped by ``to_screen`` and its keys in our spelling."""
    changes: dict[str, Any] = {f.name: to_screen(v) for f in fields(action)
                               if isinstance(v := getattr(action, f.name), Point)}
    if isinstance(action, Press):
        changes["key"] = key_name(action.key)
    elif isinstance(action, Hotkey):
        changes["keys"] = key_combo(action.keys)
    return replace(action, **changes) if changes else action


def _looks_relative(point: Point) -> bool:
    """Both numbers within 0-1 and not both whole: fractions, not pixels."""
    return (0 <= point.x <= 1 and 0 <= point.y <= 1
            and not (float(point.x).is_integer() and float(point.y).is_integer()))


@dataclass(frozen=True)
class OpenCUAGrammar:
    """OpenCUA: ``## Thought:``, ``## Action:`` and ``## Code:`` with a ```python block of pyautogui calls or
    ``computer.triple_click`` / ``computer.wait`` / ``computer.terminate`` (and ``computer.call_user``)."""

    name: str = "opencua"
    coordinates: str = "smart_resize"
    """``smart_resize`` (OpenCUA-7B/32B, Qwen2.5-VL based) or ``relative`` (Qwen2-VL / Kimi-VL based models)."""
    prompt_version: str = OPENCUA_PROMPT_VERSION
    min_pixels: int = QWEN_PROCESSOR_MIN_PIXELS
    max_pixels: int = QWEN_PROCESSOR_MAX_PIXELS

    def __post_init__(self) -> None:
        check_coordinates(self.coordinates, ("smart_resize", "relative"))

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        return answer_space(screen, self.coordinates, min_pixels=self.min_pixels, max_pixels=self.max_pixels)

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        functions = _OPENCUA_FUNCTIONS + ((_OPENCUA_CALL_USER,) if ask else ())
        return _OPENCUA_PROMPT.format(functions="\n".join(functions), language=language, instruction=instruction)

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        body = checked_reply(text)
        sections = _opencua_sections(body)
        thought = sections.get("thought", "")
        actions = self._code_actions(_opencua_code(body, sections), thought, space, pointer)
        return parsed_turn(actions, thought, text, _OPENCUA_EXAMPLE)

    def _code_actions(self, code: str, thought: str, space: CoordSpace, pointer: Point | None) -> list[Action]:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None) or 1
            lines = code.splitlines() or [""]
            raise ActionError(f"the code does not parse as Python (line {line}): "
                              f"{quoted(lines[min(line, len(lines)) - 1])}; write calls like "
                              "pyautogui.click(x=100, y=200)") from None
        to_screen = self._to_screen(space)
        here = Point(*space.from_screen(pointer.x, pointer.y)) if pointer else None
        actions: list[Action] = []
        for stmt in tree.body:
            computer = _computer_call(stmt)
            produced = (self._computer(*computer, thought, stmt.lineno) if computer
                        else _pyautogui_statement(stmt, here))
            here = last_point(produced) or here
            actions.extend(_normalised(a, to_screen) for a in produced)
        return actions

    def _to_screen(self, space: CoordSpace) -> Callable[[Point], Point]:
        fractions = relative_space((space.screen_width, space.screen_height))

        def convert(point: Point) -> Point:
            use = fractions if space.kind == "smart_resize" and _looks_relative(point) else space
            return screen_point(use, point.x, point.y)
        return convert

    def _computer(self, name: str, call: ast.Call, thought: str, line: int) -> list[Action]:
        what = f"line {line}: computer.{name}"
        args = [_literal(a, what) for a in call.args]
        kwargs = {kw.arg: _literal(kw.value, what) for kw in call.keywords if kw.arg}

        def arg(pos: int, key: str, default: Any = ...) -> Any:
            if len(args) > pos:
                return args[pos]
            if key in kwargs:
                return kwargs[key]
            if default is ...:
                raise ActionError(f"{what}: missing {key!r}")
            return default

        if name == "triple_click":
            point = Point(read_number(arg(0, "x"), f"{what} x"), read_number(arg(1, "y"), f"{what} y"))
            return [TripleClick(point)]
        if name == "wait":
            return [read_wait(arg(0, "seconds", WAIT_SECONDS), f"{what} seconds")]
        if name == "terminate":
            return [self._terminate(arg(0, "status", "success"), kwargs.get("answer"), thought, what)]
        if name == "terminateWithText":
            return [self._terminate(kwargs.get("status", "success"), arg(0, "text"), thought, what)]
        if name in ("call_user", "ask_user"):
            question = arg(0, "question", None) or thought or ASK_DEFAULT
            return [Ask(read_text(question, f"{what} question"))]
        raise ActionError(f"{what} is not a known function; known: computer.triple_click, computer.wait, "
                          "computer.terminate, computer.call_user")

    @staticmethod
    def _terminate(status: Any, answer: Any, thought: str, what: str) -> Action:
        state = str(status).strip().lower()
        if answer is not None:
            answer = read_text(answer, f"{what} answer").strip()
        if state == "success":
            return Answer(answer) if answer else Done()
        if state in ("failure", "fail"):
            return Fail(answer or thought or "the model reported that the task failed")
        raise ActionError(f"{what}: 'status' must be 'success' or 'failure', got {quoted(str(status))}")

    def history_entry(self, turn: ParsedTurn) -> str:
        """``## Thought:`` and ``## Action:`` of the reply (the code is left out, as OpenCUA's history is)."""
        action = _opencua_sections(turn.raw).get("action") or "; ".join(a.describe() for a in turn.actions)
        thought = f"## Thought:\n{turn.thought}\n\n" if turn.thought else ""
        return f"{thought}## Action:\n{action}\n"
