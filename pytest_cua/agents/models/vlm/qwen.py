"""Qwen2.5-VL: its prompt (the ``computer_use`` function declared in ``<tools>``), and its replies
``<tool_call>{"name": "computer_use", "arguments": {...}}</tool_call>`` read with ``json`` into typed actions.

Qwen2.5-VL answers in pixels of the smart-resized image (factor 28, 3136 to 12845056 pixels), whose size the
system prompt declares as the screen's resolution.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from pytest_cua.actions import (Action, ActionError, Answer, Ask, Click, Done, DoubleClick, Drag, Fail, Move, Point,
                                RightClick, Scroll, Type)
from pytest_cua.agents.models.coords import CoordSpace
from pytest_cua.agents.models.vlm.arguments import key_action, read_number, read_text, read_wait, screen_point
from pytest_cua.agents.models.vlm.grammar import (ASK_DEFAULT, QWEN_PROCESSOR_MAX_PIXELS, QWEN_PROCESSOR_MIN_PIXELS,
                                                  WAIT_SECONDS, ParsedTurn, answer_space, checked_reply, last_point,
                                                  parsed_turn, quoted, strip_label)

QWEN_PROMPT_VERSION = "1"

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
        raise ActionError(f"the tool call is not valid JSON: {quoted(block)}") from None
    if not isinstance(call, dict):
        raise ActionError(f"the tool call must be a JSON object, got {quoted(block)}")
    if call.get("name") != "computer_use":
        raise ActionError(f"unknown function {quoted(str(call.get('name')))}; call computer_use")
    args = call.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except (json.JSONDecodeError, RecursionError):
            raise ActionError(f"the arguments are not valid JSON: {quoted(args)}") from None
    if not isinstance(args, dict):
        raise ActionError(f"'arguments' must be a JSON object, got {quoted(repr(args))}")
    return args


def _qwen_point(value: Any, what: str, space: CoordSpace) -> Point:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ActionError(f"{what} must be [x, y], got {quoted(json.dumps(value))}")
    return screen_point(space, read_number(value[0], f"{what} x"), read_number(value[1], f"{what} y"))


def _qwen_keys(value: Any) -> list[str]:
    if isinstance(value, str):
        value = re.split(r"\s*\+\s*|\s+", value.strip()) if len(value.strip()) > 1 else [value]
    if not isinstance(value, list) or not value or not all(isinstance(k, str) for k in value):
        raise ActionError(f"key: 'keys' must be a list of key names, got {quoted(json.dumps(value))}")
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
        return answer_space(screen, "smart_resize", min_pixels=self.min_pixels, max_pixels=self.max_pixels)

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
        body = checked_reply(text)
        blocks = _TOOL_CALL.findall(body)
        if not blocks:
            raise ActionError(f"no <tool_call> in the reply; call the tool like {_QWEN_EXAMPLE}")
        thought = strip_label(_TOOL_CALL.sub("", body), "Thought")
        actions: list[Action] = []
        here = pointer
        for block in blocks:
            produced = self._action(_qwen_arguments(block), thought, space, here)
            here = last_point(produced) or here
            actions.extend(produced)
        return parsed_turn(actions, thought, text, _QWEN_EXAMPLE)

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
            "key": lambda: [key_action(_qwen_keys(args.get("keys", args.get("text"))))],
            "type": lambda: [Type(read_text(args.get("text"), "type 'text'"))],
            "mouse_move": lambda: [Move(at())],
            "left_click": lambda: [Click(at())],
            "right_click": lambda: [RightClick(at())],
            "middle_click": lambda: [Click(at(), button="middle")],
            "double_click": lambda: [DoubleClick(at())],
            "left_click_drag": lambda: [self._drag(args, space, pointer)],
            "scroll": lambda: [Scroll(dy=-read_number(args.get("pixels"), "scroll 'pixels'") * self.scroll_px_per_unit,
                                      target=near())],
            "wait": lambda: [read_wait(args.get("time", WAIT_SECONDS), "wait 'time'")],
            "terminate": lambda: [self._terminate(args.get("status"), thought)],
            "answer": lambda: [Answer(read_text(args.get("text"), "answer 'text'"))],
            "call_user": lambda: [Ask(read_text(args.get("text") or thought or ASK_DEFAULT, "call_user 'text'"))],
        }
        builder = builders.get(action) if isinstance(action, str) else None
        if builder is None:
            raise ActionError(f"unknown computer_use action {quoted(json.dumps(action))}; known: "
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
        raise ActionError(f"terminate: 'status' must be \"success\" or \"failure\", got {quoted(json.dumps(status))}")

    def history_entry(self, turn: ParsedTurn) -> str:
        """The reply as written: Qwen's history is its own earlier replies."""
        return turn.raw.strip()
