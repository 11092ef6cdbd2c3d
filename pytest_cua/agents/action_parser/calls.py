"""Named actions with arguments: function calls in the OpenAI / Anthropic tool-call style
(``parse_function_call``, Anthropic's computer-use tool included) and browser-use style action dicts
(``parse_browser_use``); each format falls back on the other's names."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from pytest_cua.actions import (MAX_HOLD_S, Action, ActionError, Answer, Back, Check, Clear, Click, CloseTab, Done,
                                DoubleClick, Drag, Fail, Fill, Forward, GoTo, HoldKey, Hotkey, Hover, MouseDown,
                                MouseUp, Move, NewTab, Point, RightClick, Scroll, SelectOption, SwitchTab,
                                TripleClick, Type, Uncheck, Wait, modifier_names)
from pytest_cua.agents.action_parser.arguments import (DEFAULT_SCROLL_PX, MAX_OUTPUT_CHARS, SCROLL_CLICK_PX,
                                                       key_action, normalize_element_id, read_arg, read_keys,
                                                       read_number, read_point, read_target, read_text, shown,
                                                       tab_index, wait_action)


def parse_function_call(call: Mapping[str, Any]) -> Action:
    """``{"name": "click", "arguments": {...}}`` (arguments may be a JSON string) to an action."""
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise ActionError(f"a function call needs a 'name', got {shown(name)}")
    args: Any = {}
    for key in ("arguments", "input", "args", "parameters"):
        if key in call and call[key] is not None:
            args = call[key]
            break
    if isinstance(args, str):
        if len(args) > MAX_OUTPUT_CHARS:
            raise ActionError(f"arguments of {name!r} are too long")
        try:
            args = json.loads(args) if args.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            raise ActionError(f"arguments of {name!r} are not valid JSON") from None
    if not isinstance(args, Mapping):
        raise ActionError(f"arguments of {name!r} must be an object, got {type(args).__name__}")
    key = name.strip().lower().replace("-", "_")
    if key == "computer":
        return _computer_tool(args)
    builder = _FUNCTIONS.get(key)
    if builder is None:
        if key in _BROWSER_USE:
            return _BROWSER_USE[key](args)
        known = ", ".join(sorted(_FUNCTIONS))
        raise ActionError(f"unknown function {name!r}; known: {known}")
    try:
        return builder(args)
    except ActionError as exc:
        message = str(exc)
        raise ActionError(message if message.startswith(key) else f"{key}: {message}") from None


def _fn_click(args: Mapping[str, Any]) -> Action:
    button = read_arg(args, "click", "button", default="left")
    if button not in ("left", "right", "middle"):
        raise ActionError(f"click: 'button' must be left, right or middle, got {button!r}")
    target = read_target(args, "click")
    if button == "right":
        return RightClick(target)
    clicks = args.get("clicks", 1)
    if clicks == 2:
        return DoubleClick(target)
    return Click(target, button=button)


def _fn_scroll(args: Mapping[str, Any]) -> Action:
    direction = args.get("direction")
    amount = args.get("amount", args.get("pixels"))
    dx = read_number(args.get("dx", 0), "scroll dx")
    dy = read_number(args.get("dy", 0), "scroll dy")
    if direction is not None:
        amt = read_number(amount if amount is not None else DEFAULT_SCROLL_PX, "scroll amount")
        vectors = {"down": (0, amt), "up": (0, -amt), "right": (amt, 0), "left": (-amt, 0)}
        if direction not in vectors:
            raise ActionError(f"scroll: 'direction' must be up, down, left or right, got {shown(direction)}")
        dx, dy = vectors[direction]
    elif dx == 0 and dy == 0:
        dy = DEFAULT_SCROLL_PX
    return Scroll(dx=dx, dy=dy, target=read_target(args, "scroll", required=False))


def _fn_drag(args: Mapping[str, Any]) -> Action:
    source = read_target(args, "drag", id_keys=("source", "from", "source_id", "start"),
                         point_keys=("start_coordinate", "from_point"), x_key="x1", y_key="y1")
    dest = read_target(args, "drag", id_keys=("destination", "to", "target", "target_id", "end"),
                       point_keys=("coordinate", "end_coordinate", "to_point"), x_key="x2", y_key="y2")
    return Drag(source, dest)


def _fn_done(args: Mapping[str, Any]) -> Action:
    text = args.get("text", args.get("answer", args.get("message")))
    success = args.get("success", True)
    if success is False:
        return Fail(read_text(text or "", "done text"))
    if text:
        return Answer(read_text(text, "done text"))
    return Done()


_FUNCTIONS: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "click": _fn_click,
    "left_click": _fn_click,
    "double_click": lambda a: DoubleClick(read_target(a, "double_click")),
    "right_click": lambda a: RightClick(read_target(a, "right_click")),
    "hover": lambda a: Hover(read_target(a, "hover")),
    "move": lambda a: Move(read_target(a, "move")),
    "mouse_move": lambda a: Move(read_target(a, "move")),
    "drag": _fn_drag,
    "scroll": _fn_scroll,
    "fill": lambda a: Fill(read_target(a, "fill"), read_arg(a, "fill", "text", "value")),
    "input_text": lambda a: Fill(read_target(a, "fill"), read_arg(a, "fill", "text", "value")),
    "type": lambda a: Type(read_arg(a, "type", "text", "value"), target=read_target(a, "type", required=False)),
    "type_text": lambda a: Type(read_arg(a, "type", "text", "value"),
                                target=read_target(a, "type", required=False)),
    "clear": lambda a: Clear(read_target(a, "clear")),
    "select_option": lambda a: SelectOption(read_target(a, "select_option"),
                                            read_arg(a, "select_option", "option", "label", "value", "text")),
    "select": lambda a: SelectOption(read_target(a, "select"),
                                     read_arg(a, "select", "option", "label", "value", "text")),
    "check": lambda a: Check(read_target(a, "check")),
    "uncheck": lambda a: Uncheck(read_target(a, "uncheck")),
    "press": lambda a: key_action(read_arg(a, "press", "key", "keys", as_text=False), "press key"),
    "key": lambda a: key_action(read_arg(a, "key", "key", "keys", "text", as_text=False), "key"),
    "press_key": lambda a: key_action(read_arg(a, "press_key", "key", "keys", as_text=False), "press key"),
    "hotkey": lambda a: Hotkey(read_keys(read_arg(a, "hotkey", "keys", "key", as_text=False), "hotkey keys")),
    "goto": lambda a: GoTo(read_arg(a, "goto", "url")),
    "navigate": lambda a: GoTo(read_arg(a, "navigate", "url")),
    "go_to_url": lambda a: GoTo(read_arg(a, "go_to_url", "url")),
    "back": lambda a: Back(),
    "go_back": lambda a: Back(),
    "forward": lambda a: Forward(),
    "go_forward": lambda a: Forward(),
    "new_tab": lambda a: NewTab(read_arg(a, "new_tab", "url", default=None)),
    "switch_tab": lambda a: SwitchTab(tab_index(a, "switch_tab", True)),  # type: ignore[arg-type]
    "close_tab": lambda a: CloseTab(tab_index(a, "close_tab", False)),
    "wait": wait_action,
    "answer": lambda a: Answer(read_arg(a, "answer", "text", "answer")),
    "done": _fn_done,
    "finish": _fn_done,
    "fail": lambda a: Fail(read_arg(a, "fail", "reason", "text", "message", default="")),
    "ask": lambda a: _ask(a),
}


def _ask(args: Mapping[str, Any]) -> Action:
    from pytest_cua.actions import Ask

    return Ask(read_arg(args, "ask", "question", "text"))


def _computer_tool(args: Mapping[str, Any]) -> Action:
    """Anthropic's computer-use tool: ``{"action": "left_click", "coordinate": [x, y]}`` (a toolset member as
    ``{"action": member, ...}``). ``text`` on a pointer action names modifier keys held during it
    (``"ctrl+shift"``). Actions at the cursor (no ``coordinate``) are the computer style's to place."""
    action = args.get("action")
    coord = args.get("coordinate")

    def at() -> Point:
        if not isinstance(coord, (list, tuple)) or len(coord) != 2:
            raise ActionError(f"computer {action}: 'coordinate' must be [x, y], got {shown(coord)}")
        return read_point(coord[0], coord[1], f"computer {action}")

    held = _held_keys(args, str(action)) if action in CLAUDE_POINTER else ()
    if action in ("left_click", "click"):
        return Click(at(), modifiers=held)
    if action == "right_click":
        return RightClick(at(), modifiers=held)
    if action == "middle_click":
        return Click(at(), button="middle", modifiers=held)
    if action == "double_click":
        return DoubleClick(at(), modifiers=held)
    if action == "triple_click":
        return TripleClick(at(), modifiers=held)
    if action == "mouse_move":
        return Move(at(), modifiers=held)
    if action in ("left_mouse_down", "left_mouse_up"):
        where = at() if coord is not None else None
        return (MouseDown if action == "left_mouse_down" else MouseUp)(where, modifiers=held)
    if action == "left_click_drag":
        start = args.get("start_coordinate")
        if not isinstance(start, (list, tuple)) or len(start) != 2:
            raise ActionError("computer left_click_drag: 'start_coordinate' must be [x, y]")
        return Drag(read_point(start[0], start[1], "drag start"), at(), modifiers=held)
    if action == "type":
        return Type(read_text(args.get("text"), "computer type 'text'"))
    if action == "key":
        return key_action(args.get("text"), "computer key 'text'")
    if action == "hold_key":
        keys = read_keys(args.get("text"), "computer hold_key 'text'")
        seconds = read_number(args.get("duration"), "computer hold_key 'duration'")
        if not 0 < seconds <= MAX_HOLD_S:
            raise ActionError(f"computer hold_key: 'duration' must be more than 0 and at most {MAX_HOLD_S:g} "
                              f"seconds, got {shown(args.get('duration'))}")
        return HoldKey(keys, seconds)
    if action == "scroll":
        amount = read_number(args.get("scroll_amount", 3), "scroll_amount") * SCROLL_CLICK_PX
        direction = args.get("scroll_direction", "down")
        vectors = {"down": (0, amount), "up": (0, -amount), "right": (amount, 0), "left": (-amount, 0)}
        if direction not in vectors:
            raise ActionError(f"computer scroll: 'scroll_direction' must be up/down/left/right, got {direction!r}")
        return Scroll(dx=vectors[direction][0], dy=vectors[direction][1], target=at() if coord else None,
                      modifiers=held)
    if action == "wait":
        return wait_action({"seconds": args.get("duration", 1)})
    if action in ("screenshot", "cursor_position"):
        return Wait(0)
    raise ActionError(f"computer: unsupported action {action!r}")


