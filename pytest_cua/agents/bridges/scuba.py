"""``--agent scuba:NAME``: SCUBA's released computer-use agents, run unchanged from SCUBA's checkout.

NAME is one of ``UI-TARS-1.5``, ``OpenCUA-7B``, ``OpenAI-CUA``, ``Claude-CUA`` and ``S2.5`` (SCUBA's
``--agent_name``). The checkout is the first of ``--cua-agent-option scuba.root=PATH``, the run's ``--scuba-root``
(the SCUBA suite's option, the same checkout its release tasks come from) and the ``PYTEST_CUA_SCUBA_ROOT`` environment
variable; its agents are imported from there at run time (``scuba_release``), never copied.

Each agent is built and called as SCUBA's runner (``lib_eval_single_task.py``) does (``scuba_agents``): a new agent
for every task, ``predict`` with the arguments that runner passes, the screenshot as the runner's desktop gives
it. The arguments of SCUBA's ``args.py`` the runner reads for that agent are options (``--cua-agent-option
max_tokens=1024``, ``history_n=3``, ``served_model_name=...``, ``claude_model=...``; defaults as ``args.py``), with the
runner's own checks (the 1920x1080 viewport four agents assume, Claude's and gpt-5's temperature 1.0, S2.5's
grounding model). The bridge's own options: ``scuba.root`` and ``scuba.replay_match`` (key or key+position).

The agent sees the screen at ``viewport_width`` x ``viewport_height`` (SCUBA's 1920x1080 by default): screenshots
are scaled to it and its coordinates scaled back to the real screen. Its answers are pyautogui code, read by our
action parser (``pyautogui_forms``), never run: one it cannot carry out ends the step, and the episode, with
``fail`` naming it. ``DONE`` ends the episode as ``done``, or for a question task as ``answer`` with the text SCUBA's
runner would evaluate (UI-TARS's ``finished(content=...)``, OpenCUA's last action text, OpenAI-CUA's last
message, Claude's last text block, S2.5's ``agent.done('...')``). An agent that raises is an ``agent`` error naming
the agent and the frame in SCUBA's code.

Models: the agents' own clients are pointed at the bridge's metering proxies (counted, priced, recorded with
``--cua-model-record``, answered from disk with ``--cua-model-replay``): OpenAI-CUA and S2.5's planner through
``OPENAI_BASE_URL`` (upstream: ``--cua-model-url`` for OpenAI-CUA, else OpenAI), Claude-CUA through
``ANTHROPIC_BASE_URL``, UI-TARS-1.5, OpenCUA-7B and S2.5's grounding model at ``--cua-model-url`` (an
OpenAI-compatible server such as vLLM). OpenCUA's calls to SCUBA's Ray service go to a loopback shim that asks the
OpenAI-compatible server (``scuba_ray``), unless ``ray_base_url`` names a real one. In a replay, a call with no
recording stops the agent at once (SCUBA's agents retry a failed call up to 500 times, 5 s apart).
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_cua.actions import Action, Answer, Done
from pytest_cua.agents.base import AgentContext, AgentError, Turn, Usage
from pytest_cua.agents.bridges.loading import AgentClass, BridgeError
from pytest_cua.agents.bridges.metering import ROUTES, upstreams
from pytest_cua.agents.bridges.osworld import (RAW_CHARS, OSWorldAgent, ReplayMiss, agent_screenshot)
from pytest_cua.agents.bridges.scuba_agents import KINDS, BuildContext, Kind, Prediction, openai_cua_acknowledge
from pytest_cua.agents.bridges.scuba_release import import_release, release_args, release_root
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from pytest_cua.agents.models.settings import ModelSettings
    from pytest_cua.agents.registry import AgentSpec
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task

PREFIX = "scuba"
OWN = "scuba."
#: the key of ``AgentSpec.options`` that carries the run's ``--scuba-root`` (set by ``resolve_settings``)
RUN_ROOT = "scuba_root"
OWN_OPTIONS = {"root": "SCUBA's checkout (default: the run's --scuba-root, else the PYTEST_CUA_SCUBA_ROOT environment variable)",
               "replay_match": "how a replay finds a recording: key or key+position (key+position)"}
SCREEN = (1920, 1080)  # the viewport SCUBA's runner asserts for OpenCUA-7B, OpenAI-CUA, S2.5 and Claude-CUA
COMPATIBLE_KEY = "OPENAI_COMPATIBLE_API_KEY"


@dataclass(frozen=True)
class ScubaPlan:
    """``--agent scuba:NAME`` and its options, checked before anything runs."""

    kind: Kind
    root: Path
    agent: AgentClass
    args: argparse.Namespace  # args.py's defaults with the options over them, after the runner's checks
    kwargs: dict[str, Any]  # the options given (for the record)
    screen: tuple[int, int]  # the viewport the agent assumes
    replay_match: str
    settings: "ModelSettings"
    notes: tuple[str, ...] = ()  # what the runner's checks changed (Claude's temperature)


def _own_options(spec: "AgentSpec") -> tuple["ModelSettings", Kind, dict[str, Any], str]:
    """The settings, the kind, every option and the replay match: what needs no checkout."""
    from pytest_cua.agents.models.settings import ModelSettings

    settings = spec.options.get("model_settings") or ModelSettings()
    name = spec.model or ""
    kind = KINDS.get(name)
    if kind is None:
        raise BridgeError(f"{PREFIX}:{name}: not one of SCUBA's agents; choose "
                          + ", ".join(f"{PREFIX}:{k}" for k in KINDS))
    options = dict(settings.options)
    own = {k[len(OWN):]: v for k, v in options.items() if k.startswith(OWN)}
    unknown = sorted(set(own) - set(OWN_OPTIONS))
    if unknown:
        raise BridgeError(f"--cua-agent-option {OWN}{unknown[0]}: not an option of the scuba bridge; it has "
                          + ", ".join(OWN + k for k in OWN_OPTIONS))
    match = own.get("replay_match", "key+position")
    if match not in ("key", "key+position"):
        raise BridgeError(f"--cua-agent-option {OWN}replay_match={match}: choose key or key+position")
    return settings, kind, options, match


def plan(spec: "AgentSpec") -> ScubaPlan:
    """The kind, the checkout, the run's arguments; a ``BridgeError`` naming what is wrong. The checkout is the
    first of ``scuba.root``, the run's ``--scuba-root`` (``spec.options[RUN_ROOT]``, put there by the run's
    settings) and ``$PYTEST_CUA_SCUBA_ROOT``."""
    settings, kind, options, match = _own_options(spec)
    root = release_root(options, spec.options.get(RUN_ROOT))
    declared = release_args(root)
    values = {n: a.default for n, a in declared.items()}
    given: dict[str, Any] = {}
    for key, text in options.items():
        if key.startswith(OWN):
            continue
        where = f"--cua-agent-option {key}"
        if key not in kind.options:
            raise BridgeError(f"{where}: {PREFIX}:{kind.name} does not read it (SCUBA's runner gives it "
                              f"{', '.join(o for o in kind.options if o in declared)})")
        if key not in declared:
            raise BridgeError(f"{where}: SCUBA's args.py at {root} declares no --{key}")
        given[key] = values[key] = declared[key].read(str(text), f"{where}={text}")
    values["agent_name"] = kind.name
    args = argparse.Namespace(**values)
    notes = _runner_checks(kind, args, given, settings)
    module = import_release(root, kind.module)
    cls = getattr(module, kind.class_name, None)
    if not isinstance(cls, type):
        raise BridgeError(f"{PREFIX}:{kind.name}: {kind.module} of {root} has no class {kind.class_name}")
    agent = AgentClass(f"{kind.module}:{kind.class_name}", cls, str(root / "agents" / "__init__.py"))
    return ScubaPlan(kind, root, agent, args, given, (args.viewport_width, args.viewport_height), match, settings,
                     notes)


def _runner_checks(kind: Kind, args: argparse.Namespace, given: dict[str, Any],
                   settings: "ModelSettings") -> tuple[str, ...]:
    """SCUBA's ``validate_args`` and the asserts of its agent loops, for this agent."""
    notes: list[str] = []
    who = f"{PREFIX}:{kind.name}"
    if kind.screen_fixed and (args.viewport_width, args.viewport_height) != SCREEN:
        raise BridgeError(f"{who}: SCUBA's runner assumes a 1920x1080 viewport for this agent (viewport_width="
                          f"{args.viewport_width}, viewport_height={args.viewport_height} given)")
    if args.viewport_width <= 0 or args.viewport_height <= 0:
        raise BridgeError(f"{who}: viewport_width and viewport_height must be positive")
    if kind.name in ("UI-TARS-1.5", "OpenCUA-7B") and not args.served_model_name:
        raise BridgeError(f"{who}: give the served model's name: --cua-agent-option served_model_name=NAME (what "
                          "vllm serve --served-model-name says)")
    if kind.name == "Claude-CUA" and args.temperature != 1.0:
        args.temperature = 1.0
        notes.append(f"temperature set to 1.0 for Claude-CUA, as SCUBA's runner does ({args.claude_model} takes "
                     "only 1.0 with thinking)")
    if kind.name == "S2.5":
        if args.s25_model_provider != "openai":
            raise BridgeError(f"{who}: s25_model_provider={args.s25_model_provider}: SCUBA's runner supports openai")
        if args.s25_ground_model != "UI-TARS-1.5-7B":
            raise BridgeError(f"{who}: s25_ground_model={args.s25_ground_model}: SCUBA's runner requires "
                              "UI-TARS-1.5-7B")
        if args.served_model_name is None:
            args.served_model_name = args.s25_ground_model
        if args.served_model_name != args.s25_ground_model:
            raise BridgeError(f"{who}: s25_ground_model ({args.s25_ground_model}) must be the served_model_name "
                              f"({args.served_model_name}), as SCUBA's runner requires")
        if args.s25_model == "gpt-5-2025-08-07" and args.temperature != 1.0:
            args.temperature = 1.0
            notes.append(f"temperature set to 1.0 for S2.5, as SCUBA's runner does ({args.s25_model} takes only 1.0)")
    local = kind.name in ("UI-TARS-1.5", "S2.5") or (kind.name == "OpenCUA-7B" and "ray_base_url" not in given)
    if local and not settings.base_url:
        raise BridgeError(f"{who}: needs --cua-model-url, the OpenAI-compatible server (vLLM) serving "
                          f"{'the grounding model' if kind.name == 'S2.5' else args.served_model_name}")
    return tuple(notes)


