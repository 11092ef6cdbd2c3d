"""Tasks and suites: the task model and its loading (``task``), a suite and its templates (``suite``), the
milestones and the score card (``scoring``), and how a suite's tasks become parametrized tests (``collection``).

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