#: Claude computer actions that point (and may hold modifier keys, named in ``text``)
CLAUDE_POINTER = ("left_click", "click", "right_click", "middle_click", "double_click", "triple_click", "scroll",
                  "left_click_drag", "left_mouse_down", "left_mouse_up", "mouse_move")


def _held_keys(args: Mapping[str, Any], action: str) -> tuple[str, ...]:
    """The modifier keys a pointer action holds (``text``: ``"ctrl"``, ``"ctrl+shift"``); none when absent."""
    text = args.get("text")
    if text is None or text == "":
        return ()
    if not isinstance(text, str):
        raise ActionError(f"computer {action}: 'text' (the keys to hold) must be a string, got {shown(text)}")
    return modifier_names(action, [k for k in text.replace(" ", "").split("+") if k])


def _bu_index(args: Mapping[str, Any], kind: str) -> str:
    if "index" not in args:
        raise ActionError(f"{kind}: missing 'index' (the element number)")
    return normalize_element_id(args["index"])


def _bu_scroll(sign: int) -> Callable[[Mapping[str, Any]], Action]:
    def build(args: Mapping[str, Any]) -> Action:
        amount = args.get("amount")
        px = DEFAULT_SCROLL_PX if amount is None else read_number(amount, "scroll amount")
        return Scroll(dy=sign * px)
    return build


