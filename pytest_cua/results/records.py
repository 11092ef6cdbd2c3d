"""Settings of a run and the per-task record that travels in the teardown report.

Settings are resolved in one documented order: command-line option, then ini key, then the default; a bad
value is a usage error that names where it came from.

Outcomes: ``passed`` (score 1), ``failed`` (the agent fell short), ``partial`` (partially scored: every
milestone that was decided held, and some could not be decided in this run, such as rubric items with no
``--cua-judge``), ``error`` (infrastructure: provisioning, agent, environment, evaluator, rollback) with an
``error_kind``, ``skipped``. An error never counts as a failure nor as a pass; a partially scored task is
never a pass (its test fails, shown as PARTIAL) nor an agent failure.
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
from pytest_cua.results.summary import RECORD_KEY

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
    trials: int = 1  # --cua-trials: independent episodes per task
    retry_errors: int = 0  # --cua-retry-errors: attempts after an error outcome (never after a failure)
    resume: bool = False  # --cua-resume: run_id names an earlier run to complete

    @property
    def ledger_path(self) -> Path:
        """The run's cost ledger, shared by the controller and every xdist worker."""
        return self.reports_dir / ".cua" / f"cost-{self.run_id}.json"


def _option_or_ini(config: pytest.Config, option: str, ini: str, kind: type, flag: str,
                   what: str) -> tuple[Any, str] | None:
    """The option's value, else the ini key's parsed with ``kind``, with where it came from (the flag, or the
    ini key and its text); None when neither is set. An ini value ``kind`` cannot read is a usage error."""
    value = config.getoption(option)
    if value is not None:
        return value, flag
    raw = config.getini(ini)
    if raw in ("", None):
        return None
    source = f"ini key {ini} = {raw!r}"
    try:
        return kind(str(raw)), source
    except ValueError:
        raise pytest.UsageError(f"{source}: not {what}") from None


def _number(config: pytest.Config, option: str, ini: str, kind: type, flag: str) -> Any:
    found = _option_or_ini(config, option, ini, kind, flag, "a number")
    if found is None:
        return None
    value, source = found
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
        run_id = _run_id(config)
        worker_id = "master"
    _configure_judge(config, reports, run_id, worker_id, model)
    return Settings(agent=agent, registry=registry, reports_dir=reports, run_id=run_id, worker_id=worker_id,
                    max_steps=_number(config, "cua_max_steps", "cua_max_steps", int, "--cua-max-steps"),
                    time_limit_s=_number(config, "cua_time_limit", "cua_time_limit", float, "--cua-time-limit"),
                    demos=bool(config.getoption("cua_demos")),
                    max_cost_task=model.max_cost_task if model is not None else None,
                    max_cost=model.max_cost if model is not None else None,
                    trials=_count(config, "cua_trials", "cua_trials", "--cua-trials", minimum=1, default=1),
                    retry_errors=_count(config, "cua_retry_errors", "cua_retry_errors", "--cua-retry-errors",
                                        minimum=0, default=0),
                    resume=bool(getattr(config.option, "cua_resume", None)))


def _configure_judge(config: pytest.Config, reports: Path, run_id: str, worker_id: str, model: Any) -> None:
    """``--cua-judge``: this process's rubric judge (``pytest_cua.episode.judge``), charged to the run's cost ledger."""
    from pytest_cua.episode.judge import configure_judge

    configure_judge(config, worker_id=worker_id, ledger_path=reports / ".cua" / f"cost-{run_id}.json",
                    max_cost=model.max_cost if model is not None else None,
                    prices=model.prices if model is not None else None)


def _count(config: pytest.Config, option: str, ini: str, flag: str, *, minimum: int, default: int) -> int:
    """A whole number from the option, else the ini key, else ``default``; below ``minimum`` is a usage error
    naming where the value came from."""
    found = _option_or_ini(config, option, ini, int, flag, "a whole number")
    if found is None:
        return default
    value, source = found
    if value < minimum:
        raise pytest.UsageError(f"{source}: must be at least {minimum}, got {value}")
    return int(value)


def _run_id(config: pytest.Config) -> str:
    """--cua-resume RUN_ID continues that run under its id; else --cua-run-id, $PYTEST_CUA_RUN_ID or a new id."""
    resume = getattr(config.option, "cua_resume", None)
    given = config.getoption("cua_run_id")
    if resume:
        if given and given != resume:
            raise pytest.UsageError(f"--cua-resume {resume} continues run {resume!r}: leave out --cua-run-id "
                                    f"{given} (or give the same id)")
        if "/" in resume or resume in (".", ".."):
            raise pytest.UsageError(f"--cua-resume {resume!r}: not a run id")
        return str(resume)
    return str(given or os.environ.get("PYTEST_CUA_RUN_ID") or _new_run_id())


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
    trial: int = 1


