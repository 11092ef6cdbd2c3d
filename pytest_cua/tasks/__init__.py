"""Tasks and suites: what a benchmark declares, and how it becomes tests.

- ``task``: the task model (``Task``, its limits) and the loading of task files, with errors naming the file,
  task and field.
- ``suite``: a suite (``Suite``: where its tasks are, its environment), its templates (``Template``: the
  evaluator, the oracle solver, the demonstration, the rollback scope) and what an evaluator reads
  (``EvalContext``).
- ``scoring``: the milestones and the score card.
- ``collection``: how a suite's tasks become parametrized tests, with their markers and one collection error
  per broken task file.

May import: the core modules (``pytest_cua.actions``, ``observations``, ``redaction``, ``package_data``) and the
environment contract ``pytest_cua.envs.base``. Nothing here knows agents, the episode or results.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """``pytest_cua.tasks`` was a module: its names are still found here, with a deprecation warning."""
    import importlib

    from pytest_cua._compat import warn_moved

    module = importlib.import_module("pytest_cua.tasks.task")
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module 'pytest_cua.tasks' has no attribute {name!r}")
    warn_moved(f"pytest_cua.tasks.{name}", f"pytest_cua.tasks.task.{name}")
    return getattr(module, name)
