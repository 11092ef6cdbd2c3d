"""One QEMU/KVM guest: its folder (overlay, sockets, console log, owner record), the QEMU command line, the
executor channel, start and stop.

The guest has no network card (``-nic none``): the one way in is a virtio-serial port whose host end is a
unix socket in the guest's folder (``channel.sock``, QEMU's ``-chardev socket,server=on``), carried to the
executor's socket by the guest's init (``guest_init.py``). JSON lines travel on it exactly as on the Docker
exec relay; ``ChannelClient`` is ``ExecutorClient`` on that socket, matching answers by id (an answer a
restore left in flight is dropped, never taken for the next one's).

The guest boots an overlay (``overlay.qcow2``) backed by the built disk (``pytest_cua.envs.vm.disk``); its
snapshots live inside the overlay. The owner record (``owner.json``: run, worker, this process's pid and start
time, QEMU's pid and start time) lets the sweep (``pytest_cua.envs.vm.leftovers``) find a dead worker's guest.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pytest_cua.envs.docker.client import ExecutorClient, ExecutorError
from pytest_cua.envs.vm.disk import PORT_NAME, GuestDisk
from pytest_cua.envs.vm.qmp import Qmp

QEMU = "qemu-system-x86_64"
QEMU_IMG = "qemu-img"
# -cpu host without the IA32_ARCH_CAPABILITIES MSR: a nested KVM (a cloud machine's) refuses to set it and
# QEMU aborts ("failed to set MSR 0x10a"); the guest needs nothing of it
CPU = "host,-arch-capabilities"
ACCEL = "kvm"  # never anything else: a guest without KVM is not run (tests/vm skip, the preflight refuses)
KERNEL_ARGS = "root=/dev/vda rw rootfstype=ext4 init=/opt/cua/vm-init console=ttyS0 quiet loglevel=3 panic=-1"


def state_root() -> Path:
    """Where guests' folders are: ``$PYTEST_CUA_VM_DIR`` or ``$TMPDIR/pytest-cua-vm``."""
    return Path(os.environ.get("PYTEST_CUA_VM_DIR") or Path(tempfile.gettempdir()) / "pytest-cua-vm")


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot, /proc/PID/stat field 22), None when gone (or
    a zombie): a pid and its start time name one process, never a later one given the same pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else fields[19]  # a zombie has ended: it only waits to be reaped


def alive(pid: int | None, start: str | None) -> bool:
    return bool(pid) and start is not None and process_start(int(pid or 0)) == start


