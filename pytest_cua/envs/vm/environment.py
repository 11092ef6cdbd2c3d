"""The VM desktop environment: one QEMU/KVM guest per xdist worker, rolled back by loading a memory snapshot.

- Provision: sweep dead workers' guests, make sure the recipe's guest disk is built (``disk``), boot a guest
  from an overlay of it (``machine.Guest``), wait until its executor has the display and the window manager
  (asked through the channel, never a fixed sleep).
- Snapshot: the executor lists the home folder, ``/tmp``, the process table and the open windows, then QEMU
  saves the running guest (memory, devices, disk) into its overlay (``savevm`` over QMP).
- Restore: ``loadvm`` over QMP (the guest's memory and disk become the snapshot's: what a task wrote is gone,
  the programs it started never ran), then the channel is drained and the executor pinged.
- Residue: the same four listings compared with the snapshot's (a file, process or window that differs is
  named).

The guest speaks the executor's protocol, so the observations (``screenshot``, ``axtree``, ``som``), the
actions (element ids resolved to screen points as in the containers), the task's start files, start
commands, windows and artifacts are those of the Docker environment (``pytest_cua.envs.docker``: the same
functions, on a ``Box`` whose client is the guest's channel).

A QEMU that dies mid-task breaks the channel: an ``EnvironmentCrash`` (the task's error, not the agent's
failure); the restore then fails, the pool discards the environment and the next task provisions a new guest.
"""

from __future__ import annotations

import itertools
import json
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua.actions import Action, ActionResult
from pytest_cua.envs.base import Environment, EnvironmentCrash, ProvisioningError, Snapshot
from pytest_cua.envs.docker.client import ExecutorError
from pytest_cua.envs.docker.containers import HOME, Box, slug
from pytest_cua.envs.docker.environment import DockerEnvironment
from pytest_cua.envs.docker.observation import observe
from pytest_cua.envs.docker.startup import start_task
from pytest_cua.envs.docker.task_io import copy_artifacts, send_action
from pytest_cua.envs.vm.disk import GuestDisk, build_disk, disk_state, guest_disk
from pytest_cua.envs.vm.leftovers import sweep
from pytest_cua.envs.vm.machine import Guest, process_start, state_root
from pytest_cua.envs.vm.options import VmSettings
from pytest_cua.envs.vm.qmp import QmpError
from pytest_cua.observations import Observation

if TYPE_CHECKING:
    from pytest_cua.tasks.task import Task

LISTED = (HOME, "/tmp")  # folders whose files the residue compares (the rest of the disk is restored alike)
SKIP = (".cache/openbox", ".Xauthority")
# the process table of the guest, as [pid, command line] (kernel threads, which have none, left out)
PROCESSES = ("import json, os\nme = os.getpid()\nout = []\nfor p in os.listdir('/proc'):\n"
             "    if p.isdigit() and int(p) != me:\n        try:\n"
             "            cmd = open('/proc/' + p + '/cmdline', 'rb').read()\n        except OSError:\n"
             "            continue\n        if cmd:\n"
             "            out.append([int(p), cmd.replace(b'\\0', b' ').decode(errors='replace').strip()[:160]])\n"
             "print(json.dumps(sorted(out)))\n")


class _GuestName:
    """What a ``Box`` reads of its container: a name for messages."""

    def __init__(self, name: str) -> None:
        self.name = name


