"""Text grammars of open VLM agents served on an OpenAI-compatible endpoint (vLLM): UI-TARS, OpenCUA, Qwen2.5-VL.

A grammar knows how the model's authors prompt it, which image size to send and in which coordinate space the
model answers; it turns the model's text into our typed actions with their points mapped to screen pixels.
Nothing the model writes is executed: UI-TARS calls are read with regular expressions, OpenCUA's code with
``ast`` (through ``pytest_cua.agents.action_parser.parse_pyautogui``), Qwen's tool calls with ``json``. Text that does not
parse raises ``ActionError`` with a message meant for the model.

What the model's numbers mean:

* UI-TARS-1.5: pixels of the smart-resized image (factor 28, 100*28*28 to 16384*28*28 pixels); UI-TARS-1.0
  (``ui-tars-1.0``): thousandths 0-1000 of the image;
* OpenCUA-7B/32B (Qwen2.5-VL based): pixels of the smart-resized image (factor 28, 3136 to 12845056 pixels); a
  point whose numbers both lie within 0-1 and are not both whole is read as fractions of the screen, as the
  reference agent does. Qwen2-VL and Kimi-VL based OpenCUA models (``opencua-relative``): fractions 0-1;
* Qwen2.5-VL: pixels of the smart-resized image (factor 28, 3136 to 12845056 pixels), whose size the system
  prompt declares as the screen's resolution.

Keys come out in pyautogui's spelling (``enter``, ``ctrl``, ``left``, ``a``), as ``action_parser`` passes them on;
the browser and desktop environments both map these names to their own.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Mapping, Protocol, Sequence

from pytest_cua.agents.action_parser import (
    MAX_ACTIONS,
    MAX_COORDINATE,
    MAX_OUTPUT_CHARS,
    MAX_TEXT_CHARS,
    SCROLL_CLICK_PX,
    parse_pyautogui,
)
from pytest_cua.actions import (
    Action,
    ActionError,
    Answer,
    Ask,
    Click,
    Done,
    DoubleClick,
    Drag,
    Fail,
    Hotkey,
    Move,
    Point,
    Press,
    RightClick,
    Scroll,
    Type,
    Wait,
)
from pytest_cua.agents.models.coords import (
    QWEN_MAX_PIXELS,
    QWEN_MIN_PIXELS,
    CoordSpace,
    relative1000_space,
    relative_space,
    smart_resize_space,
)

UITARS_PROMPT_VERSION = "1"
OPENCUA_PROMPT_VERSION = "1"
QWEN_PROMPT_VERSION = "1"

UITARS_MIN_PIXELS = QWEN_MIN_PIXELS
"""UI-TARS-1.5's image bounds (100 to 16384 patches of 28 x 28), as SCUBA's UI-TARS agent sets them."""
UITARS_MAX_PIXELS = QWEN_MAX_PIXELS
QWEN_PROCESSOR_MIN_PIXELS = 4 * 28 * 28
"""The Qwen2.5-VL processor's own bounds (3136 to 12845056 pixels), used by Qwen2.5-VL and OpenCUA-7B."""
QWEN_PROCESSOR_MAX_PIXELS = 16384 * 28 * 28

WAIT_SECONDS = 5.0
"""How long UI-TARS' ``wait()`` and OpenCUA's ``computer.wait()`` wait (UI-TARS' prompt says 5 s)."""
UITARS_SCROLL_PX = 5 * SCROLL_CLICK_PX
"""One UI-TARS scroll: 5 wheel clicks (what SCUBA's agent sends to pyautogui) of ``SCROLL_CLICK_PX`` pixels."""
MAX_WAIT_SECONDS = 300.0

_ASK_DEFAULT = "The agent asks for your help (it gave no reason)."


# --- the common interface ------------------------------------------------------------------------------------

@dataclass
class ParsedTurn:
    """One reply of the model: its actions (points in screen pixels), its reasoning and the text as received."""

    actions: list[Action]
    thought: str
    raw: str


class Grammar(Protocol):
    """How to prompt one family of models and read its replies."""

    @property
    def name(self) -> str: ...

    @property
    def prompt_version(self) -> str: ...

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        """The model's coordinate space over ``screen``; its ``width`` x ``height`` is the image size to send."""
        ...

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        """The model's own prompt with the task; ``ask`` offers the ask-the-user action. ``screen`` is the
        screen's size, for grammars whose prompt declares the image size (Qwen2.5-VL needs it)."""
        ...

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        """The reply as typed actions; ``pointer`` is where the mouse is (screen pixels), for actions at the
        pointer. Raises ``ActionError`` with a message for the model."""
        ...

    def history_entry(self, turn: ParsedTurn) -> str:
        """The text kept for an old turn in the prompt."""
        ...