class ChannelClient(ExecutorClient):
    """``ExecutorClient`` over the guest's virtio-serial channel (a unix socket QEMU listens on)."""

    def __init__(self, path: Path, *, timeout: float = 120.0) -> None:
        super().__init__(None, timeout=timeout)
        self.path = path
        self._sock: socket.socket | None = None
        self._buf = b""

    def connect(self, deadline: float) -> None:
        delay = 0.02
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(self.path))
                self._sock = sock
                return
            except OSError as exc:
                sock.close()
                if time.monotonic() > deadline:
                    raise ExecutorError("connect", f"channel {self.path}: {exc}", broken=True) from None
                time.sleep(delay)
                delay = min(delay * 1.5, 0.2)

    def drain(self) -> None:
        """Drop whatever arrived unasked (answers a restore left in flight)."""
        sock = self._sock
        if sock is None:
            return
        self._buf = b""
        sock.setblocking(False)
        try:
            while sock.recv(1 << 20):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            pass
        finally:
            sock.setblocking(True)

    def request(self, op: str, *, io_timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        sock = self._sock
        if sock is None:
            raise ExecutorError(op, "not connected", broken=True)
        ident = next(self._ids)
        payload = {"id": ident, "op": op, **fields}
        deadline = time.monotonic() + (io_timeout or self.timeout)
        with self._lock:
            try:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                sock.sendall(json.dumps(payload).encode() + b"\n")
                while True:
                    line = self._readline(sock, deadline)
                    answer = json.loads(line)
                    if answer.get("id") == ident:
                        break
            except (OSError, ValueError) as exc:
                raise ExecutorError(op, f"channel {self.path}: {exc}", broken=True) from None
        if not answer.get("ok"):
            raise ExecutorError(op, str(answer.get("error")), refused=bool(answer.get("refused")))
        return dict(answer)

    def _readline(self, sock: socket.socket, deadline: float) -> bytes:
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("timed out")
            sock.settimeout(remaining)
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("QEMU closed the channel (the guest is gone)")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()


class Guest:
    """One QEMU process and its folder. ``start`` boots it; ``stop`` ends it and removes the folder."""

    def __init__(self, disk: GuestDisk, folder: Path, *, memory_mb: int, cpus: int, owner: dict[str, Any],
                 cpu: str | None = None) -> None:
        self.disk = disk
        self.folder = folder
        self.memory_mb = memory_mb
        self.cpus = cpus
        self.cpu = cpu or CPU
        self.owner = owner
        self.process: subprocess.Popen[bytes] | None = None
        self.qmp: Qmp | None = None
        self.client = ChannelClient(folder / "channel.sock")
        self.boot_s = 0.0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.folder.name

    def command(self) -> list[str]:
        f = self.folder
        return [qemu_binary(), "-name", f"pytest-cua,process=pytest-cua-{self.name}", "-machine", f"q35,accel={ACCEL}",
                "-cpu", self.cpu, "-smp", str(self.cpus), "-m", str(self.memory_mb), "-nodefaults",
                "-no-user-config", "-display", "none", "-vga", "none", "-nic", "none", "-no-reboot",
                "-kernel", str(self.disk.kernel), "-initrd", str(self.disk.initrd), "-append", KERNEL_ARGS,
                "-drive", f"file={f / 'overlay.qcow2'},if=virtio,format=qcow2,cache=unsafe,discard=unmap",
                "-device", "virtio-serial-pci,id=vser",
                "-chardev", f"socket,id=cua,path={f / 'channel.sock'},server=on,wait=off",
                "-device", f"virtserialport,bus=vser.0,chardev=cua,name={PORT_NAME}",
                "-qmp", f"unix:{f / 'qmp.sock'},server=on,wait=off",
                "-serial", f"file:{f / 'console.log'}", "-pidfile", str(f / "qemu.pid")]

    def start(self, deadline: float) -> "Guest":
        """Launch QEMU and wait until the guest's executor has the display and the window manager."""
        started = time.monotonic()
        self.launch()
        try:
            while not (self.folder / "qmp.sock").exists():  # QEMU creates its sockets before the guest runs
                if not self.running():
                    raise RuntimeError("QEMU exited at start")
                if time.monotonic() > deadline:
                    raise RuntimeError("QEMU did not create its QMP socket in time")
                time.sleep(0.02)
            self.qmp = Qmp(str(self.folder / "qmp.sock"), deadline)
            self.client.connect(deadline)
            wait_ready(self.client, deadline, self)
        except Exception as exc:
            raise RuntimeError(f"guest {self.name} did not become ready: {exc}{self.why_dead()}") from None
        self.boot_s = time.monotonic() - started
        return self

    def launch(self, *extra: str) -> None:
        """Create the folder, the overlay and the owner record, and start QEMU (``extra``: more arguments,
        ``-S`` to leave the CPUs stopped); returns at once."""
        self.folder.mkdir(parents=True, exist_ok=False)
        self._write_owner({})
        subprocess.run([QEMU_IMG, "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(self.disk.qcow2),
                        str(self.folder / "overlay.qcow2")], check=True, capture_output=True, timeout=60)
        log = open(self.folder / "qemu.log", "wb")
        self.process = subprocess.Popen([*self.command(), *extra], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                        start_new_session=True)
        log.close()
        self._write_owner({"qemu_pid": self.process.pid, "qemu_start": _wait_start(self.process.pid)})

    def _write_owner(self, extra: dict[str, Any]) -> None:
        path = self.folder / "owner.json"
        data = {**self.owner, "folder": str(self.folder)}
        if path.is_file():
            data.update(json.loads(path.read_text()))
        data.update(extra)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data) + "\n")
        tmp.rename(path)

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def why_dead(self) -> str:
        """What QEMU and the guest's console said, when the process has ended (for error messages)."""
        if self.process is None or self.process.poll() is None:
            return ""
        tails = []
        for name in ("qemu.log", "console.log"):
            try:
                text = (self.folder / name).read_text(errors="replace").strip().splitlines()[-8:]
            except OSError:
                continue
            if text:
                tails.append(f"{name}: " + " | ".join(text))
        return f" (QEMU exited with status {self.process.returncode}; " + "; ".join(tails) + ")"

    def rss_bytes(self) -> int:
        """QEMU's resident memory (the guest's memory it touched plus QEMU's own)."""
        if self.process is None:
            return 0
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def stop(self) -> None:
        """Quit QEMU (killed when it does not quit) and remove the folder; safe to call twice."""
        self.client.close()
        if self.qmp is not None:
            try:
                if self.running():
                    self.qmp.execute("quit", timeout=5)
            except Exception:
                pass
            self.qmp.close()
            self.qmp = None
        if self.process is not None:
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        remove_folder(self.folder)


def qemu_binary() -> str:
    """Where ``qemu-system-x86_64`` is; an error naming what installs it when it is missing."""
    found = shutil.which("qemu-system-x86_64")
    if found is None:
        raise RuntimeError(f"{QEMU} not found: apt-get install qemu-system-x86 (or: bash scripts/install.sh --docker)")
    return found


def _wait_start(pid: int) -> str | None:
    for _ in range(100):
        start = process_start(pid)
        if start is not None:
            return start
        time.sleep(0.01)
    return None


def wait_ready(client: ChannelClient, deadline: float, guest: Guest | None = None) -> None:
    """Ask the executor (through the channel) until the display answers and the window manager runs; a guest
    whose QEMU ended stops the wait at once."""
    while True:
        if guest is not None and not guest.running():
            raise ExecutorError("ping", "QEMU exited", broken=True)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ExecutorError("ping", "display or window manager not up in time", broken=True)
        try:
            answer = client.request("ping", io_timeout=min(remaining, 5))
        except ExecutorError as exc:
            if not exc.broken or "timed out" not in str(exc):
                raise
            continue  # the guest is still booting: the ping waits in the port until the relay reads it
        if answer.get("display") and answer.get("wm"):
            return
        time.sleep(0.1)


def remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
