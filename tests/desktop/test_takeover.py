"""Human takeover on the real dockerd: the VNC relay (loopback only, the RFB handshake through the printed
port), X RECORD turning xdotool input in the container into typed actions, a live takeover inside an episode,
and a ProSoft task solved by a scripted human (``--cua-human FILE``) in an inner pytest run."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from .desktop_helpers import wait_for
from pytest_cua.actions import Action, Press
from pytest_cua.agents.base import Agent, AgentContext, Turn
from pytest_cua.envs.docker.takeover import TakeoverSession, session
from pytest_cua.envs.base import roll_back
from pytest_cua.episode.loop import Episode
from pytest_cua.episode.human import Human, LiveTakeover
from pytest_cua.observations import Observation
from pytest_cua.tasks.task import Task, load_task_file
from suites.prosoft.test_prosoft import ProSoftSuite

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
OFFICE_IMAGE = "cua-desktop-office"
RUN_TIMEOUT_S = 900


@pytest.fixture
def takeover(desktop: Any, tmp_path: Path) -> Any:
    """The desktop rolled back, with a takeover session started on it (x11vnc, the recorder, the relay)."""
    roll_back(desktop, desktop.test_snapshot)
    live = session(tmp_path / "takeover", "gw0", xdist=True)
    live.begin_task(desktop, "probe")
    yield live
    live.end_task()
    live.close()


def xdotool(env: Any, *args: str) -> None:
    out = env.run(["xdotool", *args])
    assert out["returncode"] == 0, out["stderr"]


def test_vnc_relay_answers_the_rfb_handshake_on_loopback_only(takeover: TakeoverSession, desktop: Any) -> None:
    status = json.loads(takeover.signals.status.read_text())
    port = status["port"]
    assert f"vncviewer 127.0.0.1::{port}" in status["connect"][0]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as viewer:
        greeting = viewer.recv(12)
        assert re.fullmatch(rb"RFB 003\.00\d\n", greeting), greeting
        viewer.sendall(b"RFB 003.008\n")
        security = viewer.recv(64)
        assert security[:1] != b"\x00" and 1 in security[1:1 + security[0]], security  # "None" is offered
        viewer.sendall(b"\x01")  # choose None
        assert viewer.recv(4) == b"\x00\x00\x00\x00"  # security result: ok
        viewer.sendall(b"\x01")  # ClientInit, shared
        init = viewer.recv(24)
        assert (int.from_bytes(init[0:2], "big"), int.from_bytes(init[2:4], "big")) == (1280, 800)
    # the host side listens on loopback alone
    assert takeover.relay is not None and takeover.relay.host == "127.0.0.1"
    for address in _other_addresses():
        with pytest.raises(OSError):
            socket.create_connection((address, port), timeout=2).close()
    # and in the container nothing listens on TCP at all (x11vnc is on a unix socket)
    tables = desktop.run(["cat", "/proc/net/tcp", "/proc/net/tcp6"])["stdout"].splitlines()
    listening = [line for line in tables if line.split()[3:4] == ["0A"]]
    assert not listening, listening


def _other_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses."""
    lines = Path("/proc/net/fib_trie").read_text().splitlines()  # the kernel's own addresses: "/32 host LOCAL"
    out = {lines[i - 1].split()[-1] for i, line in enumerate(lines) if i and "/32 host LOCAL" in line}
    found = sorted(a for a in out if not a.startswith("127."))
    if not found:
        pytest.skip("the machine has no non-loopback address to try")
    return found


def test_xrecord_turns_xdotool_input_into_typed_actions(takeover: TakeoverSession, desktop: Any) -> None:
    takeover.poll()  # start from nothing
    xdotool(desktop, "mousemove", "200", "300", "click", "1")
    xdotool(desktop, "type", "--delay", "20", "Hello, World 42")
    xdotool(desktop, "key", "Return", "ctrl+s")
    xdotool(desktop, "mousemove", "100", "100", "mousedown", "1", "mousemove", "400", "250", "mouseup", "1")
    items: list[dict[str, Any]] = []

    def recorded() -> bool:
        items.extend(takeover.poll())
        return len(items) >= 5

    wait_for(recorded, 10, lambda: f"five recorded actions, got {items}")
    assert items == [{"type": "click", "target": {"x": 200, "y": 300}}, {"type": "type", "text": "Hello, World 42"},
                     {"type": "press", "key": "enter"}, {"type": "hotkey", "keys": ["ctrl", "s"]},
                     {"type": "drag", "source": {"x": 100, "y": 100}, "destination": {"x": 400, "y": 250}}]
    # the hand key asks for control; nothing else does
    assert not takeover.requested()
    xdotool(desktop, "key", "Pause")
    wait_for(takeover.requested, 5, "Pause to ask for control")


