"""ProSoftArena-style tasks on professional desktop software (LibreOffice Calc and Writer, R) in the
``cua-desktop-office`` container: one test per task, scored by milestones over the files the task saves.

    pytest suites/prosoft --agent replay      # every task passes
    pytest suites/prosoft --agent noop        # no task passes
"""

from __future__ import annotations

from pytest_cua.suite import Suite

from .templates import TEMPLATES

CUA_SUITE = Suite("prosoft", environment="docker", tasks=("tasks/*.json",), templates=TEMPLATES,
                  observation_kinds=("screenshot",),
                  environment_options={"image": "cua-desktop-office", "memory": "3g", "cpus": 2.0})


def test_task(cua_result):
    """Run the agent on the desktop task, then check every milestone of its template."""
    cua_result.check()
