"""Human takeover of a desktop task (``--cua-takeover``), the host side: VNC to the container, and the signals
by which a person takes control and gives it back.

- VNC: a listener on ``127.0.0.1`` (an ephemeral port, one per pytest process) relays every connection to
  x11vnc in the current task's container: for each viewer it ``docker exec``s ``executor_vnc.py relay`` over the
  Docker API (the container has no network) and carries the bytes both ways, taking the exec's stdout frames
  apart. Nothing listens on another address; in the container x11vnc listens on a unix socket only. When the
  task's container is replaced (rollback) open viewers are disconnected: connect again (TigerVNC
  ``-ReconnectOnError``; most viewers have a reconnect button).
- Taking control: the hand key, **Pause**, pressed in the VNC session (``executor_record.HAND_KEY``); or
  ``touch`` the worker's take file; or Enter in the pytest terminal (only without xdist, when the process has a
  terminal). The agent stops before its next step. Giving it back: Pause again, ``touch`` the back file, or
  Enter again.
- Status: ``<reports>/.cua/takeover/<run id>/<worker>.json`` says the port, the commands, the task and who
  has control; the signal files sit beside it (``<worker>.take``, ``<worker>.back``). Under xdist every
  worker has its own port and files: the lines are printed to the terminal (``/dev/tty``) by each worker.

The recording of what the human does is in the container (``executor_record``); the episode
(``pytest_cua.episode.loop``) turns it into human steps.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

from pytest_cua.envs.docker.client import STDERR, take_frames

RELAY = ["python3", "/opt/cua/executor_vnc.py", "relay"]
POLL_S = 0.4  # how often the episode looks at the recorder and the signal files while the human has control


class TakeoverError(RuntimeError):
    """The takeover machinery could not start (no VNC in the container, no RECORD extension)."""


# --- the VNC relay --------------------------------------------------------------------------------------------

class VncRelay:
    """A loopback TCP listener whose connections are relayed to the VNC socket of ``container()`` (a docker SDK
    ``Container``, looked up per connection: the task's container changes at every rollback)."""

    def __init__(self, container: Callable[[], Any], host: str = "127.0.0.1") -> None:
        self.container = container
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, 0))
        self.server.listen(8)
        self.host, self.port = self.server.getsockname()[:2]
        self.connections = 0
        self.errors: list[str] = []
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name=f"cua-vnc-relay-{self.port}", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(client,), name="cua-vnc-conn", daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        stream = None
        try:
            container = self.container()
            if container is None:
                raise TakeoverError("no task is running on this worker now")
            api = container.client.api
            exec_id = api.exec_create(container.id, RELAY, stdin=True, stdout=True, stderr=True, tty=False)["Id"]
            stream = api.exec_start(exec_id, socket=True)
            raw = stream._sock if hasattr(stream, "_sock") else stream
            pump = threading.Thread(target=_viewer_to_exec, args=(client, raw), name="cua-vnc-up", daemon=True)
            pump.start()
            _exec_to_viewer(raw, client, self.errors)
        except Exception as exc:  # noqa: BLE001 - one viewer's failure; the listener goes on
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            for item in (client, stream):
                try:
                    if item is not None:
                        item.close()
                except OSError:
                    pass

    def close(self) -> None:
        self._closed = True
        try:
            self.server.close()
        except OSError:
            pass


def _viewer_to_exec(client: socket.socket, raw: Any) -> None:
    """The viewer's bytes to the relay's stdin; at the viewer's end, the relay's stdin is closed."""
    try:
        while True:
            data = client.recv(1 << 16)
            if not data:
                break
            raw.sendall(data)
    except OSError:
        pass
    try:
        raw.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _exec_to_viewer(raw: Any, client: socket.socket, errors: list[str]) -> None:
    """The relay's stdout (the exec stream's frames of kind 1) to the viewer; its stderr is kept as an error."""
    buf = bytearray()
    while True:
        try:
            chunk = raw.recv(1 << 20)
        except OSError:
            return
        if not chunk:
            return
        buf += chunk
        for stream, payload in take_frames(buf):
            if stream == STDERR:
                errors.append(payload.decode(errors="replace").strip()[-500:])
            else:
                try:
                    client.sendall(payload)
                except OSError:
                    return


