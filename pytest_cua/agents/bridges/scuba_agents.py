"""SCUBA's computer-use agents as SCUBA's runner drives them (``lib_eval_single_task.py`` of the release): how each
is built from the run's arguments, called at each step, and what its answer is when the episode ends. One
``Kind`` per ``--agent scuba:NAME``; ``KINDS`` by name.

Each ``build`` is the runner's ``agent_loop_*`` construction, with the run's ``argparse.Namespace`` (SCUBA's
``args.py`` defaults, the options given over them) and the bridge's loopback addresses in place of SCUBA's vLLM,
Ray and API services. Each ``predict`` calls the agent's own ``predict`` with the arguments that runner passes and
returns what the step needs: the agent's text, its actions (pyautogui code, ``DONE`` / ``FAIL`` / ``WAIT``), the
answer SCUBA's runner would hand to the evaluator were the episode to end there, and whether the runner stops
after these actions.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

SPECIAL = ("DONE", "FAIL", "WAIT")


@dataclass
class BuildContext:
    """What a kind needs to build its agent besides the arguments."""

    args: argparse.Namespace
    root: Path  # the release
    module: Any  # the release module the agent class is in
    endpoints: dict[str, str]  # route -> the bridge's proxy address (openai, anthropic, grounding)
    ray_url: str | None = None  # OpenCUA: the loopback service speaking SCUBA's Ray protocol
    env: Any = None  # OpenAI-CUA: the environment object it steps itself
    compatible_key: str = ""  # the key of the OpenAI-compatible server (--cua-model-url)


@dataclass
class Prediction:
    """One call of the agent's ``predict``, as the step needs it."""

    reasoning: str
    commands: list[Any]  # pyautogui code strings and DONE / FAIL / WAIT (OpenAI-CUA: its action dicts)
    answer: str  # what SCUBA's runner would evaluate as the agent's answer if the episode ended here
    usage: dict[str, Any] = field(default_factory=dict)  # as the agent reports it (prompt/completion tokens)
    stops: bool = False  # the runner ends the episode after these actions
    raw: Any = None


@dataclass(frozen=True)
class Kind:
    """One of SCUBA's agents (``--agent scuba:NAME``)."""

    name: str
    module: str  # in the release: agents.uitars15_v1
    class_name: str
    options: tuple[str, ...]  # the args.py arguments its runner reads
    routes: tuple[str, ...]  # the model routes it calls: openai (OPENAI_BASE_URL), anthropic, grounding
    needs: str  # what it needs, for errors and the README
    build: Callable[[BuildContext], Any]
    predict: Callable[[Any, str, dict[str, Any], argparse.Namespace, logging.Logger], Prediction]
    screen_fixed: bool = True  # the runner asserts a 1920x1080 viewport for it
    one_action_per_step: bool = False  # OpenAI-CUA: it executes (and is told of) each action itself


COMMON = ("platform", "viewport_width", "viewport_height")


# -- UI-TARS-1.5 (agent_loop_uitars15, served by vLLM) --------------------------------------------------------

def _uitars_build(ctx: BuildContext) -> Any:
    import openai

    a = ctx.args
    runtime_conf = {
        "infer_mode": "qwen25vl_normal", "prompt_style": "qwen25vl_normal", "input_swap": False,
        "language": "English", "history_n": a.history_n, "max_pixels": 16384 * 28 * 28, "min_pixels": 100 * 28 * 28,
        "callusr_tolerance": 3, "temperature": a.temperature, "top_k": -1, "top_p": a.top_p,
        "max_tokens": a.max_tokens, "check_history_numbers": True,
    }
    # the runner's client (its httpx client's timeout as the SDK's own: the SDK of the scuba-agents extra takes
    # no httpx.Client of its own making)
    vllm_client = openai.OpenAI(base_url=ctx.endpoints["openai"], api_key=ctx.compatible_key or a.vllm_api_key,
                                timeout=float(a.vllm_request_timeout))
    return getattr(ctx.module, "UITARS15Agent")(
        model=a.served_model_name, runtime_conf=runtime_conf, platform=a.platform, action_space="pyautogui",
        observation_type="screenshot", vllm_client=vllm_client)


def _uitars_predict(agent: Any, instruction: str, obs: dict[str, Any], a: argparse.Namespace,
                    log: logging.Logger) -> Prediction:
    prediction, actions, usage = agent.predict(instruction, obs, log, a)
    match = re.search(r"finished\s*\(\s*content\s*=\s*['\"](.*?)['\"]\s*\)", prediction or "")
    answer = match.group(1) if match else "no value found in finished(content=...)"
    return Prediction(str(prediction or ""), list(actions or []), answer, dict(usage or {}), raw=prediction)


# -- OpenCUA-7B (agent_loop_opencua7b, served through SCUBA's Ray service) -----------------------------------

