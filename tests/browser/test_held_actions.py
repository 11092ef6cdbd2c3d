"""Pointer actions with held modifier keys, hold_key, mouse down/up and triple click, carried out in real
Chromium: what the page receives (the events' modifier flags, click counts, how long a key was down) is
what the vendors' computer tools describe."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_cua import actions as A
from pytest_cua.actions import Point
from pytest_cua.envs.browser import BrowserEnvironment

pytestmark = pytest.mark.browser

RECORDER = """() => {
  window.seen = [];
  const mods = e => ['ctrl', 'shift', 'alt', 'meta'].filter(m => e[m + 'Key']).join('+');
  for (const type of ['mousedown', 'mouseup', 'click', 'wheel', 'mousemove']) {
    document.addEventListener(type, e => {
      if (type === 'mousemove' && !e.buttons) return;
      window.seen.push({type, mods: mods(e), detail: e.detail, buttons: e.buttons,
                        x: Math.round(e.clientX), y: Math.round(e.clientY), t: performance.now()});
    }, {capture: true, passive: true});
  }
  for (const type of ['keydown', 'keyup']) {
    document.addEventListener(type, e => window.seen.push({type, key: e.key, repeat: e.repeat,
                                                            t: performance.now()}), true);
  }
}"""


def record(env: BrowserEnvironment) -> None:
    env.page.evaluate(RECORDER)


def seen(env: BrowserEnvironment, *types: str) -> list[dict[str, Any]]:
    return [e for e in env.page.evaluate("window.seen") if not types or e["type"] in types]


def ok(env: BrowserEnvironment, action: A.Action) -> None:
    result = env.act(action)
    assert result.ok, result.error


def test_a_click_holds_its_modifiers_and_releases_them(env: BrowserEnvironment) -> None:
    record(env)
    ok(env, A.Click(Point(40, 40), modifiers=("ctrl", "shift")))
    down, up, click = seen(env, "mousedown", "mouseup", "click")
    assert down["mods"] == up["mods"] == click["mods"] == "ctrl+shift"
    keys = seen(env, "keydown", "keyup")
    assert [(k["type"], k["key"]) for k in keys if not k["repeat"]] == [
        ("keydown", "Control"), ("keydown", "Shift"), ("keyup", "Shift"), ("keyup", "Control")]
    ok(env, A.Click(Point(40, 40)))
    assert seen(env, "click")[-1]["mods"] == ""  # nothing left held


def test_a_scroll_and_a_drag_hold_their_modifiers(env: BrowserEnvironment) -> None:
    record(env)
    ok(env, A.Scroll(dy=120, target=Point(60, 60), modifiers=("shift",)))
    assert {e["mods"] for e in seen(env, "wheel")} == {"shift"}
    ok(env, A.Drag(Point(30, 30), Point(90, 90), modifiers=("alt",)))
    assert seen(env, "mousedown")[-1]["mods"] == "alt" and seen(env, "mouseup")[-1]["mods"] == "alt"


def test_triple_click_is_three_clicks_in_a_row(env: BrowserEnvironment) -> None:
    record(env)
    ok(env, A.TripleClick(Point(50, 50)))
    assert [c["detail"] for c in seen(env, "click")] == [1, 2, 3]


def test_mouse_down_move_up_is_a_drag(env: BrowserEnvironment) -> None:
    record(env)
    ok(env, A.MouseDown(Point(20, 20)))
    ok(env, A.Move(Point(120, 80)))
    assert seen(env, "mousedown")[-1]["buttons"] == 1 and not seen(env, "mouseup")  # still down
    ok(env, A.MouseUp())  # where the pointer is
    moves = seen(env, "mousemove")
    assert moves and moves[-1]["buttons"] == 1 and (moves[-1]["x"], moves[-1]["y"]) == (120, 80)
    up = seen(env, "mouseup")[-1]
    assert (up["x"], up["y"]) == (120, 80)


def test_hold_key_holds_for_its_duration(env: BrowserEnvironment) -> None:
    record(env)
    ok(env, A.HoldKey(("shift",), seconds=0.6))
    keys = [k for k in seen(env, "keydown", "keyup") if not k["repeat"]]
    assert [(k["type"], k["key"]) for k in keys] == [("keydown", "Shift"), ("keyup", "Shift")]
    assert keys[1]["t"] - keys[0]["t"] >= 600 - 5  # at least the duration (the clock's resolution aside)


def test_modifiers_are_released_when_the_action_fails(env: BrowserEnvironment) -> None:
    record(env)
    result = env.act(A.Click("e999", modifiers=("ctrl",)))  # no such element
    assert not result.ok
    keys = [(k["type"], k["key"]) for k in seen(env, "keydown", "keyup") if not k["repeat"]]
    assert keys == [("keydown", "Control"), ("keyup", "Control")]
