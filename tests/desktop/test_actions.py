"""Every desktop action, carried out by the executor in a real container against the probe window."""

from __future__ import annotations

import base64
import io
import time
from typing import Any

import pytest

from .desktop_helpers import events, probe_task, wait_for
from pytest_cua.actions import Action
from pytest_cua.envs.base import roll_back

pytestmark = pytest.mark.docker


@pytest.fixture
def probe(desktop: Any) -> Any:
    """The desktop rolled back to its snapshot with the probe window open and focused."""
    roll_back(desktop, desktop.test_snapshot)
    desktop.begin_task(probe_task())
    return desktop


def act(env: Any, **action: Any) -> Any:
    result = env.act(Action.from_dict(action))
    assert result.ok, result.error
    return result


def _summary(items: list[dict]) -> list[tuple]:
    return [(e["kind"], e.get("num"), e.get("x"), e.get("y")) for e in items if e["kind"] not in ("motion", "text")]


def _at(items: list[dict], x: int, y: int) -> list[dict]:
    return [e for e in items if abs(e["x"] - x) <= 1 and abs(e["y"] - y) <= 1]


def test_click_lands_on_the_point(probe: Any) -> None:
    act(probe, type="click", target={"x": 200, "y": 150})
    presses = wait_for(lambda: _at(events(probe, "press"), 200, 150), what="a press at (200, 150)")
    assert presses[0]["num"] == 1


def test_double_click(probe: Any) -> None:
    for x, y in ((300, 120), (500, 60), (120, 250)):  # several: a lost click shows up as a missing double
        act(probe, type="double_click", target={"x": x, "y": y})
        wait_for(lambda: _at(events(probe, "double"), x, y),
                 what=lambda: f"a double click at ({x}, {y}); the probe saw {_summary(events(probe))}")


def test_right_click(probe: Any) -> None:
    act(probe, type="right_click", target={"x": 250, "y": 100})
    presses = wait_for(lambda: _at(events(probe, "press"), 250, 100), what="a press at (250, 100)")
    assert presses[0]["num"] == 3


def test_move_without_clicking(probe: Any) -> None:
    act(probe, type="move", target={"x": 410, "y": 140})
    wait_for(lambda: _at(events(probe, "motion"), 410, 140), what="pointer motion to (410, 140)")
    assert not events(probe, "press")


def test_drag_presses_at_source_and_releases_at_destination(probe: Any) -> None:
    act(probe, type="drag", source={"x": 100, "y": 100}, destination={"x": 500, "y": 200})
    wait_for(lambda: _at(events(probe, "release"), 500, 200), timeout=20.0,
             what=lambda: f"a release at (500, 200); the probe saw {_summary(events(probe))}")
    assert _at(events(probe, "press"), 100, 100)
    held = [e for e in events(probe, "motion") if e["state"] & 0x100]  # Button1Mask: moved with the button down
    assert len(held) >= 2, f"no motion with the button held between press and release: {held}"


def test_scroll_down_sends_wheel_events(probe: Any) -> None:
    act(probe, type="scroll", dy=120, target={"x": 300, "y": 150})
    wheel = wait_for(lambda: [e for e in events(probe, "press") if e["num"] == 5], what="wheel-down presses")
    assert len(wheel) >= 2
    assert not [e for e in events(probe, "press") if e["num"] == 4]


def test_type_keeps_angle_brackets_and_newlines(probe: Any) -> None:
    text = "a<b>c & 'q' \"d\" {x}"
    act(probe, type="type", text=text + "\nline2")
    wait_for(lambda: any(e["text"] == text + "\nline2" for e in events(probe, "text")),
             what=f"the probe's text to read {text!r} + newline + 'line2'")


def test_press_and_hotkey(probe: Any) -> None:
    act(probe, type="press", key="Enter")
    act(probe, type="hotkey", keys=["ctrl", "a"])
    keys = wait_for(lambda: [e for e in events(probe, "key") if e["keysym"] in ("Return", "a")],
                    what="Return and ctrl+a key events")
    assert keys[0]["keysym"] == "Return"
    ctrl_a = [e for e in keys if e["keysym"] == "a"]
    assert ctrl_a and ctrl_a[0]["state"] & 4, f"'a' without the control modifier: {ctrl_a}"


def test_wait_waits(probe: Any) -> None:
    started = time.monotonic()
    act(probe, type="wait", seconds=0.5)
    assert time.monotonic() - started >= 0.5


@pytest.mark.parametrize("field, holds, fails", [
    ("window", "^cua-probe$", "^no such window$"),
    ("window_gone", "^no such window$", "^cua-probe$"),
])
def test_wait_for_a_window_ends_when_its_condition_holds(probe: Any, field: str, holds: str, fails: str) -> None:
    """``window``: the wait ends once a window with that title shows; ``window_gone``: once none does. The probe
    stays open: the wait ends at once when its condition holds, and lasts its seconds when it does not."""
    started = time.monotonic()
    act(probe, type="wait", seconds=40, **{field: holds})
    assert time.monotonic() - started < 20, f"the wait on {field}={holds!r} did not end when it held"
    started = time.monotonic()
    act(probe, type="wait", seconds=1, **{field: fails})
    assert time.monotonic() - started >= 1


