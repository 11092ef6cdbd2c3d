"""The UI-TARS, OpenCUA and Qwen2.5-VL text grammars: coordinates, every action, prompts and refusals."""

from __future__ import annotations

import json
import re

import pytest

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
    TripleClick,
    Type,
    Wait,
)
from pytest_cua.agents.models.coords import CoordSpace, smart_resize
from pytest_cua.agents.models.vlm import (
    GRAMMARS,
    QWEN_PROCESSOR_MAX_PIXELS,
    QWEN_PROCESSOR_MIN_PIXELS,
    UITARS_MAX_PIXELS,
    UITARS_MIN_PIXELS,
    UITARS_SCROLL_PX,
    WAIT_SECONDS,
    Grammar,
    OpenCUAGrammar,
    ParsedTurn,
    QwenVLGrammar,
    UITarsGrammar,
    grammar_for_model,
    key_name,
)

SCREENS = [(1920, 1080), (1280, 800), (1366, 768)]
UITARS = GRAMMARS["ui-tars-1.5"]
OPENCUA = GRAMMARS["opencua"]
QWEN = GRAMMARS["qwen2.5-vl"]
HD = (1920, 1080)


def screen_points(screen: tuple[int, int]) -> list[tuple[float, float]]:
    w, h = screen
    return [(0, 0), (w - 1, h - 1), (w / 2, h / 2), (123, 457), (w - 7, 3), (5, h - 11), (w * 0.3, h * 0.7)]


# --- rendering a model's reply for a screen point ------------------------------------------------------------

def render_uitars(x: float, y: float) -> str:
    return f"Thought: click it\nAction: click(start_box='({round(x)},{round(y)})')"


def render_opencua(x: float, y: float, space: CoordSpace) -> str:
    coords = f"x={x:.4f}, y={y:.4f}" if space.kind == "relative" else f"x={round(x)}, y={round(y)}"
    return f"## Thought:\nclick it\n## Action:\nClick the point\n## Code:\n```python\npyautogui.click({coords})\n```"


def render_qwen(x: float, y: float) -> str:
    call = {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [round(x), round(y)]}}
    return f"click it\n<tool_call>\n{json.dumps(call)}\n</tool_call>"


def render(grammar_name: str, x: float, y: float, space: CoordSpace) -> str:
    if grammar_name.startswith("ui-tars"):
        return render_uitars(x, y)
    if grammar_name.startswith("opencua"):
        return render_opencua(x, y, space)
    return render_qwen(x, y)


def only(turn: ParsedTurn) -> Action:
    assert len(turn.actions) == 1, turn.actions
    return turn.actions[0]


def uitars(action: str, screen: tuple[int, int] = HD, thought: str = "my plan") -> list[Action]:
    return UITARS.parse(f"Thought: {thought}\nAction: {action}", UITARS.image_space(screen)).actions


def opencua(code: str, grammar: Grammar = OPENCUA, pointer: Point | None = None) -> list[Action]:
    text = f"## Thought:\nmy plan\n## Action:\ndo it\n## Code:\n```python\n{code}\n```"
    return grammar.parse(text, grammar.image_space(HD), pointer=pointer).actions


def qwen(*arguments: dict, pointer: Point | None = None, grammar: Grammar = QWEN,
         thought: str = "my plan") -> list[Action]:
    calls = "\n".join(f"<tool_call>\n{json.dumps({'name': 'computer_use', 'arguments': a})}\n</tool_call>"
                      for a in arguments)
    return grammar.parse(f"{thought}\n{calls}", grammar.image_space(HD), pointer=pointer).actions


def near(point: object, x: float, y: float, tol: float = 1.0) -> bool:
    assert isinstance(point, Point), point
    return abs(point.x - x) <= tol and abs(point.y - y) <= tol


# --- smart_resize and image spaces ---------------------------------------------------------------------------