# --- shared helpers ------------------------------------------------------------------------------------------

def _quote(fragment: str, limit: int = 60) -> str:
    """A short, quoted form of an offending fragment, for error messages."""
    text = fragment.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _checked(text: Any) -> str:
    """The reply, if it is non-empty text of a sane length."""
    if not isinstance(text, str):
        raise ActionError(f"the reply must be text, got {type(text).__name__}")
    if len(text) > MAX_OUTPUT_CHARS:
        raise ActionError(f"the reply is too long ({len(text)} characters; at most {MAX_OUTPUT_CHARS})")
    if not text.strip():
        raise ActionError("the reply is empty; answer with your reasoning and one action")
    return text


def _turn(actions: list[Action], thought: str, raw: str, example: str) -> ParsedTurn:
    if not actions:
        raise ActionError(f"no action found in the reply; give one, e.g. {example}")
    if len(actions) > MAX_ACTIONS:
        raise ActionError(f"too many actions in one reply ({len(actions)}); at most {MAX_ACTIONS}")
    return ParsedTurn(actions, thought, raw)


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"{what} must be a number, got {_quote(repr(value))}")
    if not math.isfinite(value) or abs(value) > MAX_COORDINATE:
        raise ActionError(f"{what} is out of range: {_quote(repr(value))}")
    return float(value)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ActionError(f"{what} must be a string, got {_quote(repr(value))}")
    if len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"{what} is too long ({len(value)} characters; at most {MAX_TEXT_CHARS})")
    return value


def _wait(seconds: Any, what: str) -> Wait:
    value = _number(seconds, what)
    if not 0 <= value <= MAX_WAIT_SECONDS:
        raise ActionError(f"{what} must be between 0 and {MAX_WAIT_SECONDS:g} seconds, got {value:g}")
    return Wait(value)


def _screen_point(space: CoordSpace, x: float, y: float) -> Point:
    sx, sy = space.to_screen(x, y)
    return Point(sx, sy)


def _strip_label(text: str, label: str) -> str:
    """``text`` without a leading ``Label:``."""
    return re.sub(rf"^\s*{label}\s*:\s*", "", text, flags=re.I).strip()


def _last_point(actions: Sequence[Action]) -> Point | None:
    """Where the pointer is after ``actions``: the last point any of them names."""
    for action in reversed(actions):
        points = [v for f in fields(action) if isinstance(v := getattr(action, f.name), Point)]
        if points:
            return points[-1]
    return None


_KEY_ALIASES = {
    "return": "enter", "control": "ctrl", "escape": "esc", "arrowleft": "left", "arrowright": "right",
    "arrowup": "up", "arrowdown": "down", "page_up": "pageup", "page_down": "pagedown", "spacebar": "space",
    "del": "delete",
}


def key_name(raw: str) -> str:
    """A key in pyautogui's spelling: multi-letter names in lower case with common aliases folded
    (``Return`` -> ``enter``, ``ArrowLeft`` -> ``left``), single characters kept as they are."""
    if raw == " ":
        return "space"
    key = raw.strip()
    if not key or len(key) > 24 or re.search(r"\s", key):
        raise ActionError(f"not a key name: {_quote(raw)}")
    if len(key) == 1:
        return key
    return _KEY_ALIASES.get(key.lower(), key.lower())


def _combo(keys: Sequence[str]) -> tuple[str, ...]:
    """Keys pressed together, letters in lower case (``ctrl C`` is ``ctrl c``)."""
    return tuple(key_name(k).lower() for k in keys)


def _key_action(keys: Sequence[str]) -> Action:
    return Press(key_name(keys[0])) if len(keys) == 1 else Hotkey(_combo(keys))


def _normalised(action: Action, to_screen: Callable[[Point], Point]) -> Action:
    """``action`` with its points mapped by ``to_screen`` and its keys in our spelling."""
    changes: dict[str, Any] = {f.name: to_screen(v) for f in fields(action)
                               if isinstance(v := getattr(action, f.name), Point)}
    if isinstance(action, Press):
        changes["key"] = key_name(action.key)
    elif isinstance(action, Hotkey):
        changes["keys"] = _combo(action.keys)
    return replace(action, **changes) if changes else action


