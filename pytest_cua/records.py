"""Settings of a run and the per-task record that travels in the teardown report.

Settings are resolved in one documented order: command-line option, then ini key, then the default; a bad
value is a usage error that names where it came from.

Outcomes: ``passed`` (score 1), ``failed`` (the agent fell short), ``error`` (infrastructure: provisioning,
agent, environment, evaluator, rollback) with an ``error_kind``, ``skipped``. An error never counts as a
failure nor as a pass.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.agents.registry import AgentRegistry, AgentSpec, UnknownAgent
from pytest_cua.redaction import redact, redact_data
from pytest_cua.summary import RECORD_KEY

SETTINGS_KEY = pytest.StashKey["Settings"]()
STATE_KEY = pytest.StashKey["TaskState"]()


@dataclass(frozen=True)
class Settings:
    agent: AgentSpec
    registry: AgentRegistry
    reports_dir: Path
    run_id: str
    worker_id: str
    max_steps: int | None
    time_limit_s: float | None
    demos: bool
    max_cost_task: float | None = None  # USD: an episode ends with end state "budget" past it
    max_cost: float | None = None  # USD for the whole run, across xdist workers (the cost ledger)

    @property
    def ledger_path(self) -> Path:
        """The run's cost ledger, shared by the controller and every xdist worker."""
        return self.reports_dir / ".cua" / f"cost-{self.run_id}.json"


def _number(config: pytest.Config, option: str, ini: str, kind: type, flag: str) -> Any:
    value = config.getoption(option)
    if value is not None:
        source = flag
    else:
        raw = config.getini(ini)
        if raw in ("", None):
            return None
        source, value = f"ini key {ini} = {raw!r}", raw
        try:
            value = kind(raw)
        except ValueError:
            raise pytest.UsageError(f"{source}: not a number") from None
    if value <= 0:
        raise pytest.UsageError(f"{source}: must be positive, got {value}")
    return value


def resolve_settings(config: pytest.Config) -> Settings:
    extra: dict[str, Any] = {}
    for found in config.hook.pytest_cua_agents(config=config):
        extra.update(found or {})
    registry = AgentRegistry(extra)
    agent_text = config.getoption("cua_agent") or config.getini("cua_agent") or "noop"
    model = _model_settings(config)
    try:
        agent = registry.resolve(agent_text, {"model_settings": model} if model is not None else None)
        registry.validate(agent)
    except UnknownAgent as exc:
        source = "--agent" if config.getoption("cua_agent") else "ini key cua_agent"
        raise pytest.UsageError(f"{source}: {exc}") from None
    reports = Path(config.getoption("cua_reports") or config.getini("cua_reports_dir") or "reports")
    if not reports.is_absolute():
        reports = Path(config.rootpath) / reports
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        run_id = workerinput.get("cua_run_id") or config.getoption("cua_run_id") or "run"
        worker_id = workerinput["workerid"]
    else:
        run_id = config.getoption("cua_run_id") or os.environ.get("PYTEST_CUA_RUN_ID") or _new_run_id()
        worker_id = "master"
    return Settings(agent=agent, registry=registry, reports_dir=reports, run_id=run_id, worker_id=worker_id,
                    max_steps=_number(config, "cua_max_steps", "cua_max_steps", int, "--cua-max-steps"),
                    time_limit_s=_number(config, "cua_time_limit", "cua_time_limit", float, "--cua-time-limit"),
                    demos=bool(config.getoption("cua_demos")),
                    max_cost_task=model.max_cost_task if model is not None else None,
                    max_cost=model.max_cost if model is not None else None)


def _model_settings(config: pytest.Config) -> Any:
    """The model agents' settings (None when pytest-cua's model options are not registered)."""
    try:
        from pytest_cua.agents.models.settings import resolve_model_settings
    except ModuleNotFoundError:
        return None
    if not hasattr(config.option, "cua_model_url"):
        return None
    return resolve_model_settings(config)


def _new_run_id() -> str:
    import time

    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


@dataclass
class TaskState:
    """What the fixtures learn about one task, for its record."""

    task: Any = None
    episode: Any = None  # EpisodeResult
    card: Any = None  # ScoreCard
    agent: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    reset_s: float | None = None
    eval_s: float | None = None
    trajectory: str | None = None
    reports: dict[str, Any] = field(default_factory=dict)  # when -> TestReport


def error_kind_of(exc: BaseException | None, default: str) -> str:
    seen = 0
    while exc is not None and seen < 5:
        kind = getattr(exc, "error_kind", None)
        if isinstance(kind, str):
            return kind
        exc = exc.__cause__
        seen += 1
    return default