@pytest.mark.parametrize(("screen", "min_pixels", "max_pixels", "expected"), [
    ((1920, 1080), UITARS_MIN_PIXELS, UITARS_MAX_PIXELS, (1092, 1932)),   # 38.57 -> 39 * 28, 68.57 -> 69 * 28
    ((1280, 800), UITARS_MIN_PIXELS, UITARS_MAX_PIXELS, (812, 1288)),     # 28.57 -> 29, 45.71 -> 46
    ((1366, 768), UITARS_MIN_PIXELS, UITARS_MAX_PIXELS, (756, 1372)),     # 27.43 -> 27, 48.79 -> 49
    ((1862, 1050), UITARS_MIN_PIXELS, UITARS_MAX_PIXELS, (1064, 1848)),   # 37.5 -> 38, 66.5 -> 66: half to even
    ((200, 100), UITARS_MIN_PIXELS, UITARS_MAX_PIXELS, (224, 420)),       # below 100 patches: scaled up, ceil
    ((200, 100), QWEN_PROCESSOR_MIN_PIXELS, QWEN_PROCESSOR_MAX_PIXELS, (112, 196)),  # above 4 patches: rounded
    ((5000, 3000), QWEN_PROCESSOR_MIN_PIXELS, QWEN_PROCESSOR_MAX_PIXELS, (2772, 4620)),  # above max: floor
])
def test_smart_resize_matches_hand_computed_figures(screen: tuple[int, int], min_pixels: int, max_pixels: int,
                                                    expected: tuple[int, int]) -> None:
    assert smart_resize(screen[1], screen[0], 28, min_pixels, max_pixels) == expected
    h, w = expected
    assert h % 28 == 0 and w % 28 == 0 and min_pixels <= h * w <= max_pixels


def test_pixel_bounds_are_the_reference_ones() -> None:
    assert (UITARS_MIN_PIXELS, UITARS_MAX_PIXELS) == (78_400, 12_845_056)
    assert (QWEN_PROCESSOR_MIN_PIXELS, QWEN_PROCESSOR_MAX_PIXELS) == (3_136, 12_845_056)


@pytest.mark.parametrize(("name", "kind"), [("ui-tars-1.5", "smart_resize"), ("ui-tars-1.0", "relative1000"),
                                             ("opencua", "smart_resize"), ("opencua-relative", "relative"),
                                             ("qwen2.5-vl", "smart_resize")])
def test_image_space_kind_and_image_size(name: str, kind: str) -> None:
    space = GRAMMARS[name].image_space(HD)
    assert (space.kind, space.width, space.height) == (kind, 1932, 1092)
    assert (space.screen_width, space.screen_height) == HD


def test_unknown_coordinates_option_is_refused() -> None:
    with pytest.raises(ValueError, match="relative1000"):
        UITarsGrammar(coordinates="pixels")
    with pytest.raises(ValueError, match="relative"):
        OpenCUAGrammar(coordinates="relative1000")


# --- coordinate round trips ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(GRAMMARS))
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_round_trip_lands_within_a_pixel(name: str, screen: tuple[int, int]) -> None:
    grammar = GRAMMARS[name]
    space = grammar.image_space(screen)
    tol = 1.5 if space.kind == "relative1000" else 1.0  # 0.5 of a thousandth of 1920 px is 0.96 px
    for x, y in screen_points(screen):
        mx, my = space.from_screen(x, y)
        target = only(grammar.parse(render(name, mx, my, space), space)).target  # type: ignore[attr-defined]
        assert near(target, x, y, tol), (name, screen, (x, y), (mx, my), target)


@pytest.mark.parametrize("name", sorted(GRAMMARS))
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_corners_clamp_exactly_to_the_screen(name: str, screen: tuple[int, int]) -> None:
    grammar = GRAMMARS[name]
    space = grammar.image_space(screen)
    span_x, span_y = space.from_screen(*screen)  # the model's numbers for the image's far corner
    w, h = screen
    for (mx, my), expected in [((0, 0), Point(0, 0)), ((span_x, span_y), Point(w - 1, h - 1)),
                               ((span_x * 1.01, span_y * 1.01), Point(w - 1, h - 1))]:
        assert only(grammar.parse(render(name, mx, my, space), space)).target == expected  # type: ignore


# --- UI-TARS -------------------------------------------------------------------------------------------------

def test_uitars_clicks_map_smart_resize_pixels_to_the_screen() -> None:
    centre = Point(960.0, 540.0)
    assert uitars("click(start_box='(966,546)')") == [Click(centre)]
    assert uitars("left_single(start_box='(966,546)')") == [Click(centre)]
    assert uitars("left_double(start_box='(966,546)')") == [DoubleClick(centre)]
    assert uitars("right_single(start_box='(966,546)')") == [RightClick(centre)]
    assert uitars("hover(start_box='(966,546)')") == [Move(centre)]


