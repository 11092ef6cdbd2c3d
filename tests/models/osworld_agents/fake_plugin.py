"""The scripted model of the bridged agents' inner runs: the demonstration-following fake of
``tests.models.fake_model_plugin`` (``--fake-model openai-computer``: it finds each control in the screenshot's
pixel space), its moves written as a model writes for an OSWorld-style agent: a line of thought and a
```python block of pyautogui code, or ```DONE```.

    pytest suites/scuba -p tests.models.fake_model_plugin --fake-model openai-computer \\
        -p tests.models.osworld_agents.fake_plugin --agent osworld:tests.models.osworld_agents.example:CodeAgent

A pyautogui agent has no address bar in a headless page: a demonstration's ``goto`` of Setup's home becomes what
a person does, a click on the header's Setup button and then on the menu's Setup item. ``--osworld-requests
FILE`` writes every request the fake was sent (images cut short) as JSON lines, for the schema checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_cua import actions as A
from pytest_cua.testing.fake_models import FakeReply, FakeRequest
from tests.models import fake_model_plugin as demo

SETUP_HOME = "/lightning/setup/SetupOneHome/home"
#: the clicks that open Setup's home from any Lightning page
TO_SETUP = (A.Click('role=button[name="Setup"]'), A.Click('role=menuitem[name="Setup"]'))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--osworld-requests", default=None, metavar="FILE",
                     help="write the requests the fake model was sent to FILE (JSON lines)")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    server = config.stash.get(demo._SERVER, None)
    if server is None or config.getoption("--fake-model") != "openai-computer":
        raise pytest.UsageError("tests.models.osworld_agents.fake_plugin needs -p tests.models.fake_model_plugin "
                                "--fake-model openai-computer")
    server.policy = CodePolicy(server.policy)


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.getoption("--osworld-requests")
    server = config.stash.get(demo._SERVER, None)
    if path and server is not None:
        lines = [json.dumps({"path": r.protocol, "body": _short_images(r.body)}) for r in server.requests]
        Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


class CodePolicy:
    """The demonstration policy's moves as pyautogui code in a chat answer."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __call__(self, request: FakeRequest) -> FakeReply:
        with demo.STATE.lock:
            queue = demo.STATE.queue
            queue[:] = [step for action in queue for step in _by_clicks(action)]
            if queue and not demo.STATE.pending and _on_desktop(queue[0]):
                action = queue.pop(0)
                return FakeReply(text=f"{action.describe()}\n```python\n{_desktop_code(action, request)}\n```")
        reply = self.inner(request)
        thought = reply.reasoning or "next step"
        if not reply.calls:
            return FakeReply(text=f"{thought}\n```WAIT```")
        call = reply.calls[0]
        if call.name == "done":
            return FakeReply(text="The task is complete.\n```DONE```")
        if call.name == "answer":
            return FakeReply(text=f"The answer is known.\n```python\nANSWER({call.arguments['text']!r})\n```")
        assert call.name == "computer", f"no pyautogui form for the fake's call {call.name}"
        return FakeReply(text=f"{thought}\n```python\n{_code(call.arguments)}\n```")


#: a desktop demonstration's moves (ProSoft's: keys, typing, waits, a click at a screen point), written here; the
#: demonstration policy finds the rest (controls named by a locator) in the screenshot
DESKTOP = (A.Hotkey, A.Press, A.Type, A.Wait)


def _on_desktop(action: Any) -> bool:
    return isinstance(action, DESKTOP) or (isinstance(action, A.Click) and isinstance(action.target, A.Point))


def _desktop_code(action: Any, request: FakeRequest) -> str:
    if isinstance(action, A.Click):
        return _point_code(action.target, request)
    if isinstance(action, A.Hotkey):
        return f"pyautogui.hotkey({', '.join(map(repr, action.keys))})"
    if isinstance(action, A.Press):
        return f"pyautogui.press({action.key!r})"
    if isinstance(action, A.Type):
        return f"pyautogui.write({action.text!r})"
    return f"time.sleep({min(action.seconds, 5):g})"  # a save's wait: the next screenshot comes 5 s later


def _point_code(point: A.Point, request: FakeRequest) -> str:
    """A click at a screen point, in the pixels of the image the agent was sent."""
    x, y = _image_point(point, request)
    return f"pyautogui.click({x}, {y})"


def _image_point(point: A.Point, request: FakeRequest) -> tuple[int, int]:
    """A screen point (a desktop demonstration's click) in the pixels of the newest image of ``request``."""
    from pytest_cua.agents.models.images import image_size

    size = request.image_size()
    assert size is not None and demo.STATE.observation is not None, "no screenshot seen yet"
    screen = image_size(demo.STATE.observation.screenshot)
    return round(point.x * size[0] / screen[0]), round(point.y * size[1] / screen[1])


def _by_clicks(action: Any) -> list[Any]:
    if isinstance(action, A.GoTo):
        assert action.url.endswith(SETUP_HOME), f"a pyautogui agent cannot open {action.url}"
        return list(TO_SETUP)
    return [action]


def _code(move: Any) -> str:
    """One OpenAI computer action (the fake's move) as pyautogui code."""
    kind = move["type"]
    if kind == "click":
        return f"pyautogui.click({move['x']}, {move['y']})"
    if kind == "keypress":
        keys = [k.lower() for k in move["keys"]]
        return f"pyautogui.hotkey({', '.join(map(repr, keys))})" if len(keys) > 1 else f"pyautogui.press({keys[0]!r})"
    if kind == "type":
        return f"pyautogui.write({move['text']!r})"
    if kind == "scroll":  # pixels of the screen down; pyautogui scrolls wheel clicks, up when positive
        clicks = round(move["scroll_y"] / 100) or (1 if move["scroll_y"] > 0 else -1)
        return f"pyautogui.scroll({-clicks}, x={move['x']}, y={move['y']})"
    raise AssertionError(f"no pyautogui form for {move}")


def _short_images(body: Any) -> Any:
    """``body`` with every data URL cut to its first characters (the schema checks read their shape)."""
    if isinstance(body, dict):
        return {k: _short_images(v) for k, v in body.items()}
    if isinstance(body, list):
        return [_short_images(v) for v in body]
    if isinstance(body, str) and body.startswith("data:image/"):
        return body[:64]
    return body
