"""The model agents' settings, resolved in one documented order: the command-line option, then the ini key,
then ``--cua-agent-option`` / ``cua_agent_options`` for the rest, then the default. A bad value is a usage
error naming where it came from (``--cua-temperature``, ``ini key cua_temperature = 'x'``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

STYLES = ("browser", "computer")
SAFETY_CHECKS = ("stop", "acknowledge")
#: past steps whose observations stay in the prompt (with the current one: three screenshots, as before)
DEFAULT_HISTORY = 2


@dataclass(frozen=True)
class ModelSettings:
    style: str | None = None
    base_url: str | None = None
    temperature: float = 1.0
    temperature_given: bool = False
    max_tokens: int | None = None  # None: the model's default (see providers)
    history: int = DEFAULT_HISTORY  # --cua-history: past steps whose observations stay (0: the current one only)
    observe: frozenset[str] | None = None  # --cua-observe as the run gives it: the setting the prompt follows
    options: dict[str, str] = field(default_factory=dict)
    prices: Path | None = None
    max_cost_task: float | None = None
    max_cost: float | None = None
    record_dir: Path | None = None
    replay_dir: Path | None = None
    safety_checks: str = "stop"  # --cua-safety-checks: stop or acknowledge


def _raw(config: pytest.Config, dest: str, ini: str, flag: str) -> tuple[str | None, str]:
    value = config.getoption(dest, default=None)
    if value not in (None, ""):
        return str(value), flag
    try:
        raw = config.getini(ini)
    except ValueError:
        return None, ""
    if raw in (None, ""):
        return None, ""
    return str(raw), f"ini key {ini} = {raw!r}"


def _convert(config: pytest.Config, dest: str, ini: str, flag: str, kind: Callable[[str], Any],
             check: Callable[[Any], str | None] | None = None) -> tuple[Any, bool]:
    raw, source = _raw(config, dest, ini, flag)
    if raw is None:
        return None, False
    try:
        value = kind(raw)
    except ValueError:
        raise pytest.UsageError(f"{source}: not a valid value: {raw!r}") from None
    problem = check(value) if check else None
    if problem:
        raise pytest.UsageError(f"{source}: {problem}")
    return value, True


def _positive(value: float) -> str | None:
    return None if value > 0 else f"must be positive, got {value:g}"


def _not_negative(value: float) -> str | None:
    return None if value >= 0 else f"must be 0 or more (past steps kept), got {value:g}"


def _observe(config: pytest.Config) -> frozenset[str] | None:
    """``--cua-observe`` (kinds joined with ``,`` or ``+``); a bad kind is a usage error naming the option."""
    from pytest_cua.observations import ObservationKindError, parse_kinds

    raw = config.getoption("cua_observe", default=None)
    if raw in (None, ""):
        return None
    try:
        return parse_kinds(str(raw), source="--cua-observe")
    except ObservationKindError as exc:
        raise pytest.UsageError(str(exc)) from None


def agent_options(config: pytest.Config) -> dict[str, str]:
    """``cua_agent_options`` lines, then ``--cua-agent-option`` (the command line wins)."""
    out: dict[str, str] = {}
    try:
        lines = list(config.getini("cua_agent_options") or [])
    except ValueError:
        lines = []
    for source, items in (("ini key cua_agent_options", lines),
                          ("--cua-agent-option", config.getoption("cua_agent_option", default=None) or [])):
        for item in items:
            key, sep, value = str(item).partition("=")
            if not sep or not key.strip():
                raise pytest.UsageError(f"{source}: expected KEY=VALUE, got {item!r}")
            out[key.strip()] = value.strip()
    return out


def resolve_model_settings(config: pytest.Config, rootpath: Path | None = None) -> ModelSettings:
    root = rootpath or Path(config.rootpath)

    def path(dest: str, ini: str, flag: str) -> Path | None:
        raw, _ = _raw(config, dest, ini, flag)
        if raw is None:
            return None
        p = Path(raw).expanduser()
        return p if p.is_absolute() else root / p

    style, _ = _convert(config, "cua_agent_style", "cua_agent_style", "--cua-agent-style", str,
                        lambda v: None if v in STYLES else f"choose {' or '.join(STYLES)}, got {v!r}")
    temperature, given = _convert(config, "cua_temperature", "cua_temperature", "--cua-temperature", float,
                                  lambda v: None if 0 <= v <= 2 else f"must be between 0 and 2, got {v:g}")
    max_tokens, _ = _convert(config, "cua_max_tokens", "cua_max_tokens", "--cua-max-tokens", int, _positive)
    history, _ = _convert(config, "cua_history", "cua_history", "--cua-history", int, _not_negative)
    cost_task, _ = _convert(config, "cua_max_cost_task", "cua_max_cost_task", "--cua-max-cost-task", float,
                            _positive)
    cost_run, _ = _convert(config, "cua_max_cost", "cua_max_cost", "--cua-max-cost", float, _positive)
    safety, _ = _convert(config, "cua_safety_checks", "cua_safety_checks", "--cua-safety-checks", str,
                         lambda v: None if v in SAFETY_CHECKS else f"choose {' or '.join(SAFETY_CHECKS)}, got {v!r}")
    base_url, _ = _raw(config, "cua_model_url", "cua_model_url", "--cua-model-url")
    record = path("cua_model_record", "cua_model_record", "--cua-model-record")
    replay = path("cua_model_replay", "cua_model_replay", "--cua-model-replay")
    if record and replay:
        raise pytest.UsageError("--cua-model-record and --cua-model-replay: give one of them, not both")
    if replay and not replay.is_dir():
        raise pytest.UsageError(f"--cua-model-replay: {replay} is not a folder of recordings")
    prices = path("cua_prices", "cua_prices", "--cua-prices")
    if prices and not prices.is_file():
        raise pytest.UsageError(f"--cua-prices: {prices} does not exist")
    return ModelSettings(style=style, base_url=base_url.rstrip("/") if base_url else None,
                         temperature=1.0 if temperature is None else temperature, temperature_given=given,
                         max_tokens=max_tokens, history=DEFAULT_HISTORY if history is None else history,
                         observe=_observe(config), options=agent_options(config),
                         prices=prices, max_cost_task=cost_task, max_cost=cost_run, record_dir=record,
                         replay_dir=replay, safety_checks=safety or "stop")


def _at_least(kind: Callable[[str], float], low: float) -> Callable[[str], Any]:
    """A check that parses with ``kind`` (int or float) and refuses values below ``low``."""
    def check(text: str) -> float:
        value = kind(text)
        if value < low:
            raise ValueError(f"must be at least {low:g}")
        return value
    return check


def _choice(*values: str) -> Callable[[str], Any]:
    def check(text: str) -> str:
        if text not in values:
            raise ValueError(f"choose one of {', '.join(values)}")
        return text
    return check


def _size(text: str) -> str:
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit() and int(w) > 0 and int(h) > 0):
        raise ValueError("expected WIDTHxHEIGHT, e.g. 1280x800")
    return text


#: every --cua-agent-option key with its check (a typo is an error, not a silently ignored setting)
AGENT_OPTIONS: dict[str, tuple[Callable[[str], Any], str]] = {
    "retries": (_at_least(int, 1), "attempts per model call, retries included (8)"),
    "retry_budget_s": (_at_least(float, 0), "seconds a model call may spend on retries, waiting included (300)"),
    "retry_base_s": (_at_least(float, 0.001), "first backoff in seconds, doubled each time (1)"),
    "timeout_s": (_at_least(float, 0.1), "seconds per attempt (120)"),
    "format_retries": (_at_least(int, 0), "unusable outputs sent back to the model before the episode fails (2)"),
    "image_size": (_size, "the largest screenshot sent, WIDTHxHEIGHT (browser 1280x800)"),
    "reasoning_effort": (_choice("none", "minimal", "low", "medium", "high", "xhigh", "max"),
                         "OpenAI reasoning models (which levels a model takes is the model's: see its page)"),
    "reasoning_summary": (_choice("auto", "concise", "detailed", "off"), "OpenAI reasoning summaries (auto)"),
    "thinking_budget": (_at_least(int, 1024), "Claude manual extended thinking (thinking enabled), tokens (off)"),
    "thinking": (_choice("adaptive", "off"), "Claude adaptive thinking (thinking adaptive; newer models)"),
    "computer_tool": (_choice("computer_toolset_20260801", "computer_20251124", "computer_20250124",
                              "computer_20241022"), "Claude computer tool version (by model, see aliases)"),
    "grammar": (str, "a VLM's grammar: ui-tars-1.5, ui-tars-1.0, opencua, opencua-relative, qwen2.5-vl"),
    "api_key_env": (str, "the environment variable holding the API key"),
    "top_p": (_at_least(float, 0), "nucleus sampling (chat completions)"),
    "seed": (_at_least(int, 0), "sampling seed (chat completions servers that take one)"),
    "replay_match": (_choice("key", "key+position"), "how a replay finds a recording (key+position)"),
}


def check_agent_options(options: dict[str, str]) -> None:
    """Raise ValueError naming ``--cua-agent-option KEY`` for an unknown key or a bad value."""
    for key, value in options.items():
        if key not in AGENT_OPTIONS:
            raise ValueError(f"--cua-agent-option {key}: unknown setting; known: {', '.join(sorted(AGENT_OPTIONS))}")
        check, _ = AGENT_OPTIONS[key]
        try:
            check(value)
        except ValueError as exc:
            raise ValueError(f"--cua-agent-option {key}={value}: {exc}") from None