@pytest.mark.parametrize("box", ["<|box_start|>(966,546)<|box_end|>", "(966, 546)", "(916,496,1016,596)",
                                 "[916, 496, 1016, 596]", "<point>966 546</point>", "<bbox>916 496 1016 596</bbox>",
                                 "(916,496),(1016,596)"])
def test_uitars_point_formats_and_boxes_take_the_centre(box: str) -> None:
    assert uitars(f"click(start_box='{box}')") == [Click(Point(960.0, 540.0))]


def test_uitars_point_keyword_of_the_newer_prompt() -> None:
    assert uitars("click(point='<point>966 546</point>')") == [Click(Point(960.0, 540.0))]
    assert uitars("drag(start_point='<point>0 0</point>', end_point='<point>966 546</point>')") == [
        Drag(Point(0, 0), Point(960.0, 540.0))]


def test_uitars_drag() -> None:
    assert uitars("drag(start_box='(0,0)', end_box='(966,546)')") == [Drag(Point(0, 0), Point(960.0, 540.0))]


@pytest.mark.parametrize(("key", "expected"), [
    ("ctrl c", Hotkey(("ctrl", "c"))), ("enter", Press("enter")), ("Return", Press("enter")),
    ("ctrl shift T", Hotkey(("ctrl", "shift", "t"))), ("ctrl+a", Hotkey(("ctrl", "a"))),
    ("arrowleft", Press("left")), ("Escape", Press("esc")), ("pagedown", Press("pagedown")), ("A", Press("A")),
])
def test_uitars_hotkey_keys_in_pyautogui_spelling(key: str, expected: Action) -> None:
    assert uitars(f"hotkey(key='{key}')") == [expected]


def test_uitars_press_reads_like_hotkey() -> None:
    assert uitars("press(key='tab')") == [Press("tab")]


@pytest.mark.parametrize(("content", "expected"), [
    ("hello world", [Type("hello world")]),
    ("it\\'s \\\"quoted\\\"", [Type("it's \"quoted\"")]),
    ("it's unescaped", [Type("it's unescaped")]),
    ("line one\\nline two", [Type("line one\nline two")]),
    ("search me\\n", [Type("search me"), Press("enter")]),
    ("search me\n", [Type("search me"), Press("enter")]),
    ("\\n", [Press("enter")]),
    ("back\\\\slash", [Type("back\\slash")]),
])
def test_uitars_type_unescapes_and_submits_on_trailing_newline(content: str, expected: list[Action]) -> None:
    assert uitars(f"type(content='{content}')") == expected


@pytest.mark.parametrize(("direction", "dx", "dy"), [("down", 0, UITARS_SCROLL_PX), ("up", 0, -UITARS_SCROLL_PX),
                                                     ("right", UITARS_SCROLL_PX, 0), ("left", -UITARS_SCROLL_PX, 0)])
def test_uitars_scroll_directions(direction: str, dx: float, dy: float) -> None:
    assert UITARS_SCROLL_PX == 500
    assert uitars(f"scroll(start_box='(966,546)', direction='{direction}')") == [
        Scroll(dx=dx, dy=dy, target=Point(960.0, 540.0))]
    assert uitars(f"scroll(direction='{direction}')") == [Scroll(dx=dx, dy=dy)]


def test_uitars_wait_finished_and_call_user() -> None:
    assert uitars("wait()") == [Wait(WAIT_SECONDS)] == [Wait(5.0)]
    assert uitars("finished()") == [Done()]
    assert uitars("finished(content='')") == [Done()]
    assert uitars("finished(content='The total is \\'42\\'')") == [Answer("The total is '42'")]
    assert uitars("call_user()", thought="I need the password") == [Ask("I need the password")]
    assert isinstance(uitars("call_user()", thought="")[0], Ask)


def test_uitars_several_actions_in_one_reply() -> None:
    text = ("Thought: fill the form\nAction: click(start_box='(966,546)')\n\ntype(content='Acme\\n')\n\n"
            "hotkey(key='ctrl s')\nwait()")
    turn = UITARS.parse(text, UITARS.image_space(HD))
    assert turn.actions == [Click(Point(960.0, 540.0)), Type("Acme"), Press("enter"), Hotkey(("ctrl", "s")),
                            Wait(5.0)]
    assert turn.thought == "fill the form"
    assert turn.raw == text