def _check_coordinates(kind: str, allowed: Sequence[str]) -> None:
    if kind not in allowed:
        raise ValueError(f"unknown coordinates {kind!r}; known: {', '.join(allowed)}")


# --- UI-TARS -------------------------------------------------------------------------------------------------

_UITARS_PROMPT = """You are a GUI agent. You get a task, the history of your actions and screenshots of the \
screen; reply with the next action that brings the task closer to done.

## Output Format
```
Thought: ...
Action: ...
```

## Action Space
{actions}

## Note
- Write the `Thought` part in {language}.
- In `Thought`, make a short plan, then sum up the next action and its target element in one sentence.

## User Instruction
{instruction}
"""

_UITARS_ACTION_SPACE = (
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "left_double(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "right_single(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')",
    "hotkey(key='ctrl c') # keys in lower case, separated by spaces",
    "type(content='xxx') # escape \\', \\\" and \\n inside content; end content with \\n to submit the input",
    "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')",
    "wait() # sleep 5 s, then look at a new screenshot",
    "finished(content='xxx') # the task is done; put the answer in content when the task asks for one, "
    "escaped as in type",
)
_UITARS_CALL_USER = ("call_user() # stop and ask the user for help when the task cannot be done, or needs "
                     "something only the user knows; say what you need in Thought")

_UITARS_ACTION_LINE = re.compile(r"^[ \t]*Action[ \t]*:", re.M)
_UITARS_CALL = re.compile(r"\s*([A-Za-z_]\w*)\s*\((.*)\)\s*", re.S)
_UITARS_KWARG = re.compile(r"[\s,]*(\w+)\s*=\s*(['\"])")
_UITARS_ESCAPE = re.compile(r"\\(['\"\\nt])")
_BOX_MARKUP = re.compile(r"<\|box_start\|>|<\|box_end\|>|</?point>|</?bbox>")
_BOX_SEPARATORS = re.compile(r"[\s,()\[\]]+")
_BARE_BOX = re.compile(r"\b(start_box|end_box)='(\([^')]*\))'")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_SCROLL_VECTORS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
_UITARS_EXAMPLE = "Action: click(start_box='(100,200)')"


def _closing_quote(text: str, start: int, quote: str) -> int:
    """Index of the first ``quote`` at or after ``start`` not escaped by a backslash (-1 if none)."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i
        else:
            i += 1
    return -1


def _uitars_kwargs(args: str, action: str) -> dict[str, str]:
    """``name='value'`` pairs of one call. ``content`` runs to the last quote: it is the last argument, and
    models leave quotes in it unescaped."""
    out: dict[str, str] = {}
    pos = 0
    while args[pos:].strip(" \t\r\n,"):
        found = _UITARS_KWARG.match(args, pos)
        if found is None:
            raise ActionError(f"{action}: cannot read the arguments at {_quote(args[pos:])}; "
                              "write them as name='value'")
        name, quote, start = found.group(1), found.group(2), found.end()
        end = args.rfind(quote) if name == "content" else _closing_quote(args, start, quote)
        if end < start:
            raise ActionError(f"{action}: the value of {name!r} has no closing quote: "
                              f"{_quote(args[found.start():])}")
        out[name] = args[start:end]
        pos = end + 1
    return out


def _uitars_point(value: str, what: str, space: CoordSpace) -> Point:
    """A point written ``(x,y)``, ``<|box_start|>(x,y)<|box_end|>``, ``<point>x y</point>`` or as a box
    ``(x1,y1,x2,y2)`` (its centre), mapped to the screen."""
    parts = [p for p in _BOX_SEPARATORS.split(_BOX_MARKUP.sub(" ", value)) if p]
    if len(parts) not in (2, 4) or not all(_NUMBER.fullmatch(p) for p in parts):
        raise ActionError(f"{what}: cannot read the point {_quote(value)}; write it as '(x,y)'")
    nums = [_number(float(p), what) for p in parts]
    if len(nums) == 4:
        return _screen_point(space, (nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2)
    return _screen_point(space, nums[0], nums[1])


@dataclass
class _UITarsCall:
    """One parsed UI-TARS call and what its builder needs."""

    name: str
    args: dict[str, str]
    thought: str
    space: CoordSpace

    def point(self, *keys: str) -> Point | None:
        for key in keys:
            if self.args.get(key, "").strip():
                return _uitars_point(self.args[key], f"{self.name} {key}", self.space)
        return None

    def required_point(self, *keys: str) -> Point:
        found = self.point(*keys)
        if found is None:
            raise ActionError(f"{self.name}: missing {keys[0]!r}; write e.g. {self.name}({keys[0]}='(100,200)')")
        return found

    def content(self) -> str:
        raw = self.args.get("content", "")
        text = _UITARS_ESCAPE.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), raw)
        return _text(text, f"{self.name} content")


def _ut_at(kind: Callable[[Point], Action]) -> Callable[[_UITarsCall], list[Action]]:
    return lambda c: [kind(c.required_point("start_box", "point", "start_point"))]


def _ut_drag(c: _UITarsCall) -> list[Action]:
    return [Drag(c.required_point("start_box", "start_point"), c.required_point("end_box", "end_point"))]


def _ut_keys(c: _UITarsCall) -> list[Action]:
    raw = c.args.get("key", c.args.get("hotkey", ""))
    keys = [k for k in re.split(r"\s+|(?<=\S)\+(?=\S)", raw.strip()) if k]
    if not keys:
        raise ActionError(f"{c.name}: no key given; write e.g. hotkey(key='ctrl c')")
    return [_key_action(keys)]


def _ut_type(c: _UITarsCall) -> list[Action]:
    text = c.content()
    if not text:
        raise ActionError("type: 'content' is empty; write the text to type, e.g. type(content='hello')")
    body = text.rstrip("\n")
    actions: list[Action] = [Type(body)] if body else []
    if body != text:
        actions.append(Press("enter"))
    return actions


def _ut_scroll(c: _UITarsCall) -> list[Action]:
    direction = c.args.get("direction", "").strip().lower()
    if direction not in _SCROLL_VECTORS:
        raise ActionError(f"scroll: 'direction' must be up, down, left or right, got {_quote(direction)}")
    ux, uy = _SCROLL_VECTORS[direction]
    return [Scroll(dx=ux * UITARS_SCROLL_PX, dy=uy * UITARS_SCROLL_PX, target=c.point("start_box", "point"))]


def _ut_finished(c: _UITarsCall) -> list[Action]:
    answer = c.content().strip()
    return [Answer(answer)] if answer else [Done()]


_UITARS_BUILDERS: dict[str, Callable[[_UITarsCall], list[Action]]] = {
    "click": _ut_at(Click),
    "left_single": _ut_at(Click),
    "left_double": _ut_at(DoubleClick),
    "right_single": _ut_at(RightClick),
    "hover": _ut_at(Move),
    "drag": _ut_drag,
    "select": _ut_drag,
    "hotkey": _ut_keys,
    "press": _ut_keys,
    "type": _ut_type,
    "scroll": _ut_scroll,
    "wait": lambda c: [Wait(WAIT_SECONDS)],
    "finished": _ut_finished,
    "call_user": lambda c: [Ask(c.thought or _ASK_DEFAULT)],
}
_UITARS_SPLIT = re.compile(r"\n\s*(?=(?:" + "|".join(_UITARS_BUILDERS) + r")\s*\()")


@dataclass(frozen=True)
class UITarsGrammar:
    """UI-TARS: ``Thought: ...`` then ``Action: click(start_box='(x,y)')``; several actions on separate lines
    (blank lines between them, as the model writes them)."""

    name: str = "ui-tars-1.5"
    coordinates: str = "smart_resize"
    """``smart_resize`` (UI-TARS-1.5: pixels of the resized image) or ``relative1000`` (UI-TARS-1.0)."""
    prompt_version: str = UITARS_PROMPT_VERSION
    min_pixels: int = UITARS_MIN_PIXELS
    max_pixels: int = UITARS_MAX_PIXELS

    def __post_init__(self) -> None:
        _check_coordinates(self.coordinates, ("smart_resize", "relative1000"))

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        space = smart_resize_space(screen, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        if self.coordinates == "relative1000":
            return relative1000_space(screen, image=(space.width, space.height))
        return space

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        actions = _UITARS_ACTION_SPACE + ((_UITARS_CALL_USER,) if ask else ())
        return _UITARS_PROMPT.format(actions="\n".join(actions), language=language, instruction=instruction)

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        """UI-TARS actions always name their points, so ``pointer`` is not needed."""
        body = _checked(text)
        found = _UITARS_ACTION_LINE.search(body)
        if found is None:
            raise ActionError("no 'Action:' line in the reply; write 'Thought: ...' and then an action, "
                              f"e.g. {_UITARS_EXAMPLE}")
        thought = _strip_label(body[: found.start()], "Thought")
        actions: list[Action] = []
        for call in _UITARS_SPLIT.split(body[found.end():].strip()):
            if call.strip():
                actions.extend(self._action(call, thought, space))
        return _turn(actions, thought, text, _UITARS_EXAMPLE)

    def _action(self, call: str, thought: str, space: CoordSpace) -> list[Action]:
        found = _UITARS_CALL.fullmatch(call)
        if found is None:
            raise ActionError(f"cannot read the action {_quote(call)}; write a call like "
                              "click(start_box='(100,200)')")
        name = found.group(1)
        builder = _UITARS_BUILDERS.get(name)
        if builder is None:
            raise ActionError(f"unknown action {name[:40]!r} in {_quote(call)}; known: "
                              f"{', '.join(sorted(_UITARS_BUILDERS))}")
        return builder(_UITarsCall(name, _uitars_kwargs(found.group(2), name), thought, space))

    def history_entry(self, turn: ParsedTurn) -> str:
        """``Thought: ...`` and the action as written, its bare points wrapped in the box tokens the model
        emits (vLLM drops them from the reply as special tokens)."""
        found = _UITARS_ACTION_LINE.search(turn.raw)
        action = turn.raw[found.end():].strip() if found else ""
        action = _BARE_BOX.sub(lambda m: f"{m.group(1)}='<|box_start|>{m.group(2)}<|box_end|>'", action)
        return f"Thought: {turn.thought}\nAction: {action}" if turn.thought else f"Action: {action}"


# --- OpenCUA -------------------------------------------------------------------------------------------------

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
        raise ActionError(f"{what}: arguments must be plain literals, not {_quote(ast.unparse(node))}") from None


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
        _check_coordinates(self.coordinates, ("smart_resize", "relative"))

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        space = smart_resize_space(screen, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        if self.coordinates == "relative":
            return relative_space(screen, image=(space.width, space.height))
        return space

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        functions = _OPENCUA_FUNCTIONS + ((_OPENCUA_CALL_USER,) if ask else ())
        return _OPENCUA_PROMPT.format(functions="\n".join(functions), language=language, instruction=instruction)

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        body = _checked(text)
        sections = _opencua_sections(body)
        thought = sections.get("thought", "")
        actions = self._code_actions(_opencua_code(body, sections), thought, space, pointer)
        return _turn(actions, thought, text, _OPENCUA_EXAMPLE)

    def _code_actions(self, code: str, thought: str, space: CoordSpace, pointer: Point | None) -> list[Action]:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None) or 1
            lines = code.splitlines() or [""]
            raise ActionError(f"the code does not parse as Python (line {line}): "
                              f"{_quote(lines[min(line, len(lines)) - 1])}; write calls like "
                              "pyautogui.click(x=100, y=200)") from None
        to_screen = self._to_screen(space)
        here = Point(*space.from_screen(pointer.x, pointer.y)) if pointer else None
        actions: list[Action] = []
        for stmt in tree.body:
            computer = _computer_call(stmt)
            produced = (self._computer(*computer, thought, stmt.lineno) if computer
                        else _pyautogui_statement(stmt, here))
            here = _last_point(produced) or here
            actions.extend(_normalised(a, to_screen) for a in produced)
        return actions

    def _to_screen(self, space: CoordSpace) -> Callable[[Point], Point]:
        fractions = relative_space((space.screen_width, space.screen_height))

        def convert(point: Point) -> Point:
            use = fractions if space.kind == "smart_resize" and _looks_relative(point) else space
            return _screen_point(use, point.x, point.y)
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
            point = Point(_number(arg(0, "x"), f"{what} x"), _number(arg(1, "y"), f"{what} y"))
            return [DoubleClick(point), Click(point)]
        if name == "wait":
            return [_wait(arg(0, "seconds", WAIT_SECONDS), f"{what} seconds")]
        if name == "terminate":
            return [self._terminate(arg(0, "status", "success"), kwargs.get("answer"), thought, what)]
        if name == "terminateWithText":
            return [self._terminate(kwargs.get("status", "success"), arg(0, "text"), thought, what)]
        if name in ("call_user", "ask_user"):
            question = arg(0, "question", None) or thought or _ASK_DEFAULT
            return [Ask(_text(question, f"{what} question"))]
        raise ActionError(f"{what} is not a known function; known: computer.triple_click, computer.wait, "
                          "computer.terminate, computer.call_user")

    @staticmethod
    def _terminate(status: Any, answer: Any, thought: str, what: str) -> Action:
        state = str(status).strip().lower()
        if answer is not None:
            answer = _text(answer, f"{what} answer").strip()
        if state == "success":
            return Answer(answer) if answer else Done()
        if state in ("failure", "fail"):
            return Fail(answer or thought or "the model reported that the task failed")
        raise ActionError(f"{what}: 'status' must be 'success' or 'failure', got {_quote(str(status))}")

    def history_entry(self, turn: ParsedTurn) -> str:
        """``## Thought:`` and ``## Action:`` of the reply (the code is left out, as OpenCUA's history is)."""
        action = _opencua_sections(turn.raw).get("action") or "; ".join(a.describe() for a in turn.actions)
        thought = f"## Thought:\n{turn.thought}\n\n" if turn.thought else ""
        return f"{thought}## Action:\n{action}\n"


# --- Qwen2.5-VL ----------------------------------------------------------------------------------------------

_QWEN_PROMPT = """You are a helpful assistant.

# Tools

You can call functions to carry out the user's task.

The function signatures are inside <tools></tools> XML tags:
<tools>
{tool}
</tools>

For each function call, return a JSON object with the function name and its arguments inside \
<tool_call></tool_call> XML tags:
<tool_call>
{{"name": <function-name>, "arguments": <args-json-object>}}
</tool_call>

# Task
{instruction}

Look at the screenshot, say briefly (in {language}) what you will do next, then call computer_use. \
When the task is done, call terminate with status "success"; when the task asks for information, give it with \
the answer action instead (it ends the task). When the task cannot be done, call terminate with status \
"failure".{ask}"""
_QWEN_ASK = " When you need help or something only the user knows, call call_user with your question in text."

_QWEN_ACTIONS = (
    ("key", "press the keys in `keys` together (down in order, up in reverse order)"),
    ("type", "type the string `text`"),
    ("mouse_move", "move the pointer to `coordinate`"),
    ("left_click", "click the left button at `coordinate`"),
    ("left_click_drag", "press the left button where the pointer is and drag it to `coordinate`"),
    ("right_click", "click the right button at `coordinate`"),
    ("middle_click", "click the middle button at `coordinate`"),
    ("double_click", "double-click the left button at `coordinate`"),
    ("scroll", "turn the scroll wheel by `pixels` (positive scrolls up, negative down), at `coordinate` if given"),
    ("wait", "wait `time` seconds for the screen to change"),
    ("terminate", "end the task, reporting `status`"),
    ("answer", "answer the task's question with `text`; this ends the task"),
)
_QWEN_CALL_USER = ("call_user", "ask the user the question in `text` and wait for the reply")
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
_QWEN_EXAMPLE = ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
                 '"coordinate": [100, 200]}}</tool_call>')


