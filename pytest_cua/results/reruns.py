"""``--cua-retry-errors N``: a task that ended in error runs again, up to N more times; a failure never does.

An error is what is not the agent's doing: provisioning, the environment, the agent's infrastructure (a model
API outage past its retry budget), the evaluator, the rollback, or the worker process dying under the task.
Each attempt is a whole test protocol (setup, call, teardown: the environment is rolled back after it).

- In the process that runs the test, ``run_with_retries`` replaces pytest's protocol for task tests: an
  attempt that ended in error is reported with the outcome ``rerun`` (``R`` in the terminal, as
  pytest-rerunfailures does), its trajectory folder is renamed ``<folder>.attempt<n>``, and the test runs
  again. The last attempt is reported as usual; its record lists the earlier ones (``earlier_attempts``) and
  counts them (``retries``). JUnit gets one test case per test, with the last attempt's outcome.
- On the xdist controller, ``handle_crash`` makes the record of a test whose worker died (error kind
  ``worker_crash``); with retries left it gives the test back to the scheduler, which runs it on the
  replacement worker.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from pytest_cua.episode.settings import SETTINGS_KEY
from pytest_cua.results.records import CRASH_KIND, EARLIER_ATTEMPTS_KEY, RECORD_KEY, crash_record
from pytest_cua.results.runs import run_store
from pytest_cua.tasks.collection import TASK_ARG

def wants_retries(item: pytest.Item) -> bool:
    settings = item.config.stash.get(SETTINGS_KEY, None)
    return bool(settings is not None and settings.retry_errors and TASK_ARG in getattr(item, "fixturenames", ()))


class _KeepParents:
    """Stands in for "the next test" in the teardown of an attempt that may be retried: it needs this test's
    parents, so only the test's own (function-scoped) fixtures are torn down, and the environment pool and
    other session or module fixtures stay up for the next attempt."""

    def __init__(self, item: pytest.Item) -> None:
        self._item = item

    def listchain(self) -> list[Any]:
        return self._item.listchain()[:-1]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._item, name)


def run_with_retries(item: pytest.Item, nextitem: pytest.Item | None) -> bool:
    """pytest's run-test protocol for one task test, with retries of error outcomes."""
    settings = item.config.stash[SETTINGS_KEY]
    store = run_store(item.config)
    noted = store.started(item.nodeid) or {}
    # given back by the controller after its worker died (or left so by a session that was then killed)
    earlier: list[dict[str, Any]] = list(noted.get("earlier_attempts") or []) if noted.get("requeued") else []
    item.stash[EARLIER_ATTEMPTS_KEY] = earlier
    parents = item.listchain()[:-1]
    # the real next test would tear down higher scopes (last test, or the next lies in another module)
    keep = nextitem is None or nextitem.listchain()[:len(parents)] != parents
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    while True:
        may_retry = len(earlier) < settings.retry_errors
        reports = runtestprotocol(item, nextitem=_KeepParents(item) if keep and may_retry else nextitem,  # type: ignore[arg-type]
                                  log=False)
        record = _record_of(reports)
        if record is None or record.get("outcome") != "error" or not may_retry:
            for report in reports:
                item.ihook.pytest_runtest_logreport(report=report)
            break
        earlier.append(_attempt_entry(record, _move_trajectory(record.get("trajectory"), len(earlier) + 1)))
        # one report stands for the attempt: "R" in the terminal, no JUnit case of its own
        item.ihook.pytest_runtest_logreport(report=_rerun_report(item, reports))
    if keep and may_retry:
        _finish_teardown(item, nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _rerun_report(item: pytest.Item, reports: list[pytest.TestReport]) -> pytest.TestReport:
    """The report of an attempt that ended in error and runs again: outcome ``rerun`` (pytest-rerunfailures'
    word), the failing phase's message, none of the attempt's record properties."""
    failed = next((r for r in reports if r.failed), reports[-1])
    return pytest.TestReport(nodeid=item.nodeid, location=item.location, keywords=dict(failed.keywords),
                             outcome="rerun", longrepr=failed.longrepr, when="call",  # type: ignore[arg-type]
                             sections=list(failed.sections), duration=sum(r.duration for r in reports),
                             start=reports[0].start, stop=reports[-1].stop, user_properties=[])


def _finish_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """The last attempt kept the test's parents set up: tear down toward the real next test now, as pytest
    would have in the test's teardown; a failure there is reported as a teardown error of this test."""
    from _pytest.runner import CallInfo

    call = CallInfo.from_call(lambda: item.session._setupstate.teardown_exact(nextitem), when="teardown",
                              reraise=(KeyboardInterrupt, SystemExit))
    if call.excinfo is not None:
        report = item.ihook.pytest_runtest_makereport(item=item, call=call)
        item.ihook.pytest_runtest_logreport(report=report)


def _record_of(reports: list[pytest.TestReport]) -> dict[str, Any] | None:
    for report in reports:
        for key, value in report.user_properties:
            if key == RECORD_KEY:
                loaded = json.loads(str(value))
                return loaded if isinstance(loaded, dict) else None
    return None


def _attempt_entry(record: dict[str, Any], trajectory: str | None) -> dict[str, Any]:
    """What the final record keeps of an earlier attempt."""
    return {"attempt": record.get("attempt", 1), "outcome": record.get("outcome"),
            "error_kind": record.get("error_kind"), "error": record.get("error"),
            "wall_s": (record.get("times") or {}).get("wall_s"), "trajectory": trajectory}


def _move_trajectory(path: str | None, attempt: int) -> str | None:
    """Move an attempt's trajectory folder aside (``<folder>.attempt<n>``) so the next attempt starts anew;
    return the new path of the file ``path`` named (None when there was none)."""
    if not path:
        return None
    file = Path(path)
    folder = file.parent
    if not folder.is_dir():
        return None
    target = folder.with_name(f"{folder.name}.attempt{attempt}")
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)  # a resumed run's own earlier copy
    folder.rename(target)
    return str(target / file.name)