def connect_lines(port: int) -> list[str]:
    """How to connect a viewer to the loopback port."""
    return [f"vncviewer 127.0.0.1::{port}        (TigerVNC / TightVNC; no password)",
            f"remmina -c vnc://127.0.0.1:{port}   |   open vnc://127.0.0.1:{port} (macOS)   |   any viewer: "
            f"host 127.0.0.1 port {port}",
            f"from another machine: ssh -L 5901:127.0.0.1:{port} THIS_HOST, then vncviewer 127.0.0.1::5901",
            f"noVNC, if installed: websockify --web /usr/share/novnc 127.0.0.1:6080 127.0.0.1:{port}, then open "
            f"http://127.0.0.1:6080/vnc.html"]


# --- signals --------------------------------------------------------------------------------------------------

@dataclass
class Signals:
    """The worker's status file and signal files (``<dir>/<worker>.json``, ``.take``, ``.back``)."""

    directory: Path
    worker: str

    @property
    def status(self) -> Path:
        return self.directory / f"{self.worker}.json"

    @property
    def take(self) -> Path:
        return self.directory / f"{self.worker}.take"

    @property
    def back(self) -> Path:
        return self.directory / f"{self.worker}.back"

    def consume(self, path: Path) -> bool:
        """True (and the file removed) when ``path`` exists."""
        try:
            path.unlink()
            return True
        except FileNotFoundError:
            return False

    def write_status(self, data: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.status.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        tmp.replace(self.status)


class Terminal:
    """Enter on the controlling terminal (``/dev/tty``) as a toggle, and a place to print; without xdist only
    (several workers would share one keyboard). ``readable`` is False without a terminal."""

    def __init__(self, allow_input: bool) -> None:
        self.out: TextIO | None = None
        self.fd: int | None = None
        try:
            self.out = open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115 - kept for the session
            if allow_input:
                self.fd = os.open("/dev/tty", os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            self.out, self.fd = None, None

    @property
    def readable(self) -> bool:
        return self.fd is not None

    def say(self, lines: list[str]) -> None:
        text = "".join(f"[pytest-cua takeover] {line}\n" for line in lines)
        stream = self.out or sys.__stderr__
        if stream is None:
            return
        try:
            stream.write("\n" + text)
            stream.flush()
        except OSError:
            pass

    def enters(self) -> int:
        """How many times Enter was pressed since the last call (never blocks)."""
        if self.fd is None:
            return 0
        count = 0
        while select.select([self.fd], [], [], 0)[0]:
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                break
            except OSError:
                self.fd = None
                break
            if not data:
                break
            count += data.count(b"\n")
        return count


# --- one process's takeover session ---------------------------------------------------------------------------

@dataclass
class TakeoverSession:
    """What ``--cua-takeover`` sets up once per pytest process: the relay, the signals, the terminal."""

    signals: Signals
    xdist: bool
    env: Any = None  # the current task's DockerEnvironment
    task_id: str | None = None
    relay: VncRelay | None = None
    terminal: Terminal | None = None
    announced: bool = False
    human: bool = False
    notes: list[str] = field(default_factory=list)

    def _container(self) -> Any:
        box = getattr(self.env, "box", None)
        return getattr(box, "container", None)

    def client(self) -> Any:
        box = getattr(self.env, "box", None)
        if box is None:
            raise TakeoverError("the environment has no running container")
        return box.client

    def begin_task(self, env: Any, task_id: str) -> None:
        """Make the task watchable: x11vnc and the input recorder in its container, the relay on the host."""
        if getattr(env, "box", None) is None or not hasattr(env.box, "client"):
            raise TakeoverError(f"--cua-takeover needs a desktop in a container; environment {env.name!r} has "
                                "none")
        self.env, self.task_id, self.human = env, task_id, False
        try:
            self.client().request("vnc_start", io_timeout=30)
            self.client().request("record_start", io_timeout=30)
        except Exception as exc:  # noqa: BLE001 - an old image without x11vnc, or no RECORD: say which
            raise TakeoverError(f"could not start VNC and input recording in the container: {exc}") from exc
        if self.relay is None:
            self.relay = VncRelay(self._container)
        if self.terminal is None:
            self.terminal = Terminal(allow_input=not self.xdist)
        self.signals.consume(self.signals.take)
        self.signals.consume(self.signals.back)
        lines = [f"task {task_id} on worker {self.signals.worker}: watch it with"]
        if not self.announced:
            lines += ["  " + line for line in connect_lines(self.relay.port)]
            lines.append(f"  take control: press Pause in the session, or touch {self.signals.take}"
                         + (", or press Enter here" if self.terminal.readable else ""))
            lines.append(f"  give it back: Pause again, or touch {self.signals.back}"
                         + (", or Enter here" if self.terminal.readable else ""))
            if self.xdist:
                lines.append("  (xdist: Enter in the terminal is not read; each worker has its own port and files)")
            self.announced = True
        else:
            lines[0] += f" vncviewer 127.0.0.1::{self.relay.port} (reconnect: the container is new)"
        self.terminal.say(lines)
        self._status("agent")

    def _status(self, control: str) -> None:
        port = self.relay.port if self.relay is not None else None
        self.signals.write_status({
            "worker": self.signals.worker, "task": self.task_id, "control": control, "port": port,
            "connect": connect_lines(port) if port else [], "take": str(self.signals.take),
            "back": str(self.signals.back), "hand_key": "Pause", "pid": os.getpid(), "updated": time.time()})

    # -- the episode's questions ---------------------------------------------------------------------------

    def poll(self) -> list[dict[str, Any]]:
        """What the recorder saw since the last poll (typed action dicts and ``{"type": "toggle"}``)."""
        return list(self.client().request("record_poll", io_timeout=30)["items"])

    def requested(self) -> bool:
        """Did the human ask for control since the last look (hand key, take file, Enter)? Input recorded while
        the agent had control is dropped: it is the agent's (or the human's before asking)."""
        toggles = sum(item.get("type") == "toggle" for item in self.poll())
        enters = self.terminal.enters() if self.terminal is not None else 0
        return bool(toggles or enters or self.signals.consume(self.signals.take))

    def grant(self) -> None:
        """The agent is paused: from now on, the input is the human's."""
        self.client().request("record_poll", discard=True, io_timeout=30)
        self.signals.consume(self.signals.back)
        self.human = True
        self._status("human")
        if self.terminal is not None:
            self.terminal.say([f"task {self.task_id}: you have control (the agent is paused). Give it back with "
                               f"Pause, or touch {self.signals.back}"
                               + (", or Enter" if self.terminal.readable else "")])

    def human_input(self) -> tuple[list[dict[str, Any]], bool]:
        """The human's actions since the last look, and whether they gave control back (what comes after the
        hand key in the same look is dropped: the agent has control again)."""
        actions: list[dict[str, Any]] = []
        back = False
        for item in self.poll():
            if item.get("type") == "toggle":
                back = True
                break
            actions.append(item)
        if self.terminal is not None and self.terminal.enters():
            back = True
        if self.signals.consume(self.signals.back):
            back = True
        return actions, back

    def release(self, why: str = "") -> None:
        self.human = False
        self._status("agent")
        if self.terminal is not None:
            self.terminal.say([f"task {self.task_id}: the agent has control again" + (f" ({why})" if why else "")])

    def end_task(self) -> None:
        self.env, self.task_id, self.human = None, None, False
        try:
            self._status("idle")
        except OSError:
            pass

    def close(self) -> None:
        if self.relay is not None:
            self.relay.close()
            self.relay = None


_SESSIONS: dict[str, TakeoverSession] = {}


def session(directory: Path, worker: str, *, xdist: bool) -> TakeoverSession:
    """This process's takeover session (made once; its relay lives as long as the process)."""
    key = f"{directory}/{worker}"
    found = _SESSIONS.get(key)
    if found is None:
        found = _SESSIONS[key] = TakeoverSession(Signals(Path(directory), worker), xdist=xdist)
    return found
