"""What the vm provider checks before any task runs, and what ``pytest-cua doctor`` reports of it: KVM (the
device opens and creates a virtual machine), QEMU (``qemu-system-x86_64``, ``qemu-img``), ``mkfs.ext4`` for
building guest disks, and the suite's guest disk (built from its recipe as it is now, or buildable here).
Nothing is started, built or changed; the guests are never emulated without KVM.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from dataclasses import dataclass
from typing import Any

KVM_DEVICE = "/dev/kvm"  # $PYTEST_CUA_KVM_DEVICE overrides it (the tests point it at a missing file)
KVM_GET_API_VERSION = 0xAE00
KVM_CREATE_VM = 0xAE01
PROGRAMS = ("qemu-system-x86_64", "qemu-img")
DISK_BUILDER = ("mkfs.ext4",)
INSTALL = "bash scripts/install.sh --docker (as root; it installs qemu-system-x86, qemu-utils, e2fsprogs)"


@dataclass(frozen=True)
class Found:
    ok: bool
    detail: str
    fix: str = ""


def kvm() -> Found:
    """Whether ``/dev/kvm`` opens and creates a virtual machine (the ioctls QEMU makes first)."""
    device = os.environ.get("PYTEST_CUA_KVM_DEVICE") or KVM_DEVICE
    try:
        fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        fix = ("enable virtualisation (VT-x/AMD-V, or nested virtualisation for a cloud machine) and load kvm_intel "
               "or kvm_amd" if not os.path.exists(device) else "run as root or join the kvm group")
        return Found(False, f"{device}: {exc.strerror}", fix)
    try:
        version = fcntl.ioctl(fd, KVM_GET_API_VERSION)
        vm = fcntl.ioctl(fd, KVM_CREATE_VM, 0)
        os.close(vm)
    except OSError as exc:
        return Found(False, f"{device} opens but creating a VM fails: {exc.strerror}", "check dmesg for kvm")
    finally:
        os.close(fd)
    backend = kvm_backend()
    if backend == "kvm_pvm":
        return Found(False, f"{device} (API version {version}) creates VMs, but it is kvm-pvm (PVM: nested "
                            f"virtualisation without VT-x/AMD-V), which runs only guest kernels built as PVM guests; "
                            f"Debian's kernel does not boot under it (it stays in its decompressor)",
                     "run the vm desktops on a machine with hardware virtualisation (kvm_intel or kvm_amd)")
    return Found(True, f"{device}: API version {version}, creates VMs ({backend or 'kvm'})")


def kvm_backend(modules: str = "/sys/module") -> str:
    """Which KVM module serves ``/dev/kvm``: ``kvm_intel``, ``kvm_amd`` (hardware virtualisation), ``kvm_pvm``
    (PVM, a software nested hypervisor that runs only PVM guest kernels) or "" when none is listed."""
    for name in ("kvm_intel", "kvm_amd", "kvm_pvm"):
        if os.path.isdir(os.path.join(modules, name)):
            return name
    return ""


def programs_missing(names: tuple[str, ...] = PROGRAMS + DISK_BUILDER) -> list[str]:
    return [n for n in names if shutil.which(n) is None and shutil.which(n, path="/usr/sbin:/sbin") is None]


def qemu() -> Found:
    missing = programs_missing()
    if missing:
        return Found(False, f"missing: {', '.join(missing)}", INSTALL)
    return Found(True, ", ".join(str(shutil.which(n) or shutil.which(n, path="/usr/sbin:/sbin"))
                                 for n in PROGRAMS + DISK_BUILDER))


def guest_image(name: str = "cua-desktop-base") -> Found:
    """Whether the guest disk of recipe ``name`` is built and current."""
    from pytest_cua.envs.docker.recipes import RecipeError, load_recipe
    from pytest_cua.envs.vm.disk import disk_state, guest_disk

    try:
        recipe = load_recipe(name)
    except RecipeError as exc:
        return Found(False, str(exc))
    state = disk_state(recipe)
    if state == "current":
        return Found(True, guest_disk(recipe).describe())
    return Found(False, f"guest disk of {name} is {state}", f"pytest-cua image build {name} --vm")


def preflight(config: Any, suite: Any) -> str | None:
    """Why no guest of ``suite`` could be provisioned here, with what to run; None when nothing certain is
    missing."""
    from pytest_cua.envs.vm.options import resolve_settings

    try:
        settings = resolve_settings(config, suite)
    except ValueError as exc:
        return str(exc)
    found = kvm()
    if not found.ok:
        return f"vm desktops need KVM: {found.detail}; {found.fix} (guests are never emulated without KVM)"
    found = qemu()
    if not found.ok:
        return f"vm desktops need QEMU: {found.detail}; run {found.fix}"
    image = guest_image(settings.recipe)
    if image.ok:
        return None
    if settings.build == "never":
        return f"{image.detail} and --cua-vm-build is never: build it with `{image.fix}`"
    if os.geteuid() != 0:
        return f"{image.detail}, and building it needs root (chroot, mount): run `sudo {image.fix}`"
    return None
