"""The scripted model of the SCUBA bridge's inner runs: the demonstration-following fake of
``tests.models.fake_model_plugin`` (``--fake-model openai-computer``: it finds each control in the screenshot the
model was sent), its moves written as the model behind each of SCUBA's agents writes them, so that the agent's own
parsing reads them:

* ``OpenAI-CUA``: Responses ``computer_call`` items as they are; the end a plain message (no computer call);
* ``Claude-CUA``: Messages ``tool_use`` of the computer tool (``left_click``, ``key``, ``type``, ``scroll``) with a
  thinking block; the end a text block (no tool use);
* ``UI-TARS-1.5``: ``Thought: ...\\nAction: click(start_box='(x,y)')`` in the smart_resize coordinates of the image;
  the end ``finished(content='...')``;
* ``OpenCUA-7B``: ``## Thought`` / ``## Action`` and a ```python block in Qwen2.5 coordinates (``qwen25``); the end
  ``computer.terminate(status='success')``;
* ``S2.5`` and ``agent-s`` (Agent S2.5 of gui-agents): the planner's ``(Grounded Action)`` ```python block
  (``agent.click("the control at (x, y)", 1, "left")``, ``agent.type(text=...)``, ``agent.hotkey([...])``,
  ``agent.wait(s)``, ``agent.done()``), its grounding model the point the description names (in its 1920x1080 output
  space), its reflection a sentence.

On the desktop, a ProSoft demonstration's own moves (a click at a screen point, hotkeys, key presses, typing, waits;
``fake_plugin.DESKTOP``) are written here, in the same forms, each with a sentence of thought; a wait in each agent's
own wait form, as its code reads it: OpenAI-CUA's ``wait`` computer action (``time.sleep``), Claude-CUA's ``wait``
of the computer tool (``pyautogui.sleep``), UI-TARS-1.5's ``wait()`` and OpenCUA-7B's answer with no ```python block
(both ``WAIT``), S2.5's ``agent.wait(s)``.

    pytest suites/scuba -p tests.models.fake_model_plugin --fake-model openai-computer \\
        -p tests.models.osworld_agents.scuba_fake_plugin --scuba-fake UI-TARS-1.5 --agent scuba:UI-TARS-1.5 ...

Claude's calls go to the fake's Messages API (``ANTHROPIC_BASE_URL``), S2.5's planner to its chat API
(``OPENAI_BASE_URL``); the rest reach it at ``--cua-model-url``. A goto of Setup's home becomes the clicks a person
makes (``fake_plugin.TO_SETUP``). ``--scuba-requests FILE`` writes every request the fake was sent (images cut
short), for the schema checks.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.agents.models.coords import smart_resize
from pytest_cua.testing.fake_models import FakeCall, FakeReply, FakeRequest
from tests.models import fake_model_plugin as demo
from tests.models.osworld_agents.fake_plugin import _by_clicks, _image_point, _on_desktop, _short_images

KINDS = ("OpenAI-CUA", "Claude-CUA", "UI-TARS-1.5", "OpenCUA-7B", "S2.5", "agent-s")
#: each kind's writer of a move (Agent S of gui-agents writes as SCUBA's S2.5, its ancestor)
WRITERS = {"OpenAI-CUA": "_openai", "Claude-CUA": "_claude", "UI-TARS-1.5": "_ui", "OpenCUA-7B": "_opencua",
           "S2.5": "_s25", "agent-s": "_s25"}
GROUNDING = (1920, 1080)  # grounding_width x grounding_height of S2.5's (SCUBA's viewport) and Agent S's UI-TARS
#: OpenCUA-7B's qwen25 coordinates: smart_resize of the screen with the agent's own limits
OPENCUA_LIMITS = {"factor": 28, "min_pixels": 3136, "max_pixels": 12845056}
DONE_TEXT = "The task is complete."
SAVE_WAIT_S = 5  # a desktop wait (a save's) at most this long: the agent looks again then


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--scuba-fake", default=None, choices=KINDS, help="write the fake model's moves as this agent's")
    parser.addoption("--scuba-requests", default=None, metavar="FILE",
                     help="write the requests the fake model was sent to FILE (JSON lines)")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    server = config.stash.get(demo._SERVER, None)
    kind = config.getoption("--scuba-fake")
    if server is None or config.getoption("--fake-model") != "openai-computer" or kind is None:
        raise pytest.UsageError("tests.models.osworld_agents.scuba_fake_plugin needs -p tests.models.fake_model_plugin "
                                "--fake-model openai-computer and --scuba-fake KIND")
    server.policy = ScubaPolicy(kind, server.policy)
    os.environ["ANTHROPIC_BASE_URL"] = server.anthropic_base_url  # Claude-CUA's client reads it
    if kind in ("S2.5", "agent-s"):
        os.environ["OPENAI_BASE_URL"] = server.openai_base_url  # the planner's client reads it


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.getoption("--scuba-requests")
    server = config.stash.get(demo._SERVER, None)
    if path and server is not None:
        lines = [json.dumps({"path": r.protocol, "model": r.model, "body": _short_images(r.body)})
                 for r in server.requests]
        Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


class ScubaPolicy:
    """The demonstration policy's moves in the form the ``kind`` agent's model writes them."""

    def __init__(self, kind: str, inner: Any) -> None:
        self.kind = kind
        self.inner = inner

    def __call__(self, request: FakeRequest) -> FakeReply:
        if self.kind in ("S2.5", "agent-s"):
            side = _s25_side(request)
            if side == "grounding":
                return _s25_ground(request)
            if side == "reflection":
                return FakeReply(text="The previous action was carried out as intended; continue.")
        with demo.STATE.lock:
            queue = demo.STATE.queue
            queue[:] = [step for action in queue for step in _by_clicks(action)]
            if queue and not demo.STATE.pending and _on_desktop(queue[0]):
                action = queue.pop(0)
                return getattr(self, WRITERS[self.kind])(desktop_thought(action), desktop_move(action, request),
                                                         request)
        reply = self.inner(request)
        thought = reply.reasoning or "next step"
        call = reply.calls[0] if reply.calls else None
        if call is None or call.name == "done":
            return self._end(thought, None)
        if call.name == "answer":
            return self._end(thought, str(call.arguments["text"]))  # type: ignore[index]
        assert call.name == "computer", f"no {self.kind} form for the fake's call {call.name}"
        move = dict(call.arguments)  # type: ignore[arg-type]
        return getattr(self, WRITERS[self.kind])(thought, move, request)

    # -- each agent's end of the episode --------------------------------------------------------------
    def _end(self, thought: str, answer: str | None) -> FakeReply:
        text = answer if answer is not None else DONE_TEXT
        if self.kind in ("OpenAI-CUA", "Claude-CUA"):
            return FakeReply(text=text, reasoning=thought if self.kind == "Claude-CUA" else "")
        if self.kind == "UI-TARS-1.5":
            return FakeReply(text=f"Thought: {thought}\nAction: finished(content='{_quoted(answer or '')}')")
        if self.kind == "OpenCUA-7B":
            return FakeReply(text=f"## Thought:\n{thought}\n\n## Action:\n{text}\n\n```code\n"
                                  "computer.terminate(status='success')\n```")
        done = f"agent.done({json.dumps(answer)})" if answer is not None else "agent.done()"
        return FakeReply(text=_s25_plan(thought, done))

    # -- each agent's moves ---------------------------------------------------------------------------
    def _openai(self, thought: str, move: dict[str, Any], request: FakeRequest) -> FakeReply:
        if move["type"] == "wait":  # its wait has no duration (WaitParam: the type alone)
            move = {"type": "wait"}
        return FakeReply(reasoning=thought, calls=[FakeCall("computer", move)])

    def _claude(self, thought: str, move: dict[str, Any], request: FakeRequest) -> FakeReply:
        kind = move["type"]
        if kind == "click":
            action: dict[str, Any] = {"action": "left_click", "coordinate": [move["x"], move["y"]]}
        elif kind == "keypress":
            action = {"action": "key", "text": "+".join(k.lower() for k in move["keys"])}
        elif kind == "type":
            action = {"action": "type", "text": move["text"]}
        elif kind == "scroll":
            action = {"action": "scroll", "coordinate": [move["x"], move["y"]],
                      "scroll_direction": "down" if move["scroll_y"] > 0 else "up",
                      "scroll_amount": max(1, round(abs(move["scroll_y"]) / 100))}
        elif kind == "wait":
            action = {"action": "wait", "duration": move["seconds"]}
        else:
            raise AssertionError(f"no Claude form for {move}")
        return FakeReply(reasoning=thought, text=f"I {kind} now.", calls=[FakeCall("computer", action)])

    def _ui(self, thought: str, move: dict[str, Any], request: FakeRequest) -> FakeReply:
        size = request.image_size()
        assert size is not None, "the request carries no screenshot"
        h, w = smart_resize(size[1], size[0])

        def box(x: int, y: int) -> str:
            return f"({round(x * w / size[0])},{round(y * h / size[1])})"

        kind = move["type"]
        if kind == "click":
            action = f"click(start_box='{box(move['x'], move['y'])}')"
        elif kind == "keypress":
            action = f"hotkey(key='{' '.join(k.lower() for k in move['keys'])}')"
        elif kind == "type":
            action = f"type(content='{_quoted(move['text'])}')"
        elif kind == "scroll":
            action = f"scroll(start_box='{box(move['x'], move['y'])}', direction='{'down' if move['scroll_y'] > 0 else 'up'}')"
        elif kind == "wait":
            action = "wait()"
        else:
            raise AssertionError(f"no UI-TARS form for {move}")
        return FakeReply(text=f"Thought: {thought}\nAction: {action}")

    def _opencua(self, thought: str, move: dict[str, Any], request: FakeRequest) -> FakeReply:
        size = request.image_size()
        assert size is not None, "the request carries no screenshot"
        h, w = smart_resize(size[1], size[0], **OPENCUA_LIMITS)

        def at(x: int, y: int) -> str:
            return f"x={round(x * w / size[0])}, y={round(y * h / size[1])}"

        kind = move["type"]
        if kind == "click":
            code, what = f"pyautogui.click({at(move['x'], move['y'])})", "Click the control"
        elif kind == "keypress":
            keys = [k.lower() for k in move["keys"]]
            code = f"pyautogui.hotkey({', '.join(map(repr, keys))})" if len(keys) > 1 else f"pyautogui.press({keys[0]!r})"
            what = f"Press {'+'.join(keys)}"
        elif kind == "type":
            code, what = f"pyautogui.write(message={move['text']!r})", f"Type {move['text']!r}"
        elif kind == "scroll":  # its scroll loses a position given with it: move there first
            clicks = max(1, round(abs(move["scroll_y"]) / 100)) * (-1 if move["scroll_y"] > 0 else 1)
            code, what = f"pyautogui.moveTo({at(move['x'], move['y'])})\npyautogui.scroll({clicks})", "Scroll the page"
        elif kind == "wait":  # its parser reads an answer with no ```python block as WAIT
            return FakeReply(text=f"## Thought:\n{thought}\n\n## Action:\nWait for the screen to settle.")
        else:
            raise AssertionError(f"no OpenCUA form for {move}")
        return FakeReply(text=f"## Thought:\n{thought}\n\n## Action:\n{what}\n\n```python\n{code}\n```")

    def _s25(self, thought: str, move: dict[str, Any], request: FakeRequest) -> FakeReply:
        kind = move["type"]
        if kind == "click":
            call = f'agent.click("the control at ({move["x"]}, {move["y"]})", 1, "left")'
        elif kind == "keypress":
            call = f"agent.hotkey({[k.lower() for k in move['keys']]!r})"
        elif kind == "type":
            call = f"agent.type(text={json.dumps(move['text'])})"
        elif kind == "scroll":
            clicks = max(1, round(abs(move["scroll_y"]) / 100)) * (-1 if move["scroll_y"] > 0 else 1)
            call = f'agent.scroll("the control at ({move["x"]}, {move["y"]})", {clicks})'
        elif kind == "wait":
            call = f"agent.wait({move['seconds']:g})"
        else:
            raise AssertionError(f"no S2.5 form for {move}")
        return FakeReply(text=_s25_plan(thought, call))


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")


def _s25_plan(thought: str, call: str) -> str:
    return (f"(Previous action verification)\nThe screen shows the last action's result.\n(Screenshot Analysis)\n"
            f"{thought}\n(Next Action)\n{thought}\n(Grounded Action)\n```python\n{call}\n```")


def _s25_side(request: FakeRequest) -> str:
    """Which of S2.5's models a request is for: its grounding model, its reflection agent or its planner."""
    if "Output only the coordinate of one point" in request.last_text:
        return "grounding"
    system = request.body.get("messages", [{}])[0].get("content")
    text = system[0].get("text", "") if isinstance(system, list) and system else str(system or "")
    return "reflection" if "designed to reflect on the trajectory" in text else "planner"


