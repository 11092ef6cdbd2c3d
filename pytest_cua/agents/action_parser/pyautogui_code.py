"""pyautogui-style call strings (``pyautogui.click(100, 200)``, ``pyautogui.write('abc')``,
``pyautogui.hotkey('ctrl', 's')`` ...) and the pseudo-calls ``DONE``, ``FAIL``, ``WAIT``, ``ANSWER``
(``parse_pyautogui``). The code is parsed with ``ast.parse`` and never run: only whitelisted calls with literal
arguments (``ast.literal_eval`` on each argument node) are accepted."""

from __future__ import annotations

import ast
from typing import Any, Callable

from pytest_cua.actions import (Action, ActionError, Answer, Click, Done, DoubleClick, Drag, Fail, Hotkey, Move, Point,
                                Press, RightClick, Scroll, TripleClick, Type)
from pytest_cua.agents.action_parser.arguments import (MAX_ACTIONS, MAX_OUTPUT_CHARS, MAX_TEXT_CHARS, SCROLL_CLICK_PX,
                                                       read_number, read_point, read_text, shown, wait_action)


_PSEUDO = {"DONE", "FAIL", "WAIT", "ANSWER"}
_ALLOWED_IMPORTS = {"pyautogui", "time"}


class _Call:
    """A whitelisted call with its literal arguments."""

    def __init__(self, name: str, args: list[Any], kwargs: dict[str, Any], line: int) -> None:
        self.name, self.args, self.kwargs, self.line = name, args, kwargs, line

    def get(self, pos: int, key: str, default: Any = ...) -> Any:
        if len(self.args) > pos:
            return self.args[pos]
        if key in self.kwargs:
            return self.kwargs[key]
        if default is ...:
            raise ActionError(f"{self.name}: missing argument {key!r}")
        return default


def parse_pyautogui(code: str, *, pointer: Point | None = None) -> list[Action]:
    """Parse pyautogui-style calls and DONE / FAIL / WAIT into actions, without executing anything."""
    if len(code) > MAX_OUTPUT_CHARS:
        raise ActionError(f"the output is too long ({len(code)} characters; at most {MAX_OUTPUT_CHARS})")
    try:
        tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise ActionError(f"could not read the actions{where}: expected calls like pyautogui.click(100, 200), "
                          "DONE, FAIL or WAIT, or a JSON action") from None
    calls: list[_Call] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            bad = [a.name for a in stmt.names if a.name not in _ALLOWED_IMPORTS or a.asname]
            if bad:
                raise ActionError(f"line {stmt.lineno}: only 'import pyautogui' is allowed, not {bad[0]!r}")
            continue
        if not isinstance(stmt, ast.Expr):
            raise ActionError(f"line {stmt.lineno}: only calls like pyautogui.click(100, 200) are allowed, "
                              f"not a {type(stmt).__name__} statement")
        calls.append(_read_call(stmt.value, stmt.lineno))
    if len(calls) > MAX_ACTIONS:
        raise ActionError(f"too many actions in one output ({len(calls)}); at most {MAX_ACTIONS}")
    actions: list[Action] = []
    state = {"pointer": pointer}
    for call in calls:
        try:
            actions.extend(_pyautogui_action(call, state))
        except ActionError as exc:
            raise ActionError(f"line {call.line}: {exc}") from None
    return actions