class AsksForHelp(Agent):
    """Its first step asks for a human (through the take file) and starts the stand-in person, who acts with
    xdotool once the status file says they have control and gives control back with Pause; then done."""

    name = "asks-for-help"

    def __init__(self, live: TakeoverSession, env: Any) -> None:
        super().__init__()
        self.live, self.env = live, env
        self.seen: list[Observation] = []
        self.person: threading.Thread | None = None

    def start(self, task: Task, context: AgentContext) -> None:
        pass

    def step(self, observation: Observation) -> Turn:
        self.seen.append(observation)
        if len(self.seen) == 1:
            self.live.signals.take.touch()
            self.person = threading.Thread(target=self._person, daemon=True)
            self.person.start()
            return Turn([Press(key="shift")])
        return Turn([Action.from_dict({"type": "done"})])

    def _person(self) -> None:
        def has_control() -> bool:
            return json.loads(self.live.signals.status.read_text()).get("control") == "human"

        deadline = time.monotonic() + 30
        while not has_control() and time.monotonic() < deadline:
            time.sleep(0.1)
        xdotool(self.env, "mousemove", "321", "123", "click", "1")
        xdotool(self.env, "type", "--delay", "20", "by hand")
        time.sleep(1.0)  # two polls: the actions come in a look of their own, before the hand key
        xdotool(self.env, "key", "Pause")


def test_live_takeover_pauses_the_agent_and_records_human_steps(takeover: TakeoverSession, desktop: Any,
                                                                tmp_path: Path) -> None:
    takeover.end_task()
    agent = AsksForHelp(takeover, desktop)
    live = LiveTakeover(takeover.signals.directory, takeover.signals.worker, xdist=True)
    task = Task(id="live", suite="desktop-tests", instruction="wait for a human")
    episode = Episode(task, desktop, agent, context=AgentContext(observation_kinds=frozenset({"screenshot"})),
                      human=Human(None, None, live), time_limit_s=120)
    result = episode.run()
    assert (result.end, result.takeovers, result.agent_steps) == ("done", 1, 2), result.help_notes
    steps = episode.recorder.steps
    human = [(s.actions[0].to_dict(), s.extra["source"]) for s in steps if s.extra.get("by") == "human"]
    assert human == [({"type": "click", "target": {"x": 321.0, "y": 123.0}, "button": "left", "modifiers": []}, "vnc"),
                     ({"type": "type", "text": "by hand", "target": None}, "vnc")]
    assert result.human_steps == 2 and result.human_s > 0.5
    assert [s.extra.get("by") for s in steps] == ["agent", "human", "human", "agent"]
    assert steps[1].observation.screenshot  # the screen when the human took control
    assert "did 2 action(s): click(target=(321, 123)); type(text='by hand')" in (agent.seen[1].human_reply or "")
    assert json.loads(takeover.signals.status.read_text())["control"] == "idle"


# --- a ProSoft task solved by a scripted human ----------------------------------------------------------------

@pytest.fixture(scope="module")
def office_image(docker_client: Any) -> str:
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe(OFFICE_IMAGE), client=docker_client, progress=lambda line: None)
    return OFFICE_IMAGE


def prosoft_task(task_id: str) -> Task:
    tasks = [t for p in (REPO / "suites" / "prosoft" / "tasks").glob("*.json")
             for t in load_task_file(p, suite="prosoft", extension_fields=ProSoftSuite.task_fields)
             if t.id == task_id]
    assert tasks, task_id
    return tasks[0]


def run_prosoft(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-p", "no:cacheprovider", "--cua-reports",
           str(tmp_path / "reports"), "--cua-docker-image", OFFICE_IMAGE, *args]
    return subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=RUN_TIMEOUT_S)


def test_scripted_human_solves_a_prosoft_task_for_the_noop_agent(office_image: str, tmp_path: Path) -> None:
    task = prosoft_task("calc-set-cell")
    actions = list(task.demonstration_actions or ())
    script = tmp_path / "human.yaml"
    script.write_text(json.dumps({"calc-set-cell": [{"at_step": 0, "actions": actions}]}))  # YAML reads JSON
    proc = run_prosoft(tmp_path, "--agent", "noop", "--cua-human", str(script), "-k", "calc-set-cell")
    output = proc.stdout + proc.stderr
    summary = json.loads((tmp_path / "reports" / "summary.json").read_text())
    (record,) = summary["tasks"]
    assert record["outcome"] == "passed", output[-3000:]
    figures = (record.get("takeovers"), record.get("human_steps"), record.get("agent_steps"))
    assert figures == (1, len(actions), 1), "the record's help figures (records.build_record takes them from " \
        "EpisodeResult.help_fields())"
    totals = summary["totals"]
    assert (totals["success_with_help"], totals["success_without_help"]) == (1.0, 0.0)
    assert "success with help 100.0% (1 passed), without help 0.0% (0 passed with no takeover)" in proc.stdout
    trajectory = json.loads(Path(record["trajectory"]).read_text())
    by = [s.get("extra", {}).get("by") for s in trajectory["steps"]]
    assert by == ["human"] * len(actions) + ["agent"]
    assert trajectory["steps"][0]["reasoning"].startswith("by: human (takeover 1, scripted")


def test_a_malformed_human_file_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "human.json"
    bad.write_text(json.dumps({"calc-set-cell": [{"at_step": 0, "actions": [{"type": "click", "x": 1}]}]}))
    proc = run_prosoft(tmp_path, "--agent", "noop", "--cua-human", str(bad), "-k", "calc-set-cell")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout[-2000:]
    assert f"--cua-human {bad}: entry 'calc-set-cell'[0].actions[0]: action 'click' has no field 'x'" in proc.stderr