def _s25_ground(request: FakeRequest) -> FakeReply:
    """The point the planner's description names (in the image's pixels), in the grounding model's output space
    (``GROUNDING``: the agent scales it to its screen)."""
    found = re.search(r"at \((\d+), (\d+)\)", request.last_text)
    assert found, f"no point in the grounding query {request.last_text[:200]!r}"
    size = request.image_size()
    assert size is not None, "the grounding query carries no screenshot"
    x, y = int(found.group(1)) * GROUNDING[0] / size[0], int(found.group(2)) * GROUNDING[1] / size[1]
    return FakeReply(text=f"({round(x)},{round(y)})")


def desktop_move(action: Any, request: FakeRequest) -> dict[str, Any]:
    """A desktop demonstration's move as the fake's own (OpenAI computer) action, a click in the pixels of the image
    the agent sent; a wait ``{"type": "wait", "seconds": s}`` (each writer puts it in its agent's form)."""
    from pytest_cua import actions as A

    if isinstance(action, A.Click):
        x, y = _image_point(action.target, request)
        return {"type": "click", "button": "left", "x": x, "y": y}
    if isinstance(action, (A.Hotkey, A.Press)):
        keys = action.keys if isinstance(action, A.Hotkey) else (action.key,)
        return {"type": "keypress", "keys": [k.upper() for k in keys]}
    if isinstance(action, A.Type):
        return {"type": "type", "text": action.text}
    assert isinstance(action, A.Wait), f"no desktop move for {action.describe()}"
    return {"type": "wait", "seconds": min(action.seconds, SAVE_WAIT_S)}


def desktop_thought(action: Any) -> str:
    """The fake model's sentence of thought before a desktop move."""
    from pytest_cua import actions as A

    if isinstance(action, A.Click):
        point = action.target
        return f"I click the point ({point.x:g}, {point.y:g}) of the screen to give the window the keyboard."
    if isinstance(action, (A.Hotkey, A.Press)):
        keys = action.keys if isinstance(action, A.Hotkey) else (action.key,)
        return f"I press {'+'.join(keys)}."
    if isinstance(action, A.Type):
        return f"I type {action.text!r}."
    return "I wait for the application to finish."
