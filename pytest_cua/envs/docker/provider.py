"""The ``docker`` provider (the ``pytest_cua.envs.docker:PROVIDER`` entry point of ``pytest_cua.environments``):
its options, the check of their values before anything runs, a ``DockerEnvironment`` per xdist worker, and the
sweep of a dead worker's containers and images.
"""

from __future__ import annotations

import time
from typing import Any

from pytest_cua.envs.docker.startup import files_roots
from pytest_cua.envs.base import EnvContext, EnvironmentProvider, ProvisioningError
from pytest_cua.envs.docker.environment import DockerEnvironment
from pytest_cua.envs.docker.leftovers import sweep
from pytest_cua.envs.docker.options import INI_NAMES, OPTION_NAMES, add_docker_options, resolve_settings

SWEEP_SETTLE_S = 2.0  # a dead worker's sweep looks again after this long, for a container created meanwhile


class DockerProvider(EnvironmentProvider):
    """The ``docker`` provider: a desktop container per xdist worker (entry point of
    ``pytest_cua.environments``). Settings: ``--cua-docker-*`` options over the suite's
    ``environment_options`` over the defaults (``pytest_cua.envs.docker.options``)."""

    name = "docker"

    def add_options(self, group: Any) -> None:
        add_docker_options(group)

    def configure(self, config: Any) -> None:
        """The ``--cua-docker-*`` options and ini keys (hosts, certificate folder, sizes) are checked before
        anything runs; what a suite's ``environment_options`` add is checked when its desktop is made."""
        if not any(getattr(config.option, dest, None) is not None for dest in OPTION_NAMES.values()) \
                and not any(_ini(config, key) for key in INI_NAMES.values()):
            return
        try:
            resolve_settings(config)
        except ValueError as exc:
            import pytest

            raise pytest.UsageError(str(exc)) from None

    def preflight(self, config: Any, suite: Any) -> str | None:
        """The Docker engine and the suite's image (or what building it needs), before any task runs
        (``pytest_cua.envs.docker.preflight``)."""
        from pytest_cua.envs.docker.preflight import preflight

        return preflight(config, suite)

    def create(self, ctx: EnvContext) -> DockerEnvironment:
        try:
            settings = resolve_settings(ctx.config, ctx.suite)
        except ValueError as exc:
            raise ProvisioningError(str(exc)) from None
        roots = files_roots(ctx)
        env = DockerEnvironment(settings, run_id=ctx.run_id, worker_id=ctx.worker_id,
                                artifacts_dir=ctx.artifacts_dir, files_roots=roots)
        try:
            return env.start()
        except BaseException:
            env.close()
            raise

    def sweep(self, run_id: str, worker_id: str | None) -> list[str]:
        """The containers, spares and snapshot images of a dead worker (or of every process of the run), on the
        local daemon and on every host the run placed desktops on (``hosts.run_hosts``)."""
        try:
            import docker  # noqa: F401
        except ModuleNotFoundError:
            return []
        from pytest_cua.envs.docker.hosts import LOCAL, DockerHost, DockerHostError, connect, run_hosts

        lines: list[str] = []
        for host in [DockerHost(LOCAL), *run_hosts(run_id)]:
            try:
                client = connect(host, timeout=30)
            except DockerHostError as exc:
                if not host.is_local:  # no local daemon: nothing of ours can be running there
                    lines.append(f"docker: sweeping {host.url} failed: {exc}")
                continue
            prefix = "" if host.is_local else f"{host.url}: "
            found: list[str] = []
            errors: list[str] = []
            try:
                report = sweep(client, run_id=run_id, worker_id=worker_id, progress=found.append)
                errors += report.errors
                if report.containers:
                    # a container the dead process was creating (its warm spare) may appear after the first pass
                    time.sleep(SWEEP_SETTLE_S)
                    again = sweep(client, run_id=run_id, worker_id=worker_id, progress=found.append)
                    errors += again.errors
            finally:
                client.close()
            lines += [prefix + line for line in found] + [f"docker: {prefix}{e}" for e in errors]
        return lines


def _ini(config: Any, name: str) -> str:
    try:
        return str(config.getini(name) or "")
    except ValueError:  # not registered
        return ""


PROVIDER = DockerProvider()
provide = create = PROVIDER.create