def on_report(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    state = item.stash.get(STATE_KEY, None)
    if state is None:
        return
    exc = call.excinfo.value if call.excinfo is not None else None
    state.reports[report.when] = (report, exc)
    if report.when == "call" and report.failed and exc is not None and not _is_shortfall(exc):
        # an evaluator crash raised in the test body is an error, not an agent failure
        kind = error_kind_of(exc, "")
        if kind:
            report.user_properties.append(("cua_error_kind", kind))
    if report.when == "teardown":
        record = redact_data(build_record(item, state))
        # a rerun plugin may keep the earlier attempt's properties: the last attempt wins
        item.user_properties[:] = [p for p in item.user_properties if not str(p[0]).startswith("cua_")]
        report.user_properties = [p for p in report.user_properties if not str(p[0]).startswith("cua_")]
        props = [(RECORD_KEY, json.dumps(record, default=str)), ("cua_outcome", record["outcome"]),
                 ("cua_score", record["score"]), ("cua_error_kind", record["error_kind"] or ""),
                 ("cua_steps", record["steps"]), ("cua_tokens_in", record["tokens_in"]),
                 ("cua_tokens_out", record["tokens_out"]), ("cua_cost_usd", record["cost_usd"])]
        report.user_properties.extend(props)


def _is_shortfall(exc: BaseException) -> bool:
    from pytest_cua.scoring import MilestonesFailed

    return isinstance(exc, (MilestonesFailed, AssertionError)) and not getattr(exc, "error_kind", None)


def teststatus(report: pytest.TestReport) -> Any:
    if report.when == "call" and report.failed and any(k == "cua_error_kind" and v for k, v in report.user_properties):
        return "error", "E", "ERROR"
    return None


def build_record(item: pytest.Item, state: TaskState) -> dict[str, Any]:
    task = state.task
    outcome, error_kind, error = "passed", None, None
    setup = state.reports.get("setup")
    call = state.reports.get("call")
    teardown = state.reports.get("teardown")
    if setup and setup[0].skipped:
        outcome = "skipped"
        error = _short(setup[0].longrepr)
    elif setup and setup[0].failed:
        outcome, error_kind, error = "error", error_kind_of(setup[1], "setup"), _message(setup[1])
    elif call and call[0].skipped:
        outcome, error = "skipped", _short(call[0].longrepr)
    elif call and call[0].failed:
        if call[1] is not None and not _is_shortfall(call[1]):
            outcome, error_kind, error = "error", error_kind_of(call[1], "test"), _message(call[1])
        else:
            outcome, error = "failed", None
    if teardown and teardown[0].failed and outcome != "error":
        outcome, error_kind, error = "error", error_kind_of(teardown[1], "teardown"), _message(teardown[1])
    card = state.card
    episode = state.episode
    score = card.score if card is not None and card.results else 0.0
    times: dict[str, float | None] = {"wall_s": 0.0, "agent_s": 0.0, "env_s": 0.0}
    if episode is not None:
        times = {"wall_s": round(episode.wall_s, 3), "agent_s": round(episode.agent_s, 3), "env_s": round(episode.env_s, 3)}
    times["reset_s"] = round(state.reset_s, 4) if state.reset_s is not None else None
    times["eval_s"] = round(state.eval_s, 4) if state.eval_s is not None else None
    return {
        "id": task.id if task is not None else item.name,
        "nodeid": item.nodeid,
        "suite": task.suite if task is not None else None,
        "persona": getattr(task, "persona", None),
        "difficulty": getattr(task, "difficulty", None),
        "level": getattr(task, "level", None),
        "template": getattr(task, "template", None),
        "outcome": outcome,
        "error_kind": error_kind,
        "error": error,
        "score": score if outcome in ("passed", "failed") else 0.0,
        "success": outcome == "passed",
        "milestones": card.to_list() if card is not None else [],
        "end": episode.end if episode is not None else None,
        "steps": episode.steps if episode is not None else 0,
        "asks": episode.asks if episode is not None else 0,
        "times": times,
        "tokens_in": episode.usage.tokens_in if episode is not None else 0,
        "tokens_out": episode.usage.tokens_out if episode is not None else 0,
        "cost_usd": round(episode.usage.cost_usd, 6) if episode is not None else 0.0,
        "usage": episode.usage.to_dict() if episode is not None else None,
        "agent": state.agent,
        "environment": state.environment,
        "trajectory": state.trajectory,
    }


def _message(exc: BaseException | None) -> str | None:
    if exc is None:
        return None
    return redact(f"{type(exc).__name__}: {exc}")[:2000]


def _short(longrepr: Any) -> str | None:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr) if longrepr else None
