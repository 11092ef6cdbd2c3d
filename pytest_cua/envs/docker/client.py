"""The host side of the executor protocol: JSON lines to the executor in a container, over the Docker API.

The client ``exec``s the executor's relay (``python3 /opt/cua/executor.py connect``) in the container and
speaks through the exec's attached stdin and stdout: the same Docker API call whether the daemon is local or
remote (``DOCKER_HOST``), with nothing mounted from the host. The daemon multiplexes the exec's stdout and
stderr on the stream (8-byte frame headers); ``ExecStream`` takes them apart.
"""

from __future__ import annotations

import base64
import itertools
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

EXECUTOR = "/opt/cua/executor.py"
EXECUTOR_DIR = "/opt/cua"  # the executor and its op modules (``executor_*.py``), copied in at container creation
EXECUTOR_SOCKET = "/run/cua/executor.sock"
STDERR = 2  # the stream number of stderr frames in a Docker attach stream


class ExecutorError(RuntimeError):
    """The executor answered with an error, or the connection broke; the message names the operation."""

    def __init__(self, op: str, message: str, *, refused: bool = False, broken: bool = False) -> None:
        self.op = op
        self.refused = refused
        self.broken = broken
        super().__init__(f"executor {op!r}: {message}")


class ExecStream:
    """The attached stream of a ``docker exec`` (no TTY): bytes to the process's stdin, lines from its
    stdout; what it writes to stderr is kept (its tail) for error messages."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        # the socket under docker-py's wrapper
        self.raw = sock._sock if isinstance(sock, socket.SocketIO) else sock  # type: ignore[attr-defined]
        self._frames = bytearray()  # received, not yet split into frames
        self._out = bytearray()  # stdout not yet returned as lines
        self.stderr = bytearray()
        self.eof = False

    def send(self, data: bytes, timeout: float) -> None:
        self.raw.settimeout(max(timeout, 0.001))
        self.raw.sendall(data)

    def readline(self, deadline: float) -> bytes:
        """The next stdout line (with its newline); b"" at the end of the stream; ``TimeoutError`` at
        ``deadline`` (``time.monotonic()``)."""
        scanned = 0
        while True:
            end = self._out.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self._out[:end + 1])
                del self._out[:end + 1]
                return line
            scanned = len(self._out)
            if self.eof:
                rest, self._out = bytes(self._out), bytearray()
                return rest
            self._receive(deadline)

    def _receive(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        self.raw.settimeout(remaining)
        chunk = self.raw.recv(1 << 20)
        if not chunk:
            self.eof = True
            return
        self._frames += chunk
        for stream, payload in take_frames(self._frames):
            if stream == STDERR:
                self.stderr = (self.stderr + payload)[-4000:]
            else:
                self._out += payload

    def close(self) -> None:
        for item in (self.raw, self.sock):
            try:
                item.close()
            except OSError:
                pass


def take_frames(buf: bytearray) -> list[tuple[int, bytes]]:
    """The complete frames at the start of ``buf``, a Docker attach stream with stdout and stderr multiplexed
    (8-byte header: stream, 3 zero bytes, big-endian size), as ``(stream, payload)``; removed from ``buf``,
    which keeps an incomplete last frame for the next read."""
    frames: list[tuple[int, bytes]] = []
    at = 0
    while len(buf) - at >= 8:
        size = int.from_bytes(buf[at + 4:at + 8], "big")
        if len(buf) - at - 8 < size:
            break
        frames.append((buf[at], bytes(buf[at + 8:at + 8 + size])))
        at += 8 + size
    del buf[:at]
    return frames


class ExecutorClient:
    """One connection to a container's executor (a docker SDK ``Container``). Thread-safe: requests are
    serialised."""

    def __init__(self, container: Any, *, socket_path: str = EXECUTOR_SOCKET, timeout: float = 120.0) -> None:
        self.container = container
        self.socket_path = socket_path
        self.timeout = timeout
        self._stream: ExecStream | None = None
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def connect(self, deadline: float) -> None:
        """Exec the relay and wait (until ``deadline``, ``time.monotonic()``) until it reaches the executor,
        which accepts only once its display is up."""
        wait = max(deadline - time.monotonic(), 0.1)
        argv = ["python3", EXECUTOR, "connect", "--socket", self.socket_path, "--timeout", f"{wait:.1f}"]
        try:
            api = self.container.client.api
            exec_id = api.exec_create(self.container.id, argv, stdin=True, stdout=True, stderr=True, tty=False)["Id"]
            stream = ExecStream(api.exec_start(exec_id, socket=True))
        except Exception as exc:  # noqa: BLE001 - the daemon refused (container gone, not running)
            raise ExecutorError("connect", f"docker exec of the relay failed: {type(exc).__name__}: {exc}",
                                broken=True) from None
        try:
            line = stream.readline(deadline + 5)  # the relay gives up at the deadline itself and says why
        except OSError as exc:
            stream.close()
            raise ExecutorError("connect", f"no answer from the relay: {exc}", broken=True) from None
        try:
            hello = json.loads(line) if line else {}
        except ValueError:
            hello = {"error": line[:300].decode(errors="replace")}
        if hello.get("relay") != "connected":
            stream.close()
            why = hello.get("error") or stream.stderr.decode(errors="replace").strip()[-500:] or "it exited"
            if "invalid choice: 'connect'" in why:
                why = ("the image's executor predates the relay: rebuild the image (pytest-cua image build "
                       "NAME, or run with --cua-docker-build auto)")
            raise ExecutorError("connect", f"the relay did not reach the executor: {why}", broken=True)
        self._stream = stream

    def request(self, op: str, *, io_timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send one request and return the answer; an error answer raises ExecutorError. ``io_timeout``
        bounds the wait for the answer (default: the client's timeout)."""
        stream = self._stream
        if stream is None:
            raise ExecutorError(op, "not connected", broken=True)
        payload = {"id": next(self._ids), "op": op, **fields}
        timeout = io_timeout or self.timeout
        with self._lock:
            try:
                stream.send(json.dumps(payload).encode() + b"\n", timeout)
                line = stream.readline(time.monotonic() + timeout)
            except (OSError, ValueError) as exc:
                raise ExecutorError(op, f"connection failed: {exc}", broken=True) from None
        if not line:
            tail = stream.stderr.decode(errors="replace").strip()[-300:]
            raise ExecutorError(op, "the executor closed the connection (container gone?)"
                                + (f": {tail}" if tail else ""), broken=True)
        answer = json.loads(line)
        if not answer.get("ok"):
            raise ExecutorError(op, str(answer.get("error")), refused=bool(answer.get("refused")))
        return answer

    # --- conveniences -------------------------------------------------------------------------------------------

    def screenshot(self) -> bytes:
        """A PNG of the screen (base64 in the answer)."""
        return base64.b64decode(self.request("screenshot")["png"])

    def put_file(self, src: Path, dest: str) -> int:
        """Copy a host file to ``dest`` in the container (its bytes travel in the request)."""
        data = base64.b64encode(Path(src).read_bytes()).decode("ascii")
        return int(self.request("put", dest=dest, data=data)["bytes"])

    def get_file(self, src: str, dest: Path) -> Path:
        """Copy ``src`` in the container to the host path ``dest``."""
        answer = self.request("get", src=src)
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(base64.b64decode(answer["data"]))
        return dest

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()


def executor_bundle() -> bytes:
    """A tar of the executor and its op modules (``pytest_cua/envs/docker/executor*.py``) as ``opt/cua/...``, to
    ``put_archive`` into a created container before it starts: the container runs the executor of the
    pytest-cua that drives it (no protocol skew), and an executor change rebuilds no image."""
    import io
    import tarfile

    here = Path(__file__).resolve().parent
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for path in sorted(here.glob("executor*.py")):
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{EXECUTOR_DIR.lstrip('/')}/{path.name}")
            info.size, info.mode, info.mtime = len(data), 0o755, 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()