_BROWSER_USE: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "click_element": lambda a: Click(_bu_index(a, "click_element")),
    "click_element_by_index": lambda a: Click(_bu_index(a, "click_element_by_index")),
    "input_text": lambda a: Fill(_bu_index(a, "input_text"), read_arg(a, "input_text", "text")),
    "go_to_url": lambda a: GoTo(read_arg(a, "go_to_url", "url")),
    "go_back": lambda a: Back(),
    "open_tab": lambda a: NewTab(read_arg(a, "open_tab", "url", default=None)),
    "switch_tab": lambda a: SwitchTab(tab_index(a, "switch_tab", True)),  # type: ignore[arg-type]
    "close_tab": lambda a: CloseTab(tab_index(a, "close_tab", False)),
    "scroll_down": _bu_scroll(1),
    "scroll_up": _bu_scroll(-1),
    "send_keys": lambda a: key_action(read_arg(a, "send_keys", "keys", as_text=False), "send_keys keys"),
    "select_dropdown_option": lambda a: SelectOption(_bu_index(a, "select_dropdown_option"),
                                                     read_arg(a, "select_dropdown_option", "text", "option")),
    "wait": wait_action,
    "done": _fn_done,
    "hover_element": lambda a: Hover(_bu_index(a, "hover_element")),
    "drag_drop": _fn_drag,
}


def parse_browser_use(data: Mapping[str, Any]) -> Action:
    """A browser-use style ``{"click_element": {"index": 5}}`` to an action."""
    if len(data) != 1:
        raise ActionError(f"a browser action must have exactly one key, got {sorted(map(str, data))}")
    (name, args), = data.items()
    builder = _BROWSER_USE.get(str(name))
    if builder is None:
        if str(name) in _FUNCTIONS:
            builder = _FUNCTIONS[str(name)]
        else:
            known = ", ".join(sorted(_BROWSER_USE))
            raise ActionError(f"unknown browser action {str(name)[:60]!r}; known: {known}")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise ActionError(f"{name}: parameters must be an object, got {type(args).__name__}")
    return builder(args)
