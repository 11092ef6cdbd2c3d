"""Published agents' pyautogui code in the forms our action parser reads (``code_actions``).

Agents write pyautogui code for a runner that executes it. We never do: the code is read with ``ast`` and each
statement becomes a typed action through ``action_parser.parse_pyautogui``. A few forms those agents write are
read here first, by looking at the syntax tree only:

* a string standing alone (UI-TARS-1.5's ``'''Observation: ... Thought: ...'''`` block) is a comment: skipped;
* ``pyautogui.sleep(s)`` is ``time.sleep(s)``;
* ``keyDown`` of keys then ``keyUp`` of the same keys in reverse order (Claude's ``key`` action, Agent S's
  ``hold_and_press``) is one ``hotkey`` (each key pressed while they are held: a ``hotkey`` of all); ``keyDown``
  of modifier keys around one pointer call (``keyDown('ctrl'); click(10, 20); keyUp('ctrl')``) is that call
  holding the modifiers;
* ``mouseDown(...)`` / ``mouseUp(...)`` are ``mouse_down`` / ``mouse_up`` actions; a bare ``mouseUp()`` right after a
  ``dragTo`` (the drag already let go) is dropped.

Anything else goes to the parser as written, which names what it refuses (a ``subprocess`` call, a loop).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from pytest_cua.actions import MODIFIERS, Action, ActionError, Hotkey, MouseDown, MouseUp, Point, Press
from pytest_cua.agents.action_parser import parse_pyautogui
from pytest_cua.agents.action_parser.arguments import read_point


def code_actions(code: str, *, pointer: Point | None = None) -> list[Action]:
    """The typed actions of one answer's pyautogui code (``DONE``, ``FAIL``, ``WAIT`` too); an ``ActionError``
    naming the line and the call that cannot be carried out."""
    try:
        tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return parse_pyautogui(code, pointer=pointer)  # its own error: "could not read the actions (line N)"
    body = [s for s in tree.body if not _is_comment(s)]
    if len(body) == len(tree.body) and not any(_needs_reading(s) for s in body):
        return parse_pyautogui(code, pointer=pointer)  # as written: its line numbers are the agent's own
    actions: list[Action] = []
    state = {"pointer": pointer}
    for segment in _segments(body):
        actions.extend(segment.actions(state))
    return actions


def _is_comment(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _call_name(stmt: ast.stmt) -> str | None:
    """``keyDown`` for ``pyautogui.keyDown(...)``; None for any other statement."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    func = stmt.value.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "pyautogui":
        return func.attr
    return None


def _needs_reading(stmt: ast.stmt) -> bool:
    return _call_name(stmt) in ("sleep", "keyDown", "keyUp", "mouseDown", "mouseUp")


