"""A pytest plugin for inner runs: a fake vendor server in the process that answers like a model following
each task's demonstration.

    pytest suites/scuba -p tests.models.fake_model_plugin --fake-model browser --agent gpt-5.5 ...

The fake server speaks the vendor's real protocol (``pytest_cua.testing.fake_models``); the agent under test
reaches it over loopback through the vendor SDK, as it would reach the vendor. The policy reads each request
as a model would:

- ``browser``: the element list in the request; each demonstration step's semantic target (``role=button
  [name="Save"]``) is resolved against that list and sent back as a function call by element id;
- ``openai-computer``, ``anthropic-computer``: the screenshot in the request. Where a control is drawn is known
  from the page the screenshot shows (the environment's last observation, with element boxes in screen
  pixels); the point is converted into the pixel space of the image the model was sent, so a wrong scaling
  on our side misses the control;
- ``uitars``: UI-TARS-1.5's text grammar for the desktop demonstrations (keyboard, plus a click at the centre
  of the screen in smart_resize coordinates).

``--fake-model-twist TASK=refusal`` makes the model refuse task TASK at its first answer,
``TASK=safety_check`` puts a vendor safety check on its first computer call (OpenAI's shape).

A fill becomes click + select-all + type for the computer styles; a choice in a (Lightning) combobox a click on it
and, on the next screenshot, a click on the option where it is drawn; a control outside the screenshot a scroll
that brings it to the middle first; a goto uses the ``goto`` function tool that the computer style offers in a
browser (there is no address bar in a headless page).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_cua import actions as A
from pytest_cua.agents.models.coords import smart_resize
from pytest_cua.agents.locators import is_locator, resolve_locator
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, FakeRequest

STYLES = ("browser", "openai-computer", "anthropic-computer", "uitars")
API_KEY = "sk-fake-e2e-0123456789abcdef"
REFUSAL = "I can't help with changing this organisation's records."
SAFETY_CHECK = {"id": "cu_sc_e2e", "code": "malicious_instructions",
                "message": "The screen may contain instructions that differ from the user's task."}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fake-model", default=None, choices=STYLES,
                     help="answer model calls with a demonstration-following fake vendor server")
    parser.addoption("--fake-model-delay", type=float, default=0.0, metavar="SECONDS",
                     help="the fake model thinks this long before each answer (throughput benchmarks)")
    parser.addoption("--fake-model-twist", action="append", default=[], metavar="TASK=KIND",
                     help="in task TASK the fake model refuses (refusal: at its first answer) or raises a vendor "
                          "safety check (safety_check: on its first computer call)")


@dataclass
class _State:
    task: Any = None
    queue: list[Any] = field(default_factory=list)  # demonstration actions still to do
    pending: list[Any] = field(default_factory=list)  # native moves of a step already begun
    observation: Any = None  # the environment's last observation (elements with boxes)
    twist: str | None = None  # refusal or safety_check in this task (--fake-model-twist), until done
    lock: threading.Lock = field(default_factory=threading.Lock)


STATE = _State()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Start the fake before pytest-cua resolves its settings (in pytest_configure), and point
    ``--cua-model-url`` at it."""
    style = config.getoption("--fake-model")
    if style:
        os.environ.setdefault("OPENAI_API_KEY", API_KEY)
        os.environ.setdefault("ANTHROPIC_API_KEY", API_KEY)
        os.environ.setdefault("OPENAI_COMPATIBLE_API_KEY", API_KEY)
        server = FakeModelServer(policy=DemoPolicy(style, delay_s=config.getoption("--fake-model-delay")),
                                 api_key=API_KEY)
        server.start()
        config.stash[_SERVER] = server
        if style == "anthropic-computer":
            config.option.cua_model_url = server.anthropic_base_url
        else:
            config.option.cua_model_url = server.openai_base_url


_SERVER = pytest.StashKey[FakeModelServer]()


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(_SERVER, None)
    if server is not None:
        if server.violations:
            print(f"fake model server: protocol violations: {server.violations}")
        server.stop()


@pytest.fixture(autouse=True)
def _fake_model_task(request: pytest.FixtureRequest) -> Any:
    """Give the policy this task's demonstration and a view of the environment's observations."""
    if not request.config.getoption("--fake-model") or "cua_task" not in request.fixturenames:
        yield
        return
    task = request.getfixturevalue("cua_task")
    suite = request.getfixturevalue("cua_suite")
    env = request.getfixturevalue("cua_env")
    template = suite.template_for(task)
    if template is not None and template.has("demonstrate"):
        demo = list(template.demonstrate(task, env))
    else:
        from pytest_cua.agents.builtin import demonstration_from_task

        demo = list(demonstration_from_task(task))
    original = env.observe

    def observe(kinds: frozenset[str]) -> Any:
        wanted = frozenset(kinds) | ({"axtree"} if env.name != "docker" else frozenset())
        observation = original(wanted)
        STATE.observation = observation
        return observation

    if request.config.getoption("--fake-model") == "uitars":
        demo.insert(0, CENTRE)  # one click in smart_resize coordinates before the keyboard work
    twists = dict(t.split("=", 1) for t in request.config.getoption("--fake-model-twist"))
    with STATE.lock:
        STATE.task, STATE.queue, STATE.pending, STATE.observation = task, demo, [], None
        STATE.twist = twists.get(task.id)
    env.observe = observe  # type: ignore[method-assign]
    try:
        yield
    finally:
        del env.observe


