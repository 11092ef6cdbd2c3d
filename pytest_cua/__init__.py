"""pytest-cua: computer-use agent benchmarks as ordinary pytest tests.

The public API, for suites, templates, agents and environment providers, is the names in ``__all__``; import
them from here (``from pytest_cua import Task, milestone``). Each is defined in its concept package:

- tasks and suites (``pytest_cua.tasks``): ``Task``, ``TaskFileError``, ``Suite``, ``Template``, ``TaskSource``,
  ``LoadedTasks``, ``EvalContext``; milestones: ``milestone``, ``declare``, ``note``, ``record_answer``,
  ``ScoreCard``;
- actions and observations (``pytest_cua.actions``, ``pytest_cua.observations``): ``Action``, ``ActionError``,
  ``ActionResult`` and the action classes stay in ``pytest_cua.actions``; ``Observation``, ``Element``;
- environments (``pytest_cua.envs``): ``Environment``, ``EnvContext``, ``EnvironmentProvider``, ``Snapshot``,
  ``ProvisioningError``, ``EnvironmentCrash``, ``roll_back``;
- agents (``pytest_cua.agents``): ``Agent``, ``AgentContext``, ``AgentError``, ``Usage``;
- data shipped with the package: ``fixtures_dir``.

Everything else is private to its package and may change. Names are imported on first use, so importing
``pytest_cua`` stays cheap. ``docs/architecture.md`` is the map of the packages.

May import: every package (it is the wiring's front door), but only lazily, on first use of a name; the
packages themselves never import ``pytest_cua``'s names from here.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from pytest_cua import _compat

__version__ = "0.1.0"

_PUBLIC: dict[str, str] = {
    "Task": "pytest_cua.tasks.task",
    "TaskFileError": "pytest_cua.tasks.task",
    "Suite": "pytest_cua.tasks.suite",
    "Template": "pytest_cua.tasks.suite",
    "TaskSource": "pytest_cua.tasks.suite",
    "LoadedTasks": "pytest_cua.tasks.suite",
    "EvalContext": "pytest_cua.tasks.suite",
    "milestone": "pytest_cua.tasks.scoring",
    "declare": "pytest_cua.tasks.scoring",
    "note": "pytest_cua.tasks.scoring",
    "record_answer": "pytest_cua.tasks.scoring",
    "ScoreCard": "pytest_cua.tasks.scoring",
    "Action": "pytest_cua.actions",
    "ActionError": "pytest_cua.actions",
    "ActionResult": "pytest_cua.actions",
    "Observation": "pytest_cua.observations",
    "Element": "pytest_cua.observations",
    "Environment": "pytest_cua.envs.base",
    "EnvContext": "pytest_cua.envs.base",
    "EnvironmentProvider": "pytest_cua.envs.base",
    "Snapshot": "pytest_cua.envs.base",
    "ProvisioningError": "pytest_cua.envs.base",
    "EnvironmentCrash": "pytest_cua.envs.base",
    "roll_back": "pytest_cua.envs.base",
    "Agent": "pytest_cua.agents.base",
    "AgentContext": "pytest_cua.agents.base",
    "AgentError": "pytest_cua.agents.base",
    "Usage": "pytest_cua.agents.base",
    "fixtures_dir": "pytest_cua.package_data",
}

__all__ = [
    "Action", "ActionError", "ActionResult", "Agent", "AgentContext", "AgentError", "Element", "EnvContext",
    "Environment", "EnvironmentCrash", "EnvironmentProvider", "EvalContext", "LoadedTasks", "Observation",
    "ProvisioningError", "ScoreCard", "Snapshot", "Suite", "Task", "TaskFileError", "TaskSource", "Template",
    "Usage", "declare", "fixtures_dir", "milestone", "note", "record_answer", "roll_back", "__version__",
]

_compat.install()

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from pytest_cua.actions import Action, ActionError, ActionResult
    from pytest_cua.agents.base import Agent, AgentContext, AgentError, Usage
    from pytest_cua.envs.base import (EnvContext, Environment, EnvironmentCrash, EnvironmentProvider,
                                      ProvisioningError, Snapshot, roll_back)
    from pytest_cua.observations import Element, Observation
    from pytest_cua.package_data import fixtures_dir
    from pytest_cua.tasks.scoring import ScoreCard, declare, milestone, note, record_answer
    from pytest_cua.tasks.suite import EvalContext, LoadedTasks, Suite, Template, TaskSource
    from pytest_cua.tasks.task import Task, TaskFileError


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_cua' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