def test_uitars_reply_without_thought_and_multiline_thought() -> None:
    assert UITARS.parse("Action: wait()", UITARS.image_space(HD)).thought == ""
    turn = UITARS.parse("Thought: first line\nsecond line\nAction: wait()", UITARS.image_space(HD))
    assert turn.thought == "first line\nsecond line"


def test_uitars_1_0_reads_thousandths() -> None:
    grammar = GRAMMARS["ui-tars-1.0"]
    turn = grammar.parse("Action: click(start_box='(500,500)')", grammar.image_space(HD))
    assert only(turn) == Click(Point(960.0, 540.0))


def test_uitars_history_entry_restores_box_tokens() -> None:
    turn = UITARS.parse("Thought: go\nAction: drag(start_box='(1,2)', end_box='<|box_start|>(3,4)<|box_end|>')",
                        UITARS.image_space(HD))
    assert UITARS.history_entry(turn) == (
        "Thought: go\nAction: drag(start_box='<|box_start|>(1,2)<|box_end|>', "
        "end_box='<|box_start|>(3,4)<|box_end|>')")
    bare = UITARS.parse("Action: wait()", UITARS.image_space(HD))
    assert UITARS.history_entry(bare) == "Action: wait()"


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("   \n", "empty"),
    ("Thought: I am lost", "no 'Action:'"),
    ("Thought: x\nAction:", "no action found"),
    ("Action: teleport(start_box='(1,2)')", "unknown action 'teleport'"),
    ("Action: click(start_box='(1,two)')", "cannot read the point '(1,two)'"),
    ("Action: click(start_box='(1,2,3)')", "cannot read the point"),
    ("Action: click()", "missing 'start_box'"),
    ("Action: click(start_box='(1,2)", "no closing quote"),
    ("Action: click start_box", "cannot read the action 'click start_box'"),
    ("Action: click(start_box='(1,2))", "no closing quote"),
    ("Action: click(start_box=(1,2))", "cannot read the arguments"),
    ("Action: drag(start_box='(1,2)')", "missing 'end_box'"),
    ("Action: type(content='')", "'content' is empty"),
    ("Action: hotkey(key='')", "no key given"),
    ("Action: scroll(direction='sideways')", "'direction' must be up, down, left or right, got 'sideways'"),
    ("Action: click(start_box='(1e400,2)')", "cannot read the point"),
    ("Action: click(start_box='(999999999,2)')", "out of range"),
    ("Action: __import__('os').system('rm -rf /')", "unknown action '__import__'"),
    ("Action: click(start_box=__import__('os').getcwd())", "cannot read the arguments"),
    ("Action: exec(content='import os')", "unknown action 'exec'"),
    ("Action: click(start_box='(1,2)') and then more", "cannot read the action"),
])
def test_uitars_refusals_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ActionError, match=re.escape(message)):
        UITARS.parse(text, UITARS.image_space(HD))


def test_uitars_refuses_overlong_replies_and_non_text() -> None:
    with pytest.raises(ActionError, match="too long"):
        UITARS.parse("Action: wait()\n" + "x" * 60_000, UITARS.image_space(HD))
    with pytest.raises(ActionError, match="must be text"):
        UITARS.parse(None, UITARS.image_space(HD))  # type: ignore[arg-type]


def test_uitars_shell_text_is_only_typed() -> None:
    assert uitars("type(content='$(rm -rf /)')") == [Type("$(rm -rf /)")]


# --- OpenCUA -------------------------------------------------------------------------------------------------

def test_opencua_pyautogui_calls_map_smart_resize_pixels() -> None:
    centre = Point(960.0, 540.0)
    assert opencua("pyautogui.click(x=966, y=546)") == [Click(centre)]
    assert opencua("pyautogui.click(966, 546)") == [Click(centre)]
    assert opencua("pyautogui.doubleClick(x=966, y=546)") == [DoubleClick(centre)]
    assert opencua("pyautogui.rightClick(966, 546)") == [RightClick(centre)]
    assert opencua("pyautogui.click(966, 546, button='right')") == [RightClick(centre)]
    assert opencua("pyautogui.moveTo(966, 546)") == [Move(centre)]
    assert opencua("pyautogui.scroll(-5, x=966, y=546)") == [Scroll(dy=500, target=centre)]


