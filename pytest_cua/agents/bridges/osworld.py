"""``--agent osworld:package.module:Class``: any agent of OSWorld's convention, run unchanged.

The convention (OSWorld's ``mm_agents``): an object built with keyword arguments, ``reset(...)`` before each task
and ``predict(instruction, obs) -> (response, actions)`` at each step, where

* ``obs`` is a dict: ``screenshot`` (PNG bytes), ``accessibility_tree`` (text, or None when not observed),
  ``terminal`` (None here) and ``instruction``;
* ``response`` is the model's text (the step's reasoning in the trajectory and Allure);
* ``actions`` is a list of pyautogui code strings or the special ``WAIT``, ``DONE`` and ``FAIL``.

The bridge builds the agent with ``--cua-agent-option KEY=VALUE`` as constructor arguments (values read as
Python literals, else text; ``agents.bridges.loading``), except the bridge's own options:

* ``osworld.screen=WIDTHxHEIGHT``: the screen the agent assumes (OSWorld's VMs: 1920x1080). Screenshots are
  scaled to it and the agent's coordinates scaled back to the real screen. Default: the real screen's size;
* ``osworld.replay_match=key|key+position``: how a replay finds a recording (as for our model agents).

Each action string is read by our action parser (``action_parser.parse_pyautogui``: ``ast``, whitelisted calls
with literal arguments; never run), after ``pyautogui_forms`` has read the forms published agents write around
them (a string block of comments, ``keyDown``/``keyUp`` pairs, ``mouseDown``/``mouseUp``). One that cannot be read (``pyautogui.locateOnScreen(...)``, a loop, a
``computer_13`` dict) ends the step, and the episode, with ``fail`` naming the call; none of the step's actions
is carried out. An agent that raises is an ``agent`` error naming its class and the frame it raised in.

The agent's own model client is pointed at a loopback ``MeteredProxy`` (``agents.bridges.metering``) through
``OPENAI_BASE_URL`` and ``ANTHROPIC_BASE_URL`` while it runs: its calls are counted (tokens and cost, where its
answers report usage), recorded with ``--cua-model-record`` and answered from disk with ``--cua-model-replay``
(a miss is an ``agent`` error naming task and step, and stops the agent's call at once: an agent that retries
a failed call, as Agent-S does, is not left to retry an answer no recording has). ``--cua-model-url`` is the upstream of OpenAI-compatible
calls. An agent that reads the accessibility tree gets pytest-cua's text form (``[e12] button "Save"``), not
OSWorld's AT-SPI XML; it is observed when ``--cua-observe`` says, or when the agent's ``observation_type`` names
one (``a11y_tree``, ``screenshot_a11y_tree``, ``som``).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import ctypes
import logging
import threading
import uuid
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pytest_cua.actions import Action, ActionError, Fail, Point
from pytest_cua.agents.base import Agent, AgentContext, AgentError, Turn, Usage
from pytest_cua.agents.bridges.loading import (AgentClass, BridgeError, constructor_kwargs, frame_of, load_class)
from pytest_cua.agents.bridges.metering import (PASS, REPLAY_KEY, REPLAY_KEYS, ROUTES, MeteredProxy, Redirect,
                                                StepTag, upstreams)
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from pytest_cua.agents.models.coords import CoordSpace
    from pytest_cua.agents.models.settings import ModelSettings
    from pytest_cua.agents.registry import AgentSpec
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task

_T = TypeVar("_T")

PREFIX = "osworld"
OWN = "osworld."  # the bridge's own options; every other --cua-agent-option goes to the constructor
OWN_OPTIONS = {"screen": "the screen the agent assumes, WIDTHxHEIGHT (default: the real screen)",
               "replay_match": "how a replay finds a recording: key or key+position (key+position)"}
SPECIAL = ("WAIT", "DONE", "FAIL")
RAW_CHARS = 2000  # of each action string kept in the trajectory


@dataclass(frozen=True)
class Plan:
    """What ``--agent osworld:...`` and the options resolve to, checked before anything runs."""

    agent: AgentClass
    kwargs: dict[str, Any]
    screen: tuple[int, int] | None
    replay_match: str
    settings: "ModelSettings"


def plan(spec: "AgentSpec") -> Plan:
    """The class, its constructor arguments and the bridge's options; a ``BridgeError`` naming what is wrong."""
    from pytest_cua.agents.models.settings import ModelSettings

    settings = spec.options.get("model_settings") or ModelSettings()
    agent = load_class(spec.model or "", prefix=PREFIX)
    if not callable(getattr(agent.cls, "predict", None)):
        raise BridgeError(f"{PREFIX}:{agent.path}: {agent.name} has no predict(instruction, obs) method: not an "
                          "OSWorld-style agent")
    own = {k[len(OWN):]: v for k, v in settings.options.items() if k.startswith(OWN)}
    unknown = sorted(set(own) - set(OWN_OPTIONS))
    if unknown:
        raise BridgeError(f"--cua-agent-option {OWN}{unknown[0]}: not an option of the osworld bridge; it has "
                          + ", ".join(OWN + k for k in OWN_OPTIONS))
    screen = _size(own["screen"]) if own.get("screen") else None
    match = own.get("replay_match", "key+position")
    if match not in ("key", "key+position"):
        raise BridgeError(f"--cua-agent-option {OWN}replay_match={match}: choose key or key+position")
    kwargs = constructor_kwargs(agent, {k: v for k, v in settings.options.items() if not k.startswith(OWN)},
                                prefix=PREFIX)
    return Plan(agent, kwargs, screen, match, settings)


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit() and 0 < int(w) <= 10_000 and 0 < int(h) <= 10_000):
        raise BridgeError(f"--cua-agent-option {OWN}screen={text}: expected WIDTHxHEIGHT, e.g. 1920x1080")
    return int(w), int(h)


