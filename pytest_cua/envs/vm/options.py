"""Settings of the VM desktop environment and the choice of desktop (``--cua-desktop docker|vm``).

Resolved in this order (first wins): the ``--cua-vm-*`` option (``--cua-desktop`` and its ini key
``cua_desktop``), the suite's ``environment_options`` (the keys it shares with the containers: ``image``,
``window_timeout_s``; a container's ``memory``, ``cpus``, ``shm_size`` and ``spare`` do not apply and are
ignored), the defaults below. A bad value names where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

DESKTOPS = ("docker", "vm")
SHARED_KEYS = ("image", "window_timeout_s")  # environment_options a suite writes for the containers that apply
IGNORED_KEYS = ("memory", "cpus", "shm_size", "spare", "hosts", "tls_dir", "build", "ready_timeout_s")
GUEST_OVERHEAD_MB = 320  # QEMU's own memory per guest beside the guest's (measured: benchmarks/vm_bench.py)


class VmSettingsError(ValueError):
    pass


@dataclass(frozen=True)
class VmSettings:
    """How the desktop guests of one worker are run."""

    image: str = "cua-desktop-base"  # a recipe name (fixtures/images/NAME.json): its guest disk is booted
    memory_mb: int = 2048  # the guest's memory
    cpus: int = 2  # the guest's virtual CPUs
    ready_timeout_s: float = 120.0  # QEMU start until the executor has the display and window manager
    window_timeout_s: float = 90.0  # start command until the task's window is mapped
    build: str = "auto"  # auto: build a missing or outdated guest disk from its recipe; never: fail instead

    @property
    def recipe(self) -> str:
        return self.image.split(":")[0]

    def validate(self, where: Mapping[str, str]) -> "VmSettings":
        def bad(name: str, why: str) -> VmSettingsError:
            return VmSettingsError(f"{where.get(name, 'default')}: {name}={getattr(self, name)!r}: {why}")

        if not isinstance(self.image, str) or not self.image:
            raise bad("image", "must be a recipe name")
        for name in ("memory_mb", "cpus"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise bad(name, "must be a positive whole number")
        if self.memory_mb < 256:
            raise bad("memory_mb", "must be at least 256 (MiB)")
        for name in ("ready_timeout_s", "window_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise bad(name, "must be a positive number")
        if self.build not in ("auto", "never"):
            raise bad("build", "must be auto or never")
        return self


OPTION_NAMES = {"image": "cua_vm_image", "memory_mb": "cua_vm_memory", "cpus": "cua_vm_cpus",
                "build": "cua_vm_build"}


def add_vm_options(group: Any) -> None:
    """``--cua-desktop`` (ini ``cua_desktop``) and the ``--cua-vm-*`` options."""
    group.addoption("--cua-desktop", dest="cua_desktop", default=None, choices=DESKTOPS,
                    help="where desktop suites run: docker (containers, the default) or vm (QEMU/KVM guests "
                         "restored from a memory snapshot after every task) (ini: cua_desktop)")
    group.addoption("--cua-vm-image", dest="cua_vm_image", default=None, metavar="RECIPE",
                    help="the recipe whose guest disk the VMs boot (default: the suite's image)")
    group.addoption("--cua-vm-memory", dest="cua_vm_memory", default=None, type=int, metavar="MIB",
                    help="memory per guest in MiB (default 2048); -n is capped by what fits the host's memory")
    group.addoption("--cua-vm-cpus", dest="cua_vm_cpus", default=None, type=int, metavar="N",
                    help="virtual CPUs per guest (default 2)")
    group.addoption("--cua-vm-build", dest="cua_vm_build", default=None, choices=("auto", "never"),
                    help="build a missing or outdated guest disk from its recipe (auto, the default) or fail")
    parser = getattr(group, "parser", None)
    if parser is not None:
        parser.addini("cua_desktop", "where desktop suites run: docker or vm (see --cua-desktop)", default="")


def desktop_choice(config: Any) -> tuple[str, str]:
    """``(docker|vm, where it came from)``: ``--cua-desktop``, else the ini key, else docker."""
    option = getattr(config, "option", None)
    value = getattr(option, "cua_desktop", None) if option is not None else None
    if value:
        return str(value), "--cua-desktop"
    getini = getattr(config, "getini", None)
    try:
        ini = str(getini("cua_desktop") or "") if getini is not None else ""
    except ValueError:
        ini = ""
    if ini:
        if ini not in DESKTOPS:
            raise VmSettingsError(f"ini cua_desktop={ini!r}: must be one of {', '.join(DESKTOPS)}")
        return ini, "ini cua_desktop"
    return "docker", "default"


def resolve_settings(config: Any = None, suite: Any = None, **overrides: Any) -> VmSettings:
    """Merge options, the suite's ``environment_options`` and defaults; ``overrides`` (tests) win over all."""
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    known = {f.name for f in fields(VmSettings)}
    suite_map = getattr(suite, "environment_options", None) or {}
    if not isinstance(suite_map, Mapping):
        raise VmSettingsError(f"suite {getattr(suite, 'name', '?')!r}: environment_options must be a mapping")
    for key, value in suite_map.items():
        if key in SHARED_KEYS:
            values[key], where[key] = value, f"suite {getattr(suite, 'name', '?')!r} environment_options[{key!r}]"
        elif key not in IGNORED_KEYS:
            raise VmSettingsError(f"suite {getattr(suite, 'name', '?')!r}: environment_options[{key!r}] is not a "
                                  f"setting of the vm environment (known: {', '.join(SHARED_KEYS)})")
    option = getattr(config, "option", None)
    for key, dest in OPTION_NAMES.items():
        value = getattr(option, dest, None) if option is not None else None
        if value is not None:
            values[key], where[key] = value, f"--{dest.replace('_', '-')}"
    for key, value in overrides.items():
        if key not in known:
            raise VmSettingsError(f"unknown vm setting {key!r}")
        values[key], where[key] = value, "argument"
    return VmSettings(**values).validate(where)


def memory_available_mb() -> int:
    """The host's available memory (``MemAvailable`` of /proc/meminfo) in MiB."""
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    raise OSError("/proc/meminfo has no MemAvailable")


def guests_that_fit(memory_mb: int, available_mb: int | None = None) -> int:
    """How many guests of ``memory_mb`` fit in the host's available memory (QEMU's overhead counted, a tenth
    of the memory kept for the host)."""
    available = memory_available_mb() if available_mb is None else available_mb
    return max(int(available * 0.9) // (memory_mb + GUEST_OVERHEAD_MB), 0)
