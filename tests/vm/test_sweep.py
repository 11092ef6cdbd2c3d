"""What a SIGKILLed worker leaves (a running QEMU, its overlay, its QMP and channel sockets, its folder) is
removed by ``pytest-cua vm sweep`` and by the provider's sweep (what the xdist controller calls for a dead
worker); a live owner's guest is left alone. The QEMU here is real (KVM device, the base recipe's guest disk)
with its CPUs stopped (``-S``): the sweep does not depend on the guest running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.envs.vm.machine import process_start

pytestmark = pytest.mark.vm
ROOT = Path(__file__).resolve().parents[2]

OWNER = """
import json, os, sys, time
from pathlib import Path
from pytest_cua.envs.vm.disk import GuestDisk
from pytest_cua.envs.vm.machine import Guest, process_start
disk = GuestDisk(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
owner = {"run": sys.argv[4], "worker": sys.argv[5], "owner_pid": os.getpid(), "owner_start": process_start(os.getpid())}
guest = Guest(disk, Path(sys.argv[6]), memory_mb=256, cpus=1, owner=owner)
guest.launch("-S")
while not (guest.folder / "qmp.sock").exists() or not (guest.folder / "channel.sock").exists():
    assert guest.running(), (guest.folder / "qemu.log").read_text()
    time.sleep(0.02)
print(json.dumps({"qemu_pid": guest.process.pid}), flush=True)
time.sleep(600)
"""


def _start_owner(disk: Any, state: Path, run: str, worker: str) -> tuple[subprocess.Popen[str], int, Path]:
    folder = state / f"{run}-{worker}"
    env = {**os.environ, "PYTEST_CUA_VM_DIR": str(state)}
    proc = subprocess.Popen([sys.executable, "-c", OWNER, disk.name, disk.digest, str(disk.folder), run, worker,
                             str(folder)], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, f"the owner process did not start its QEMU (exit {proc.wait(30)})"
    return proc, int(json.loads(line)["qemu_pid"]), folder


def _gone(pid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while process_start(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_sweep_removes_a_sigkilled_workers_guest(guest_disk: Any, tmp_path: Path) -> None:
    state = tmp_path / "vm-state"
    live, live_qemu, live_folder = _start_owner(guest_disk, state, "run-a", "gw1")
    dead, dead_qemu, dead_folder = _start_owner(guest_disk, state, "run-a", "gw0")
    try:
        dead.send_signal(signal.SIGKILL)
        dead.wait(10)
        assert process_start(dead_qemu) is not None, "QEMU should outlive its SIGKILLed owner"
        for name in ("overlay.qcow2", "qmp.sock", "channel.sock", "owner.json"):
            assert (dead_folder / name).exists(), name

        env = {**os.environ, "PYTEST_CUA_VM_DIR": str(state)}
        out = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "vm", "sweep"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "removed 1 guest(s)" in out.stdout, out.stdout
        assert f"QEMU pid {dead_qemu} killed" in out.stdout
        assert _gone(dead_qemu), "the dead worker's QEMU still runs"
        assert not dead_folder.exists(), "overlay, sockets and folder should be gone"
        # the live worker's guest is not touched
        assert process_start(live_qemu) is not None and (live_folder / "overlay.qcow2").exists()
    finally:
        for proc in (live, dead):
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    # its owner gone too: the provider's sweep for that worker (what the xdist controller runs) removes it
    from pytest_cua.envs.vm import PROVIDER

    os.environ["PYTEST_CUA_VM_DIR"] = str(state)
    try:
        lines = PROVIDER.sweep("run-a", "gw1")
    finally:
        del os.environ["PYTEST_CUA_VM_DIR"]
    assert any("run-a-gw1" in line and f"QEMU pid {live_qemu} killed" in line for line in lines), lines
    assert _gone(live_qemu) and not live_folder.exists()
