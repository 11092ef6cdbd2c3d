"""The controller-side reporter: collects task records, writes ``summary.json``, prints the table and
applies the baseline gate. Registered only in the process that is not an xdist worker."""

from __future__ import annotations

import json
import sys
import time
from typing import Any, cast

import pytest

from pytest_cua.records import Settings
from pytest_cua.summary import RECORD_KEY, build_summary, compare_to_baseline, format_table, load_baseline


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
        path = config.getoption("cua_baseline")
        if path:
            try:
                self.baseline = load_baseline(path)
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker's environments kept by --keep-env (a crashed worker has no workeroutput)."""
        output = getattr(node, "workeroutput", None) or {}
        self.kept_messages.extend(output.get("cua_kept", []))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        for key, value in report.user_properties:
            if key == RECORD_KEY:
                self.records[report.nodeid] = json.loads(cast(str, value))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.records:
            return
        run = {"id": self.settings.run_id, "agent": self.settings.agent.text, "started": self.started,
               "finished": time.time(), "wall_s": round(time.time() - self.started, 2),
               "workers": getattr(self.config.option, "numprocesses", None) or 0,
               "args": [a for a in self.config.invocation_params.args]}
        self.summary = build_summary(list(self.records.values()), run)
        out = self.settings.reports_dir
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=1, default=str))
        if self.baseline is not None:
            gate = compare_to_baseline(self.summary, self.baseline,
                                       max_drop=float(self.config.getoption("cua_max_drop") or 0.0))
            self.gate_lines = gate.lines
            if not gate.ok and session.exitstatus == 0:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        self._kept_summary(terminalreporter)
        if self.summary is None:
            return
        tr = terminalreporter
        tr.write_sep("=", f"pytest-cua summary (agent {self.settings.agent.text}, run {self.settings.run_id})")
        for line in format_table(self.summary):
            tr.write_line(line)
        tr.write_line(f"summary: {self.settings.reports_dir / 'summary.json'}")
        if self.gate_lines:
            tr.write_sep("-", "baseline gate")
            for line in self.gate_lines:
                tr.write_line(line)

    def _kept_summary(self, tr: Any) -> None:
        """--keep-env: say how to reach what was kept (each environment's ``keep_env_message``); what lives in
        this process (``kept_in_process``: the embedded org) goes with it, so on a terminal (with -s) wait for
        Enter before it goes."""
        from pytest_cua.fixtures import KEPT_KEY, KEPT_MESSAGES_KEY

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