def test_opencua_fractions_in_smart_resize_mode_are_read_as_relative() -> None:
    assert opencua("pyautogui.click(x=0.5, y=0.5)") == [Click(Point(960.0, 540.0))]
    assert opencua("pyautogui.click(x=1, y=1)") == [Click(Point(1920 / 1932, 1080 / 1092))]  # whole: pixels


def test_opencua_relative_grammar() -> None:
    relative = GRAMMARS["opencua-relative"]
    assert opencua("pyautogui.click(x=0.25, y=0.75)", grammar=relative) == [Click(Point(480.0, 810.0))]
    assert opencua("pyautogui.click(x=1.0, y=1.0)", grammar=relative) == [Click(Point(1919.0, 1079.0))]


def test_opencua_keyboard_calls_and_corrected_keywords() -> None:
    assert opencua("pyautogui.write(message='hi')") == [Type("hi")]
    assert opencua("pyautogui.write(text='hi')") == [Type("hi")]
    assert opencua("pyautogui.typewrite(content='hi')") == [Type("hi")]
    assert opencua("pyautogui.press('Return')") == [Press("enter")]
    assert opencua("pyautogui.press(key='tab')") == [Press("tab")]
    assert opencua("pyautogui.hotkey('ctrl', 'C')") == [Hotkey(("ctrl", "c"))]
    assert opencua("pyautogui.hotkey(keys=['Control', 's'])") == [Hotkey(("ctrl", "s"))]
    assert opencua("pyautogui.hotkey(key1='alt', key2='f4')") == [Hotkey(("alt", "f4"))]


def test_opencua_drag_after_move_and_from_the_pointer() -> None:
    assert opencua("pyautogui.moveTo(0, 0)\npyautogui.dragTo(966, 546, duration=1.0)") == [
        Move(Point(0, 0)), Drag(Point(0, 0), Point(960.0, 540.0))]
    start = Point(100.0, 200.0)
    [drag] = opencua("pyautogui.dragTo(966, 546)", pointer=start)
    assert isinstance(drag, Drag) and near(drag.source, 100, 200, 1e-6) and drag.destination == Point(960.0, 540.0)
    with pytest.raises(ActionError, match="start point is unknown"):
        opencua("pyautogui.dragTo(966, 546)")


def test_opencua_computer_functions() -> None:
    centre = Point(960.0, 540.0)
    assert opencua("computer.triple_click(x=966, y=546)") == [TripleClick(centre)]
    assert opencua("computer.wait()") == [Wait(5.0)]
    assert opencua("computer.wait(2)") == [Wait(2.0)]
    assert opencua("computer.terminate(status='success')") == [Done()]
    assert opencua("computer.terminate(status='success', answer='42')") == [Answer("42")]
    assert opencua("computer.terminate(status='failure')") == [Fail("my plan")]
    assert opencua("computer.terminate(status='fail', answer='no such record')") == [Fail("no such record")]
    assert opencua("computer.terminateWithText(text='Acme', status='success')") == [Answer("Acme")]
    assert opencua("computer.call_user(question='Which account?')") == [Ask("Which account?")]
    assert opencua("computer.call_user()") == [Ask("my plan")]


def test_opencua_several_lines_and_imports() -> None:
    code = "import pyautogui\npyautogui.click(966, 546)\npyautogui.write(message='Acme')\npyautogui.press('enter')"
    assert opencua(code) == [Click(Point(960.0, 540.0)), Type("Acme"), Press("enter")]


def test_opencua_sections_thought_and_history() -> None:
    text = ("## Observation:\nA form.\n\n## Thought:\nI should save.\nThen close.\n\n## Action:\nPress Ctrl+S\n\n"
            "## Code:\n```python\n# save\npyautogui.hotkey('ctrl', 's')\n```\n")
    turn = OPENCUA.parse(text, OPENCUA.image_space(HD))
    assert turn.actions == [Hotkey(("ctrl", "s"))]
    assert turn.thought == "I should save.\nThen close."
    assert OPENCUA.history_entry(turn) == "## Thought:\nI should save.\nThen close.\n\n## Action:\nPress Ctrl+S\n"


