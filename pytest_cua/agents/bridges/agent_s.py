"""``--agent agent-s``: Agent S2.5 from PyPI (``gui-agents``, ``gui_agents.s2_5``), run unchanged on the desktop.

Agent S is an agent of OSWorld's convention (``predict(instruction, obs) -> (info, actions)``), so the OSWorld
bridge drives it (``osworld.OSWorldAgent``: the screenshot, its pyautogui answers read by our action parser and
never run, its model calls counted, recorded and replayed); this module builds it as ``gui-agents``' own command
(``agent_s`` / ``gui_agents.s2_5.cli_app``) does, from options named as that command's arguments:

* the planner: ``provider`` (openai), ``model`` (gpt-5-2025-08-07), ``model_url`` (default: the SDK's own address,
  ``OPENAI_BASE_URL`` or OpenAI's), ``model_api_key``, ``model_temperature``;
* the grounding model, at ``--cua-model-url`` like our VLM agents (an OpenAI-compatible server such as vLLM serving
  UI-TARS-1.5-7B): ``ground_provider`` (vllm), ``ground_model`` (UI-TARS-1.5-7B), ``ground_api_key`` (default
  ``OPENAI_COMPATIBLE_API_KEY``), ``grounding_width`` and ``grounding_height`` (the grounding model's output space,
  1920x1080 for UI-TARS-1.5-7B as gui-agents' README gives it);
* ``max_trajectory_length`` (8), ``enable_reflection`` (true).

As that command does, the agent sees the real screen (scaled down only past 2400 pixels a side) and is told its
size; a question task's answer is what it passes to ``agent.done(...)``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_cua.actions import Action, Answer, Done
from pytest_cua.agents.bridges.loading import AgentClass, BridgeError, option_value
from pytest_cua.agents.bridges.metering import upstreams
from pytest_cua.agents.bridges.osworld import OSWorldAgent

if TYPE_CHECKING:
    from pytest_cua.agents.models.coords import CoordSpace
    from pytest_cua.agents.models.settings import ModelSettings
    from pytest_cua.agents.registry import AgentSpec

NAME = "agent-s"
MODULE = "gui_agents.s2_5.agents.agent_s"  # from the scuba-agents extra (not part of `all`: its pins are SCUBA's)
GROUNDING = "gui_agents.s2_5.agents.grounding"
MAX_SIDE = 2400  # gui-agents' scale_screen_dimensions(..., max_dim_size=2400)
#: the options (gui-agents' command-line arguments) and their defaults
OPTIONS: dict[str, Any] = {
    "provider": "openai", "model": "gpt-5-2025-08-07", "model_url": "", "model_api_key": "",
    "model_temperature": None, "ground_provider": "vllm", "ground_model": "UI-TARS-1.5-7B", "ground_api_key": "",
    "grounding_width": 1920, "grounding_height": 1080, "max_trajectory_length": 8, "enable_reflection": True,
    "replay_match": "key+position",
}


@dataclass(frozen=True)
class AgentSPlan:
    """``--agent agent-s`` and its options, checked before anything runs (the fields ``OSWorldAgent`` reads)."""

    agent: AgentClass
    kwargs: dict[str, Any]  # the options, defaults filled in
    screen: tuple[int, int] | None  # None: the real screen (gui-agents scales only past MAX_SIDE)
    replay_match: str
    settings: "ModelSettings"


def plan(spec: "AgentSpec") -> AgentSPlan:
    from pytest_cua.agents.models.settings import ModelSettings

    settings = spec.options.get("model_settings") or ModelSettings()
    if spec.model:
        raise BridgeError(f"{NAME}:{spec.model}: name the planner with --cua-agent-option model={spec.model}")
    values = dict(OPTIONS)
    for key, text in settings.options.items():
        if key not in OPTIONS:
            raise BridgeError(f"--cua-agent-option {key}: not an option of {NAME}; it has {', '.join(OPTIONS)}")
        values[key] = option_value(str(text)) if key not in ("model", "ground_model", "model_api_key",
                                                             "ground_api_key", "model_url") else str(text)
    for key in ("grounding_width", "grounding_height", "max_trajectory_length"):
        if not isinstance(values[key], int) or isinstance(values[key], bool) or values[key] <= 0:
            raise BridgeError(f"--cua-agent-option {key}={values[key]}: expected a whole number above 0")
    if values["replay_match"] not in ("key", "key+position"):
        raise BridgeError(f"--cua-agent-option replay_match={values['replay_match']}: choose key or key+position")
    if not settings.base_url:
        raise BridgeError(f"{NAME}: needs --cua-model-url, the OpenAI-compatible server (vLLM) serving its grounding "
                          f"model {values['ground_model']}")
    try:
        import importlib

        module = importlib.import_module(MODULE)
    except ImportError as exc:
        raise BridgeError(f"{NAME}: {MODULE} cannot be imported ({exc}): pip install -e '.[scuba-agents]' (it "
                          "installs gui-agents)") from None
    home = os.path.dirname(os.path.dirname(os.path.abspath(str(module.__file__))))  # gui_agents/s2_5
    agent = AgentClass(f"{MODULE}:AgentS2_5", module.AgentS2_5, os.path.join(home, "__init__.py"))
    match = values.pop("replay_match")
    return AgentSPlan(agent, values, None, match, settings)


class AgentSBridge:
    """The ``agent-s`` entry of the agent registry."""

    @classmethod
    def validate(cls, spec: "AgentSpec") -> None:
        plan(spec)

    @classmethod
    def from_spec(cls, spec: "AgentSpec") -> "AgentS":
        planned = plan(spec)
        given = planned.kwargs["model_url"]
        routes = {"openai": given.rstrip("/") if given else upstreams(None)["openai"],
                  "grounding": str(planned.settings.base_url).rstrip("/")}
        return AgentS(planned, routes)


class AgentS(OSWorldAgent):
    """Agent S2.5 of gui-agents, built as its command builds it."""

    name = NAME

    def __init__(self, planned: AgentSPlan, routes: dict[str, str]) -> None:
        self._screen_seen: tuple[int, int] | None = None
        super().__init__(planned, routes=routes)  # type: ignore[arg-type]
        self.model = f"{planned.kwargs['model']} + {planned.kwargs['ground_model']}"

    @property
    def _who(self) -> str:
        return f"{NAME} agent"

    def describe(self) -> dict[str, Any]:
        described = super().describe()
        return {**described, "bridge": NAME, "agent": "gui-agents AgentS2_5"}

    def _build(self) -> Any:
        """``gui_agents.s2_5.cli_app.main``'s construction, for a screen of the size last observed."""
        import importlib

        grounding = importlib.import_module(GROUNDING)

        o = self.plan.kwargs
        width, height = self._screen_seen or (o["grounding_width"], o["grounding_height"])
        engine_params = {"engine_type": o["provider"], "model": o["model"],
                         "base_url": self.endpoints["openai"] if o["model_url"] else "",
                         "api_key": o["model_api_key"], "temperature": o["model_temperature"]}
        engine_params_for_grounding = {"engine_type": o["ground_provider"], "model": o["ground_model"],
                                       "base_url": self.endpoints["grounding"],
                                       "api_key": o["ground_api_key"] or os.environ.get("OPENAI_COMPATIBLE_API_KEY")
                                       or "token-abc123",
                                       "grounding_width": o["grounding_width"],
                                       "grounding_height": o["grounding_height"]}

        def build() -> Any:
            grounding_agent = grounding.OSWorldACI(platform="linux", engine_params_for_generation=engine_params,
                                         engine_params_for_grounding=engine_params_for_grounding,
                                         width=width, height=height)
            return self.plan.agent.cls(engine_params, grounding_agent, platform="linux",
                                       max_trajectory_length=o["max_trajectory_length"],
                                       enable_reflection=o["enable_reflection"])

        return self._call("its constructor", build)

    def step(self, observation: Any) -> Any:
        from pytest_cua.agents.models.images import image_size

        if observation.screenshot is not None:
            screen = image_size(observation.screenshot)
            scale = min(MAX_SIDE / screen[0], MAX_SIDE / screen[1], 1)
            seen = (int(screen[0] * scale), int(screen[1] * scale))
            if seen != self._screen_seen:  # the command tells the agent the screen's size when it starts
                self._screen_seen = seen
                self.plan = _with_screen(self.plan, seen if seen != screen else None)  # type: ignore[arg-type,assignment]
                self.inner = self._build()
                self.inner.reset()
        return super().step(observation)

    def _reasoning(self, response: Any) -> str:
        if isinstance(response, dict):
            parts = [str(response[k]) for k in ("reflection", "executor_plan") if response.get(k)]
            if parts:
                return "\n\n".join(parts)
        return super()._reasoning(response)

    def _actions(self, raw_actions: list[Any], space: "CoordSpace", step: int) -> list[Action]:
        actions = super()._actions(raw_actions, space, step)
        if self.task is not None and self.task.is_question:
            answer = getattr(getattr(self.inner, "grounding_agent", None), "returned_info", None)
            actions = [Answer("" if answer is None else str(answer)) if isinstance(a, Done) else a for a in actions]
        return actions


def _with_screen(planned: AgentSPlan, screen: tuple[int, int] | None) -> AgentSPlan:
    from dataclasses import replace

    return replace(planned, screen=screen)