class VmEnvironment(Environment):
    """A desktop in a QEMU/KVM guest. Build with ``PROVIDER.create(ctx)`` or directly (tests, benchmarks)."""

    name = "vm"

    def __init__(self, settings: VmSettings, *, run_id: str, worker_id: str, artifacts_dir: Path | None = None,
                 files_roots: Sequence[Path] = ()) -> None:
        self.settings = settings
        self.run_id = run_id
        self.worker_id = worker_id
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir else Path("reports") / "artifacts"
        self.files_roots = [Path(p) for p in files_roots] or [Path.cwd()]
        self.disk: GuestDisk | None = None
        self.guest: Guest | None = None
        self.box: Box | None = None
        self._counter = itertools.count(1)
        self._snapshots = 0
        self.timings: dict[str, list[float]] = {"restore": [], "savevm": [], "boot": []}

    # --- provisioning --------------------------------------------------------------------------------------

    def start(self) -> "VmEnvironment":
        from pytest_cua.envs.vm.preflight import kvm

        found = kvm()
        if not found.ok:  # never emulated: a guest without KVM is no desktop to measure or rely on
            raise ProvisioningError(f"vm desktops need KVM: {found.detail}; {found.fix}")
        sweep()
        self.disk = self._ensure_disk()
        owner = {"run": self.run_id, "worker": self.worker_id, "owner_pid": os.getpid(),
                 "owner_start": process_start(os.getpid()), "recipe": self.settings.recipe}
        folder = state_root() / (f"{slug(self.run_id)[:16]}-{slug(self.worker_id)}-{next(self._counter)}-"
                                 f"{uuid.uuid4().hex[:6]}")
        folder.parent.mkdir(parents=True, exist_ok=True)
        guest = Guest(self.disk, folder, memory_mb=self.settings.memory_mb, cpus=self.settings.cpus, owner=owner)
        self.guest = guest
        try:
            guest.start(time.monotonic() + self.settings.ready_timeout_s)
        except Exception as exc:
            guest.stop()
            self.guest = None
            raise ProvisioningError(f"vm guest from {self.disk.qcow2.name}: {exc}") from None
        self.timings["boot"].append(guest.boot_s)
        self.box = Box(_GuestName(guest.name), guest.client, self.settings.recipe, guest.boot_s)
        return self

    def _ensure_disk(self) -> GuestDisk:
        from pytest_cua.envs.docker.recipes import RecipeError, load_recipe

        try:
            recipe = load_recipe(self.settings.recipe)
        except RecipeError as exc:
            raise ProvisioningError(f"vm image {self.settings.image!r}: {exc}") from None
        state = disk_state(recipe)
        if state == "current":
            return guest_disk(recipe)
        if self.settings.build != "auto":
            raise ProvisioningError(f"vm guest disk of {recipe.name!r} is {state} (--cua-vm-build never): build it "
                                    f"with: pytest-cua image build {recipe.name} --vm")
        try:
            disk, _ = build_disk(recipe, progress=lambda line: None)
        except Exception as exc:
            raise ProvisioningError(f"building the guest disk of {recipe.name!r} failed: {exc}") from None
        return disk

    # --- snapshot and rollback -----------------------------------------------------------------------------

    def _state(self, box: Box) -> dict[str, Any]:
        """What the residue compares: file listings, the process table, the open windows."""
        files = {root: box.client.request("listing", root=root, skip=list(SKIP) if root == HOME else [])["files"]
                 for root in LISTED}
        ran = box.client.request("run", argv=["python3", "-c", PROCESSES], timeout=30)
        if ran.get("returncode") != 0:
            raise EnvironmentCrash(f"guest {box.container.name}: listing its processes failed: {ran.get('stderr')}")
        processes = {str(pid): cmd for pid, cmd in json.loads(ran["stdout"])}
        windows = {w["id"]: w["title"] for w in box.client.request("windows")["windows"]}
        return {"files": files, "processes": processes, "windows": windows}

    def snapshot(self) -> Snapshot:
        box, guest = self._box(), self._guest()
        state = self._state(box)
        self._snapshots += 1
        tag = f"cua-{self._snapshots}"
        started = time.monotonic()
        try:
            assert guest.qmp is not None
            guest.qmp.hmp(f"savevm {tag}", timeout=300)
        except QmpError as exc:
            raise EnvironmentCrash(f"guest {guest.name}: savevm failed: {exc}{guest.why_dead()}") from None
        self.timings["savevm"].append(time.monotonic() - started)
        return Snapshot(self.name, data=tag, meta=state)

    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        started = time.monotonic()
        guest, box = self._guest(), self._box()
        if not guest.running() or guest.qmp is None:
            raise EnvironmentCrash(f"guest {guest.name}: QEMU is not running{guest.why_dead()}")
        try:
            guest.qmp.hmp(f"loadvm {snapshot.data}", timeout=300)
            guest.client.drain()
            guest.client.request("ping", io_timeout=30)
        except (QmpError, ExecutorError) as exc:
            raise EnvironmentCrash(f"guest {guest.name}: restoring snapshot {snapshot.data} failed: {exc}"
                                   f"{guest.why_dead()}") from None
        box.elements = {}
        self.timings["restore"].append(time.monotonic() - started)

    def residue(self, snapshot: Snapshot) -> list[str]:
        now = self._state(self._box())
        then: Mapping[str, Any] = snapshot.meta
        left: list[str] = []
        for root in LISTED:
            before, after = then["files"].get(root, {}), now["files"].get(root, {})
            for rel in sorted(set(before) | set(after)):
                if before.get(rel) != after.get(rel):
                    what = "added" if rel not in before else "deleted" if rel not in after else "changed"
                    left.append(f"{what}: {root.rstrip('/')}/{rel}")
        for kind in ("processes", "windows"):
            before, after = then[kind], now[kind]
            for key in sorted(set(before) | set(after)):
                if before.get(key) != after.get(key):
                    what = "added" if key not in before else "gone" if key not in after else "changed"
                    label = "process" if kind == "processes" else "window"
                    left.append(f"{label} {what}: {key} {after.get(key, before.get(key))!r}")
        return left

    # --- tasks -------------------------------------------------------------------------------------------------

    def begin_task(self, task: "Task") -> None:
        box = self._box()
        try:  # the guest's clock is the snapshot's after a restore: set it to the host's
            box.client.request("run", argv=["date", "-u", "-s", f"@{time.time():.3f}"], timeout=10)
        except ExecutorError as exc:
            if exc.broken:
                raise EnvironmentCrash(f"guest {box.container.name}: {exc}{self._guest().why_dead()}") from None
        start_task(box, task, files_roots=self.files_roots, window_timeout_s=self.settings.window_timeout_s)

    def end_task(self, task: "Task", *, failed: bool) -> dict[str, Any]:
        return copy_artifacts(self._box(), task, self.artifacts_dir / task.id, failed=failed, crash=self._crash,
                              paths="guest paths")

    def _crash(self, exc: ExecutorError) -> EnvironmentCrash:
        return EnvironmentCrash(f"guest {self._box().container.name}: {exc}{self._guest().why_dead()}")

    # --- agent interface ---------------------------------------------------------------------------------------

    def observe(self, kinds: frozenset[str]) -> Observation:
        return observe(self._box(), kinds)

    def act(self, action: Action) -> ActionResult:
        return send_action(self._box(), action, resolve=DockerEnvironment._resolve, crash=self._crash)

    def run(self, argv: Sequence[str], timeout: float = 60) -> dict[str, Any]:
        """Run a command in the guest (evaluators); for host-side code only, as ``DockerEnvironment.run``."""
        return self._box().client.request("run", argv=list(argv), timeout=timeout, io_timeout=timeout + 10)

    # --- helpers -----------------------------------------------------------------------------------------------

    def _box(self) -> Box:
        if self.box is None:
            raise EnvironmentCrash("the vm environment has no running guest (closed or failed start)")
        return self.box

    def _guest(self) -> Guest:
        if self.guest is None:
            raise EnvironmentCrash("the vm environment has no running guest (closed or failed start)")
        return self.guest

    def describe(self) -> dict[str, Any]:
        guest = self.guest
        return {"name": self.name, "image": self.settings.recipe, "guest": guest.name if guest else None,
                "disk": self.disk.qcow2.name if self.disk else None, "memory_mb": self.settings.memory_mb,
                "cpus": self.settings.cpus, "network": "none (one virtio-serial channel to the executor)",
                "accel": "kvm"}

    def keep_env_message(self) -> str:
        guest = self.guest
        if guest is None:
            return "pytest-cua --keep-env: no vm guest running"
        return "\n".join([
            f"pytest-cua --keep-env: vm guest {guest.name} of worker {self.worker_id} left running "
            f"(disk {self.disk.qcow2.name if self.disk else '?'}, no network)",
            f"  its folder (overlay, console.log, QMP and channel sockets): {guest.folder}",
            f"  talk to its executor (JSON lines such as {{\"id\": 1, \"op\": \"windows\"}}): "
            f"python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect('{guest.folder}/channel.sock')\"",
            "  remove it once this run has ended: pytest-cua vm sweep"])

    def close(self) -> None:
        guest, self.guest, self.box = self.guest, None, None
        if guest is not None:
            guest.stop()