def _opencua_build(ctx: BuildContext) -> Any:
    a = ctx.args
    return getattr(ctx.module, "OpenCUAAgent")(
        model=a.served_model_name, history_type=a.opencua_history_type, max_image_history_length=a.history_n,
        platform=a.platform, max_tokens=a.max_tokens, top_p=a.top_p, temperature=a.temperature,
        action_space="pyautogui", observation_type="screenshot", cot_level=a.opencua_cot_level,
        coordinate_type=a.opencua_coordinate_type, screen_size=(a.viewport_width, a.viewport_height))


def _opencua_predict(agent: Any, instruction: str, obs: dict[str, Any], a: argparse.Namespace,
                     log: logging.Logger) -> Prediction:
    response, actions, usage = agent.predict(instruction, obs, log, a)
    actions = list(actions or [])
    # the runner's loop ends with no action, an empty one or an error text, then evaluates
    stops = not actions or actions[0] == "" or (isinstance(actions[0], str) and actions[0].lower().startswith("error"))
    cots = getattr(agent, "cots", None) or [{}]
    last = cots[-1] if isinstance(cots[-1], dict) else {}
    answer = str(last["answer"]) if "answer" in last else str(last.get("action", "no value found in response"))
    return Prediction(str(response or ""), [] if stops else actions, answer, dict(usage or {}), stops=stops,
                      raw=response)


# -- OpenAI-CUA (agent_loop_openaicua, OpenAI's Responses API) ------------------------------------------------

def _openai_cua_build(ctx: BuildContext) -> Any:
    a = ctx.args
    return getattr(ctx.module, "OpenAICUAAgent")(
        env=ctx.env, platform=a.platform, model="computer-use-preview", max_tokens=a.max_tokens, top_p=a.top_p,
        temperature=a.temperature, action_space="pyautogui", observation_type="screenshot",
        max_trajectory_length=a.max_steps, screen_width=a.viewport_width, screen_height=a.viewport_height)


def _openai_cua_predict(agent: Any, instruction: str, obs: dict[str, Any], a: argparse.Namespace,
                        log: logging.Logger) -> Prediction:
    response, actions, usage = agent.predict(instruction, obs, log, a)
    reasoning = response.get("response", "") if isinstance(response, dict) else ""
    answer_obj = response.get("response") if isinstance(response, dict) else None
    answer = answer_obj if isinstance(answer_obj, str) else f"response['response'] is not a string\n{answer_obj}"
    stops = not (isinstance(response, dict) and response.get("state_correct", False))
    shown = {k: v for k, v in response.items() if k != "messages"} if isinstance(response, dict) else response
    return Prediction(str(reasoning or ""), list(actions or []), answer, dict(usage or {}), stops=stops,
                      raw=shown)


def openai_cua_acknowledge(agent: Any, action: dict[str, Any], log: logging.Logger) -> None:
    """The runner's ``agent.step(action, ...)`` after the action ran: the agent steps its environment (the
    bridge's, which returns the screen as it is now) and adds the ``computer_call_output`` with that
    screenshot to its conversation."""
    agent.step(dict(action), 0.0, this_task_logger=log)


# -- Claude-CUA (agent_loop_claude_cua, Anthropic's Messages API) --------------------------------------------

def _claude_build(ctx: BuildContext) -> Any:
    a = ctx.args
    if getattr(ctx.module, "Anthropic", None) is not _sdk_compatible_anthropic:
        ctx.module.Anthropic = _sdk_compatible_anthropic  # the name its predict builds its client with
    return getattr(ctx.module, "AnthropicAgent")(
        platform=a.platform.capitalize(), model=a.claude_model, provider=a.claude_service_provider,
        max_tokens=a.max_tokens, temperature=a.temperature, only_n_most_recent_images=a.history_n,
        screen_size=(a.viewport_width, a.viewport_height), api_key=os.environ.get("ANTHROPIC_API_KEY"))


def _sdk_compatible_anthropic(*args: Any, **kwargs: Any) -> Any:
    """``anthropic.Anthropic(...)`` whose ``beta.messages.create`` also takes ``temperature`` as a keyword.

    SCUBA's Claude agent passes ``temperature=`` to ``client.beta.messages.create``, as the SDK of its time took it;
    the 2.x SDK of the ``models`` extra dropped the keyword (``temperature`` is still a field of the request
    body, sent as ``extra_body``). The request on the wire is the same either way."""
    import inspect

    import anthropic

    client = anthropic.Anthropic(*args, **kwargs)
    messages = client.beta.messages
    create = messages.create
    if "temperature" in inspect.signature(create).parameters:
        return client

    def create_with_temperature(*a: Any, **kw: Any) -> Any:
        if "temperature" in kw:
            kw["extra_body"] = {**(kw.get("extra_body") or {}), "temperature": kw.pop("temperature")}
        return create(*a, **kw)

    messages.create = create_with_temperature  # type: ignore[method-assign]
    return client


