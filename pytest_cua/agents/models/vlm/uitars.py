"""UI-TARS (1.5 and 1.0): its prompt, and its replies ``Thought: ...`` then ``Action: click(start_box='(x,y)')``
read with regular expressions into typed actions.

UI-TARS-1.5 answers in pixels of the smart-resized image (factor 28, 100*28*28 to 16384*28*28 pixels);
UI-TARS-1.0 (``ui-tars-1.0``) in thousandths 0-1000 of the image.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from pytest_cua.actions import (Action, ActionError, Answer, Ask, Click, Done, DoubleClick, Drag, Move, Point, Press,
                                RightClick, Scroll, Type, Wait)
from pytest_cua.agents.action_parser import SCROLL_CLICK_PX
from pytest_cua.agents.models.coords import QWEN_MAX_PIXELS, QWEN_MIN_PIXELS, CoordSpace
from pytest_cua.agents.models.vlm.arguments import key_action, read_number, read_text, screen_point
from pytest_cua.agents.models.vlm.grammar import (ASK_DEFAULT, WAIT_SECONDS, ParsedTurn, answer_space,
                                                  check_coordinates, checked_reply, parsed_turn, quoted, strip_label)

UITARS_PROMPT_VERSION = "1"
UITARS_MIN_PIXELS = QWEN_MIN_PIXELS
"""UI-TARS-1.5's image bounds (100 to 16384 patches of 28 x 28), as SCUBA's UI-TARS agent sets them."""
UITARS_MAX_PIXELS = QWEN_MAX_PIXELS
UITARS_SCROLL_PX = 5 * SCROLL_CLICK_PX
"""One UI-TARS scroll: 5 wheel clicks (what SCUBA's agent sends to pyautogui) of ``SCROLL_CLICK_PX`` pixels."""

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
            raise ActionError(f"{action}: cannot read the arguments at {quoted(args[pos:])}; "
                              "write them as name='value'")
        name, quote, start = found.group(1), found.group(2), found.end()
        end = args.rfind(quote) if name == "content" else _closing_quote(args, start, quote)
        if end < start:
            raise ActionError(f"{action}: the value of {name!r} has no closing quote: "
                              f"{quoted(args[found.start():])}")
        out[name] = args[start:end]
        pos = end + 1
    return out


def _uitars_point(value: str, what: str, space: CoordSpace) -> Point:
    """A point written ``(x,y)``, ``<|box_start|>(x,y)<|box_end|>``, ``<point>x y</point>`` or as a box
    ``(x1,y1,x2,y2)`` (its centre), mapped to the screen."""
    parts = [p for p in _BOX_SEPARATORS.split(_BOX_MARKUP.sub(" ", value)) if p]
    if len(parts) not in (2, 4) or not all(_NUMBER.fullmatch(p) for p in parts):
        raise ActionError(f"{what}: cannot read the point {quoted(value)}; write it as '(x,y)'")
    nums = [read_number(float(p), what) for p in parts]
    if len(nums) == 4:
        return screen_point(space, (nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2)
    return screen_point(space, nums[0], nums[1])


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
        return read_text(text, f"{self.name} content")


def _ut_at(kind: Callable[[Point], Action]) -> Callable[[_UITarsCall], list[Action]]:
    return lambda c: [kind(c.required_point("start_box", "point", "start_point"))]


def _ut_drag(c: _UITarsCall) -> list[Action]:
    return [Drag(c.required_point("start_box", "start_point"), c.required_point("end_box", "end_point"))]


def _ut_keys(c: _UITarsCall) -> list[Action]:
    raw = c.args.get("key", c.args.get("hotkey", ""))
    keys = [k for k in re.split(r"\s+|(?<=\S)\+(?=\S)", raw.strip()) if k]
    if not keys:
        raise ActionError(f"{c.name}: no key given; write e.g. hotkey(key='ctrl c')")
    return [key_action(keys)]


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
        raise ActionError(f"scroll: 'direction' must be up, down, left or right, got {quoted(direction)}")
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
    "call_user": lambda c: [Ask(c.thought or ASK_DEFAULT)],
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
        check_coordinates(self.coordinates, ("smart_resize", "relative1000"))

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        return answer_space(screen, self.coordinates, min_pixels=self.min_pixels, max_pixels=self.max_pixels)

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        actions = _UITARS_ACTION_SPACE + ((_UITARS_CALL_USER,) if ask else ())
        return _UITARS_PROMPT.format(actions="\n".join(actions), language=language, instruction=instruction)

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        """UI-TARS actions always name their points, so ``pointer`` is not needed."""
        body = checked_reply(text)
        found = _UITARS_ACTION_LINE.search(body)
        if found is None:
            raise ActionError("no 'Action:' line in the reply; write 'Thought: ...' and then an action, "
                              f"e.g. {_UITARS_EXAMPLE}")
        thought = strip_label(body[: found.start()], "Thought")
        actions: list[Action] = []
        for call in _UITARS_SPLIT.split(body[found.end():].strip()):
            if call.strip():
                actions.extend(self._action(call, thought, space))
        return parsed_turn(actions, thought, text, _UITARS_EXAMPLE)

    def _action(self, call: str, thought: str, space: CoordSpace) -> list[Action]:
        found = _UITARS_CALL.fullmatch(call)
        if found is None:
            raise ActionError(f"cannot read the action {quoted(call)}; write a call like "
                              "click(start_box='(100,200)')")
        name = found.group(1)
        builder = _UITARS_BUILDERS.get(name)
        if builder is None:
            raise ActionError(f"unknown action {name[:40]!r} in {quoted(call)}; known: "
                              f"{', '.join(sorted(_UITARS_BUILDERS))}")
        return builder(_UITarsCall(name, _uitars_kwargs(found.group(2), name), thought, space))

    def history_entry(self, turn: ParsedTurn) -> str:
        """``Thought: ...`` and the action as written, its bare points wrapped in the box tokens the model
        emits (vLLM drops them from the reply as special tokens)."""
        found = _UITARS_ACTION_LINE.search(turn.raw)
        action = turn.raw[found.end():].strip() if found else ""
        action = _BARE_BOX.sub(lambda m: f"{m.group(1)}='<|box_start|>{m.group(2)}<|box_end|>'", action)
        return f"Thought: {turn.thought}\nAction: {action}" if turn.thought else f"Action: {action}"
