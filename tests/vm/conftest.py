"""Fixtures of the VM tests: KVM and QEMU (skip without them unless ``CI`` is set, then fail), the base recipe's
guest disk (built when missing or outdated: minutes the first time), and one booted guest per test module with
its first snapshot taken."""

from __future__ import annotations

import os
from typing import Any, Iterator

import pytest

from tests.tiers import in_ci

BASE_RECIPE = "cua-desktop-base"


def _missing(reason: str, *, installable: bool = True) -> None:
    """Skip for what this machine lacks; under CI fail instead when the project's install script provides it
    (QEMU). A KVM that cannot run the guests (no hardware virtualisation, or a kvm-pvm host that runs only PVM
    guest kernels) is the machine's, not something an install step can give: a skip with the reason, CI too."""
    if in_ci() and installable:
        pytest.fail(f"CI is set and {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def qemu_ready() -> None:
    """QEMU's programs, and a KVM device that creates virtual machines (enough for a QEMU whose CPUs never
    run: the sweep tests)."""
    from pytest_cua.envs.vm import preflight

    found = preflight.qemu()
    if not found.ok:
        _missing(f"QEMU is missing ({found.detail}); {found.fix}")
    device = os.environ.get("PYTEST_CUA_KVM_DEVICE") or preflight.KVM_DEVICE
    if not os.access(device, os.R_OK | os.W_OK):
        _missing(f"no KVM: {device} cannot be opened", installable=False)


@pytest.fixture(scope="session")
def kvm_ready(qemu_ready: None) -> None:
    """KVM that runs a Debian guest (hardware virtualisation); the guests are never emulated."""
    from pytest_cua.envs.vm import preflight

    found = preflight.kvm()
    if not found.ok:
        _missing(f"no KVM for the guests: {found.detail}", installable=False)


@pytest.fixture(scope="session")
def guest_disk(kvm_ready: None) -> Any:
    """The base recipe's guest disk, built when missing or outdated."""
    from pytest_cua.envs.docker.recipes import load_recipe
    from pytest_cua.envs.vm.disk import build_disk

    if os.geteuid() != 0:
        from pytest_cua.envs.vm.disk import disk_state

        if disk_state(load_recipe(BASE_RECIPE)) != "current":
            _missing(f"the guest disk of {BASE_RECIPE} is not built and building it needs root")
    disk, _ = build_disk(load_recipe(BASE_RECIPE), progress=lambda line: None)
    return disk


@pytest.fixture(scope="module")
def vm_desktop(kvm_ready: None, guest_disk: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A booted guest of the base recipe (one per module) with its first snapshot taken (``vm_desktop.first``)."""
    from pytest_cua.envs.vm.environment import VmEnvironment
    from pytest_cua.envs.vm.options import resolve_settings

    env = VmEnvironment(resolve_settings(image=BASE_RECIPE, memory_mb=1024), run_id="tests-vm", worker_id="master",
                        artifacts_dir=tmp_path_factory.mktemp("vm-artifacts"))
    try:
        env.start()
        env.first = env.snapshot()
        yield env
    finally:
        env.close()

