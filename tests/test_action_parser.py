"""The agent-output parser: every accepted format, and hostile input rejected without running anything."""

from __future__ import annotations

import json

import pytest

from pytest_cua import actions as A
from pytest_cua.agents.action_parser import (MAX_ACTIONS, MAX_OUTPUT_CHARS, MAX_TEXT_CHARS, normalize_element_id,
                                      parse_actions)
from pytest_cua.actions import ActionError, Point


def one(output: object) -> A.Action:
    actions = parse_actions(output)
    assert len(actions) == 1, actions
    return actions[0]


# --- function calls --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, expected", [
    ({"name": "click", "arguments": {"element_id": "e3"}}, A.Click("e3")),
    ({"name": "click", "arguments": '{"x": 10, "y": 20}'}, A.Click(Point(10, 20))),
    ({"name": "click", "arguments": {"target": "e3", "button": "right"}}, A.RightClick("e3")),
    ({"name": "double_click", "arguments": {"index": 4}}, A.DoubleClick("e4")),
    ({"name": "hover", "input": {"element_id": "[e7]"}}, A.Hover("e7")),
    ({"name": "fill", "arguments": {"element_id": "e2", "text": "Acme"}}, A.Fill("e2", "Acme")),
    ({"name": "type", "arguments": {"text": "hello"}}, A.Type("hello")),
    ({"name": "clear", "arguments": {"element_id": "e2"}}, A.Clear("e2")),
    ({"name": "select_option", "arguments": {"element_id": "e5", "option": "Closed Won"}},
     A.SelectOption("e5", "Closed Won")),
    ({"name": "check", "arguments": {"element_id": "e6"}}, A.Check("e6")),
    ({"name": "uncheck", "arguments": {"element_id": "e6"}}, A.Uncheck("e6")),
    ({"name": "press", "arguments": {"key": "Enter"}}, A.Press("Enter")),
    ({"name": "press", "arguments": {"key": "ctrl+s"}}, A.Hotkey(("ctrl", "s"))),
    ({"name": "hotkey", "arguments": {"keys": ["ctrl", "shift", "t"]}}, A.Hotkey(("ctrl", "shift", "t"))),
    ({"name": "scroll", "arguments": {"direction": "down", "amount": 300}}, A.Scroll(dy=300)),
    ({"name": "scroll", "arguments": {"dy": -200, "element_id": "e9"}}, A.Scroll(dy=-200, target="e9")),
    ({"name": "drag", "arguments": {"source": "e1", "destination": "e2"}}, A.Drag("e1", "e2")),
    ({"name": "goto", "arguments": {"url": "https://example.test/"}}, A.GoTo("https://example.test/")),
    ({"name": "back", "arguments": {}}, A.Back()),
    ({"name": "forward"}, A.Forward()),
    ({"name": "new_tab", "arguments": {"url": "https://example.test/"}}, A.NewTab("https://example.test/")),
    ({"name": "switch_tab", "arguments": {"index": 1}}, A.SwitchTab(1)),
    ({"name": "close_tab", "arguments": {}}, A.CloseTab()),
    ({"name": "wait", "arguments": {"seconds": 2}}, A.Wait(2)),
    ({"name": "answer", "arguments": {"text": "42"}}, A.Answer("42")),
    ({"name": "done", "arguments": {}}, A.Done()),
    ({"name": "fail", "arguments": {"reason": "blocked"}}, A.Fail("blocked")),
    ({"name": "ask", "arguments": {"question": "Which account?"}}, A.Ask("Which account?")),
])
def test_function_calls(call: dict, expected: A.Action) -> None:
    assert one(call) == expected
    assert one(json.dumps(call)) == expected  # the same as JSON text


def test_tool_call_wrappers_and_lists() -> None:
    openai = {"id": "call_1", "type": "function",
              "function": {"name": "click", "arguments": json.dumps({"element_id": "e3"})}}
    anthropic = {"type": "tool_use", "id": "toolu_1", "name": "fill", "input": {"element_id": "e4", "text": "x"}}
    assert parse_actions([openai, anthropic]) == [A.Click("e3"), A.Fill("e4", "x")]
    assert parse_actions({"tool_calls": [openai]}) == [A.Click("e3")]
    fenced = "I will click.\n```json\n" + json.dumps({"name": "click", "arguments": {"element_id": "e3"}}) + "\n```"
    assert parse_actions(fenced) == [A.Click("e3")]


