"""The task record: its shape, the facts it is built from, and where it goes.

A task's record is one JSON object per test (per trial), built on the process that ran the test when its
teardown report is made (``on_report``): it joins the report's ``user_properties`` under ``RECORD_KEY`` (so the
same code aggregates with and without xdist) and is written to the run's folder at once
(``pytest_cua.results.runs``). ``TaskState`` holds what the fixtures learn about the task for it;
``crash_record`` is the record of a test whose worker died under it.

Outcomes: ``passed`` (score 1), ``failed`` (the agent fell short), ``partial`` (partially scored: every
milestone that was decided held, and some could not be decided in this run, such as rubric items with no
``--cua-judge``), ``error`` (infrastructure: provisioning, agent, environment, evaluator, rollback) with an
``error_kind``, ``skipped``. An error never counts as a failure nor as a pass; a partially scored task is
never a pass (its test fails, shown as PARTIAL) nor an agent failure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pytest

from pytest_cua.episode.settings import SETTINGS_KEY, run_settings, trajectory_dir
from pytest_cua.redaction import redact, redact_data
from pytest_cua.results.runs import run_store

RECORD_KEY = "cua_record"  # the user property of a teardown report that holds the task's record (JSON)
PARTIAL_KEY = "cua_partial"  # the user property of a call report that failed only by undecided milestones
CRASH_KIND = "worker_crash"  # the error kind of a test whose worker died under it
STATE_KEY = pytest.StashKey["TaskState"]()
# the attempts of a test before this one (--cua-retry-errors): set by pytest_cua.results.reruns, read into the record
EARLIER_ATTEMPTS_KEY = pytest.StashKey[list[dict[str, Any]]]()


@dataclass
class TaskState:
    """What the fixtures learn about one task, for its record."""

    task: Any = None
    episode: Any = None  # EpisodeResult
    card: Any = None  # ScoreCard (the suite's own scoring)
    others: dict[str, Any] = field(default_factory=dict)  # the suite's other scorings: name -> OtherScore
    decided_by: str | None = None  # the other scoring that decides the outcome (--cua-scoring); None: its own
    agent: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    reset_s: float | None = None
    eval_s: float | None = None
    start_s: float | None = None  # the environment's start of the task (begin_task, arrange): a program's start-up
    observation: str | None = None  # the observation setting the episode ran under ("som+screenshot")
    trajectory: str | None = None
    reports: dict[str, Any] = field(default_factory=dict)  # when -> TestReport
    trial: int = 1
    judge: dict[str, Any] | None = None  # what judging the task cost (taken once from the judge's ledger)
    judge_taken: bool = False


def _earlier_attempts(item: pytest.Item) -> list[dict[str, Any]]:
    """The attempts of this test before the running one (none without --cua-retry-errors)."""
    found = item.stash.get(EARLIER_ATTEMPTS_KEY, None)
    return list(found) if found is not None else []


def on_setup_start(item: pytest.Item) -> None:
    """A task is about to run on this process: note it (task fields, worker, trajectory folder) so that the
    controller can make its record if the worker dies under it."""
    callspec = getattr(item, "callspec", None)
    task = callspec.params.get("cua_task") if callspec is not None else None
    if task is None or not hasattr(task, "summary_fields"):
        return
    settings = item.config.stash[SETTINGS_KEY]
    trial = int(callspec.params.get("cua_trial", 1)) if callspec is not None else 1
    earlier = _earlier_attempts(item)
    run_store(item.config).write_started(item.nodeid, {
        "task": _task_fields(task, item.name, task_markers(item)), "trial": trial, "trials": settings.trials,
        "worker": settings.worker_id,
        "attempt": len(earlier) + 1, "earlier_attempts": earlier,
        "trajectory": str(trajectory_dir(settings, task.id, trial)),
        "agent": settings.agent.text})


def _task_fields(task: Any, fallback_id: str, markers: list[str] | None = None) -> dict[str, Any]:
    """The task's fields every record carries (``fallback_id`` and None when the task is not known), and the
    markers collection gave it (``markers``: level, ``app_<name>``, a suite's own such as ``domain_<name>``;
    tables group by them)."""
    return {"id": task.id if task is not None else fallback_id, "suite": getattr(task, "suite", None),
            "persona": getattr(task, "persona", None), "difficulty": getattr(task, "difficulty", None),
            "level": getattr(task, "level", None), "template": getattr(task, "template", None),
            "markers": list(markers or [])}


def task_markers(item: pytest.Item) -> list[str]:
    """The names of the markers collection gave the item's task (``pytest_cua.tasks.collection``: its
    parameter's marks), sorted; pytest-timeout's backstop is not a task marker."""
    marks = getattr(getattr(item, "callspec", None), "marks", None) or []
    return sorted({str(m.name) for m in marks if getattr(m, "name", "timeout") != "timeout"})


def crash_record(nodeid: str, started: dict[str, Any] | None, message: str, worker: str) -> dict[str, Any]:
    """The record of a test whose worker died while running it: an error of kind ``worker_crash``, with the
    task's fields from what the worker noted when it started (only the test id when it noted nothing)."""
    started = started or {}
    fields = started.get("task") or _task_fields(None, nodeid.rsplit("::", 1)[-1])
    trajectory = started.get("trajectory")
    steps_file = Path(trajectory) / "steps.jsonl" if trajectory else None
    return {
        **fields, "nodeid": nodeid, "trial": started.get("trial", 1), "trials": started.get("trials", 1),
        "outcome": "error", "error_kind": CRASH_KIND, "error": redact(message), "score": 0.0,
        "success": False, "milestones": [], "end": None,
        "steps": _count_lines(steps_file), "asks": 0, "takeovers": 0, "human_steps": 0, "agent_steps": 0,
        "times": {"wall_s": 0.0, "agent_s": 0.0, "env_s": 0.0, "reset_s": None, "eval_s": None, "start_s": None,
                  "task_s": 0.0},
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


def _error_kind_of(exc: BaseException | None, default: str) -> str:
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
        kind = _error_kind_of(exc, "")
        if kind:
            report.user_properties.append(("cua_error_kind", kind))
    elif report.when == "call" and report.failed and _partially_scored(state, exc):
        report.user_properties.append((PARTIAL_KEY, "1"))  # shown as PARTIAL, never as a pass
    if report.when == "call":
        # the task's outcome is known: on disk before the terminal shows it, so a session that ends before this
        # test's teardown (Ctrl-C during the rollback, --pdb without a terminal, pytest.exit) keeps it; the
        # teardown's record replaces it
        store = run_store(item.config)
        store.note_settings(run_settings(item.config.stash[SETTINGS_KEY]))  # the run's identity, even if no
        store.write_record(redact_data(build_record(item, state)))  # teardown follows (--pdb quit)
    if report.when == "teardown":
        record = redact_data(build_record(item, state))
        # a rerun plugin may keep the earlier attempt's properties: the last attempt wins
        item.user_properties[:] = [p for p in item.user_properties if not str(p[0]).startswith("cua_")]
        report.user_properties = [p for p in report.user_properties if not str(p[0]).startswith("cua_")]
        props = [(RECORD_KEY, json.dumps(record, default=str)), *record_properties(record)]
        report.user_properties.extend(props)
        store = run_store(item.config)
        store.note_settings(run_settings(item.config.stash[SETTINGS_KEY]))
        store.write_record(record)  # on disk now: a killed run keeps it (--cua-resume)


def record_properties(record: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The record's figures as JUnit properties (``cua_outcome``, ``cua_score``, ...)."""
    return [("cua_outcome", record["outcome"]), ("cua_score", record["score"]),
            ("cua_error_kind", record.get("error_kind") or ""), ("cua_steps", record["steps"]),
            ("cua_tokens_in", record["tokens_in"]), ("cua_tokens_out", record["tokens_out"]),
            ("cua_cost_usd", record["cost_usd"])]


def _partially_scored(state: TaskState, exc: BaseException | None) -> bool:
    """The test failed only because some milestones were not decided (``ScoreCard.partially_scored``)."""
    from pytest_cua.tasks.scoring import MilestonesFailed

    card = _deciding_card(state)
    return isinstance(exc, MilestonesFailed) and card is not None and bool(card.partially_scored)


def _deciding_card(state: TaskState) -> Any:
    """The score card that decides the task (``--cua-scoring``): the suite's own, or another scoring's (None
    where that scoring's evaluator would crash)."""
    if state.decided_by and state.decided_by in state.others:
        return state.others[state.decided_by].card
    return state.card


def scoring_fields(state: TaskState, scored: bool, own_name: str | None) -> dict[str, Any]:
    """What a record says of the suite's other scorings (``Suite.scorings``; none: nothing): ``scoring``, the
    one that decided; for each other one ``score_<name>`` and ``<name>_crash`` (why its evaluator would
    crash, else None) and, where its milestones differ from the own ones, ``milestones_<name>``; when another
    one decided, ``score_<own>`` and ``milestones_<own>`` keep the suite's own verdict (``score`` and
    ``milestones`` being the deciding one's)."""
    if not state.others:
        return {}
    own = state.card
    out: dict[str, Any] = {"scoring": state.decided_by or own_name}
    for name, other in state.others.items():
        out[f"score_{name}"] = other.score if scored else None
        out[f"{name}_crash"] = other.crash
        mine = other.card.to_list() if other.card is not None else []
        if own is not None and mine != own.to_list() and name != state.decided_by:
            out[f"milestones_{name}"] = mine
    if state.decided_by and own_name:
        out[f"score_{own_name}"] = (own.score if own is not None and own.results else 0.0) if scored else None
        out[f"milestones_{own_name}"] = own.to_list() if own is not None else []
    return out


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
        outcome, error_kind, error = "error", _error_kind_of(setup[1], "setup"), _message(setup[1])
    elif call and call[0].skipped:
        outcome, error = "skipped", _short(call[0].longrepr)
    elif call and call[0].failed:
        if call[1] is not None and not _is_shortfall(call[1]):
            outcome, error_kind, error = "error", _error_kind_of(call[1], "test"), _message(call[1])
        elif _partially_scored(state, call[1]):
            outcome, error = "partial", None
        else:
            outcome, error = "failed", None
    if teardown and teardown[0].failed and outcome != "error":
        outcome, error_kind, error = "error", _error_kind_of(teardown[1], "teardown"), _message(teardown[1])
    card = _deciding_card(state)
    episode = state.episode
    earlier = _earlier_attempts(item)
    if state.decided_by and state.decided_by in state.others:
        score = max(0.0, state.others[state.decided_by].score)  # a crash's score (SCUBA's -1) counts as 0
    else:
        score = card.score if card is not None and card.results else 0.0
    times: dict[str, float | None] = {"wall_s": 0.0, "agent_s": 0.0, "env_s": 0.0}
    if episode is not None:
        times = {"wall_s": round(episode.wall_s, 3), "agent_s": round(episode.agent_s, 3), "env_s": round(episode.env_s, 3)}
    times["reset_s"] = round(state.reset_s, 4) if state.reset_s is not None else None
    times["eval_s"] = round(state.eval_s, 4) if state.eval_s is not None else None
    times["start_s"] = round(state.start_s, 4) if state.start_s is not None else None
    # the task's whole time on its worker: start (a desktop program's start-up), episode, evaluation, rollback
    times["task_s"] = round(sum(float(times[k] or 0.0) for k in ("start_s", "wall_s", "eval_s", "reset_s")), 3)
    from pytest_cua.episode.judge import take_usage

    if not state.judge_taken and task is not None:  # a record is built twice (call, teardown): taken once
        state.judge, state.judge_taken = take_usage(task.id), True
    judge = state.judge
    skipped = card.skipped if card is not None else []
    return {
        **_task_fields(task, item.name, task_markers(item)),
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
        **scoring_fields(state, outcome in ("passed", "failed", "partial"), _own_scoring(item)),
        "end": episode.end if episode is not None else None,
        # why it ended so: the fail reason, a refusal's words, the safety checks that stopped it, the budget
        "end_reason": (episode.fail_reason or episode.budget_reason) if episode is not None else None,
        "safety_checks": list(episode.safety_checks) if episode is not None else [],
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
        "observation": state.observation,
        "trial": state.trial,
        "trials": item.config.stash[SETTINGS_KEY].trials,
        "attempt": len(earlier) + 1,
        "retries": len(earlier),
        "earlier_attempts": earlier,
    }


def _own_scoring(item: pytest.Item) -> str | None:
    """The name of the suite's own scoring (``Suite.own_scoring``) of the item's module."""
    from pytest_cua.tasks.collection import SUITE_ATTRIBUTE

    suite = getattr(getattr(item, "module", None), SUITE_ATTRIBUTE, None)
    return getattr(suite, "own_scoring", None)


def _message(exc: BaseException | None) -> str | None:
    if exc is None:
        return None
    return redact(f"{type(exc).__name__}: {exc}")[:2000]


def _short(longrepr: Any) -> str | None:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr) if longrepr else None