def _key(stmt: ast.stmt) -> str | None:
    """The literal key of ``keyDown('ctrl')`` / ``keyUp(key='ctrl')``."""
    call = stmt.value  # type: ignore[attr-defined]
    nodes = list(call.args) or [k.value for k in call.keywords if k.arg == "key"]
    if len(nodes) != 1:
        return None
    try:
        value = ast.literal_eval(nodes[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value.lower() if isinstance(value, str) else None


@dataclasses.dataclass
class _Segment:
    """Statements parsed together, optionally holding modifier keys, or one mouse button action."""

    statements: list[ast.stmt]
    modifiers: tuple[str, ...] = ()
    mouse: str | None = None  # mouseDown / mouseUp

    def actions(self, state: dict[str, Any]) -> list[Action]:
        if self.mouse is not None:
            return [self._mouse(state)]
        code = "\n".join(ast.unparse(s) for s in self.statements)
        parsed = parse_pyautogui(code, pointer=state["pointer"])
        for action in parsed:
            for name in ("destination", "target"):
                value = getattr(action, name, None)
                if isinstance(value, Point):
                    state["pointer"] = value
                    break
        if self.modifiers and parsed and all(isinstance(a, (Press, Hotkey)) for a in parsed):
            return [Hotkey((*self.modifiers, *(a.keys if isinstance(a, Hotkey) else (a.key,))))  # type: ignore[attr-defined]
                    for a in parsed]
        if self.modifiers:
            held = tuple(MODIFIERS[k] for k in self.modifiers)
            if len(parsed) != 1 or not hasattr(parsed[0], "modifiers"):
                raise ActionError(f"keys {'+'.join(self.modifiers)} held around {code!r}: only one pointer call "
                                  "may be made while modifier keys are held")
            parsed = [dataclasses.replace(parsed[0], modifiers=held)]  # type: ignore[call-arg]
        return parsed

    def _mouse(self, state: dict[str, Any]) -> Action:
        stmt = self.statements[0]
        call = stmt.value  # type: ignore[attr-defined]
        try:
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ActionError(f"line {stmt.lineno}: pyautogui.{self.mouse}: arguments must be plain literals") \
                from None
        x = args[0] if args else kwargs.get("x")
        y = args[1] if len(args) > 1 else kwargs.get("y")
        button = kwargs.get("button", args[2] if len(args) > 2 else "left")
        target = read_point(x, y, f"pyautogui.{self.mouse}") if x is not None and y is not None else None
        if target is not None:
            state["pointer"] = target
        kind = MouseDown if self.mouse == "mouseDown" else MouseUp
        try:
            return kind(target=target, button=str(button))
        except ActionError as exc:
            raise ActionError(f"line {stmt.lineno}: {exc}") from None


def _segments(body: list[ast.stmt]) -> list[_Segment]:
    out: list[_Segment] = []
    plain: list[ast.stmt] = []

    def flush() -> None:
        if plain:
            out.append(_Segment(list(plain)))
            plain.clear()

    i = 0
    while i < len(body):
        stmt = body[i]
        name = _call_name(stmt)
        if name == "sleep":
            plain.append(_renamed(stmt, "time", "sleep"))
        elif name == "keyDown":
            held, j = _held(body, i)
            flush()
            out.append(held)
            i = j
            continue
        elif name == "keyUp":
            raise ActionError(f"line {stmt.lineno}: pyautogui.keyUp of {_key(stmt)!r} without its keyDown")
        elif name == "mouseUp" and _bare(stmt) and i > 0 and _call_name(body[i - 1]) == "dragTo":
            pass  # the drag has let go already
        elif name in ("mouseDown", "mouseUp"):
            flush()
            out.append(_Segment([stmt], mouse=name))
        else:
            plain.append(stmt)
        i += 1
    flush()
    return out


def _held(body: list[ast.stmt], start: int) -> tuple[_Segment, int]:
    """The keys pressed down from ``body[start]`` on and what is done while they are held, up to their
    release: ``(segment, index after the last keyUp)``."""
    keys: list[str] = []
    i = start
    while i < len(body) and _call_name(body[i]) == "keyDown":
        key = _key(body[i])
        if key is None:
            raise ActionError(f"line {body[i].lineno}: pyautogui.keyDown: give one key as a string")
        keys.append(key)
        i += 1
    inner: list[ast.stmt] = []
    while i < len(body) and _call_name(body[i]) != "keyUp":
        if _call_name(body[i]) in ("keyDown", "mouseDown", "mouseUp"):
            break
        if not _is_comment(body[i]):
            inner.append(body[i])
        i += 1
    released: list[str] = []
    while i < len(body) and _call_name(body[i]) == "keyUp" and len(released) < len(keys):
        released.append(_key(body[i]) or "")
        i += 1
    where = f"line {body[start].lineno}"
    if released != list(reversed(keys)):
        raise ActionError(f"{where}: keys {'+'.join(keys)} pressed down and not released in reverse order (a key "
                          "held across steps is not supported)")
    if not inner:
        call = ast.Expr(ast.Call(ast.Attribute(ast.Name("pyautogui", ast.Load()), "hotkey", ast.Load()),
                                 [ast.Constant(k) for k in keys], []))
        ast.fix_missing_locations(call)
        call.lineno = body[start].lineno
        return _Segment([call]), i
    unknown = [k for k in keys if k not in MODIFIERS]
    if unknown:
        raise ActionError(f"{where}: key {unknown[0]!r} held around another action: only modifier keys "
                          f"({', '.join(sorted(set(MODIFIERS)))}) may be held")
    return _Segment(inner, modifiers=tuple(keys)), i


def _bare(stmt: ast.stmt) -> bool:
    """A call with no argument."""
    call = stmt.value  # type: ignore[attr-defined]
    return not call.args and not call.keywords


def _renamed(stmt: ast.stmt, module: str, attr: str) -> ast.stmt:
    call = stmt.value  # type: ignore[attr-defined]
    new = ast.Expr(ast.Call(ast.Attribute(ast.Name(module, ast.Load()), attr, ast.Load()), call.args,
                            call.keywords))
    ast.copy_location(new, stmt)
    ast.fix_missing_locations(new)
    return new
