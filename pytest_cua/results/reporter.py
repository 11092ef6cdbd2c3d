"""The controller-side reporter: collects task records, writes ``summary.json``, prints the table and
applies the baseline gate. Registered only in the process that is not an xdist worker.

It also keeps results when a worker dies: the test the worker was running gets a record of its own (error
kind ``worker_crash``, see ``pytest_cua.results.reruns``) and the dead worker's environments are swept before the
session ends. With ``--cua-resume`` the records the earlier session left on disk join the summary.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from typing import Any, cast

import pytest

from pytest_cua.envs.base import Environment
from pytest_cua.episode.settings import Settings, run_settings
from pytest_cua.results import reruns
from pytest_cua.results.records import RECORD_KEY, record_properties
from pytest_cua.results.runs import interrupted, run_store
from pytest_cua.results.summary import build_summary, format_table, incomplete_reason

# --keep-env: the environments this process kept running and how to reach them (set by the environment pool's
# fixture at its teardown, printed at the end of the session)
KEPT_KEY = pytest.StashKey[list[Environment]]()
KEPT_MESSAGES_KEY = pytest.StashKey[list[str]]()


class SessionReporter:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.records: dict[str, dict[str, Any]] = {}  # nodeid -> last attempt's record
        self.started = time.time()
        self.summary: dict[str, Any] | None = None
        self.gate_lines: list[str] = []
        self.baseline: dict[str, Any] | None = None
        self.kept_messages: list[str] = []
        self.sweep_lines: list[str] = []
        self.resumed: dict[str, dict[str, Any]] = {}  # nodeid -> record of the earlier session (--cua-resume)
        self.requeued: set[str] = set()  # given back to xdist after a worker crash, not run again yet
        self.failed: set[str] = set()  # test ids with a failed report (tasks and any other test)
        self.collect_errors = 0
        self.interrupt_lines: list[str] = []  # what failed in the teardown after an interrupt
        path = config.getoption("cua_baseline")
        if path:
            from pytest_cua.results.compare import CompareError, load_summary

            try:
                self.baseline = load_summary(path)
            except CompareError as exc:
                raise pytest.UsageError(f"--cua-baseline: {exc}") from None
        if settings.resume:
            self._resume()
        else:
            self._start_afresh()

    def _run_settings(self) -> dict[str, Any]:
        return run_settings(self.settings)

    def _start_afresh(self) -> None:
        """A new run. A run id used again without --cua-resume is a usage error naming the run and the ways on,
        unless --cua-overwrite says to replace it: then the earlier run's records, trajectories and cost ledger
        go."""
        store = run_store(self.config)
        if store.exists() and not self.config.getoption("cua_overwrite", False):
            source = "--cua-run-id" if self.config.getoption("cua_run_id") else "$PYTEST_CUA_RUN_ID"
            done = len(store.records())
            raise pytest.UsageError(
                f"{source} {self.settings.run_id}: a run of that id is already in {store.root} ({done} final "
                f"record(s)); finish it with --cua-resume {self.settings.run_id}, give a new id, or add "
                f"--cua-overwrite to replace it")
        shutil.rmtree(store.root, ignore_errors=True)
        shutil.rmtree(self.settings.reports_dir / "trajectories" / self.settings.run_id, ignore_errors=True)
        self.settings.ledger_path.unlink(missing_ok=True)

    def _resume(self) -> None:
        """--cua-resume: the earlier session's records (what is final is deselected by ``resume_filter``);
        whatever that session left running is swept first (its processes are gone)."""
        store = run_store(self.config)
        if not store.exists():
            raise pytest.UsageError(f"--cua-resume {self.settings.run_id}: no such run in "
                                    f"{store.root.parent} (its records are kept in runs/<run id>/records)")
        earlier = store.read_settings()
        now = self._run_settings()
        different = {k: (earlier[k], now[k]) for k in now if k in earlier and earlier[k] != now[k]}
        if different:
            raise pytest.UsageError(f"--cua-resume {self.settings.run_id}: the run was started with " + ", ".join(
                f"{k} {a!r}" for k, (a, _) in different.items()) + "; resume it with the same (" + ", ".join(
                f"not {b!r}" for _, (_, b) in different.items()) + ")")
        self.resumed = store.records()
        self.sweep_lines.extend(reruns.sweep_worker(self.config, None))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker's environments kept by --keep-env (a crashed worker has no workeroutput); a worker
        that died leaves its environments behind: sweep them now."""
        output = getattr(node, "workeroutput", None) or {}
        self.kept_messages.extend(output.get("cua_kept", []))
        if error is not None:
            worker = str(getattr(getattr(node, "gateway", None), "id", "") or "")
            if worker:
                self.sweep_lines.extend(reruns.sweep_worker(self.config, worker))

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        record, requeued = reruns.handle_crash(self.config, crashitem, report, sched)
        self.records[crashitem] = record  # until the retry's own record replaces it
        if requeued:
            self.requeued.add(crashitem)
            return
        alluredir = getattr(self.config.option, "allure_report_dir", None)
        if alluredir:
            from pytest_cua.results.allure import emit_crash

            emit_crash(alluredir, record)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors += 1

    @pytest.hookimpl(trylast=True)  # after junitxml's: a given-back crash report is taken out of it again
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        if report.when == "???" and report.outcome == "rerun":  # type: ignore[comparison-overlap]
            _forget_junit_case(self.config, report)  # the test runs again on another worker: one case for it
        if report.when not in ("teardown", "???"):  # "???": xdist's report of a test whose worker died
            return
        for key, value in report.user_properties:
            if key == RECORD_KEY:
                first = not self.records
                self.records[report.nodeid] = json.loads(cast(str, value))
                self.requeued.discard(report.nodeid)
                if first:
                    self._write_summary(final=False)  # a controller that dies leaves a summary saying so

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Any:
        """The summary, after the other plugins' session ends (the fixtures' teardown among them: it runs in
        pytest's own ``pytest_sessionfinish``) and before the terminal's summary is printed. An interrupted
        session (Ctrl-C, ``pytest.exit``, quitting ``--pdb``) whose teardown failed still ends as an interrupt,
        with its summary."""
        try:
            return (yield)
        except Exception as exc:
            if interrupted(self.config) is None:
                raise
            self.interrupt_lines.append(f"after the interrupt, the session's teardown failed: "
                                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            return None
        finally:
            self._same_exit_as_serial(session)
            if interrupted(self.config) is not None:
                # xdist stopped its workers after the interrupt, a busy one before its environments were gone; in
                # one process, the interrupt may have come while a container was being made (the daemon makes it
                # all the same, and no environment holds it yet): after the teardown, nothing of the run is left
                self.sweep_lines.extend(reruns.sweep_worker(self.config, None))
            self._finish(session)

    def _same_exit_as_serial(self, session: pytest.Session) -> None:
        """Collection errors stop a run before any test, and pytest says so with exit code 2 (interrupted);
        under xdist the controller would say 1 (tests failed) for the same run: it says 2 as well."""
        if (getattr(self.config.option, "numprocesses", None) and self.collect_errors and not self.records
                and not self.config.getoption("continue_on_collection_errors", False)
                and session.exitstatus == pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def _records(self) -> dict[str, dict[str, Any]]:
        # what this session's processes wrote but never reported here (a session that ended before a test's
        # teardown reached the controller: Ctrl-C, --pdb without a terminal, pytest.exit) is still in the summary
        on_disk = {nodeid: record for nodeid, record in run_store(self.config).records().items()
                   if nodeid not in self.records and nodeid not in self.resumed and nodeid not in self.requeued}
        return {**self.resumed, **on_disk, **self.records}

    def _write_summary(self, final: bool) -> dict[str, Any] | None:
        """Build and write ``summary.json``: ``final`` at the session's end; else a provisional one (the run is
        under way, ``complete`` false) that stays if the controller dies."""
        records = self._records()
        if not records:
            return None
        store = run_store(self.config)
        now = time.time()
        sessions = store.note_session(self.started, now) if final else \
            [*store.read_settings().get("sessions", []), {"started": self.started, "wall_s": now - self.started}]
        expected = set(store.collected())
        missing = sorted(expected - set(records))
        run = {"id": self.settings.run_id, "agent": self.settings.agent.text,
               "started": min([float(s["started"]) for s in sessions] + [self.started]),
               "finished": now, "wall_s": round(sum(float(s["wall_s"]) for s in sessions), 2),
               "sessions": len(sessions), "session_wall_s": round(now - self.started, 2),
               "workers": getattr(self.config.option, "numprocesses", None) or 0,
               "args": [a for a in self.config.invocation_params.args], "trials": self.settings.trials,
               "retry_errors": self.settings.retry_errors,
               "resumed": self._resumed_not_rerun() if self.settings.resume else None,
               "complete": final and not missing, "collected": len(expected), "missing": len(missing),
               "missing_ids": missing[:50], **({} if final else {"state": "running"}),
               **_deprecation(self.settings)}
        summary = build_summary(list(records.values()), run)
        out = self.settings.reports_dir
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / f".summary.json.{time.time_ns()}.tmp"
        tmp.write_text(json.dumps(summary, indent=1, default=str))
        tmp.replace(out / "summary.json")
        return summary

    def _finish(self, session: pytest.Session) -> None:
        self.summary = self._write_summary(final=True)
        if self.summary is None:
            return
        out = self.settings.reports_dir
        if self.baseline is not None:
            from pytest_cua.results.compare import compare, render_text

            comparison = compare(self.baseline, self.summary, alpha=float(self.config.getoption("cua_gate_alpha")),
                                 max_drop=float(self.config.getoption("cua_max_drop") or 0.0),
                                 quarantine_flaky=bool(self.config.getoption("cua_quarantine_flaky")))
            (out / "comparison.json").write_text(json.dumps(comparison.to_dict(), indent=1, default=str))
            self.gate_lines = render_text(comparison)
            if not comparison.gate.ok and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
            elif comparison.gate.ok and session.exitstatus == pytest.ExitCode.TESTS_FAILED and \
                    self._only_task_outcomes(session):
                # the exit status is the gate's: tasks an agent fails are the measurement, not a broken build
                session.exitstatus = pytest.ExitCode.OK
        if self.requeued and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a crashed test that never ran again

    def _resumed_not_rerun(self) -> int:
        """--cua-resume: how many of the earlier session's records stand in the summary as they were."""
        return sum(1 for nodeid in self.resumed if nodeid not in self.records)

    def _only_task_outcomes(self, session: pytest.Session) -> bool:
        """Every failure of the session is a task's outcome (it has a record), nothing stopped the run early
        (-x, --maxfail), no collection failed and no crashed test is still waiting for its retry."""
        return (not (self.failed - set(self.records)) and not self.collect_errors and not self.requeued
                and not session.shouldfail and not session.shouldstop)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        self._kept_summary(terminalreporter)
        if self.summary is None:
            return
        tr = terminalreporter
        tr.write_sep("=", f"pytest-cua summary (agent {self.settings.agent.text}, run {self.settings.run_id})")
        for line in format_table(self.summary):
            tr.write_line(line)
        notice = getattr(self.settings.agent, "notice", None)
        if notice:
            tr.write_line(notice)
        for line in _partial_lines(self.summary.get("tasks") or []):
            tr.write_line(line)
        tr.write_line(f"summary: {self.settings.reports_dir / 'summary.json'}")
        for line in self.interrupt_lines:
            tr.write_line(line)
        unfinished = incomplete_reason(self.summary)
        if unfinished is not None:
            tr.write_line(f"{unfinished}; finish it with:")
            tr.write_line(f"  {resume_command(self.config, self.settings.run_id)}")
        if self.settings.resume:
            kept = self._resumed_not_rerun()
            tr.write_line(f"resumed run {self.settings.run_id}: {kept} test(s) had a final record and were not run "
                          f"again; {len(self.records)} ran now; the summary holds both")
        if self.requeued:
            tr.write_line(f"{len(self.requeued)} test(s) given back after a worker crash never ran again (xdist "
                          f"stopped replacing workers: --max-worker-restart); they count as worker_crash errors: "
                          + ", ".join(sorted(self.requeued)))
        if self.sweep_lines:
            tr.write_sep("-", "environments of dead workers, swept")
            for line in self.sweep_lines:
                tr.write_line(line)
        if self.gate_lines:
            tr.write_sep("-", f"baseline gate (against {self.config.getoption('cua_baseline')})")
            for line in self.gate_lines:
                tr.write_line(line)

    def _kept_summary(self, tr: Any) -> None:
        """--keep-env: say how to reach what was kept (each environment's ``keep_env_message``); what lives in
        this process (``kept_in_process``: the embedded org) goes with it, so on a terminal (with -s) wait for
        Enter before it goes."""
        messages = self.kept_messages + self.config.stash.get(KEPT_MESSAGES_KEY, [])
        if not messages:
            return
        tr.write_sep("=", "pytest-cua --keep-env")
        for message in messages:
            for line in message.splitlines():
                tr.write_line(line)
        kept = self.config.stash.get(KEPT_KEY, [])
        in_process = [env for env in kept if env.kept_in_process]
        if not in_process:
            return
        names = ", ".join(sorted({env.name for env in in_process}))
        interactive = self.config.getoption("capture") == "no" and sys.stdin is not None and sys.stdin.isatty()
        if interactive:
            tr.write_line(f"the kept {names} environment runs inside this pytest process: press Enter to stop it "
                          f"and exit")
            sys.stdin.readline()
        else:
            tr.write_line(f"the kept {names} environment runs inside this pytest process and stops with it; run "
                          f"one task without -n and with -s on a terminal to keep it up until you press Enter")
        for env in in_process:
            env.close()


def _partial_lines(records: list[dict[str, Any]]) -> list[str]:
    """The partially scored tasks (outcome ``partial``): never a pass; what was not decided and why."""
    partial = sorted((r for r in records if r.get("outcome") == "partial"), key=lambda r: str(r.get("nodeid")))
    if not partial:
        return []
    lines = [f"partially scored (not a pass): {len(partial)} task(s); their undecided milestones earned nothing"]
    for r in partial:
        unscored = r.get("unscored") or {}
        why = "; ".join(unscored.get("why") or []) or "not decided"
        lines.append(f"  {r.get('id')}: score {float(r.get('score') or 0):.2f}, "
                     f"{len(unscored.get('milestones') or [])} milestone(s) of weight "
                     f"{float(unscored.get('weight') or 0):.2f} {why}")
    return lines


def _deprecation(settings: Settings) -> dict[str, Any]:
    """The run's deprecated model (its shutdown date and replacement), when the agent is one."""
    deprecation = getattr(settings.agent, "deprecation", None)
    return {"agent_deprecation": dict(deprecation)} if deprecation else {}


def resume_command(config: pytest.Config, run_id: str) -> str:
    """The command line that finishes the run: this session's arguments, less its run id and stops (-x,
    --maxfail), with ``--cua-resume RUN``."""
    args = list(config.invocation_params.args)
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("--cua-run-id", "--cua-resume", "--maxfail"):
            skip = True
            continue
        if arg.startswith(("--cua-run-id=", "--cua-resume=", "--maxfail=")) or arg in ("-x", "--exitfirst",
                                                                                         "--cua-overwrite"):
            continue
        kept.append(arg)
    return " ".join(["pytest", *(shlex.quote(a) for a in kept), "--cua-resume", shlex.quote(run_id)])


def junit_properties_of_unfinished(config: pytest.Config, records: dict[str, dict[str, Any]]) -> None:
    """A test whose session ended before its teardown (quitting ``--pdb``, Ctrl-C) has a JUnit case but none of
    the ``cua_*`` properties junitxml takes from the teardown report: give its case the record's."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - a pytest without junitxml's stash key
        return
    xml: Any = config.stash.get(xml_key, None)
    if xml is None:
        return
    for (nodeid, _node), reporter in list(xml.node_reporters.items()):  # not finalized: no teardown report came
        record = records.get(str(nodeid))
        if record is None or any(name == "cua_outcome" for name, _ in reporter.properties):
            continue
        for name, value in record_properties(record):
            reporter.add_property(name, str(value))


def _forget_junit_case(config: pytest.Config, report: pytest.TestReport) -> None:
    """junitxml opened a test case for xdist's report of a crashed test that goes back to the scheduler; the
    retry's reports make the test's case, so this one (of the dead worker) goes."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - a pytest without junitxml's stash key
        return
    xml: Any = config.stash.get(xml_key, None)  # LogXML: its node reporters are keyed (nodeid, xdist node)
    if xml is None:
        return
    node = getattr(report, "node", None)
    # keyed (nodeid, node): the nodeid a string before pytest 9.2, a NodeId (str() gives the string) since
    for key in [k for k in xml.node_reporters if k[1] is node and str(k[0]) == report.nodeid]:
        reporter = xml.node_reporters.pop(key)
        if reporter in xml.node_reporters_ordered:
            xml.node_reporters_ordered.remove(reporter)
