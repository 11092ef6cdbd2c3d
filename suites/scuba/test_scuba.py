"""The SCUBA benchmark as a pytest suite: one test per task, scored by its template's milestones."""

from __future__ import annotations

from .templates import discover

from pytest_cua.suite import Suite

CUA_SUITE = Suite("scuba", environment="salesforce", tasks=("tasks/*.json",), templates=discover())


def test_task(cua_result):
    """Run the agent on the task in the org, then check every milestone of its template."""
    cua_result.check()