def _claude_predict(agent: Any, instruction: str, obs: dict[str, Any], a: argparse.Namespace,
                    log: logging.Logger) -> Prediction:
    reasoning, actions, usage = agent.predict(instruction, obs)
    if actions is None:
        raise RuntimeError("AnthropicAgent.predict returned no actions: its model call failed (its log says why)")
    commands = [act["command"] if isinstance(act, dict) else act for act in actions]
    answer = "no value found in reasoning"
    texts: list[str] = []
    for seg in reasoning or []:
        if isinstance(seg, dict):
            if "text" in seg:
                answer = seg["text"]
            texts += [str(v) for v in seg.values()]
    return Prediction("\n\n".join(texts), commands, answer, dict(usage or {}), raw=reasoning)


# -- Agent S2.5 (agent_loop_s2_5: a planner model and a UI-TARS grounding model served by vLLM) --------------

def _s25_build(ctx: BuildContext) -> Any:
    from pytest_cua.agents.bridges.scuba_release import import_release

    a = ctx.args
    grounding = import_release(ctx.root, "agents.s2_5.agents.grounding")
    engine_params = {"engine_type": a.s25_model_provider, "model": a.s25_model, "base_url": "",
                     "api_key": os.getenv("OPENAI_API_KEY"), "temperature": a.temperature}
    engine_params_for_grounding = {"engine_type": a.s25_ground_provider, "model": a.s25_ground_model,
                                   "base_url": ctx.endpoints["grounding"],
                                   "api_key": ctx.compatible_key or a.vllm_api_key,
                                   "grounding_width": a.viewport_width, "grounding_height": a.viewport_height}
    platform = "linux" if a.platform == "ubuntu" else a.platform
    grounding_agent = grounding.OSWorldACI(platform=platform, engine_params_for_generation=engine_params,
                                           engine_params_for_grounding=engine_params_for_grounding,
                                           width=a.viewport_width, height=a.viewport_height)
    agent = getattr(ctx.module, "AgentS2_5")(engine_params, grounding_agent, platform=platform,
                                             max_trajectory_length=a.history_n, enable_reflection=True)
    agent.reset()
    return agent


def _s25_predict(agent: Any, instruction: str, obs: dict[str, Any], a: argparse.Namespace,
                 log: logging.Logger) -> Prediction:
    response, actions, usage = agent.predict(instruction, obs)
    response = response if isinstance(response, dict) else {}
    match = re.search(r"agent\.done\(\s*['\"](.*?)['\"]\s*\)", str(response.get("plan_code") or ""))
    answer = match.group(1) if match else "no value found in agent.done('...')"
    parts = [str(response[k]) for k in ("reflection", "full_plan") if response.get(k)]
    return Prediction("\n\n".join(parts), list(actions or []), answer, dict(usage or {}),
                      raw=json.loads(json.dumps(response, default=str)))


KINDS: dict[str, Kind] = {
    "UI-TARS-1.5": Kind(
        "UI-TARS-1.5", "agents.uitars15_v1", "UITARS15Agent",
        (*COMMON, "served_model_name", "max_tokens", "temperature", "top_p", "history_n", "max_retry_per_request",
         "vllm_api_key", "vllm_request_timeout"),
        ("openai",), "UI-TARS-1.5 on an OpenAI-compatible server (vLLM) at --cua-model-url",
        _uitars_build, _uitars_predict, screen_fixed=False),
    "OpenCUA-7B": Kind(
        "OpenCUA-7B", "agents.opencua_agent", "OpenCUAAgent",
        (*COMMON, "served_model_name", "opencua_history_type", "opencua_cot_level", "opencua_coordinate_type",
         "history_n", "max_tokens", "top_p", "temperature", "max_retry_per_request", "ray_base_url",
         "ray_request_timeout"),
        ("openai",), "OpenCUA-7B on an OpenAI-compatible server at --cua-model-url (or SCUBA's Ray service: "
                     "ray_base_url)",
        _opencua_build, _opencua_predict),
    "OpenAI-CUA": Kind(
        "OpenAI-CUA", "agents.openaicua_agent", "OpenAICUAAgent",
        (*COMMON, "max_tokens", "top_p", "temperature", "max_steps"),
        ("openai",), "OPENAI_API_KEY (or OPENAI_API_KEY_CUA) for computer-use-preview",
        _openai_cua_build, _openai_cua_predict, one_action_per_step=True),
    "Claude-CUA": Kind(
        "Claude-CUA", "agents.anthropic.main", "AnthropicAgent",
        (*COMMON, "claude_model", "claude_service_provider", "max_tokens", "temperature", "history_n"),
        ("anthropic",), "ANTHROPIC_API_KEY (claude_service_provider=anthropic)",
        _claude_build, _claude_predict),
    "S2.5": Kind(
        "S2.5", "agents.s2_5.agents.agent_s", "AgentS2_5",
        (*COMMON, "s25_model_provider", "s25_model", "s25_ground_provider", "s25_ground_model", "served_model_name",
         "temperature", "history_n", "vllm_api_key"),
        ("openai", "grounding"), "OPENAI_API_KEY for the planner; UI-TARS-1.5-7B on an OpenAI-compatible server at "
                                 "--cua-model-url for grounding",
        _s25_build, _s25_predict),
}