def _qwen_tool(width: int, height: int, ask: bool) -> dict[str, Any]:
    """The ``computer_use`` function as Qwen2.5-VL knows it, for a screen of ``width`` x ``height``."""
    actions = _QWEN_ACTIONS + ((_QWEN_CALL_USER,) if ask else ())
    description = "\n".join(
        ["Use a mouse and keyboard to operate a computer, looking at screenshots.",
         "* This is a desktop GUI; start applications by clicking them.",
         "* Applications may take time to respond: wait and look at the next screenshot.",
         f"* The screen's resolution is {width}x{height}.",
         "* Work out coordinates from the screenshot, and click the centre of an element, not its edge."])
    return {"type": "function", "function": {
        "name_for_human": "computer_use", "name": "computer_use", "description": description,
        "parameters": {"type": "object", "required": ["action"], "properties": {
            "action": {"type": "string", "enum": [a for a, _ in actions], "description": "The action:\n"
                       + "\n".join(f"* `{a}`: {d}." for a, d in actions)},
            "keys": {"type": "array", "description": "Required only by `action=key`."},
            "text": {"type": "string", "description": "Required only by `action=type`, `action=answer`"
                     + (" and `action=call_user`." if ask else ".")},
            "coordinate": {"type": "array", "description": "(x, y): pixels from the left and from the top edge."},
            "pixels": {"type": "number", "description": "How far to scroll. Required only by `action=scroll`."},
            "time": {"type": "number", "description": "Seconds to wait. Required only by `action=wait`."},
            "status": {"type": "string", "enum": ["success", "failure"],
                       "description": "How the task ended. Required only by `action=terminate`."}}},
        "args_format": "The arguments are a JSON object."}}