class ScubaBridge:
    """The ``scuba`` entry of the agent registry (``--agent scuba:NAME``)."""

    @classmethod
    def validate(cls, spec: "AgentSpec") -> None:
        """Everything before anything runs: the kind, the options and the checkout (``scuba.root``, the run's
        ``--scuba-root`` or ``$PYTEST_CUA_SCUBA_ROOT``) with its agent class; a ``BridgeError`` is the run's
        usage error."""
        plan(spec)

    @classmethod
    def from_spec(cls, spec: "AgentSpec") -> "ScubaAgent":
        try:
            return ScubaAgent(plan(spec))
        except BridgeError as exc:  # validate() checked it at start: the checkout changed since
            raise AgentError(f"agent {spec.text!r}: {exc}") from None


class _Environment:
    """What OpenAI-CUA steps itself (``env.step(code)`` after each action, ``env._get_obs()`` before a retry):
    the screen as the bridge last observed it. The code is not run here: the bridge's environment carried the
    action out already."""

    def __init__(self) -> None:
        self.obs: dict[str, Any] = {}
        self.abort: BaseException | None = None

    def step(self, action: Any, pause: float = 0.0) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        return self.obs, 0.0, False, {}

    def _get_obs(self) -> dict[str, Any]:
        if self.abort is not None:
            raise self.abort
        return self.obs