def test_wait_for_a_file_ends_when_it_is_written_during_the_task(probe: Any) -> None:
    """``file``: a file written before the task started does not end the wait (a start file the task must
    overwrite); one written during the task does, once its writer is done."""
    before, during = "/root/cua-wait-before.txt", "/root/cua-wait-during.txt"
    probe.box.client.request("put", dest=before, data="")
    probe.box.client.request("mark_task")  # the task starts (as its start ends)
    started = time.monotonic()
    act(probe, type="wait", seconds=1.5, file=before)
    assert time.monotonic() - started >= 1.5, "a file written before the task ended the wait"
    # written in pieces 1 s from now: the wait ends after the last piece, and long before its 40 s
    probe.box.client.request("spawn", argv=["sh", "-c", f"sleep 1; printf a > {during}; sleep 0.1; "
                                                        f"printf b >> {during}"])
    act(probe, type="wait", seconds=40, file=during)
    got = probe.box.client.request("get", src=during)
    assert base64.b64decode(got["data"]) == b"ab"
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("action, message", [
    ({"type": "wait", "window": "a", "file": "/root/x"}, "one condition"),
    ({"type": "wait", "file": "relative.txt"}, "absolute path"),
])
def test_a_wait_has_one_valid_condition(action: dict, message: str) -> None:
    from pytest_cua.actions import ActionError

    with pytest.raises(ActionError, match=message):
        Action.from_dict(action)


@pytest.mark.parametrize("action, message", [
    ({"type": "click", "target": "e3"}, "element ids"),
    ({"type": "click", "target": {"x": 5000, "y": 10}}, "outside the screen"),
    ({"type": "goto", "url": "http://example.org"}, "not supported on the desktop"),
    ({"type": "press", "key": "NoSuchKey"}, "unknown key"),
])
def test_refused_actions_are_failed_results_not_crashes(probe: Any, action: dict, message: str) -> None:
    result = probe.act(Action.from_dict(action))
    assert not result.ok
    assert message in (result.error or "")
    assert probe.observe(frozenset({"screenshot"})).last_error is None  # the episode reports it, not the env


def test_executor_refuses_raw_requests_outside_its_whitelist(probe: Any) -> None:
    from pytest_cua.envs.docker.client import ExecutorError

    with pytest.raises(ExecutorError, match="not supported"):
        probe.box.client.request("act", action={"type": "eval", "code": "__import__('os').system('id')"})
    with pytest.raises(ExecutorError, match="has no field"):
        probe.box.client.request("act", action={"type": "click", "target": {"x": 1, "y": 1}, "shell": "id"})
    with pytest.raises(ExecutorError, match="must be an absolute path"):
        probe.box.client.request("put", dest="../../etc/passwd", data="")
    with pytest.raises(ExecutorError, match="base64"):
        probe.box.client.request("put", dest="/root/x", src="/etc/passwd")


def test_screenshot_shows_the_window(probe: Any) -> None:
    from PIL import Image

    obs = probe.observe(frozenset({"screenshot", "axtree"}))
    image = Image.open(io.BytesIO(obs.screenshot))
    assert image.size == (1280, 800)
    assert image.convert("RGB").getpixel((450, 150)) == (255, 0, 0), "the probe's red canvas is not on screen"
    assert "cua-probe" in obs.extra["windows"]
    assert obs.title == "cua-probe"
    assert "unsupported_kinds" not in obs.extra
    assert obs.extra["axtree"]["windows_without_tree"] == ["cua-probe"]  # Tk speaks no AT-SPI


# --- held keys, triple click, mouse down and up (the vendors' computer tools) ------------------------------

SHIFT, CONTROL, BUTTON1 = 0x1, 0x4, 0x100  # X event state masks


def test_a_click_holds_its_modifiers(probe: Any) -> None:
    act(probe, type="click", target={"x": 220, "y": 160}, modifiers=["ctrl"])
    press = wait_for(lambda: _at(events(probe, "press"), 220, 160), what="a press at (220, 160)")[0]
    assert press["state"] & CONTROL, f"the click was not made with control held: {press}"
    act(probe, type="click", target={"x": 230, "y": 160})
    press = wait_for(lambda: _at(events(probe, "press"), 230, 160), what="a press at (230, 160)")[0]
    assert not press["state"] & CONTROL, "control is still held after the action"


def test_a_scroll_holds_its_modifiers(probe: Any) -> None:
    act(probe, type="scroll", dy=80, target={"x": 300, "y": 150}, modifiers=["shift"])
    wheel = wait_for(lambda: [e for e in events(probe, "press") if e["num"] in (4, 5, 6, 7)], what="wheel presses")
    assert all(e["state"] & SHIFT for e in wheel), wheel


def test_triple_click(probe: Any) -> None:
    act(probe, type="triple_click", target={"x": 320, "y": 110})
    wait_for(lambda: _at(events(probe, "triple"), 320, 110),
             what=lambda: f"a triple click at (320, 110); the probe saw {_summary(events(probe))}")


def test_mouse_down_move_up_drags(probe: Any) -> None:
    act(probe, type="mouse_down", target={"x": 120, "y": 120})
    act(probe, type="move", target={"x": 400, "y": 180})
    act(probe, type="mouse_up")  # where the pointer is
    wait_for(lambda: _at(events(probe, "release"), 400, 180), what="a release at (400, 180)")
    assert _at(events(probe, "press"), 120, 120)
    assert [e for e in events(probe, "motion") if e["state"] & BUTTON1], "no motion with the button held"


def test_hold_key_holds_for_its_duration(probe: Any) -> None:
    act(probe, type="hold_key", keys=["shift"], seconds=1.0)
    ups = wait_for(lambda: [e for e in events(probe, "keyup") if e["keysym"].startswith("Shift")],
                   what="the shift key's release")
    downs = [e for e in events(probe, "key") if e["keysym"].startswith("Shift")]
    assert downs and ups[-1]["t"] - downs[0]["t"] >= 0.9, (downs, ups)