def test_opencua_l1_reply_without_thought_and_code_fence_variants() -> None:
    turn = OPENCUA.parse("## Action:\nWait\n## Code:\n```code\ncomputer.wait()\n```", OPENCUA.image_space(HD))
    assert (turn.actions, turn.thought) == ([Wait(5.0)], "")
    assert OPENCUA.history_entry(turn) == "## Action:\nWait\n"
    unfenced = OPENCUA.parse("## Action:\nClick\n## Code:\npyautogui.click(966, 546)", OPENCUA.image_space(HD))
    assert unfenced.actions == [Click(Point(960.0, 540.0))]


def test_opencua_uses_the_last_code_block() -> None:
    text = "## Thought:\nLike ```python\nbad(\n``` no\n## Code:\n```python\npyautogui.click(966, 546)\n```"
    assert OPENCUA.parse(text, OPENCUA.image_space(HD)).actions == [Click(Point(960.0, 540.0))]


@pytest.mark.parametrize(("code", "message"), [
    ("import os\nos.system('rm -rf /')", "line 1: only 'import pyautogui' is allowed, not 'os'"),
    ("pyautogui.click(1, 2)\nos.system('rm -rf /')", "line 2: call of 'os.system' is not allowed"),
    ("__import__('os').system('id')", "is not allowed"),
    ("exec('print(1)')", "call of 'exec' is not allowed"),
    ("x = pyautogui.click(1, 2)", "not a Assign statement"),
    ("pyautogui.click(x=__import__('os').getpid(), y=2)", "plain literals"),
    ("computer.terminate(status=open('/etc/passwd').read())", "computer.terminate: arguments must be plain literals"),
    ("computer.shell('ls')", "computer.shell is not a known function"),
    ("computer.terminate(status='maybe')", "'status' must be 'success' or 'failure', got 'maybe'"),
    ("computer.triple_click(x=1)", "missing 'y'"),
    ("computer.wait(9999)", "between 0 and 300"),
    ("pyautogui.click(1, 2", "does not parse as Python \\(line 1\\): 'pyautogui.click\\(1, 2'"),
    ("import pyautogui", "no action found"),
])
def test_opencua_refusals_name_the_problem(code: str, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        opencua(code)


def test_opencua_reply_without_code() -> None:
    with pytest.raises(ActionError, match="no code in the reply"):
        OPENCUA.parse("## Thought:\nhmm\n## Action:\nClick OK", OPENCUA.image_space(HD))


# --- Qwen2.5-VL ----------------------------------------------------------------------------------------------

def test_qwen_pointer_actions_map_smart_resize_pixels() -> None:
    centre = Point(960.0, 540.0)
    at = {"coordinate": [966, 546]}
    assert qwen({"action": "left_click", **at}) == [Click(centre)]
    assert qwen({"action": "right_click", **at}) == [RightClick(centre)]
    assert qwen({"action": "middle_click", **at}) == [Click(centre, button="middle")]
    assert qwen({"action": "double_click", **at}) == [DoubleClick(centre)]
    assert qwen({"action": "mouse_move", **at}) == [Move(centre)]


def test_qwen_keyboard_actions() -> None:
    assert qwen({"action": "type", "text": "Acme Corp"}) == [Type("Acme Corp")]
    assert qwen({"action": "key", "keys": ["ctrl", "c"]}) == [Hotkey(("ctrl", "c"))]
    assert qwen({"action": "key", "keys": ["Return"]}) == [Press("enter")]
    assert qwen({"action": "key", "keys": "ctrl+shift+t"}) == [Hotkey(("ctrl", "shift", "t"))]
    assert qwen({"action": "key", "keys": "a"}) == [Press("a")]


def test_qwen_scroll_pixels_positive_is_up() -> None:
    assert qwen({"action": "scroll", "pixels": -300}) == [Scroll(dy=300)]
    assert qwen({"action": "scroll", "pixels": 200, "coordinate": [966, 546]}) == [
        Scroll(dy=-200, target=Point(960.0, 540.0))]
    clicks = QwenVLGrammar(scroll_px_per_unit=100)
    assert qwen({"action": "scroll", "pixels": -5}, grammar=clicks) == [Scroll(dy=500)]


def test_qwen_drag_from_the_pointer() -> None:
    centre = Point(960.0, 540.0)
    assert qwen({"action": "mouse_move", "coordinate": [0, 0]}, {"action": "left_click_drag", "coordinate": [966, 546]}
                ) == [Move(Point(0, 0)), Drag(Point(0, 0), centre)]
    assert qwen({"action": "left_click_drag", "coordinate": [966, 546]}, pointer=Point(5, 6)) == [
        Drag(Point(5, 6), centre)]
    assert qwen({"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [966, 546]}) == [
        Drag(Point(0, 0), centre)]
    assert qwen({"action": "left_click"}, pointer=Point(5, 6)) == [Click(Point(5, 6))]


def test_qwen_wait_terminate_answer_and_call_user() -> None:
    assert qwen({"action": "wait", "time": 2}) == [Wait(2.0)]
    assert qwen({"action": "wait"}) == [Wait(5.0)]
    assert qwen({"action": "terminate", "status": "success"}) == [Done()]
    assert qwen({"action": "terminate", "status": "failure"}, thought="It cannot be done.") == [
        Fail("It cannot be done.")]
    assert qwen({"action": "answer", "text": "42"}) == [Answer("42")]
    assert qwen({"action": "call_user", "text": "Which account?"}) == [Ask("Which account?")]


def test_qwen_thought_history_and_string_arguments() -> None:
    text = ('Thought: I open the menu.\n<tool_call>\n{"name": "computer_use", "arguments": '
            '"{\\"action\\": \\"left_click\\", \\"coordinate\\": [966, 546]}"}\n</tool_call>')
    turn = QWEN.parse(text, QWEN.image_space(HD))
    assert turn.actions == [Click(Point(960.0, 540.0))]
    assert turn.thought == "I open the menu."
    assert QWEN.history_entry(turn) == text


def test_qwen_unclosed_tool_call_at_the_end_is_read() -> None:
    text = 'go\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "wait", "time": 1}}'
    assert QWEN.parse(text, QWEN.image_space(HD)).actions == [Wait(1.0)]


@pytest.mark.parametrize(("text", "message"), [
    ("I will click the button.", "no <tool_call>"),
    ("<tool_call>{not json}</tool_call>", "not valid JSON: '{not json}'"),
    ('<tool_call>["computer_use"]</tool_call>', "must be a JSON object"),
    ('<tool_call>{"name": "os.system", "arguments": {"command": "rm -rf /"}}</tool_call>',
     "unknown function 'os.system'"),
    ('<tool_call>{"name": "computer_use", "arguments": 3}</tool_call>', "'arguments' must be a JSON object"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "shell"}}</tool_call>',
     "unknown computer_use action '\"shell\"'"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click"}}</tool_call>',
     "left_click: missing 'coordinate'"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1]}}</tool_call>',
     "must be \\[x, y\\], got '\\[1\\]'"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": ["1", 2]}}'
     '</tool_call>', "must be a number"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click_drag", "coordinate": [1, 2]}}'
     '</tool_call>', "start point is unknown"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "terminate", "status": "done"}}</tool_call>',
     "'status' must be"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "key", "keys": []}}</tool_call>',
     "'keys' must be a list"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "type"}}</tool_call>', "type 'text' must be"),
    ('<tool_call>{"name": "computer_use", "arguments": {"action": "scroll"}}</tool_call>', "scroll 'pixels'"),
])
def test_qwen_refusals_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        QWEN.parse(text, QWEN.image_space(HD))