class ScubaAgent(OSWorldAgent):
    """One of SCUBA's agents, driven through pytest-cua's observations and typed actions."""

    name = PREFIX

    def __init__(self, planned: ScubaPlan) -> None:
        self.scuba = planned
        self.args = argparse.Namespace(**vars(planned.args))
        self._environment = _Environment()
        self._ray: Any = None
        super().__init__(planned, routes=_routes(planned))  # type: ignore[arg-type]
        self.model = _model_name(planned)
        self._log = logging.getLogger("pytest_cua.scuba")
        self._queue: list[Any] = []  # OpenAI-CUA: actions of its last answer not yet carried out
        self._sent: Any = None  # OpenAI-CUA: the action carried out, to tell it of before its next call
        self._last: Prediction | None = None

    @property
    def _who(self) -> str:
        return f"scuba agent {self.scuba.kind.name}"

    @property
    def observation_kinds(self) -> frozenset[str]:  # type: ignore[override]
        return frozenset({"screenshot"})

    def describe(self) -> dict[str, Any]:
        screen = self.scuba.screen
        return {"name": self.name, "model": self.model, "bridge": PREFIX, "agent": self.scuba.kind.name,
                "release": str(self.scuba.root), "options": {k: redact(str(v)) for k, v in self.scuba.kwargs.items()},
                "screen": f"{screen[0]}x{screen[1]}", "traffic": self.mode,
                **({"notes": list(self.scuba.notes)} if self.scuba.notes else {}),
                **({"deprecation": self.deprecation} if self.deprecation else {})}

    # -- building -----------------------------------------------------------------------------------------
    def _build(self) -> Any:
        kind = self.scuba.kind
        if kind.name == "OpenCUA-7B" and "ray_base_url" not in self.scuba.kwargs and self._ray is None:
            from pytest_cua.agents.bridges.scuba_ray import RayShim

            self._ray = RayShim(self.endpoints["openai"].rstrip("/") + "/chat/completions",
                                self.args.served_model_name, _compatible_key(self.args),
                                timeout_s=float(self.args.ray_request_timeout))
            self.args.ray_base_url = self._ray.start()
        module = import_release(self.scuba.root, kind.module)
        context = BuildContext(self.args, self.scuba.root, module, self.endpoints, env=self._environment,
                               compatible_key=_compatible_key(self.args))
        agent = self._call("its constructor", kind.build, context)
        if kind.name == "Claude-CUA":
            self._call("reset", agent.reset)  # the runner's agent.reset() after building it
        return agent

    def close(self) -> None:
        if getattr(self, "_ray", None) is not None:
            self._ray.stop()
        super().close()

    # -- the episode --------------------------------------------------------------------------------------
    def start(self, task: "Task", context: AgentContext) -> None:
        self._begin(task, context)
        self._queue, self._sent, self._last = [], None, None
        self._log = logging.getLogger(f"pytest_cua.scuba.{task.id}")
        self.inner = self._build()  # SCUBA's runner builds a new agent for every task

    def step(self, observation: "Observation") -> Turn:
        assert self.task is not None, "start() first"
        png, space, size, screen = agent_screenshot(observation, self.scuba.screen, self._who)
        obs = {"screenshot": png, "accessibility_tree": None, "terminal": None, "instruction": self.instruction}
        self._environment.obs, self._environment.abort = obs, None
        number = observation.step + 1
        kind = self.scuba.kind

        def predict() -> tuple[Prediction | None, list[Any]]:
            if self._sent is not None:
                sent, self._sent = self._sent, None
                self._guarded("step", openai_cua_acknowledge, self.inner, sent, self._log)
            if self._queue:
                return None, [self._queue.pop(0)]
            predicted = self._guarded("predict", kind.predict, self.inner, self.instruction, dict(obs), self.args,
                                      self._log)
            self._last = predicted
            chosen = list(predicted.commands)
            if kind.one_action_per_step and not predicted.stops and len(chosen) > 1:
                chosen, self._queue = chosen[:1], chosen[1:]
            return predicted, chosen

        (prediction, commands), usage, models = self._metered(number, predict)
        if prediction is not None and usage.requests == 0:
            usage = self._reported_usage(prediction)  # calls the proxies did not see (Bedrock, a Ray service)
        self.usage.add(usage)
        if kind.one_action_per_step and commands and not (prediction is not None and prediction.stops):
            self._sent = commands[0]
        actions = self._scuba_actions(commands, prediction, space, number)
        shown = [_command_text(c)[:RAW_CHARS] for c in commands]
        extra = {"model": {"model": ", ".join(dict.fromkeys(models)) or self.model, "usage": usage.to_dict(),
                           "image": {"width": size[0], "height": size[1]}, "coords": space.describe()},
                 "scuba": {"agent": kind.name, "actions": shown,
                           **({"queued": True} if prediction is None else {})}}
        reasoning = prediction.reasoning if prediction is not None else \
            "(the next action of the agent's answer at an earlier step)"
        raw = redact(json.dumps({"response": prediction.raw if prediction is not None else None,
                                 "actions": shown}, default=str, ensure_ascii=False))
        return Turn(actions, reasoning=reasoning, usage=usage, raw=raw, extra=extra,
                    images={"model": png} if size != screen else {})

    # -- helpers ------------------------------------------------------------------------------------------
    def _on_miss(self, message: str) -> None:
        """OpenAI-CUA reads the screen (``env._get_obs()``) before it retries: that raises the miss too."""
        self._environment.abort = ReplayMiss(message)

    def _reported_usage(self, prediction: Prediction) -> Usage:
        reported = prediction.usage or {}
        tokens_in = int(reported.get("prompt_tokens") or 0)
        tokens_out = int(reported.get("completion_tokens") or reported.get("generated_tokens") or 0)
        if not (tokens_in or tokens_out):
            return Usage()
        usage = Usage(tokens_in=tokens_in, tokens_out=tokens_out, requests=1)
        try:
            from pytest_cua.agents.models.pricing import PriceTable

            usage.cost_usd = PriceTable.load(self.plan.settings.prices).cost(usage, self.model or "")
        except (ValueError, KeyError, OSError):
            usage.cost_usd = 0.0
        return usage

    def _scuba_actions(self, commands: list[Any], prediction: Prediction | None, space: Any,
                       step: int) -> list[Action]:
        """The step's typed actions: each command parsed (``OSWorldAgent._actions``), ``DONE`` as the runner ends
        the episode (an answer for a question task), an end where the runner stops."""
        codes = [_command_text(c) for c in commands]
        actions = self._actions(codes, space, step)
        answer = prediction.answer if prediction is not None else (self._last.answer if self._last else "")
        out: list[Action] = []
        for action in actions:
            if isinstance(action, Done) and self.task is not None and self.task.is_question:
                action = Answer(answer)
            out.append(action)
            if action.terminal:
                break
        if prediction is not None and prediction.stops and not any(a.terminal for a in out):
            out.append(Answer(answer) if self.task is not None and self.task.is_question else Done())
        return out


