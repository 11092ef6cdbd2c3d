"""The ``vm`` provider (``pytest_cua.envs.vm:PROVIDER`` in ``pytest_cua.environments``): its options, the desktop
choice, the memory cap on the number of guests, a ``VmEnvironment`` per xdist worker, and the sweep of a dead
worker's guests.

``--cua-desktop vm`` (ini ``cua_desktop = vm``) runs the suites that name the ``docker`` environment in guests:
at ``configure`` this provider takes the ``docker`` name in the provider registry for the run (and gives it
back at the end of the run, ``config.add_cleanup``). A suite may also name ``environment="vm"`` itself.
"""

from __future__ import annotations

from typing import Any

from pytest_cua.envs.docker.startup import files_roots
from pytest_cua.envs.base import EnvContext, EnvironmentProvider, ProvisioningError
from pytest_cua.envs.vm.environment import VmEnvironment
from pytest_cua.envs.vm.options import (OPTION_NAMES, VmSettingsError, add_vm_options, desktop_choice,
                                        guests_that_fit, memory_available_mb, resolve_settings)

DESKTOP_NAME = "docker"  # the provider name --cua-desktop vm takes over


class VmProvider(EnvironmentProvider):
    """Desktops in QEMU/KVM guests restored from a memory snapshot after every task."""

    name = "vm"

    def add_options(self, group: Any) -> None:
        add_vm_options(group)

    def configure(self, config: Any) -> None:
        """Check the options; with ``--cua-desktop vm`` check that the guests ``-n`` asks for fit the host's
        memory (a usage error naming the figures otherwise) and take over the ``docker`` name."""
        import pytest

        try:
            desktop, _ = desktop_choice(config)
            if desktop != "vm" and not any(getattr(config.option, d, None) is not None for d in OPTION_NAMES.values()):
                return
            settings = resolve_settings(config)
        except VmSettingsError as exc:
            raise pytest.UsageError(str(exc)) from None
        if desktop != "vm":
            return
        if getattr(config, "workerinput", None) is None:  # the controller (or a run without xdist)
            check_guests_fit(_workers(config), settings.memory_mb)
        take_desktop_name(self, config)

    def preflight(self, config: Any, suite: Any) -> str | None:
        from pytest_cua.envs.vm.preflight import preflight

        return preflight(config, suite)

    def create(self, ctx: EnvContext) -> VmEnvironment:
        try:
            settings = resolve_settings(ctx.config, ctx.suite)
        except VmSettingsError as exc:
            raise ProvisioningError(str(exc)) from None
        roots = files_roots(ctx)
        env = VmEnvironment(settings, run_id=ctx.run_id, worker_id=ctx.worker_id, artifacts_dir=ctx.artifacts_dir,
                            files_roots=roots)
        try:
            return env.start()
        except BaseException:
            env.close()
            raise

    def sweep(self, run_id: str, worker_id: str | None) -> list[str]:
        """The guests of a dead worker (or of every process of the run): QEMU, overlay, sockets, folder."""
        from pytest_cua.envs.vm.leftovers import sweep

        lines: list[str] = []
        report = sweep(run_id=run_id, worker_id=worker_id, progress=lines.append)
        return lines + [f"vm: {e}" for e in report.errors]


def _workers(config: Any) -> int:
    """The number of xdist workers asked for (``-n``), 1 without xdist."""
    n = getattr(config.option, "numprocesses", None)
    if isinstance(n, int) and n > 0:
        return n
    if n in ("auto", "logical"):
        import os

        return os.cpu_count() or 1
    return 1


def check_guests_fit(workers: int, memory_mb: int, available_mb: int | None = None) -> None:
    """A usage error when ``workers`` guests of ``memory_mb`` do not fit the host's available memory."""
    import pytest

    available = memory_available_mb() if available_mb is None else available_mb
    fit = guests_that_fit(memory_mb, available)
    if workers > fit:
        raise pytest.UsageError(
            f"--cua-desktop vm: -n {workers} asks for {workers} guest(s) of {memory_mb} MiB (plus QEMU's own) but "
            f"this machine has {available} MiB available, room for {fit}: run with -n {max(fit, 1) if fit else 0} "
            f"or fewer, or give each guest less memory with --cua-vm-memory")


def take_desktop_name(provider: EnvironmentProvider, config: Any) -> None:
    """Serve the suites that name ``docker`` with ``provider`` for this run (given back at its end)."""
    from pytest_cua.envs.registry import providers

    found = providers()
    original = found.get(DESKTOP_NAME)
    if original is provider:
        return
    found[DESKTOP_NAME] = provider

    def give_back() -> None:
        if original is not None:
            found[DESKTOP_NAME] = original
        else:
            found.pop(DESKTOP_NAME, None)

    add_cleanup = getattr(config, "add_cleanup", None)
    if add_cleanup is not None:
        add_cleanup(give_back)


PROVIDER = VmProvider()