def _read_call(node: ast.expr, line: int) -> _Call:
    if isinstance(node, ast.Name):
        if node.id in _PSEUDO:
            return _Call(node.id, [], {}, line)
        raise ActionError(f"line {line}: unknown name {node.id[:40]!r}; use DONE, FAIL, WAIT or pyautogui calls")
    if not isinstance(node, ast.Call):
        raise ActionError(f"line {line}: only calls like pyautogui.click(100, 200) are allowed")
    func = node.func
    if isinstance(func, ast.Name) and func.id in _PSEUDO:
        name = func.id
    elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
          and func.value.id == "pyautogui" and func.attr in _PYAUTOGUI):
        name = f"pyautogui.{func.attr}"
    elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
          and func.value.id == "time" and func.attr == "sleep"):
        name = "time.sleep"
    else:
        shown = ast.unparse(func)[:60] if hasattr(ast, "unparse") else "?"
        raise ActionError(f"line {line}: call of {shown!r} is not allowed; allowed: "
                          f"{', '.join('pyautogui.' + n for n in sorted(_PYAUTOGUI))}, DONE, FAIL, WAIT")
    args = [_literal(a, name, line) for a in node.args]
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise ActionError(f"line {line}: {name}: '**' arguments are not allowed")
        kwargs[kw.arg] = _literal(kw.value, name, line)
    return _Call(name, args, kwargs, line)


def _literal(node: ast.expr, name: str, line: int) -> Any:
    if isinstance(node, ast.Starred):
        raise ActionError(f"line {line}: {name}: '*' arguments are not allowed")
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ActionError(f"line {line}: {name}: arguments must be plain literals (numbers, strings, lists), "
                          "not expressions or calls") from None
    _check_literal_size(value, name, line)
    return value


def _check_literal_size(value: Any, name: str, line: int, depth: int = 0) -> None:
    if depth > 3:
        raise ActionError(f"line {line}: {name}: arguments are nested too deeply")
    if isinstance(value, (str, bytes)) and len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"line {line}: {name}: a string argument is too long ({len(value)} characters; "
                          f"at most {MAX_TEXT_CHARS})")
    if isinstance(value, (list, tuple, set)):
        if len(value) > 100:
            raise ActionError(f"line {line}: {name}: a list argument is too long")
        for v in value:
            _check_literal_size(v, name, line, depth + 1)
    if isinstance(value, dict):
        raise ActionError(f"line {line}: {name}: dict arguments are not allowed")


def _xy(call: _Call, required: bool = True) -> Point | None:
    first = call.get(0, "x", None)
    if isinstance(first, (list, tuple)):
        if len(first) != 2:
            raise ActionError(f"{call.name}: a position must be (x, y)")
        return read_point(first[0], first[1], call.name)
    if first is None:
        if required:
            raise ActionError(f"{call.name}: give the position, e.g. {call.name}(100, 200)")
        return None
    y = call.get(1, "y", None)
    if y is None:
        raise ActionError(f"{call.name}: missing 'y'")
    return read_point(first, y, call.name)


def _pa_click(call: _Call, state: dict[str, Any]) -> list[Action]:
    point = _xy(call, required=False) or state["pointer"]
    if point is None:
        raise ActionError(f"{call.name}: give the position, e.g. {call.name}(100, 200)")
    state["pointer"] = point
    button = call.kwargs.get("button", "left")
    if button not in ("left", "right", "middle", "primary", "secondary"):
        raise ActionError(f"{call.name}: 'button' must be left, right or middle, got {shown(button)}")
    button = {"primary": "left", "secondary": "right"}.get(button, button)
    clicks = call.kwargs.get("clicks", 1)
    if isinstance(clicks, bool) or not isinstance(clicks, int) or not 1 <= clicks <= 3:
        raise ActionError(f"{call.name}: 'clicks' must be 1, 2 or 3, got {shown(clicks)}")
    attr = call.name.split(".")[-1]
    if attr == "rightClick" or button == "right":
        return [RightClick(point)]
    if attr == "doubleClick" or clicks == 2:
        return [DoubleClick(point)]
    if attr == "tripleClick" or clicks == 3:
        return [TripleClick(point)]
    if attr == "middleClick":
        return [Click(point, button="middle")]
    return [Click(point, button=button)]


def _pa_move(call: _Call, state: dict[str, Any]) -> list[Action]:
    point = _xy(call)
    state["pointer"] = point
    return [Move(point)]  # type: ignore[arg-type]


