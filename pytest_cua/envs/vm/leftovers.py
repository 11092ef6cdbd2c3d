"""What dead workers left of their guests: the QEMU process, the overlay disk, the sockets, the folder.

Every guest's folder (under ``machine.state_root()``) holds ``owner.json``: the run and worker, the owner
process's pid and start time, QEMU's pid and start time. A guest whose owner is gone (same pid and start time
no longer running) is a leftover: its QEMU is killed (only when pid *and* start time match: never a process
that got the pid later) and its folder removed. Every environment start sweeps; so do the xdist controller
when a worker dies (``VmProvider.sweep``) and ``pytest-cua vm sweep``.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pytest_cua.envs.vm.machine import alive, process_start, remove_folder, state_root

FRESH_S = 60.0  # a folder without an owner record younger than this is one being created: left alone


@dataclass
class SweepReport:
    guests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if not self.guests and not self.errors:
            return "vm sweep: nothing to remove"
        out = f"vm sweep: removed {len(self.guests)} guest(s)"
        return out + (f"; {len(self.errors)} error(s): " + "; ".join(self.errors) if self.errors else "")


def sweep(*, run_id: str | None = None, worker_id: str | None = None, everything: bool = False,
          root: Path | None = None, progress: Callable[[str], None] = lambda line: None) -> SweepReport:
    """Remove the guests whose owner is gone; with ``run_id`` (and ``worker_id``) only that run's (worker's),
    and with ``everything`` live ones too."""
    report = SweepReport()
    root = root or state_root()
    if not root.is_dir():
        return report
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            owner = json.loads((folder / "owner.json").read_text())
        except (OSError, ValueError):
            if time.time() - folder.stat().st_mtime > FRESH_S:
                remove_folder(folder)
                report.guests.append(folder.name)
                progress(f"vm: removed {folder} (no owner record)")
            continue
        if run_id is not None and owner.get("run") != run_id:
            continue
        if worker_id is not None and owner.get("worker") != worker_id:
            continue
        if not everything and alive(owner.get("owner_pid"), owner.get("owner_start")):
            continue
        what = kill_qemu(owner)
        remove_folder(folder)
        if folder.exists():
            report.errors.append(f"{folder}: could not be removed")
            continue
        report.guests.append(folder.name)
        progress(f"vm: removed guest {folder.name} of run {owner.get('run')} worker {owner.get('worker')} "
                 f"(owner pid {owner.get('owner_pid')} gone; {what}, overlay and sockets removed)")
    return report


def kill_qemu(owner: dict[str, object]) -> str:
    """Kill the guest's QEMU when it still runs (pid and start time both match); what was done."""
    pid, start = owner.get("qemu_pid"), owner.get("qemu_start")
    if not isinstance(pid, int) or not isinstance(start, str) or not alive(pid, start):
        return "QEMU not running"
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return "QEMU not running"
    deadline = time.monotonic() + 10
    while process_start(pid) == start and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.02)
    return f"QEMU pid {pid} killed"


def _reap(pid: int) -> None:
    try:  # our own child (the environment of this process): collect it, or it stays a zombie
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
