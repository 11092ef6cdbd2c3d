"""The SCUBA benchmark as a pytest suite: one test per task, scored by its template's milestones.

Own tasks come from ``tasks/*.json``; with ``--scuba-root PATH`` the release's tasks are collected too and its
seed records are installed into every worker's org (see the ``release`` package).
"""

from __future__ import annotations

from .release.suite import ScubaSuite
from .templates import discover

CUA_SUITE = ScubaSuite("scuba", environment="salesforce", tasks=("tasks/*.json",), templates=discover())


def test_task(cua_result):
    """Run the agent on the task in the org, then check every milestone of its template."""
    cua_result.check()