class OSWorldBridge:
    """The ``osworld`` entry of the agent registry (``--agent osworld:package.module:Class``)."""

    @classmethod
    def validate(cls, spec: "AgentSpec") -> None:
        plan(spec)

    @classmethod
    def from_spec(cls, spec: "AgentSpec") -> "OSWorldAgent":
        return OSWorldAgent(plan(spec))


class ReplayMiss(BaseException):
    """Raised in the thread of a bridged agent's call at a replay miss: a ``BaseException``, so that the agent's
    ``except Exception`` retry loops let it through."""


class OSWorldAgent(Agent):
    """An OSWorld-style agent, driven through pytest-cua's observations and typed actions."""

    name = PREFIX

    def __init__(self, planned: Plan, routes: "dict[str, str] | None" = None) -> None:
        """``routes``: each proxy's route and upstream (default: the vendors' SDK routes, ``upstreams``); a route
        of ``ROUTES`` is also set in its base URL variable while the agent runs, any other (a grounding model's)
        is only in ``endpoints`` for the bridge to hand to the agent."""
        super().__init__()
        from pytest_cua.agents.models.pricing import PriceTable

        self._predicting: int | None = None  # the thread in the agent's call, for a replay miss to stop
        self._miss_lock = threading.Lock()
        self.plan = planned
        settings = planned.settings
        self.mode = "record" if settings.record_dir else "replay" if settings.replay_dir else PASS
        prices = PriceTable.load(settings.prices)
        self.proxies: dict[str, MeteredProxy] = {}
        self.endpoints: dict[str, str] = {}  # route -> the proxy's address
        variables: dict[str, str] = {}
        try:
            for route, upstream in (routes if routes is not None else upstreams(settings.base_url)).items():
                proxy = MeteredProxy(self.mode, settings.record_dir or settings.replay_dir, upstream,
                                     price=prices.cost, redact=redact, by_position=planned.replay_match != "key")
                self.proxies[route] = proxy
                proxy.on_miss = self._stop_call
                self.endpoints[route] = proxy.start()
                if route in ROUTES:
                    variables[ROUTES[route][0]] = self.endpoints[route]
        except (RuntimeError, ValueError, OSError) as exc:
            self.close()
            raise AgentError(f"{self._who}: the model proxy could not start: {exc}") from None
        if self.mode == "replay":
            import os

            variables.update({k: REPLAY_KEY for k in REPLAY_KEYS if not os.environ.get(k)})
        self.redirect = Redirect(variables)
        try:
            self.inner = self._build()
        except AgentError:
            self.close()
            raise
        own_model = getattr(self.inner, "model", None)
        self.model = own_model if isinstance(own_model, str) and own_model else planned.agent.path
        self.task: "Task | None" = None
        self.instruction = ""
        self._episode = ""
        self._trial: str | None = None
        self._pointer: Point | None = None  # in the agent's screen space

    @property
    def _who(self) -> str:
        return f"osworld agent {self.plan.agent.path}"

    @property
    def observation_kinds(self) -> frozenset[str]:  # type: ignore[override]  # Agent has a class attribute
        kind = str(getattr(getattr(self, "inner", None), "observation_type", "") or "")
        return frozenset({"screenshot", "axtree"}) if "a11y" in kind or kind == "som" else frozenset({"screenshot"})

    def describe(self) -> dict[str, Any]:
        screen = self.plan.screen
        return {"name": self.name, "model": self.model, "bridge": PREFIX, "agent": self.plan.agent.path,
                "options": {k: redact(str(v)) for k, v in self.plan.kwargs.items()},
                "screen": f"{screen[0]}x{screen[1]}" if screen else None, "traffic": self.mode,
                **({"deprecation": self.deprecation} if self.deprecation else {})}

    # -- the episode --------------------------------------------------------------------------------------
    def start(self, task: "Task", context: AgentContext) -> None:
        self._begin(task, context)
        reset = getattr(self.inner, "reset", None)
        if callable(reset):
            logger = logging.getLogger(f"pytest_cua.osworld.{task.id}")
            self._call("reset", reset, *([logger] if _takes_argument(reset) else []))

    def _begin(self, task: "Task", context: AgentContext) -> None:
        """What every bridged episode starts with: the task and its instruction, a new episode id (the replay's
        key), the trial, no pointer, no usage yet."""
        self.task = task
        self.instruction = instruction_for(task, context)
        self._episode = uuid.uuid4().hex[:12]
        trial = context.options.get("trial")
        self._trial = None if trial is None else str(trial)
        self._pointer = None
        self.usage = Usage()

    def step(self, observation: "Observation") -> Turn:
        assert self.task is not None, "start() first"
        png, space, size, screen = agent_screenshot(observation, self.plan.screen, self._who)
        obs = {"screenshot": png, "accessibility_tree": observation.axtree, "terminal": None,
               "instruction": self.instruction}
        result, usage, models = self._metered(observation.step + 1, lambda: self._guarded(
            "predict", self.inner.predict, self.instruction, obs))
        self.usage.add(usage)
        response, raw_actions = self._reply(result)
        actions = self._actions(raw_actions, space, observation.step + 1)
        extra = {"model": {"model": ", ".join(dict.fromkeys(models)) or None, "usage": usage.to_dict(),
                           "image": {"width": size[0], "height": size[1]}, "coords": space.describe()},
                 "osworld": {"actions": [a[:RAW_CHARS] if isinstance(a, str) else repr(a)[:RAW_CHARS]
                                         for a in raw_actions]}}
        reasoning = self._reasoning(response)
        raw = redact(json.dumps({"response": response, "actions": raw_actions}, default=str, ensure_ascii=False))
        return Turn(actions, reasoning=reasoning or "", usage=usage, raw=raw, extra=extra,
                    images={"model": png} if size != screen else {})

    def close(self) -> None:
        for proxy in self.proxies.values():
            proxy.stop()

    def _metered(self, number: int, call: Callable[[], _T]) -> tuple[_T, Usage, list[str]]:
        """``call()`` with every proxy metering step ``number``: its result, the usage the proxies saw and the
        models they were asked for. A replay miss during the call is a ``ModelRequestError`` naming task and
        step, whether the agent caught the SDK's error or raised it; an ``AgentError`` of the call comes next."""
        assert self.task is not None, "start() first"
        tag = StepTag(self.task.id, number, self._episode, self._trial)
        failed: AgentError | None = None
        result: Any = None
        with ExitStack() as stack:
            meters = [stack.enter_context(proxy.step(tag)) for proxy in self.proxies.values()]
            try:
                result = call()
            except AgentError as exc:
                failed = exc
        usage = Usage()
        for meter in meters:
            usage.add(meter.usage)
        misses = [m for meter in meters for m in meter.misses]
        if misses:
            from pytest_cua.agents.models.retry import ModelRequestError

            raise ModelRequestError(f"{self._who}, task {self.task.id} step {number}: {misses[0]}") from failed
        if failed is not None:
            raise failed
        return result, usage, [m for meter in meters for m in meter.models]

    # -- helpers ------------------------------------------------------------------------------------------
    def _build(self) -> Any:
        """The agent, built with the constructor arguments of the plan."""
        return self._call("its constructor", self.plan.agent.cls, **self.plan.kwargs)

    def _guarded(self, what: str, fn: Any, *args: Any) -> Any:
        """``_call`` with this thread marked as the one a replay miss stops."""
        with self._miss_lock:
            self._predicting = threading.get_ident()
        try:
            return self._call(what, fn, *args)
        except ReplayMiss:
            raise AgentError(f"{self._who}: {what} stopped at a replay miss") from None
        finally:
            with self._miss_lock:
                self._predicting = None

    def _stop_call(self, message: str) -> None:
        """A replay miss (from the proxy's thread): stop the agent's call, which may retry it for long, by raising
        ``ReplayMiss`` in the thread making it (a ``BaseException``: the agent's ``except Exception`` lets it
        through). The step then raises the miss, naming task and step."""
        with self._miss_lock:
            ident = self._predicting
            if ident is None:
                return
            self._on_miss(message)
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(ReplayMiss))

    def _on_miss(self, message: str) -> None:
        """What a subclass does beside stopping the call (from the proxy's thread, under the miss lock)."""

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run the agent's ``fn`` with its model calls redirected; what it raises is an ``agent`` error naming the
        agent's class and the frame."""
        try:
            with self.redirect.applied():
                return fn(*args, **kwargs)
        except Exception as exc:
            raise AgentError(f"{self._who}: {what} raised {type(exc).__name__}: {redact(str(exc))[:500]} "
                             f"(at {frame_of(exc, self.plan.agent)})") from exc

    def _reasoning(self, response: Any) -> str:
        """The step's reasoning text: ``predict``'s response, as text."""
        return response if isinstance(response, str) else "" if response is None else json.dumps(
            response, default=str, ensure_ascii=False)

    def _reply(self, result: Any) -> tuple[Any, list[Any]]:
        """``(response, actions)`` of ``predict``'s answer; anything else is the agent's error."""
        if not isinstance(result, (tuple, list)) or len(result) < 2:
            raise AgentError(f"{self._who}: predict returned {type(result).__name__}, not (response, actions)")
        response, actions = result[0], result[1]
        if actions is None:
            actions = []
        if isinstance(actions, str):
            actions = [actions]
        if not isinstance(actions, (list, tuple)):
            raise AgentError(f"{self._who}: predict's actions are a {type(actions).__name__}, not a list")
        return response, list(actions)

    def _actions(self, raw_actions: list[Any], space: "CoordSpace", step: int) -> list[Action]:
        """The step's typed actions in screen pixels; ``fail`` naming the action when one cannot be read."""
        from pytest_cua.agents.bridges.pyautogui_forms import code_actions

        out: list[Action] = []
        pointer = self._pointer
        for index, item in enumerate(raw_actions, 1):
            where = f"{self._who}, step {step}, action {index}"
            if not isinstance(item, str):
                return [Fail(f"{where}: a {type(item).__name__} ({_shown(item)}) is not pyautogui code nor "
                             f"{', '.join(SPECIAL)}; run the agent with its pyautogui action space "
                             "(computer_13 actions are not supported)")]
            try:
                parsed = code_actions(item, pointer=pointer)
            except ActionError as exc:
                return [Fail(f"{where} ({_shown(item)}) is not supported: {exc}")]
            for action in parsed:
                point = _last_point(action)
                if point is not None:
                    pointer = point
                out.append(_on_screen(action, space, self._who))
        self._pointer = pointer
        return out