# --- prompts -------------------------------------------------------------------------------------------------

ASK_MARKERS = {"ui-tars-1.5": "call_user()", "ui-tars-1.0": "call_user()", "opencua": "computer.call_user",
               "opencua-relative": "computer.call_user", "qwen2.5-vl": "call_user"}


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_system_prompt_has_the_instruction_and_ask_only_when_asked(name: str) -> None:
    grammar = GRAMMARS[name]
    instruction = "Create a lead for {Acme} and report its id"
    with_ask = grammar.system_prompt(instruction, ask=True, screen=HD)
    without = grammar.system_prompt(instruction, ask=False, screen=HD)
    assert instruction in with_ask and instruction in without
    assert ASK_MARKERS[name] in with_ask
    assert ASK_MARKERS[name] not in without
    assert grammar.prompt_version == "1"


def test_uitars_prompt_shape() -> None:
    prompt = UITARS.system_prompt("Open Leads", ask=False, language="Chinese")
    assert "Thought: ...\nAction: ..." in prompt
    assert "click(start_box='<|box_start|>(x1,y1)<|box_end|>')" in prompt
    assert "finished(content='xxx')" in prompt and "hotkey(key='ctrl c')" in prompt
    assert "Chinese" in prompt
    assert prompt.rstrip().endswith("## User Instruction\nOpen Leads")