def test_computer_use_tool() -> None:
    def computer(**args: object) -> A.Action:
        return one({"name": "computer", "input": args})

    assert computer(action="left_click", coordinate=[10, 20]) == A.Click(Point(10, 20))
    assert computer(action="double_click", coordinate=[1, 2]) == A.DoubleClick(Point(1, 2))
    assert computer(action="type", text="hi") == A.Type("hi")
    assert computer(action="key", text="ctrl+s") == A.Hotkey(("ctrl", "s"))
    assert computer(action="scroll", coordinate=[5, 5], scroll_direction="up", scroll_amount=2) == A.Scroll(
        dy=-200, target=Point(5, 5))
    assert computer(action="left_click_drag", start_coordinate=[1, 1], coordinate=[9, 9]) == A.Drag(
        Point(1, 1), Point(9, 9))


def test_our_wire_format() -> None:
    assert one({"type": "click", "target": "e3"}) == A.Click("e3")
    assert one(A.Done()) == A.Done()


# --- browser-use -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, expected", [
    ({"click_element": {"index": 5}}, A.Click("e5")),
    ({"click_element_by_index": {"index": 5}}, A.Click("e5")),
    ({"input_text": {"index": 3, "text": "x"}}, A.Fill("e3", "x")),
    ({"go_to_url": {"url": "https://example.test"}}, A.GoTo("https://example.test")),
    ({"go_back": {}}, A.Back()),
    ({"open_tab": {"url": "https://example.test"}}, A.NewTab("https://example.test")),
    ({"switch_tab": {"page_id": 1}}, A.SwitchTab(1)),
    ({"close_tab": {"page_id": 0}}, A.CloseTab(0)),
    ({"scroll_down": {"amount": 400}}, A.Scroll(dy=400)),
    ({"scroll_up": None}, A.Scroll(dy=-500)),
    ({"send_keys": {"keys": "Enter"}}, A.Press("Enter")),
    ({"send_keys": {"keys": "Control+a"}}, A.Hotkey(("Control", "a"))),
    ({"select_dropdown_option": {"index": 7, "text": "Closed Won"}}, A.SelectOption("e7", "Closed Won")),
    ({"wait": {"seconds": 3}}, A.Wait(3)),
    ({"done": {"text": "The phone is 555", "success": True}}, A.Answer("The phone is 555")),
    ({"done": {"text": "could not", "success": False}}, A.Fail("could not")),
    ({"done": {}}, A.Done()),
])
def test_browser_use(data: dict, expected: A.Action) -> None:
    assert one(data) == expected


def test_browser_use_model_output() -> None:
    output = {"current_state": {"next_goal": "save"},
              "action": [{"input_text": {"index": 3, "text": "Acme"}}, {"click_element": {"index": 9}}]}
    assert parse_actions(output) == [A.Fill("e3", "Acme"), A.Click("e9")]


# --- pyautogui -------------------------------------------------------------------------------------------

def test_pyautogui_calls() -> None:
    code = """
import pyautogui
pyautogui.click(100, 200)
pyautogui.click(x=5, y=6, button='right')
pyautogui.doubleClick(3, 4)
pyautogui.rightClick((7, 8))
pyautogui.write('abc')
pyautogui.typewrite(['a', 'enter'])
pyautogui.hotkey('ctrl', 's')
pyautogui.press('enter')
pyautogui.press('tab', presses=2)
pyautogui.scroll(-3)
pyautogui.scroll(2, x=10, y=20)
pyautogui.moveTo(50, 60)
pyautogui.dragTo(70, 80)
time.sleep(0.5)
WAIT
DONE
"""
    assert parse_actions(code) == [
        A.Click(Point(100, 200)), A.RightClick(Point(5, 6)), A.DoubleClick(Point(3, 4)), A.RightClick(Point(7, 8)),
        A.Type("abc"), A.Press("a"), A.Press("enter"), A.Hotkey(("ctrl", "s")), A.Press("enter"),
        A.Press("tab"), A.Press("tab"), A.Scroll(dy=300), A.Scroll(dy=-200, target=Point(10, 20)),
        A.Move(Point(50, 60)), A.Drag(Point(50, 60), Point(70, 80)), A.Wait(0.5), A.Wait(1.0), A.Done()]


def test_pseudo_calls() -> None:
    assert parse_actions("FAIL") == [A.Fail("")]
    assert parse_actions("FAIL('no such record')") == [A.Fail("no such record")]
    assert parse_actions("WAIT(2)") == [A.Wait(2)]
    assert parse_actions("DONE()") == [A.Done()]