def _qwen_arguments(block: str) -> dict[str, Any]:
    """The arguments of one ``computer_use`` call."""
    try:
        call = json.loads(block.strip())
    except (json.JSONDecodeError, RecursionError):
        raise ActionError(f"the tool call is not valid JSON: {_quote(block)}") from None
    if not isinstance(call, dict):
        raise ActionError(f"the tool call must be a JSON object, got {_quote(block)}")
    if call.get("name") != "computer_use":
        raise ActionError(f"unknown function {_quote(str(call.get('name')))}; call computer_use")
    args = call.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except (json.JSONDecodeError, RecursionError):
            raise ActionError(f"the arguments are not valid JSON: {_quote(args)}") from None
    if not isinstance(args, dict):
        raise ActionError(f"'arguments' must be a JSON object, got {_quote(repr(args))}")
    return args


def _qwen_point(value: Any, what: str, space: CoordSpace) -> Point:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ActionError(f"{what} must be [x, y], got {_quote(json.dumps(value))}")
    return _screen_point(space, _number(value[0], f"{what} x"), _number(value[1], f"{what} y"))


def _qwen_keys(value: Any) -> list[str]:
    if isinstance(value, str):
        value = re.split(r"\s*\+\s*|\s+", value.strip()) if len(value.strip()) > 1 else [value]
    if not isinstance(value, list) or not value or not all(isinstance(k, str) for k in value):
        raise ActionError(f"key: 'keys' must be a list of key names, got {_quote(json.dumps(value))}")
    return value