def test_opencua_prompt_shape() -> None:
    prompt = OPENCUA.system_prompt("Open Leads", ask=False)
    assert "## Thought:" in prompt and "## Action:" in prompt and "## Code:" in prompt
    functions = [json.loads(line[2:]) for line in prompt.splitlines() if line.startswith("- {")]
    assert [f["name"] for f in functions] == ["computer.triple_click", "computer.wait", "computer.terminate"]
    assert functions[2]["parameters"]["properties"]["status"]["enum"] == ["success", "failure"]
    assert prompt.rstrip().endswith("# Task Instruction:\nOpen Leads")


@pytest.mark.parametrize(("screen", "resolution"), [((1920, 1080), "1932x1092"), ((1280, 800), "1288x812"),
                                                    ((1366, 768), "1372x756")])
def test_qwen_prompt_declares_the_resized_image_size(screen: tuple[int, int], resolution: str) -> None:
    prompt = QWEN.system_prompt("Open Leads", ask=False, screen=screen)
    tools = prompt.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    tool = json.loads(tools)["function"]
    assert tool["name"] == "computer_use"
    assert f"The screen's resolution is {resolution}." in tool["description"]
    assert tool["parameters"]["properties"]["action"]["enum"] == [
        "key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
        "double_click", "scroll", "wait", "terminate", "answer"]
    assert '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' in prompt


def test_qwen_prompt_needs_the_screen() -> None:
    with pytest.raises(ValueError, match="screen="):
        QWEN.system_prompt("Open Leads", ask=False)


# --- registry ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("model", "name"), [
    ("ui-tars-1.5-7b", "ui-tars-1.5"), ("ByteDance-Seed/UI-TARS-1.5-7B", "ui-tars-1.5"),
    ("bytedance-research/UI-TARS-7B-DPO", "ui-tars-1.0"), ("UI-TARS-72B-SFT", "ui-tars-1.0"),
    ("opencua-7b", "opencua"), ("xlangai/OpenCUA-7B", "opencua"), ("xlangai/OpenCUA-32B", "opencua"),
    ("xlangai/OpenCUA-Qwen2-7B", "opencua-relative"), ("xlangai/OpenCUA-A3B", "opencua-relative"),
    ("qwen2.5-vl-72b", "qwen2.5-vl"), ("Qwen/Qwen2.5-VL-72B-Instruct", "qwen2.5-vl"),
    ("qwen2_5_vl_7b", "qwen2.5-vl"),
])
def test_grammar_for_model(model: str, name: str) -> None:
    assert grammar_for_model(model) is GRAMMARS[name]


def test_grammar_for_unknown_model_lists_the_known() -> None:
    with pytest.raises(ValueError, match="gpt-4o.*ui-tars-1.5, ui-tars-1.0, opencua, opencua-relative, qwen2.5-vl"):
        grammar_for_model("gpt-4o")


def test_grammars_are_registered_by_name() -> None:
    assert all(name == grammar.name for name, grammar in GRAMMARS.items())
    assert {"ui-tars-1.5", "opencua", "qwen2.5-vl"} <= set(GRAMMARS)


@pytest.mark.parametrize(("raw", "expected"), [("Enter", "enter"), ("CONTROL", "ctrl"), ("ArrowDown", "down"),
                                               (" ", "space"), ("a", "a"), ("F5", "f5"), ("page_down", "pagedown")])
def test_key_name(raw: str, expected: str) -> None:
    assert key_name(raw) == expected


@pytest.mark.parametrize("raw", ["", "ctrl c", "x" * 30])
def test_key_name_refuses_non_keys(raw: str) -> None:
    with pytest.raises(ActionError, match="not a key name"):
        key_name(raw)