# the attempts of a test before this one (--cua-retry-errors): set by pytest_cua.episode.reruns, read into the record
EARLIER_ATTEMPTS_KEY = pytest.StashKey[list[dict[str, Any]]]()


def earlier_attempts(item: pytest.Item) -> list[dict[str, Any]]:
    """The attempts of this test before the running one (none without --cua-retry-errors)."""
    found = item.stash.get(EARLIER_ATTEMPTS_KEY, None)
    return list(found) if found is not None else []


def trajectory_dir(settings: Settings, task_id: str, trial: int) -> Path:
    """Where a task's trajectory goes: ``trajectories/<run>/<task id>`` (``<task id>-trial<n>`` with trials)."""
    from pytest_cua.tasks.collection import trial_id

    name = trial_id(task_id, trial) if settings.trials > 1 else task_id
    return settings.reports_dir / "trajectories" / settings.run_id / name


def run_settings(settings: Settings) -> dict[str, Any]:
    """What a resumed session must share with the run it completes (``runs/<run>/run.json``)."""
    return {"agent": settings.agent.text, "trials": settings.trials}


def run_store(config: pytest.Config) -> Any:
    """This run's folder on disk (``pytest_cua.results.runs.RunStore``)."""
    from pytest_cua.results.runs import RunStore

    settings = config.stash[SETTINGS_KEY]
    return RunStore(settings.reports_dir, settings.run_id)


def on_setup_start(item: pytest.Item) -> None:
    """A task is about to run on this process: note it (task fields, worker, trajectory folder) so that the
    controller can make its record if the worker dies under it."""
    callspec = getattr(item, "callspec", None)
    task = callspec.params.get("cua_task") if callspec is not None else None
    if task is None or not hasattr(task, "summary_fields"):
        return
    settings = item.config.stash[SETTINGS_KEY]
    trial = int(callspec.params.get("cua_trial", 1)) if callspec is not None else 1
    earlier = earlier_attempts(item)
    run_store(item.config).write_started(item.nodeid, {
        "task": task_fields(task, item.name), "trial": trial, "trials": settings.trials, "worker": settings.worker_id,
        "attempt": len(earlier) + 1, "earlier_attempts": earlier,
        "trajectory": str(trajectory_dir(settings, task.id, trial)),
        "agent": settings.agent.text})


def task_fields(task: Any, fallback_id: str) -> dict[str, Any]:
    """The task's fields every record carries (``fallback_id`` and None when the task is not known)."""
    return {"id": task.id if task is not None else fallback_id, "suite": getattr(task, "suite", None),
            "persona": getattr(task, "persona", None), "difficulty": getattr(task, "difficulty", None),
            "level": getattr(task, "level", None), "template": getattr(task, "template", None)}


def crash_record(nodeid: str, started: dict[str, Any] | None, message: str, worker: str) -> dict[str, Any]:
    """The record of a test whose worker died while running it: an error of kind ``worker_crash``, with the
    task's fields from what the worker noted when it started (only the test id when it noted nothing)."""
    started = started or {}
    fields = started.get("task") or task_fields(None, nodeid.rsplit("::", 1)[-1])
    trajectory = started.get("trajectory")
    steps_file = Path(trajectory) / "steps.jsonl" if trajectory else None
    return {
        **fields, "nodeid": nodeid, "trial": started.get("trial", 1), "trials": started.get("trials", 1),
        "outcome": "error", "error_kind": "worker_crash", "error": redact(message), "score": 0.0,
        "success": False, "milestones": [], "end": None,
        "steps": _count_lines(steps_file), "asks": 0, "takeovers": 0, "human_steps": 0, "agent_steps": 0,
        "times": {"wall_s": 0.0, "agent_s": 0.0, "env_s": 0.0, "reset_s": None, "eval_s": None},
        "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "usage": None,
        "agent": {"name": started.get("agent")}, "environment": {"worker": worker},
        "trajectory": str(steps_file) if steps_file is not None and steps_file.exists() else None,
        "attempt": started.get("attempt", 1), "retries": started.get("attempt", 1) - 1, "earlier_attempts": [],
    }


