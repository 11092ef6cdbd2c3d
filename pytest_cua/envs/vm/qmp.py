"""A client of the QEMU Machine Protocol (QMP) on a unix socket: JSON commands, their answers, events set aside.

Used for the snapshots (``savevm``/``loadvm`` through ``human-monitor-command``: the running guest's memory,
devices and disk, kept inside its qcow2 overlay), for ``migrate`` to a file (the benchmark's external snapshot)
and to stop the machine (``quit``).
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any


class QmpError(RuntimeError):
    """QEMU refused a command, or its monitor went away (``broken``: the QEMU process is gone or hung)."""

    def __init__(self, message: str, *, broken: bool = False) -> None:
        self.broken = broken
        super().__init__(message)


class Qmp:
    """One QMP connection (capabilities negotiated). Not thread-safe: the environment serialises its calls."""

    def __init__(self, path: str, deadline: float) -> None:
        self.path = path
        self.events: list[dict[str, Any]] = []
        self._buf = b""
        delay = 0.02
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                break
            except OSError as exc:
                sock.close()
                if time.monotonic() > deadline:
                    raise QmpError(f"QMP socket {path}: {exc}", broken=True) from None
                time.sleep(delay)
                delay = min(delay * 1.5, 0.2)
        self.sock = sock
        greeting = self._read(deadline)
        if "QMP" not in greeting:
            raise QmpError(f"QMP socket {path}: no greeting ({greeting})", broken=True)
        self.execute("qmp_capabilities", timeout=max(deadline - time.monotonic(), 5))

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise QmpError(f"QMP socket {self.path}: no answer in time", broken=True)
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError as exc:
                raise QmpError(f"QMP socket {self.path}: {exc}", broken=True) from None
            if not chunk:
                raise QmpError(f"QMP socket {self.path}: QEMU closed its monitor (the process is gone)", broken=True)
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def execute(self, command: str, arguments: dict[str, Any] | None = None, *, timeout: float = 60) -> Any:
        """Run one command and return its ``return`` value; ``QmpError`` with QEMU's description on error."""
        payload: dict[str, Any] = {"execute": command}
        if arguments:
            payload["arguments"] = arguments
        deadline = time.monotonic() + timeout
        try:
            self.sock.sendall(json.dumps(payload).encode() + b"\n")
        except OSError as exc:
            raise QmpError(f"QMP {command}: {exc}", broken=True) from None
        while True:
            message = self._read(deadline)
            if "event" in message:
                self.events.append(message)
                del self.events[:-100]
                continue
            if "error" in message:
                error = message["error"]
                raise QmpError(f"QMP {command}: {error.get('class')}: {error.get('desc')}")
            return message.get("return")

    def hmp(self, command_line: str, *, timeout: float = 120) -> str:
        """A human monitor command (``savevm NAME``); its output, which is empty on success for the snapshot
        commands (an error is text: raised as ``QmpError``)."""
        out = str(self.execute("human-monitor-command", {"command-line": command_line}, timeout=timeout) or "")
        if out.strip() and command_line.split()[0] in ("savevm", "loadvm", "delvm"):
            raise QmpError(f"{command_line}: {out.strip()}")
        return out

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