def agent_screenshot(observation: "Observation", size: tuple[int, int] | None, who: str
                     ) -> tuple[bytes, "CoordSpace", tuple[int, int], tuple[int, int]]:
    """The screenshot as a bridged agent reads it: PNG scaled to the screen ``size`` the agent assumes (None: the
    real one), the space that maps the agent's coordinates back, that size and the real screen's."""
    from pytest_cua.agents.models.coords import pixel_space
    from pytest_cua.agents.models.images import image_size, prepare_image

    if observation.screenshot is None:
        raise AgentError(f"{who}: the environment sent no screenshot (observe with --cua-observe screenshot)")
    screen = image_size(observation.screenshot)
    size = size or screen
    png = observation.screenshot if size == screen else prepare_image(observation.screenshot, size=size).data
    return png, pixel_space(screen, size), size, screen


def _on_screen(action: Action, space: "CoordSpace", who: str) -> Action:
    """``action`` with its points in screen pixels (a wheel's clicks are not scaled); an empty ``FAIL`` says
    the agent gave up."""
    from pytest_cua.agents.models.styles.base import map_points

    if isinstance(action, Fail) and not action.reason:
        return dataclasses.replace(action, reason=f"{who} answered FAIL")
    return map_points(action, space, scale_scroll=False)


def _last_point(action: Action) -> Point | None:
    for name in ("destination", "target"):
        value = getattr(action, name, None)
        if isinstance(value, Point):
            return value
    return None


def _shown(item: Any) -> str:
    text = item if isinstance(item, str) else repr(item)
    text = " ".join(text.split())
    return repr(text if len(text) <= 120 else text[:117] + "...")


def _takes_argument(fn: Any) -> bool:
    """Whether ``reset`` takes a positional argument: OSWorld's runner passes its logger (``reset(logger)``) to
    those that do; False when the signature cannot be read."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          inspect.Parameter.VAR_POSITIONAL) for p in params)


def instruction_for(task: "Task", context: AgentContext) -> str:
    """The task's instruction, with the demonstration and the knowledge card in demonstration-augmented runs."""
    parts = [task.instruction]
    if context.demos:
        if task.demonstration_text:
            parts.append(f"A demonstration of a similar task:\n{task.demonstration_text}")
        card = task.knowledge_text()
        if card:
            parts.append(f"Knowledge card (conventions, formulas and menu paths for this task):\n{card}")
    return "\n\n".join(parts)