def _count_lines(path: Path | None) -> int:
    try:
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()) if path else 0
    except OSError:
        return 0


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
    elif report.when == "call" and report.failed and _partially_scored(state, exc):
        report.user_properties.append((PARTIAL_KEY, "1"))  # shown as PARTIAL, never as a pass
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
        store = run_store(item.config)
        store.note_settings(run_settings(item.config.stash[SETTINGS_KEY]))
        store.write_record(record)  # on disk now: a killed run keeps it (--cua-resume)


PARTIAL_KEY = "cua_partial"


def _partially_scored(state: TaskState, exc: BaseException | None) -> bool:
    """The test failed only because some milestones were not decided (``ScoreCard.partially_scored``)."""
    from pytest_cua.tasks.scoring import MilestonesFailed

    card = state.card
    return isinstance(exc, MilestonesFailed) and card is not None and bool(card.partially_scored)


def _is_shortfall(exc: BaseException) -> bool:
    from pytest_cua.tasks.scoring import MilestonesFailed

    return isinstance(exc, (MilestonesFailed, AssertionError)) and not getattr(exc, "error_kind", None)


def teststatus(report: pytest.TestReport) -> Any:
    if report.outcome == "rerun":  # type: ignore[comparison-overlap]  # --cua-retry-errors (pytest-rerunfailures' word)
        return "rerun", "R", ("RERUN", {"yellow": True})
    if report.when in ("call", "???") and report.failed and \
            any(k == "cua_error_kind" and v for k, v in report.user_properties):
        return "error", "E", "ERROR"  # an evaluator crash in the test body; a worker that died under a task
    if report.when == "call" and report.failed and any(k == PARTIAL_KEY for k, _ in report.user_properties):
        return "partial", "P", ("PARTIAL", {"yellow": True})  # partially scored: not a pass
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
        elif _partially_scored(state, call[1]):
            outcome, error = "partial", None
        else:
            outcome, error = "failed", None
    if teardown and teardown[0].failed and outcome != "error":
        outcome, error_kind, error = "error", error_kind_of(teardown[1], "teardown"), _message(teardown[1])
    card = state.card
    episode = state.episode
    earlier = earlier_attempts(item)
    score = card.score if card is not None and card.results else 0.0
    times: dict[str, float | None] = {"wall_s": 0.0, "agent_s": 0.0, "env_s": 0.0}
    if episode is not None:
        times = {"wall_s": round(episode.wall_s, 3), "agent_s": round(episode.agent_s, 3), "env_s": round(episode.env_s, 3)}
    times["reset_s"] = round(state.reset_s, 4) if state.reset_s is not None else None
    times["eval_s"] = round(state.eval_s, 4) if state.eval_s is not None else None
    from pytest_cua.episode.judge import take_usage

    judge = take_usage(task.id) if task is not None else None
    skipped = card.skipped if card is not None else []
    return {
        **task_fields(task, item.name),
        "nodeid": item.nodeid,
        "outcome": outcome,
        "error_kind": error_kind,
        "error": error,
        "score": score if outcome in ("passed", "failed", "partial") else 0.0,
        # milestones not decided in this run (rubric items without a judge): their weight earned nothing
        "unscored": ({"weight": round(1 - card.judged_weight, 6), "milestones": [r.name for r in skipped],
                      "why": sorted({r.detail for r in skipped})} if skipped and card is not None else None),
        "judge": judge,
        "success": outcome == "passed",
        "milestones": card.to_list() if card is not None else [],
        "end": episode.end if episode is not None else None,
        "steps": episode.steps if episode is not None else 0,
        "asks": episode.asks if episode is not None else 0,
        **(episode.help_fields() if episode is not None else {"takeovers": 0, "human_steps": 0, "agent_steps": 0}),
        "times": times,
        "tokens_in": episode.usage.tokens_in if episode is not None else 0,
        "tokens_out": episode.usage.tokens_out if episode is not None else 0,
        "cost_usd": round(episode.usage.cost_usd, 6) if episode is not None else 0.0,
        "usage": episode.usage.to_dict() if episode is not None else None,
        "agent": state.agent,
        "environment": state.environment,
        "trajectory": state.trajectory,
        "trial": state.trial,
        "trials": item.config.stash[SETTINGS_KEY].trials,
        "attempt": len(earlier) + 1,
        "retries": len(earlier),
        "earlier_attempts": earlier,
    }


def _message(exc: BaseException | None) -> str | None:
    if exc is None:
        return None
    return redact(f"{type(exc).__name__}: {exc}")[:2000]


def _short(longrepr: Any) -> str | None:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr) if longrepr else None
