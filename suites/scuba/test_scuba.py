"""The SCUBA benchmark as a pytest suite: one test per task, scored by its template's milestones.

Own tasks come from ``tasks/*.json``; with ``--scuba-root PATH`` the release's tasks are collected too and its
seed records are installed into every worker's org (see the ``release`` package). Every task is scored twice:
``score`` with the corrections DEVIATIONS.md lists, ``score_scuba`` by SCUBA's evaluator's rules exactly (a
state on which SCUBA's would crash: -1 and ``scuba_crash``); ``--scuba-scoring exact|corrected`` chooses the one
that decides.
"""

from __future__ import annotations

from pytest_cua.tasks.suite import Scoring

from .release.suite import ScubaSuite
from .templates import discover

#: beside the templates' own scores (with the corrections DEVIATIONS.md lists), SCUBA's evaluator's rules exactly
SCUBA_EXACT = Scoring("SCUBA's evaluator's rules as they are, its bugs included (DEVIATIONS.md)", digits=2,
                      crash_score=-1.0)

CUA_SUITE = ScubaSuite("scuba", environment="salesforce", tasks=("tasks/*.json",), templates=discover(),
                       scorings={"scuba": SCUBA_EXACT}, own_scoring="corrected")


def test_task(cua_result):
    """Run the agent on the task in the org, then check every milestone of its template."""
    cua_result.check()