class DemoPolicy:
    """Answers each request with the next move of the current task's demonstration."""

    def __init__(self, style: str, delay_s: float = 0.0) -> None:
        self.style = style
        self.delay_s = delay_s

    def __call__(self, request: FakeRequest) -> FakeReply:
        if self.delay_s:
            time.sleep(self.delay_s)
        with STATE.lock:
            if STATE.twist == "refusal":
                STATE.twist = None
                return FakeReply(refusal=REFUSAL)
            reply = self._next(request)
            if STATE.twist == "safety_check" and any(c.name == "computer" for c in reply.calls):
                STATE.twist = None
                reply.safety_checks = [SAFETY_CHECK]
            return reply

    def _next(self, request: FakeRequest) -> FakeReply:
        if STATE.pending:
            return STATE.pending.pop(0)
        if not STATE.queue:
            return self._final()
        action = STATE.queue.pop(0)
        replies = self._moves(action, request)
        STATE.pending = replies[1:]
        return replies[0]

    def _final(self) -> FakeReply:
        answer = STATE.task.ground_truth.get("answer") if STATE.task is not None and STATE.task.is_question else None
        if answer is not None:
            return self._function("answer", {"text": str(answer)})
        return self._function("done", {})

    def _function(self, name: str, arguments: dict[str, Any], thought: str = "") -> FakeReply:
        if self.style == "uitars":
            content = str(arguments.get("text", "")).replace("'", "\\'")
            return FakeReply(text=f"Thought: {thought or name}\nAction: finished(content='{content}')")
        return FakeReply(reasoning=thought or f"I call {name}", calls=[FakeCall(name, arguments)])

    # -- one demonstration action as the style's moves ------------------------------------------------
    def _moves(self, action: Any, request: FakeRequest) -> list[FakeReply]:
        if isinstance(action, A.Answer):
            return [self._function("answer", {"text": action.text})]
        if isinstance(action, A.Done):
            return [self._final()]
        if self.style == "browser":
            return [self._browser(action, request)]
        if self.style == "uitars":
            return [FakeReply(text=f"Thought: {action.describe()}\nAction: {_uitars(action, request)}")]
        return self._computer(action, request)

    def _browser(self, action: Any, request: FakeRequest) -> FakeReply:
        args = {k: v for k, v in action.to_dict().items() if k != "type"}
        for key in ("target", "source", "destination"):
            if key in args:
                value = args.pop(key)
                if is_locator(value):
                    value = resolve_locator(value, request.elements())
                args["element_id" if key == "target" else key] = value
        if isinstance(action, A.Hotkey):
            args["keys"] = list(action.keys)
        return self._function(action.kind, args, thought=action.describe())

    def _computer(self, action: Any, request: FakeRequest) -> list[FakeReply]:
        if isinstance(action, A.GoTo):
            return [self._function("goto", {"url": action.url}, thought=f"open {action.url}")]
        target = getattr(action, "target", None)
        if target is not None and not isinstance(target, A.Point):
            scroll = self._scroll_to(target, request)
            if scroll is not None:
                STATE.queue.insert(0, action)  # the same step again once the control is in view
                return [scroll]
        if isinstance(action, A.SelectOption):
            # a Lightning combobox: open it, then (on the next screenshot) click the option where it is drawn
            STATE.queue.insert(0, A.Click(f'role=option[name="{action.option}"]'))
            return [self._native("click", self._point(action.target, request))]
        if isinstance(action, (A.Click, A.Check, A.Uncheck)):
            return [self._native("click", self._point(action.target, request))]
        if isinstance(action, A.Fill):
            point = self._point(action.target, request)
            return [self._native("click", point), self._native("select_all", point),
                    self._native("type", point, text=action.text)]
        if isinstance(action, A.Press):
            return [self._native("key", None, keys=[action.key])]
        raise AssertionError(f"the fake computer policy cannot do {action.describe()}")

    @staticmethod
    def _located(target: Any) -> tuple[Any, str, tuple[float, float, float, float], tuple[int, int]]:
        """The last observation, the target's element id and box there, and the screen's size in pixels."""
        from pytest_cua.agents.models.images import image_size

        observation = STATE.observation
        assert observation is not None, "no observation seen yet"
        element_id = resolve_locator(target, observation.elements) if is_locator(target) else target
        return observation, element_id, observation.elements[element_id].bbox, image_size(observation.screenshot)

    def _scroll_to(self, target: Any, request: FakeRequest) -> FakeReply | None:
        """A scroll of the page when the target's centre lies outside the screenshot (as a model scrolls to a
        control it cannot see yet), else None."""
        observation, element_id, (_, y, _, h), (_, screen_h) = self._located(target)
        centre = y + h / 2
        # in view, whole: below Lightning's fixed header (the global header and the navigation bar, 90 pixels)
        # for a control of the page itself, anywhere on the screen for the header's own controls
        top = 0 if self._in_header(element_id, observation) else 100
        if top <= y and y + h <= screen_h - 5:
            return None
        size = request.image_size()
        assert size is not None, "the request carries no screenshot"
        middle = (size[0] // 2, size[1] // 2)
        pixels = int(centre - screen_h / 2)  # bring it to the middle of the screen
        return self._native("scroll", middle, amount=pixels)

    @staticmethod
    def _in_header(element_id: str, observation: Any) -> bool:
        """Whether the element is one of Lightning's fixed header's: listed before the page's main landmark."""
        axtree = observation.axtree or ""
        main = axtree.find("\nmain")
        at = axtree.find(f"[{element_id}]")
        return 0 <= at < main

    def _point(self, target: Any, request: FakeRequest) -> tuple[int, int]:
        """The target's centre in the pixels of the image the model was sent."""
        _, _, (x, y, w, h), (screen_w, screen_h) = self._located(target)
        size = request.image_size()
        assert size is not None, "the request carries no screenshot"
        return round((x + w / 2) * size[0] / screen_w), round((y + h / 2) * size[1] / screen_h)

    def _native(self, kind: str, point: tuple[int, int] | None, *, text: str = "",
                keys: list[str] | None = None, amount: int = 0) -> FakeReply:
        if kind == "scroll" and self.style == "openai-computer":
            action: dict[str, Any] = {"type": "scroll", "x": point[0], "y": point[1],  # type: ignore[index]
                                      "scroll_x": 0, "scroll_y": amount}
        elif kind == "scroll":
            # Claude scrolls in clicks of the wheel (the adapter's 100 pixels each)
            action = {"action": "scroll", "coordinate": [point[0], point[1]],  # type: ignore[index]
                      "scroll_direction": "down" if amount > 0 else "up",
                      "scroll_amount": max(1, round(abs(amount) / 100))}
        elif self.style == "openai-computer":
            if kind == "click":
                action = {"type": "click", "button": "left", "x": point[0], "y": point[1]}  # type: ignore[index]
            elif kind == "select_all":
                action = {"type": "keypress", "keys": ["CTRL", "A"]}
            elif kind == "type":
                action = {"type": "type", "text": text}
            else:
                action = {"type": "keypress", "keys": [k.upper() for k in keys or []]}
        else:
            if kind == "click":
                action = {"action": "left_click", "coordinate": [point[0], point[1]]}  # type: ignore[index]
            elif kind == "select_all":
                action = {"action": "key", "text": "ctrl+a"}
            elif kind == "type":
                action = {"action": "type", "text": text}
            else:
                action = {"action": "key", "text": "+".join(keys or [])}
        return FakeReply(reasoning=f"{kind} {point or ''} {text}".strip(), calls=[FakeCall("computer", action)])


class _Centre:
    """A click at the centre of the screen (its coordinates are known only from the screenshot)."""

    def describe(self) -> str:
        return "click at the centre of the screen"


CENTRE = _Centre()


def _uitars(action: Any, request: FakeRequest) -> str:
    """A desktop demonstration action in UI-TARS-1.5's grammar."""
    if action is CENTRE:
        size = request.image_size()
        assert size is not None, "the request carries no screenshot"
        return f"click(start_box='({size[0] // 2},{size[1] // 2})')"
    if isinstance(action, A.Hotkey):
        return f"hotkey(key='{' '.join(action.keys)}')"
    if isinstance(action, A.Press):
        return f"hotkey(key='{action.key}')"
    if isinstance(action, A.Type):
        return "type(content='" + action.text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "')"
    if isinstance(action, A.Wait):
        return "wait()"
    if isinstance(action, A.Click) and isinstance(action.target, A.Point):
        size = request.image_size()
        assert size is not None
        observation = STATE.observation
        from pytest_cua.agents.models.images import image_size

        screen_w, screen_h = image_size(observation.screenshot)
        h, w = smart_resize(screen_h, screen_w)
        assert (w, h) == size, f"the model was sent {size}, smart_resize says {(w, h)}"
        return f"click(start_box='({round(action.target.x * w / screen_w)},{round(action.target.y * h / screen_h)})')"
    raise AssertionError(f"no UI-TARS form for {action.describe()}")
