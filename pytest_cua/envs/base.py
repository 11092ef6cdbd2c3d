"""The provider contract, the Environment protocol, and the one place where rollback is verified.

A provider (``EnvironmentProvider``) is one kind of environment, registered as an object in the
``pytest_cua.environments`` entry-point group: it adds its own command-line options and creates an
environment from an ``EnvContext`` (the artifacts folder, the worker id, the suite, the settings every
environment shares). The pool in ``pytest_cua.fixtures`` does the rest alike for every provider: it calls
``Suite.prepare`` once per provisioned environment, takes the snapshot, and after every task rolls back with
``roll_back(env, snapshot, scope)``, which restores and then asks ``residue`` what still differs. Anything left
is a ``RollbackResidue`` error naming what was left, and the environment is provisioned anew before the next
task. The episode, not the environment, numbers the steps and reports the previous action's error.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

import pytest

if TYPE_CHECKING:
    from pytest_cua.actions import Action, ActionResult
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task


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

    def task_usage(self) -> dict[str, Any]:
        """What the last task used of the environment, read after its rollback (``api_requests`` of an org
        reached over its APIs); goes into the task's ``environment`` record."""
        return {}

    def keep_env_message(self) -> str:
        """How to reach this environment when ``--keep-env`` leaves it running (printed at the end of the run)."""
        return "pytest-cua --keep-env: " + ", ".join(f"{k}={v}" for k, v in self.describe().items())

    #: True when what ``--keep-env`` keeps lives inside this pytest process (an embedded server) and stops
    #: with it: the end of the run then offers to wait before it goes
    kept_in_process: bool = False

    def close(self) -> None:
        """Release everything; must be safe to call twice."""