def _command_text(command: Any) -> str:
    """A command as code: OpenAI-CUA's and Claude-CUA's action dicts carry it under ``action`` / ``command``."""
    if isinstance(command, dict):
        inner = command.get("action", command.get("command"))
        return inner if isinstance(inner, str) else json.dumps(command, default=str)
    return command if isinstance(command, str) else repr(command)


def _routes(planned: ScubaPlan) -> dict[str, str]:
    """Each model route of the agent and its upstream."""
    base = planned.settings.base_url
    vendor = upstreams(base)
    kind = planned.kind
    if kind.name == "S2.5":  # the planner is OpenAI's (OPENAI_BASE_URL as set); --cua-model-url grounds
        return {"openai": upstreams(None)["openai"], "grounding": (base or "").rstrip("/")}
    out = {}
    for route in kind.routes:
        out[route] = vendor[route] if route in ROUTES else (base or "").rstrip("/")
    if kind.name in ("UI-TARS-1.5", "OpenCUA-7B") and base:
        out["openai"] = base.rstrip("/")
    return out


def _compatible_key(args: argparse.Namespace) -> str:
    import os

    return os.environ.get(COMPATIBLE_KEY) or str(getattr(args, "vllm_api_key", "") or "token-abc123")


def _model_name(planned: ScubaPlan) -> str:
    a = planned.args
    name = planned.kind.name
    if name == "OpenAI-CUA":
        return "computer-use-preview"
    if name == "Claude-CUA":
        return str(a.claude_model)
    if name == "S2.5":
        return f"{a.s25_model} + {a.s25_ground_model}"
    return str(a.served_model_name or name)
