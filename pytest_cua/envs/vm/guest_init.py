#!/usr/bin/python3
"""PID 1 of a Linux desktop guest (``/opt/cua/vm-init``, the kernel's ``init=``): the guest side of the VM provider.

It mounts the pseudo file systems, brings up the loopback interface (the guest has no network card: nothing
beyond it), starts the recipe's command (the executor's ``serve``, with the recipe's environment and working
folder, from ``/opt/cua/vm-boot.json``) and relays the one host channel, a virtio-serial port, to the
executor's unix socket: JSON lines in, JSON lines out, as the Docker exec relay carries them in a container.
As PID 1 it also reaps every orphan and starts the executor again should it exit.

This is the operating-system seam of the guest for Linux: a Windows guest replaces this file by a service that
starts the executor and relays its channel (``docs/vm.md``). Standard library only; it does not import
pytest_cua (it runs in the guest's own Python). It runs no program by name: mounts and the loopback interface
are system calls.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

BOOT_FILE = "/opt/cua/vm-boot.json"
CONSOLE = "/dev/console"
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
SIOCSIFFLAGS = 0x8914
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40

_libc = ctypes.CDLL(None, use_errno=True)


def log(text: str) -> None:
    try:
        with open(CONSOLE, "w") as out:
            out.write(f"cua-vm-init: {text}\n")
    except OSError:
        pass


def mount(source: str, target: str, fstype: str, flags: int = 0, data: str = "") -> None:
    Path(target).mkdir(parents=True, exist_ok=True)
    if _libc.mount(source.encode(), target.encode(), fstype.encode(), flags, data.encode() or None) != 0:
        errno = ctypes.get_errno()
        if errno != 16:  # EBUSY: already mounted (the initramfs moved /dev, /proc, /sys over)
            log(f"mount {fstype} on {target} failed: {os.strerror(errno)}")


def mount_all() -> None:
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755")
    mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620,ptmxmode=666")
    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")


def loopback_up() -> None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))
    except OSError as exc:
        log(f"loopback: {exc}")


def find_port(name: str, timeout: float) -> str:
    """The device of the virtio-serial port named ``name`` (``/dev/vportNpM``), waited for (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        for entry in sorted(Path("/sys/class/virtio-ports").glob("vport*")):
            try:
                if (entry / "name").read_text().strip() == name:
                    return f"/dev/{entry.name}"
            except OSError:
                continue
        if time.monotonic() > deadline:
            raise RuntimeError(f"no virtio-serial port named {name!r} (is virtio_console in the initramfs?)")
        time.sleep(0.05)


def connect_unix(path: str) -> socket.socket:
    delay = 0.02
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            time.sleep(delay)
            delay = min(delay * 1.5, 0.3)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def relay(port_name: str, executor_socket: str) -> None:
    """Carry bytes between the host's port and the executor's socket, for ever: a host that goes away (the
    port reads empty) is waited for; an executor that goes away is connected to again."""
    port = os.open(find_port(port_name, 60), os.O_RDWR)
    log(f"relay: port {port_name} open")
    while True:
        sock = connect_unix(executor_socket)
        log("relay: executor connected")
        while True:
            ready, _, _ = select.select([port, sock.fileno()], [], [], 1.0)
            if port in ready:
                data = os.read(port, 1 << 16)
                if not data:  # no host on the other side: wait for one
                    time.sleep(0.05)
                    continue
                sock.sendall(data)
            if sock.fileno() in ready:
                try:
                    data = sock.recv(1 << 20)
                except OSError:
                    data = b""
                if not data:
                    sock.close()
                    break
                write_all(port, data)


def start_command(boot: dict[str, Any]) -> int:
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", **boot.get("env", {})}
    argv = list(boot["cmd"])
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.chdir(boot.get("workdir") or "/root")
            fd = os.open(CONSOLE, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    log(f"started {argv} as pid {pid}")
    return pid


def main() -> int:
    if os.getpid() != 1:
        print("guest_init.py is the guest's PID 1 (the kernel's init=); it is not run by hand", file=sys.stderr)
        return 2
    mount_all()
    loopback_up()
    try:
        _libc.sethostname(b"cua-vm", 6)
    except Exception:
        pass
    boot = json.loads(Path(BOOT_FILE).read_text())
    for folder in boot.get("folders", []):
        Path(folder).mkdir(parents=True, exist_ok=True)
    threading.Thread(target=relay, args=(boot["port"], boot["socket"]), daemon=True).start()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    command = start_command(boot)
    while True:  # PID 1: reap every child and orphan; the recipe's command is started again when it exits
        try:
            pid, status = os.wait()
        except ChildProcessError:
            time.sleep(0.5)
            continue
        if pid == command:
            log(f"the command exited with status {status}: starting it again")
            time.sleep(0.5)
            command = start_command(boot)


if __name__ == "__main__":
    sys.exit(main())