@dataclass(frozen=True)
class QwenVLGrammar:
    """Qwen2.5-VL: ``<tool_call>{"name": "computer_use", "arguments": {"action": ...}}</tool_call>``, one or
    more per reply, with the reasoning as plain text around them."""

    name: str = "qwen2.5-vl"
    prompt_version: str = QWEN_PROMPT_VERSION
    min_pixels: int = QWEN_PROCESSOR_MIN_PIXELS
    max_pixels: int = QWEN_PROCESSOR_MAX_PIXELS
    scroll_px_per_unit: float = 1.0
    """Screen pixels per unit of ``scroll``'s ``pixels``: 1 reads it as pixels, as the tool describes it
    (OSWorld's Qwen agent hands it to pyautogui as wheel clicks, which would be ``SCROLL_CLICK_PX``)."""

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        return smart_resize_space(screen, min_pixels=self.min_pixels, max_pixels=self.max_pixels)

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        """The tool declares the size of the image sent for ``screen`` as the screen's resolution."""
        if screen is None:
            raise ValueError("Qwen2.5-VL's prompt declares the screen's resolution: pass screen=(width, height)")
        space = self.image_space(screen)
        tool = json.dumps(_qwen_tool(space.width, space.height, ask), ensure_ascii=False)
        return _QWEN_PROMPT.format(tool=tool, instruction=instruction, language=language,
                                   ask=_QWEN_ASK if ask else "")

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        body = _checked(text)
        blocks = _TOOL_CALL.findall(body)
        if not blocks:
            raise ActionError(f"no <tool_call> in the reply; call the tool like {_QWEN_EXAMPLE}")
        thought = _strip_label(_TOOL_CALL.sub("", body), "Thought")
        actions: list[Action] = []
        here = pointer
        for block in blocks:
            produced = self._action(_qwen_arguments(block), thought, space, here)
            here = _last_point(produced) or here
            actions.extend(produced)
        return _turn(actions, thought, text, _QWEN_EXAMPLE)

    def _action(self, args: Mapping[str, Any], thought: str, space: CoordSpace,
                pointer: Point | None) -> list[Action]:
        action = args.get("action")

        def near() -> Point | None:
            if args.get("coordinate") is None:
                return None
            return _qwen_point(args["coordinate"], f"{action} 'coordinate'", space)

        def at() -> Point:
            point = near() or pointer
            if point is None:
                raise ActionError(f"{action}: missing 'coordinate' [x, y]")
            return point

        builders: dict[str, Callable[[], list[Action]]] = {
            "key": lambda: [_key_action(_qwen_keys(args.get("keys", args.get("text"))))],
            "type": lambda: [Type(_text(args.get("text"), "type 'text'"))],
            "mouse_move": lambda: [Move(at())],
            "left_click": lambda: [Click(at())],
            "right_click": lambda: [RightClick(at())],
            "middle_click": lambda: [Click(at(), button="middle")],
            "double_click": lambda: [DoubleClick(at())],
            "left_click_drag": lambda: [self._drag(args, space, pointer)],
            "scroll": lambda: [Scroll(dy=-_number(args.get("pixels"), "scroll 'pixels'") * self.scroll_px_per_unit,
                                      target=near())],
            "wait": lambda: [_wait(args.get("time", WAIT_SECONDS), "wait 'time'")],
            "terminate": lambda: [self._terminate(args.get("status"), thought)],
            "answer": lambda: [Answer(_text(args.get("text"), "answer 'text'"))],
            "call_user": lambda: [Ask(_text(args.get("text") or thought or _ASK_DEFAULT, "call_user 'text'"))],
        }
        builder = builders.get(action) if isinstance(action, str) else None
        if builder is None:
            raise ActionError(f"unknown computer_use action {_quote(json.dumps(action))}; known: "
                              f"{', '.join(builders)}")
        return builder()

    @staticmethod
    def _drag(args: Mapping[str, Any], space: CoordSpace, pointer: Point | None) -> Action:
        if args.get("coordinate") is None:
            raise ActionError("left_click_drag: missing 'coordinate' [x, y] (where to drag to)")
        end = _qwen_point(args["coordinate"], "left_click_drag 'coordinate'", space)
        start = (_qwen_point(args["start_coordinate"], "left_click_drag 'start_coordinate'", space)
                 if args.get("start_coordinate") is not None else pointer)
        if start is None:
            raise ActionError("left_click_drag: the start point is unknown; move the pointer there with "
                              "mouse_move first")
        return Drag(start, end)

    @staticmethod
    def _terminate(status: Any, thought: str) -> Action:
        if status == "success":
            return Done()
        if status in ("failure", "fail"):
            return Fail(thought or "the model reported that the task failed")
        raise ActionError(f"terminate: 'status' must be \"success\" or \"failure\", got {_quote(json.dumps(status))}")

    def history_entry(self, turn: ParsedTurn) -> str:
        """The reply as written: Qwen's history is its own earlier replies."""
        return turn.raw.strip()