def test_drag_needs_a_start_point() -> None:
    with pytest.raises(ActionError, match="moveTo"):
        parse_actions("pyautogui.dragTo(1, 2)")
    assert parse_actions("pyautogui.dragTo(1, 2)", pointer=Point(0, 0)) == [A.Drag(Point(0, 0), Point(1, 2))]


# --- hostile and invalid input ---------------------------------------------------------------------------

HOSTILE = [
    "__import__('os').system('touch /tmp/pwned')",
    "pyautogui.click(__import__('os').system('id'), 1)",
    "import os\nos.system('id')",
    "from os import system",
    "os.system('id')",
    "exec('print(1)')",
    "eval('1+1')",
    "open('/etc/passwd').read()",
    "pyautogui.__class__.__bases__",
    "pyautogui.click.__globals__",
    "getattr(pyautogui, 'click')(1, 2)",
    "(lambda: __import__('os'))()",
    "pyautogui.click(lambda: 1, 2)",
    "pyautogui.click(pyautogui.position())",
    "pyautogui.write(str(1))",
    "pyautogui.write('a' * 10)",
    "pyautogui.write(f'{1}')",
    "pyautogui.click(*[1, 2])",
    "pyautogui.click(**{'x': 1, 'y': 2})",
    "x = pyautogui.click(1, 2)",
    "for i in range(9): pyautogui.click(1, 2)",
    "def f(): pass",
    "pyautogui.screenshot('/tmp/x.png')",
    "pyautogui.click([1, 2], [3, 4], {'a': 1})",
    "[pyautogui.click(1, 2)]",
    "pyautogui.write(b'bytes')",
    "pyautogui.click(1e400, 2)",
    "pyautogui.write('" + "a" * (MAX_TEXT_CHARS + 1) + "')",
    "pyautogui.click(1, 2)\n" * (MAX_ACTIONS + 1),
    "x" * (MAX_OUTPUT_CHARS + 1),
    "(" * 1000 + ")" * 1000,
    "pyautogui.click(" * 300,
    "[" * 100000,
    "",
    "   ",
    {"name": "click", "arguments": {"element_id": {"__class__": "x"}}},
    {"name": "system", "arguments": {"cmd": "id"}},
    {"name": "click", "arguments": "{not json"},
    {"name": "type", "arguments": {"text": "a" * (MAX_TEXT_CHARS + 1)}},
    {"click_element": {"index": "__import__('os')"}},
    {"click_element": {"index": True}},
    {"run_python": {"code": "import os"}},
    {"type": "click", "target": "e1", "extra": 1},
    {"type": "exec"},
    [{"name": "click"}] * (MAX_ACTIONS + 1),
    json.dumps([[[[[[[{"type": "done"}]]]]]]]),
    12,
    None,
]


@pytest.mark.parametrize("output", HOSTILE, ids=lambda o: repr(o)[:40])
def test_hostile_and_invalid_input_is_rejected(output: object, tmp_path: object) -> None:
    with pytest.raises(ActionError) as info:
        parse_actions(output)
    message = str(info.value)
    assert message and len(message) < 600  # fit to show to an agent


def test_nothing_is_executed(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the parser must not execute code")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    for output in HOSTILE[:15]:
        with pytest.raises(ActionError):
            parse_actions(output)
    assert parse_actions("pyautogui.click(1, 2)") == [A.Click(Point(1, 2))]


def test_error_messages_name_the_problem() -> None:
    with pytest.raises(ActionError, match="fill: missing 'text'"):
        parse_actions({"name": "fill", "arguments": {"element_id": "e1"}})
    with pytest.raises(ActionError, match="unknown function 'teleport'"):
        parse_actions({"name": "teleport", "arguments": {}})
    with pytest.raises(ActionError, match="line 2: pyautogui.click: arguments must be plain literals"):
        parse_actions("pyautogui.press('a')\npyautogui.click(x + 1, 2)")
    with pytest.raises(ActionError, match="unknown browser action 'fly'"):
        parse_actions({"fly": {}})


def test_element_ids() -> None:
    assert [normalize_element_id(v) for v in ("e12", "[e12]", "12", 12, " e3 ")] == ["e12", "e12", "e12", "e12", "e3"]
    for bad in (-1, True, "e 1; drop", "", 1.5):
        with pytest.raises(ActionError):
            normalize_element_id(bad)
