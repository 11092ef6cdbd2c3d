"""The run's settings: what ``--agent``, the limits, ``--cua-trials``, ``--cua-retry-errors``, ``--cua-resume``
and the reports folder resolve to, kept in the config's stash (``SETTINGS_KEY``) for every fixture and hook.

Settings are resolved in one documented order: command-line option, then ini key, then the default; a bad
value is a usage error that names where it came from. Resolving them also configures this process's rubric
judge (``pytest_cua.episode.judge``). Also here: what follows from the settings alone (a task's trajectory
folder, what a resumed session must share with its run).
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.agents.registry import AgentRegistry, AgentSpec, UnknownAgent
from pytest_cua.tasks.collection import trial_id

SETTINGS_KEY = pytest.StashKey["Settings"]()


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
    scoring: str | None = None  # --cua-scoring: the suite scoring that decides (None: each suite's own)
    observe: str | None = None  # --cua-observe as a setting name ("som+screenshot"); None: each agent's own

    @property
    def ledger_path(self) -> Path:
        """The run's cost ledger, shared by the controller and every xdist worker."""
        return self.reports_dir / ".cua" / f"cost-{self.run_id}.json"


def resolve_settings(config: pytest.Config) -> Settings:
    extra: dict[str, Any] = {}
    for found in config.hook.pytest_cua_agents(config=config):
        extra.update(found or {})
    registry = AgentRegistry(extra)
    agent_text = config.getoption("cua_agent") or config.getini("cua_agent") or "noop"
    model = _model_settings(config)
    options: dict[str, Any] = {"model_settings": model} if model is not None else {}
    scuba_root = config.getoption("scuba_root", default=None)  # suites/scuba registers --scuba-root
    if scuba_root:  # the scuba bridge's checkout when no --cua-agent-option scuba.root names one
        options["scuba_root"] = str(scuba_root)
    try:
        agent = registry.resolve(agent_text, options or None)
        registry.validate(agent)  # a checkout named here is checked now: a usage error, before anything runs
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
        if agent.notice:  # a deprecated model: one warning, from the controller (never once per xdist worker)
            config.issue_config_time_warning(pytest.PytestWarning(agent.notice), stacklevel=2)
    for line in agent.warning_filters:  # in every process: the vendor SDK's warning per call (the notice says it)
        config.addinivalue_line("filterwarnings", line)
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
                    resume=bool(getattr(config.option, "cua_resume", None)),
                    scoring=config.getoption("cua_scoring") or config.getini("cua_scoring") or None,
                    observe=_observation_setting(config))


def trajectory_dir(settings: Settings, task_id: str, trial: int) -> Path:
    """Where a task's trajectory goes: ``trajectories/<run>/<task id>`` (``<task id>-trial<n>`` with trials)."""
    name = trial_id(task_id, trial) if settings.trials > 1 else task_id
    return settings.reports_dir / "trajectories" / settings.run_id / name


def run_settings(settings: Settings) -> dict[str, Any]:
    """What a resumed session must share with the run it completes (``runs/<run>/run.json``)."""
    return {"agent": settings.agent.text, "trials": settings.trials, "scoring": settings.scoring,
            "observe": settings.observe}


def _observation_setting(config: pytest.Config) -> str | None:
    """``--cua-observe`` as one name (its kinds sorted, joined with '+'); None when not given or not valid (the
    environment's settings report a bad value as a usage error)."""
    from pytest_cua.observations import ObservationKindError, parse_kinds

    value = getattr(config.option, "cua_observe", None)
    if not value:
        return None
    try:
        return "+".join(sorted(parse_kinds(value)))
    except ObservationKindError:
        return None


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


def _configure_judge(config: pytest.Config, reports: Path, run_id: str, worker_id: str, model: Any) -> None:
    """``--cua-judge``: this process's rubric judge (``pytest_cua.episode.judge``), charged to the run's cost ledger."""
    from pytest_cua.episode.judge import configure_judge

    configure_judge(config, worker_id=worker_id, ledger_path=reports / ".cua" / f"cost-{run_id}.json",
                    max_cost=model.max_cost if model is not None else None,
                    prices=model.prices if model is not None else None)


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


def _new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


def _model_settings(config: pytest.Config) -> Any:
    """The model agents' settings (None when pytest-cua's model options are not registered)."""
    try:
        from pytest_cua.agents.models.settings import resolve_model_settings
    except ModuleNotFoundError:
        return None
    if not hasattr(config.option, "cua_model_url"):
        return None
    return resolve_model_settings(config)