# --- registry ------------------------------------------------------------------------------------------------

GRAMMARS: dict[str, Grammar] = {g.name: g for g in (
    UITarsGrammar(),
    UITarsGrammar(name="ui-tars-1.0", coordinates="relative1000"),
    OpenCUAGrammar(),
    OpenCUAGrammar(name="opencua-relative", coordinates="relative"),
    QwenVLGrammar(),
)}

_MODEL_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"ui-?tars-?1[.-]5"), "ui-tars-1.5"),
    (re.compile(r"ui-?tars-(?:2b|7b|72b)"), "ui-tars-1.0"),
    (re.compile(r"opencua-(?:qwen2-|a3b)"), "opencua-relative"),
    (re.compile(r"opencua"), "opencua"),
    (re.compile(r"qwen2[.-]5-?vl"), "qwen2.5-vl"),
)


def grammar_for_model(model: str) -> Grammar:
    """The grammar of a served model name (``ByteDance-Seed/UI-TARS-1.5-7B``, ``opencua-7b``,
    ``Qwen/Qwen2.5-VL-72B-Instruct``); ``ValueError`` listing the known ones otherwise."""
    key = model.strip().lower().rsplit("/", 1)[-1].replace("_", "-")
    for pattern, name in _MODEL_RULES:
        if pattern.search(key):
            return GRAMMARS[name]
    raise ValueError(f"no text grammar for model {model!r}; known models: UI-TARS-1.5 (ui-tars-1.5-7b), "
                     "UI-TARS-1.0 (ui-tars-7b-dpo), OpenCUA (opencua-7b, opencua-qwen2-7b), Qwen2.5-VL "
                     f"(qwen2.5-vl-72b-instruct); grammars: {', '.join(GRAMMARS)}")
