"""Collection: one test per task, markers per task, and one collection error per broken task source.

A suite's test module declares ``CUA_SUITE = Suite(...)`` and a test function that requests ``cua_task``.
Tasks are loaded once per session and suite, sorted by id (every xdist worker collects the same tests in the
same order). A broken task file becomes a collector node of its own whose collection fails with the file,
task and field in the message: the other files' tasks still collect (pytest stops before running on any
collection error unless ``--continue-on-collection-errors`` is given).

What the run's settings say (``--cua-trials``, ``--cua-time-limit``) the plugin's hook passes in: this module
reads no settings of its own.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_cua.tasks.evaluation import deciding
from pytest_cua.tasks.suite import LoadedTasks, Suite
from pytest_cua.tasks.task import Task, TaskFileError

SUITE_ATTRIBUTE = "CUA_SUITE"
TASK_ARG = "cua_task"
TRIAL_ARG = "cua_trial"
_LOADED = pytest.StashKey[dict[int, LoadedTasks]]()
_MARK_NAME = re.compile(r"[^A-Za-z0-9_]")


def suite_of(module: Any) -> Suite | None:
    suite = getattr(module, SUITE_ATTRIBUTE, None)
    if suite is None:
        return None
    if not isinstance(suite, Suite):
        raise TypeError(f"{module.__name__}.{SUITE_ATTRIBUTE} must be a pytest_cua.Suite, got {type(suite).__name__}")
    suite.bind(module.__file__)
    return suite


def _loaded_tasks(config: pytest.Config, suite: Suite) -> LoadedTasks:
    cache = config.stash.setdefault(_LOADED, {})
    if id(suite) not in cache:
        cache[id(suite)] = suite.load(config)
    return cache[id(suite)]


def _mark_name(prefix: str, value: str) -> str:
    return f"{prefix}{_MARK_NAME.sub('_', value)}"


def _registered_markers(config: pytest.Config) -> set[str]:
    return {line.split(":", 1)[0].split("(", 1)[0].strip() for line in config.getini("markers")}


def _marks_for(config: pytest.Config, task: Task, registered: set[str],
               time_limit_s: float | None, suite: Suite | None = None) -> list[pytest.MarkDecorator]:
    """persona, difficulty and level as markers named after their values (``-m "sales and hard"``,
    ``-m L2``), ``template_<name>`` and ``app_<name>``, ``question`` for question tasks and the suite's own
    (``Suite.markers``: ProSoft's ``domain_<name>``); with pytest-timeout, the task's backstop timeout."""
    names: list[str] = []
    for value in (task.persona, task.difficulty, task.level):
        if value:
            names.append(_mark_name("", value))
    if task.template:
        names.append(_mark_name("template_", task.template))
    for app in task.extra.get("apps", []) if isinstance(task.extra.get("apps"), list) else []:
        names.append(_mark_name("app_", str(app)))
    if task.is_question:
        names.append("question")
    if suite is not None:
        names.extend(n for n in (_mark_name("", str(m)) for m in suite.markers(task)) if n not in names)
    for name in names:
        if name not in registered:  # dynamic values are registered so --strict-markers accepts them
            config.addinivalue_line("markers", f"{name}: tasks marked {name} (registered by pytest-cua)")
            registered.add(name)
    marks = [getattr(pytest.mark, n) for n in names]
    if config.pluginmanager.hasplugin("timeout"):
        marks.append(pytest.mark.timeout(_backstop_timeout(task, time_limit_s)))
    return marks


def _backstop_timeout(task: Task, time_limit_s: float | None) -> float:
    """pytest-timeout's limit for a task: past the episode's own limit (``time_limit_s``, the run's
    ``--cua-time-limit``, else the task's), which always fires first so that rollback runs, plus time for
    provisioning, evaluation and rollback."""
    limit = time_limit_s or task.limits.time_limit_s
    return round(limit * 1.1 + 300, 1)


def parametrize_tasks(metafunc: pytest.Metafunc, *, trials: int = 1, time_limit_s: float | None = None) -> None:
    """One test per task of the module's suite (``trials`` tests per task under ``--cua-trials``);
    ``time_limit_s`` is the run's ``--cua-time-limit`` (None: each task's own limit)."""
    if TASK_ARG not in metafunc.fixturenames:
        return
    suite = suite_of(metafunc.module)
    if suite is None:
        raise pytest.UsageError(
            f"{metafunc.definition.nodeid} requests {TASK_ARG!r} but its module declares no {SUITE_ATTRIBUTE} "
            f"= pytest_cua.Suite(...)")
    loaded = _loaded_tasks(metafunc.config, suite)
    registered = _registered_markers(metafunc.config)  # _marks_for adds the new ones to it
    for name in (_mark_name("", str(m)) for m in suite.known_markers()):
        if name not in registered:  # -m with a marker of the suite no task has yet selects nothing, no error
            metafunc.config.addinivalue_line("markers", f"{name}: tasks marked {name} (registered by pytest-cua)")
            registered.add(name)
    if trials == 1:
        params = [pytest.param(task, id=task.id,
                               marks=_marks_for(metafunc.config, task, registered, time_limit_s, suite))
                  for task in loaded.tasks]
        metafunc.parametrize(TASK_ARG, params)
        return
    # --cua-trials K: K tests per task, next to each other, ids <task id>-trial<n> (-k and --lf see them)
    params = []
    for task in loaded.tasks:
        marks = _marks_for(metafunc.config, task, registered, time_limit_s, suite)
        params.extend(pytest.param(task, n, id=trial_id(task.id, n), marks=marks) for n in range(1, trials + 1))
    metafunc.parametrize([TASK_ARG, TRIAL_ARG], params)


def trial_id(task_id: str, trial: int) -> str:
    """The test id of one trial of a task under --cua-trials (also its trajectory folder's name)."""
    return f"{task_id}-trial{trial}"


class FailingCollector(pytest.Collector):
    """A node whose collection fails with an error found before it (a broken task file, a misused marker):
    a collection error of its own, named after what it stands for, while the rest still collects."""

    def __init__(self, *, error: Exception, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def collect(self) -> list[Any]:
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:  # type: ignore[override]
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.name


class BrokenTaskSource(FailingCollector):
    """A task file that failed to load: its collection fails with the loader's message."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, TaskFileError):
            return f"task file error: {excinfo.value}"
        return str(pytest.Collector.repr_failure(self, excinfo))


def add_broken_sources(collector: pytest.Collector, obj: object, result: Any) -> Any:
    """After the test function's items are made, add one failing collector per broken task source."""
    module = getattr(collector, "module", None)
    items = list(result) if isinstance(result, list) else ([result] if result is not None else [])
    if module is None or not any(TASK_ARG in getattr(i, "fixturenames", ()) for i in items):
        return result
    suite = suite_of(module)
    if suite is None:
        return result
    errors = _loaded_tasks(collector.config, suite).errors
    if not errors:
        return result
    for label, error in errors:
        items.append(BrokenTaskSource.from_parent(collector, name=f"{getattr(obj, '__name__', 'test')}[{label}]",
                                                  error=error))
    return items


def suites_of(items: list[pytest.Item]) -> list[tuple[Suite, list[pytest.Item]]]:
    """The collected suites, in collection order, each with its task tests (the items that request
    ``cua_task``: a test module that only imports a suite's ``CUA_SUITE`` is not that suite)."""
    found: dict[int, tuple[Suite, list[pytest.Item]]] = {}
    for item in items:
        if TASK_ARG not in getattr(item, "fixturenames", ()):
            continue
        suite = suite_of(getattr(item, "module", None))
        if suite is not None:
            found.setdefault(id(suite), (suite, []))[1].append(item)
    return list(found.values())


def refuse(config: pytest.Config, items: list[pytest.Item], suite: Suite, its: list[pytest.Item],
           message: str) -> None:
    """Before anything runs: a suite none of whose collected tasks can run (a setting it lacks, a program or
    image this machine lacks) is one collection error of its module, with ``message``, and its tasks leave
    ``items``. A plain session then stops before running anything (as on a broken task file); under xdist every
    worker reports the same error, which the controller shows once, and no worker runs the suite's tasks."""
    module = its[0].getparent(pytest.Module)
    nodeid = module.nodeid if module is not None else its[0].nodeid
    text = f"{message} (suite {suite.name!r}: none of its {len(its)} collected task(s) ran)"
    config.hook.pytest_collectreport(report=pytest.CollectReport(nodeid, "failed", text, []))
    gone = {id(item) for item in its}
    items[:] = [item for item in items if id(item) not in gone]


def check_scoring(config: pytest.Config, items: list[pytest.Item], scoring: str | None) -> None:
    """``--cua-scoring``: a scoring every collected suite has (else that suite is refused, naming its
    scorings)."""
    if not scoring:
        return
    for suite, its in suites_of(items):
        try:
            deciding(suite, scoring)
        except ValueError as exc:
            refuse(config, items, suite, its, str(exc))