def handle_crash(config: pytest.Config, nodeid: str, report: pytest.TestReport,
                 sched: Any) -> tuple[dict[str, Any], bool]:
    """xdist's ``pytest_handlecrashitem`` on the controller: the worker running ``nodeid`` died. Its record
    (an error of kind ``worker_crash``) is written either way; with retries left the test also goes back to
    the scheduler (the report becomes a ``rerun``) and the retry's record replaces it when the retry runs.
    Returns the record and whether the test was given back."""
    settings = config.stash[SETTINGS_KEY]
    store = run_store(config)
    node = getattr(report, "node", None)
    worker = str(getattr(getattr(node, "gateway", None), "id", "") or "?")
    started = store.started(nodeid)
    message = f"{report.longrepr}" if report.longrepr else f"worker {worker!r} crashed while running {nodeid!r}"
    record = crash_record(nodeid, started, message, worker)
    earlier = list((started or {}).get("earlier_attempts") or [])
    record["earlier_attempts"], record["attempt"], record["retries"] = earlier, len(earlier) + 1, len(earlier)
    requeued = False
    if settings.retry_errors > len(earlier) and started is not None:
        try:
            sched.mark_test_pending(nodeid)
        except (NotImplementedError, AttributeError, KeyError, ValueError):
            pass  # this scheduler cannot take a test back (--dist loadscope): the crash is final
        else:
            requeued = True
            moved = _move_trajectory(str(Path(started["trajectory"]) / "steps.jsonl") if started.get("trajectory")
                                    else None, len(earlier) + 1)
            if moved:
                record["trajectory"] = moved
            store.write_started(nodeid, {**started, "earlier_attempts": [*earlier, _attempt_entry(record, moved)],
                                         "requeued": True})
            report.outcome = "rerun"  # type: ignore[assignment]
            report.longrepr = f"{message} (running it again: --cua-retry-errors {settings.retry_errors})"
    store.write_record(record)  # final unless the retry runs (xdist may stop replacing workers)
    if not requeued:
        report.user_properties = [(RECORD_KEY, json.dumps(record, default=str)), ("cua_outcome", "error"),
                                  ("cua_error_kind", CRASH_KIND), ("cua_score", 0.0)]
    return record, requeued


def sweep_worker(config: pytest.Config, worker_id: str | None) -> list[str]:
    """Remove what a dead worker (or, with None, every process of this run) left in each installed
    environment provider; the lines say what went."""
    from pytest_cua.envs.registry import providers

    settings = config.stash[SETTINGS_KEY]
    lines: list[str] = []
    for provider in providers().values():
        try:
            lines.extend(provider.sweep(settings.run_id, worker_id))
        except Exception as exc:  # noqa: BLE001 - a sweep must never hide the run's own results
            lines.append(f"{provider.name}: sweeping worker {worker_id or 'all'} failed: {type(exc).__name__}: {exc}")
    return lines
