"""The Environment protocol and the one place where rollback is verified.

An environment is provisioned once per xdist worker, snapshotted once, and rolled back after every task:
``roll_back(env, snapshot, scope)`` restores and then asks ``residue`` what still differs. Anything left is a
``RollbackResidue`` error naming what was left, and the environment is provisioned anew before the next task.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from pytest_cua.actions import Action, ActionResult
    from pytest_cua.observations import Observation
    from pytest_cua.tasks import Task


class EnvironmentError_(Exception):
    """Base of infrastructure failures of an environment. ``error_kind`` goes into the summary."""

    error_kind = "environment"


class ProvisioningError(EnvironmentError_):
    error_kind = "provisioning"


class RollbackResidue(EnvironmentError_):
    """Restore ran but the environment still differs from its snapshot."""

    error_kind = "rollback"

    def __init__(self, env_name: str, residue: Sequence[str]) -> None:
        self.residue = list(residue)
        shown = "\n  ".join(self.residue[:50])
        more = f"\n  ... and {len(self.residue) - 50} more" if len(self.residue) > 50 else ""
        super().__init__(f"rollback of {env_name} left {len(self.residue)} difference(s):\n  {shown}{more}")


class EnvironmentCrash(EnvironmentError_):
    """The browser, container or server behind an environment died."""

    error_kind = "environment"


@dataclass
class Snapshot:
    """An opaque handle to an environment state; ``data`` is the provider's own."""

    env_name: str
    data: Any = None
    meta: dict[str, Any] = field(default_factory=dict)


class Environment(abc.ABC):
    """What every environment provides. Providers live in their own modules under ``pytest_cua.envs``."""

    name: str = "environment"

    @abc.abstractmethod
    def snapshot(self) -> Snapshot:
        """Capture the current state (taken once, after provisioning)."""

    @abc.abstractmethod
    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        """Bring the state back to ``snapshot``. ``scope`` names what a task may have touched (object names,
        paths); a provider may restore only that, since ``residue`` checks everything afterwards."""

    @abc.abstractmethod
    def residue(self, snapshot: Snapshot) -> list[str]:
        """What still differs from ``snapshot``, one readable line each; empty means clean."""

    @abc.abstractmethod
    def observe(self, kinds: frozenset[str]) -> "Observation":
        """Produce the observation kinds asked for."""

    @abc.abstractmethod
    def act(self, action: "Action") -> "ActionResult":
        """Carry out one action. A failed action returns ``ActionResult(ok=False, error=...)``; only a broken
        environment raises (``EnvironmentCrash``)."""

    def begin_task(self, task: "Task") -> None:
        """Prepare for a task after the rollback of the previous one (new browser context, start files)."""

    def end_task(self, task: "Task", *, failed: bool) -> dict[str, Any]:
        """Called after the episode, before evaluation; returns artifacts to record (paths by name)."""
        return {}

    def describe(self) -> dict[str, Any]:
        """What the summary records about this environment (never secrets)."""
        return {"name": self.name}

    def close(self) -> None:
        """Release everything; must be safe to call twice."""


def roll_back(env: Environment, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
    """Restore ``env`` to ``snapshot`` and prove nothing is left; raise ``RollbackResidue`` otherwise."""
    env.restore(snapshot, scope)
    left = env.residue(snapshot)
    if left:
        raise RollbackResidue(env.name, left)


@dataclass
class EnvContext:
    """What a provider gets to build an environment for one xdist worker."""

    worker_id: str  # "gw0", ... or "master" without xdist
    run_id: str
    config: Any  # the pytest Config: options such as --headed are read from it
    suite: Any = None  # the pytest_cua.suite.Suite asking for it
    reports_dir: Any = None  # pathlib.Path of the reports folder

    def option(self, name: str, default: Any = None) -> Any:
        return getattr(self.config.option, name, default) if self.config is not None else default