def _pa_drag(call: _Call, state: dict[str, Any]) -> list[Action]:
    start = state["pointer"]
    if start is None:
        raise ActionError(f"{call.name}: the start point is unknown; call pyautogui.moveTo(x, y) first")
    end = _xy(call)
    state["pointer"] = end
    return [Drag(start, end)]  # type: ignore[arg-type]


def _pa_write(call: _Call, state: dict[str, Any]) -> list[Action]:
    text = call.get(0, "message")
    if isinstance(text, (list, tuple)):  # typewrite(['a', 'enter'])
        return [Press(read_text(k, f"{call.name} key")) for k in text]
    return [Type(read_text(text, f"{call.name} text"))]


def _pa_press(call: _Call, state: dict[str, Any]) -> list[Action]:
    keys = call.get(0, "keys")
    presses = call.kwargs.get("presses", 1)
    if isinstance(presses, bool) or not isinstance(presses, int) or not 1 <= presses <= 50:
        raise ActionError(f"{call.name}: 'presses' must be a whole number from 1 to 50, got {shown(presses)}")
    names = list(keys) if isinstance(keys, (list, tuple)) else [keys]
    if not names:
        raise ActionError(f"{call.name}: no key given")
    pressed: list[Action] = [Press(read_text(k, f"{call.name} key")) for k in names]
    return pressed * presses


def _pa_hotkey(call: _Call, state: dict[str, Any]) -> list[Action]:
    if not call.args:
        raise ActionError(f"{call.name}: give the keys, e.g. pyautogui.hotkey('ctrl', 's')")
    keys = tuple(read_text(k, f"{call.name} key") for k in call.args)
    return [Hotkey(keys)] if len(keys) > 1 else [Press(keys[0])]


def _pa_scroll(call: _Call, state: dict[str, Any], horizontal: bool = False) -> list[Action]:
    clicks = read_number(call.get(0, "clicks"), f"{call.name} clicks")
    x, y = call.get(1, "x", None), call.get(2, "y", None)
    target = read_point(x, y, call.name) if x is not None and y is not None else None
    px = -clicks * SCROLL_CLICK_PX  # pyautogui: positive scrolls up (or right for hscroll)
    if horizontal:
        return [Scroll(dx=-px, target=target)]
    return [Scroll(dy=px, target=target)]


def _pa_sleep(call: _Call, state: dict[str, Any]) -> list[Action]:
    return [wait_action({"seconds": call.get(0, "seconds", 1.0)})]


def _pa_pseudo(call: _Call, state: dict[str, Any]) -> list[Action]:
    if call.name == "DONE":
        return [Done()]
    if call.name == "FAIL":
        return [Fail(read_text(call.get(0, "reason", ""), "FAIL reason"))]
    if call.name == "ANSWER":
        return [Answer(read_text(call.get(0, "text"), "ANSWER text"))]
    return [wait_action({"seconds": call.get(0, "seconds", 1.0)})]


_PYAUTOGUI: dict[str, Callable[[_Call, dict[str, Any]], list[Action]]] = {
    "click": _pa_click,
    "leftClick": _pa_click,
    "doubleClick": _pa_click,
    "tripleClick": _pa_click,
    "rightClick": _pa_click,
    "middleClick": _pa_click,
    "moveTo": _pa_move,
    "dragTo": _pa_drag,
    "write": _pa_write,
    "typewrite": _pa_write,
    "press": _pa_press,
    "hotkey": _pa_hotkey,
    "scroll": _pa_scroll,
    "vscroll": _pa_scroll,
    "hscroll": lambda c, s: _pa_scroll(c, s, horizontal=True),
}


def _pyautogui_action(call: _Call, state: dict[str, Any]) -> list[Action]:
    if call.name in _PSEUDO:
        return _pa_pseudo(call, state)
    if call.name == "time.sleep":
        return _pa_sleep(call, state)
    return _PYAUTOGUI[call.name.split(".", 1)[1]](call, state)
