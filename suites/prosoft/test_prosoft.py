"""ProSoftArena-style tasks on professional desktop software (LibreOffice Calc and Writer, R) in the
``cua-desktop-office`` container: one test per task, scored by milestones over the files the task saves.

    pytest suites/prosoft --agent replay      # every task passes
    pytest suites/prosoft --agent noop        # no task passes
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from pytest_cua import LoadedTasks, Suite, Task, fixtures_dir

from .domains import DOMAINS, MARKER_PREFIX, PROGRAMS, check_apps, domain_markers
from .templates import TEMPLATES


class ProSoftSuite(Suite):
    """Start files named ``fixtures/prosoft/...`` are the package's data: they are found where pytest-cua is
    installed, so the suite also runs from a copy of ``suites/`` without the repository's ``fixtures/``.

    Its own task fields, read by the docker environment: ``apps`` (also markers ``app_<name>``), ``start_files``,
    ``start_command`` / ``start_commands``, ``window`` and ``window_timeout_s`` (the window that must show before
    the agent starts), ``settle`` (False: no wait for the screen to settle) and ``artifacts`` (the files copied out
    for the evaluator). Each task is marked with its programs' ProSoftArena domains (``domain_<name>``, from
    ``domains.py``); an app with no domain there is a collection error of its task file."""

    task_fields = ("apps", "start_files", "start_command", "start_commands", "window", "window_timeout_s",
                   "artifacts", "settle")

    def load(self, config: Any) -> LoadedTasks:
        loaded = super().load(config)
        loaded.tasks[:] = [_packaged_start_files(task) for task in loaded.tasks]
        return loaded

    def check_task(self, task: Task) -> None:
        super().check_task(task)
        check_apps(task)

    def markers(self, task: Task) -> Sequence[str]:
        return domain_markers(task)

    def known_markers(self) -> Sequence[str]:
        return [*(MARKER_PREFIX + d for d in DOMAINS), *(f"app_{app}" for app in PROGRAMS)]


def _packaged_start_files(task: Task) -> Task:
    files = task.extra.get("start_files")
    if not isinstance(files, list):
        return task
    packaged = [{**item, "src": str(fixtures_dir(*PurePosixPath(item["src"]).parts[1:]))}
                if isinstance(item, Mapping) and str(item.get("src", "")).startswith("fixtures/") else item
                for item in files]
    return dataclasses.replace(task, extra={**task.extra, "start_files": packaged})


CUA_SUITE = ProSoftSuite("prosoft", environment="docker", tasks=("tasks/*.json",), templates=TEMPLATES,
                         observation_kinds=("screenshot", "axtree", "som"), default_observation_kinds=("screenshot",),
                         environment_options={"image": "cua-desktop-arena", "memory": "4g", "cpus": 2.0})


def test_task(cua_result):
    """Run the agent on the desktop task, then check every milestone of its template."""
    cua_result.check()
