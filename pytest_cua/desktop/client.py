"""The host side of the executor protocol: JSON lines over the unix socket on the container's bind mount."""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any


class ExecutorError(RuntimeError):
    """The executor answered with an error, or the socket broke; the message names the operation."""

    def __init__(self, op: str, message: str, *, refused: bool = False, broken: bool = False) -> None:
        self.op = op
        self.refused = refused
        self.broken = broken
        super().__init__(f"executor {op!r}: {message}")


class ExecutorClient:
    """One connection to a container's executor. Thread-safe: requests are serialised."""

    def __init__(self, share_dir: Path, *, timeout: float = 120.0) -> None:
        self.share_dir = Path(share_dir)
        self.socket_path = self.share_dir / "executor.sock"
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._file: Any = None
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def connect(self, deadline: float) -> None:
        """Connect once the socket exists (the executor creates it only when it accepts); bounded."""
        delay = 0.01
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.socket_path.exists():
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(self.timeout)
                try:
                    sock.connect(str(self.socket_path))
                except OSError as exc:
                    sock.close()
                    last = exc
                else:
                    self._sock, self._file = sock, sock.makefile("rwb")
                    return
            time.sleep(delay)
            delay = min(delay * 1.5, 0.2)
        raise ExecutorError("connect", f"no executor socket at {self.socket_path} in time"
                            + (f" (last error: {last})" if last else ""), broken=True)

    def request(self, op: str, *, io_timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send one request and return the answer; an error answer raises ExecutorError. ``io_timeout``
        bounds the wait for the answer (default: the client's timeout)."""
        if self._sock is None:
            raise ExecutorError(op, "not connected", broken=True)
        payload = {"id": next(self._ids), "op": op, **fields}
        with self._lock:
            try:
                self._sock.settimeout(io_timeout or self.timeout)
                self._file.write(json.dumps(payload).encode() + b"\n")
                self._file.flush()
                line = self._file.readline()
            except (OSError, ValueError) as exc:
                raise ExecutorError(op, f"connection failed: {exc}", broken=True) from None
        if not line:
            raise ExecutorError(op, "the executor closed the connection (container gone?)", broken=True)
        answer = json.loads(line)
        if not answer.get("ok"):
            raise ExecutorError(op, str(answer.get("error")), refused=bool(answer.get("refused")))
        return answer

    # --- conveniences -------------------------------------------------------------------------------------------

    def screenshot(self) -> bytes:
        """A PNG of the screen, base64 in the answer (measured faster than a file on the bind mount under
        load; see benchmarks/docker_bench.py)."""
        return base64.b64decode(self.request("screenshot")["png"])

    def screenshot_via_file(self) -> bytes:
        """The same, passed through the shared folder instead."""
        name = f"shot-{next(self._ids)}.png"
        self.request("screenshot", file=name)
        path = self.share_dir / name
        try:
            return path.read_bytes()
        finally:
            path.unlink(missing_ok=True)

    def put_file(self, src: Path, dest: str) -> int:
        """Copy a host file to ``dest`` in the container."""
        name = f"in-{next(self._ids)}-{Path(src).name}"
        (self.share_dir / name).write_bytes(Path(src).read_bytes())
        return int(self.request("put", src=name, dest=dest)["bytes"])

    def get_file(self, src: str, dest: Path) -> Path:
        """Copy ``src`` in the container to the host path ``dest``."""
        name = f"out-{next(self._ids)}-{Path(src).name}"
        self.request("get", src=src, dest=name)
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(self.share_dir / name), str(dest))
        return dest

    def close(self) -> None:
        for item in (self._file, self._sock):
            try:
                if item is not None:
                    item.close()
            except OSError:
                pass
        self._sock = self._file = None