def roll_back(env: Environment, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
    """Restore ``env`` to ``snapshot`` and prove nothing is left; raise ``RollbackResidue`` otherwise."""
    env.restore(snapshot, scope)
    left = env.residue(snapshot)
    if left:
        raise RollbackResidue(env.name, left)


@dataclass(frozen=True)
class EnvSettings:
    """The options that apply to every environment, parsed once by the core plugin (``env_settings``)."""

    observe: frozenset[str] | None = None  # --cua-observe; None: what the agent or the suite asks for
    keep_env: bool = False  # --keep-env: leave the environments running at the end

    @classmethod
    def from_options(cls, option: Any) -> "EnvSettings":
        """Read ``--cua-observe`` and ``--keep-env`` from an option namespace; a bad kind names the option."""
        from pytest_cua.observations import parse_kinds

        observe = getattr(option, "cua_observe", None)
        return cls(observe=parse_kinds(observe, source="--cua-observe") if observe else None,
                   keep_env=bool(getattr(option, "keep_env", False)))


def add_core_options(group: Any) -> None:
    """The options of every environment (``EnvSettings``); added by the core plugin, not by providers."""
    group.addoption("--cua-observe", action="store", dest="cua_observe", default=None, metavar="KINDS",
                    help="observation kinds joined with ',' or '+': screenshot, axtree, dom, som, vision; "
                         "ProSoftArena's settings: screenshot, screenshot+axtree, som, som+vision, som+screenshot, "
                         "som+screenshot+axtree (default: what the agent or the suite asks for, else "
                         "screenshot,axtree)")
    group.addoption("--keep-env", action="store_true", dest="keep_env", default=False,
                    help="leave the environments (browser, org, containers) running at the end and print how to "
                         "reach them")


_SETTINGS_KEY = pytest.StashKey[EnvSettings]()


def env_settings(config: Any) -> EnvSettings:
    """The run's ``EnvSettings``: parsed from ``config.option`` at the first call and kept in the config's
    stash (the core plugin calls this in ``pytest_configure``, so a bad value is a usage error before anything
    runs). ``config`` may also be a bare option namespace (tests), parsed at each call."""
    if config is None:
        return EnvSettings()
    stash = getattr(config, "stash", None)
    if stash is not None and _SETTINGS_KEY in stash:
        stashed: EnvSettings = stash[_SETTINGS_KEY]
        return stashed
    settings = EnvSettings.from_options(getattr(config, "option", config))
    if stash is not None:
        stash[_SETTINGS_KEY] = settings
    return settings


class SuiteInfo(Protocol):
    """What an environment reads of the suite it is made for (``pytest_cua.tasks.suite.Suite`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def base_dir(self) -> Path | None:
        """The suite's folder (its test module's), where its own files are found."""

    @property
    def environment_options(self) -> Mapping[str, Any]:
        """The provider's settings for this suite (a desktop's image, memory and cpus, say)."""


@dataclass
class EnvContext:
    """What a provider gets to build an environment for one xdist worker."""

    worker_id: str  # "gw0", ... or "master" without xdist
    run_id: str
    config: Any  # the pytest Config: the provider's own options are read from it (``option``)
    suite: SuiteInfo | None = None  # the suite asking for it (its ``environment_options``, its ``base_dir``)
    reports_dir: Path | None = None  # the reports folder
    artifacts_dir: Path | None = None  # where this environment writes traces, videos and task artifacts
    settings: EnvSettings = field(default_factory=EnvSettings)  # --cua-observe, --keep-env

    def __post_init__(self) -> None:
        if self.artifacts_dir is None:
            reports = Path(self.reports_dir) if self.reports_dir is not None else Path("reports")
            self.artifacts_dir = reports / "artifacts" / self.run_id / self.worker_id

    @property
    def keep_env(self) -> bool:
        return self.settings.keep_env

    def option(self, name: str, default: Any = None) -> Any:
        """A command-line option by its ``dest`` (a provider's own); ``default`` when unset."""
        value = getattr(self.config.option, name, None) if self.config is not None else None
        return default if value is None else value


class EnvironmentProvider(abc.ABC):
    """One kind of environment. An instance is registered in the ``pytest_cua.environments`` entry-point group
    under ``name`` (``browser = "pytest_cua.envs.browser:PROVIDER"``); a suite names it in
    ``Suite(environment=...)``. It adds its own command-line options and creates an environment per xdist
    worker; preparing the suite's data, the snapshot and the rollback are the pool's business."""

    name: str = ""

    def add_options(self, group: Any) -> None:
        """Add this provider's command-line options to the plugin's option group (none by default)."""

    def configure(self, config: Any) -> None:
        """Check this provider's options at ``pytest_configure`` (controller and workers; the controller has no
        ``config.workerinput``): raise ``pytest.UsageError`` for a bad value, before anything runs."""

    def preflight(self, config: Any, suite: Any) -> str | None:
        """After collection, before any task of ``suite`` runs (on every process that runs tasks): why no
        environment of this provider could be provisioned for the suite on this machine (a missing program,
        engine or image that cannot be made), in one message naming what to run; None when nothing certain is
        missing. Cheap and without side effects; the default finds nothing."""
        return None

    @abc.abstractmethod
    def create(self, ctx: EnvContext) -> Environment:
        """A started environment for ``ctx.worker_id``; a failure is a ``ProvisioningError`` (any other
        exception is wrapped in one)."""

    def sweep(self, run_id: str, worker_id: str | None) -> list[str]:
        """Remove what a dead process of run ``run_id`` left behind: worker ``worker_id``'s environments, or
        with None every process's of that run. Called by the xdist controller when a worker dies and when a
        run is resumed; returns one line per thing removed. Environments that live inside the worker process
        die with it: nothing to do (the default)."""
        return []


class FactoryProvider(EnvironmentProvider):
    """A provider made from a factory ``(EnvContext) -> Environment`` (``Suite(environment=MyEnv)``)."""

    def __init__(self, factory: Any, name: str = "") -> None:
        self.factory = factory
        self.name = name or getattr(factory, "__name__", "environment")

    def create(self, ctx: EnvContext) -> Environment:
        return self.factory(ctx)  # type: ignore[no-any-return]
