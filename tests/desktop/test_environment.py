"""The Docker environment against a real dockerd: start and readiness, isolation, file transfer, start files
and artifacts, snapshot and restore, residue."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .desktop_helpers import FILES, probe_task, wait_for
from pytest_cua.actions import Action
from pytest_cua.envs.base import RollbackResidue, roll_back
from pytest_cua.tasks.task import Task

pytestmark = pytest.mark.docker


def test_container_is_isolated_limited_and_labelled(desktop: Any) -> None:
    container = desktop.box.container
    container.reload()
    host = container.attrs["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["Memory"] == 1024 ** 3
    assert host["NanoCpus"] == 1_000_000_000
    labels = container.labels
    assert labels["pytest-cua.run"] == desktop.run_id
    assert labels["pytest-cua.worker"] == "gw0"
    assert labels["pytest-cua.role"] in ("env", "spare")
    assert labels["pytest-cua.pid"] == str(os.getpid())
    interfaces = desktop.run(["cat", "/proc/net/dev"])["stdout"]
    assert "eth0" not in interfaces, "the container has a network interface besides loopback"


def test_ready_means_display_and_window_manager_answer(desktop: Any) -> None:
    answer = desktop.box.client.request("ping")
    assert answer["display"] and answer["wm"]


def test_file_transfer_round_trip(desktop: Any, tmp_path: Path) -> None:
    payload = bytes(range(256)) * 4096  # 1 MiB, every byte value
    src = tmp_path / "blob.bin"
    src.write_bytes(payload)
    assert desktop.box.client.put_file(src, "/root/deep/folder/blob.bin") == len(payload)
    back = desktop.box.client.get_file("/root/deep/folder/blob.bin", tmp_path / "out" / "blob.bin")
    assert back.read_bytes() == payload
    from pytest_cua.envs.docker.client import ExecutorError

    with pytest.raises(ExecutorError, match="no file"):
        desktop.box.client.get_file("/root/missing.txt", tmp_path / "missing.txt")


def test_start_files_start_command_window_and_artifacts(desktop: Any) -> None:
    roll_back(desktop, desktop.test_snapshot)
    task = Task(id="artifact-task", suite="desktop-tests", instruction="write a file", extra={
        "start_files": {"/root/notes/input.txt": "input.txt"},
        "start_command": "xterm -T notes-term",
        "window": "notes-term",
        "artifacts": {"copy": "/root/notes/copy.txt", "never": "/root/notes/never-written.txt"},
    })
    desktop.begin_task(task)
    desktop.act(Action.from_dict({"type": "type", "text": "cp notes/input.txt notes/copy.txt\n"}))
    wait_for(lambda: desktop.run(["test", "-f", "/root/notes/copy.txt"])["returncode"] == 0,
             what="the shell in the xterm to copy the file")
    artifacts = desktop.end_task(task, failed=True)
    assert Path(artifacts["copy"]).read_text() == (FILES / "input.txt").read_text()
    assert "never" not in artifacts, "a missing artifact must be absent, not an empty file"
    assert Path(artifacts["final_screen"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_task_starts_once_its_window_shows_content(desktop: Any) -> None:
    """A window mapped blank (the window manager's title bar painted, the client area one flat colour) is not a
    ready program: keys sent then are lost. The start waits until the window itself shows content."""
    roll_back(desktop, desktop.test_snapshot)
    task = Task(id="late-paint", suite="desktop-tests", instruction="x", extra={
        "start_files": [{"src": "late_paint.py", "dest": "/root/late_paint.py"}],
        "start_command": ["python3", "/root/late_paint.py", "4"], "window": "^late-paint$", "window_timeout_s": 60,
    })
    desktop.begin_task(task)
    assert desktop.run(["cat", "/root/painted"])["stdout"] == "painted\n", \
        "the task started before its window painted anything"
    desktop.end_task(task, failed=False)


def test_a_program_that_paints_its_frame_first_is_waited_for_until_its_content_shows(desktop: Any) -> None:
    """LibreOffice maps its window and draws an empty frame (a flat area and a rule: two shades) seconds before
    the document; keys sent then were lost (a replay of calc-total-row under load). ``"settle": {"min_shades":
    16}`` (LibreOffice's default) waits for the content."""
    roll_back(desktop, desktop.test_snapshot)
    task = Task(id="frame-first", suite="desktop-tests", instruction="x", extra={
        "start_files": [{"src": "late_paint.py", "dest": "/root/late_paint.py"}],
        "start_command": ["python3", "/root/late_paint.py", "4", "frame"], "window": "^late-paint$",
        "window_timeout_s": 60, "settle": {"min_shades": 16},
    })
    desktop.begin_task(task)
    assert desktop.run(["cat", "/root/painted"])["stdout"] == "painted\n", \
        "the task started on the empty frame, before the window painted its content"
    desktop.end_task(task, failed=False)


def test_bad_start_files_name_the_task_and_field(desktop: Any) -> None:
    from pytest_cua.envs.base import ProvisioningError

    task = Task(id="bad-files", suite="desktop-tests", instruction="x",
                extra={"start_files": [{"src": "no-such-file.txt", "dest": "/root/x.txt"}]})
    with pytest.raises(ProvisioningError, match=r"task 'bad-files': field 'start_files': 'no-such-file.txt' not found"):
        desktop.begin_task(task)


def test_a_file_written_in_one_task_is_gone_in_the_next(desktop: Any) -> None:
    roll_back(desktop, desktop.test_snapshot)
    desktop.begin_task(probe_task("writer"))
    desktop.act(Action.from_dict({"type": "type", "text": "residue"}))
    desktop.run(["sh", "-c", "echo leaked > /root/leak.txt && mkdir -p /opt/leak && touch /opt/leak/x"])
    left = desktop.residue(desktop.test_snapshot)
    assert "added: /root/leak.txt" in left
    assert "added: /opt/leak/x" in left
    assert "added: /root/probe.py" in left  # the start file is task state too
    first = desktop.box.container.name
    roll_back(desktop, desktop.test_snapshot)  # raises RollbackResidue when anything is left
    assert desktop.box.container.name != first
    assert desktop.run(["test", "-e", "/root/leak.txt"])["returncode"] != 0
    assert desktop.run(["test", "-e", "/root/events.jsonl"])["returncode"] != 0
    assert desktop.residue(desktop.test_snapshot) == []


def test_restore_without_a_spare_starts_a_fresh_container(base_image: str) -> None:
    from .desktop_helpers import make_env

    env = make_env(base_image, spare=False)
    try:
        snap = env.snapshot()
        env.run(["touch", "/root/x"])
        roll_back(env, snap)
        assert env.residue(snap) == []
        assert env.box.container.labels["pytest-cua.role"] == "env"
    finally:
        env.close()


def test_residue_is_reported_as_rollback_error(desktop: Any) -> None:
    class NoRestore:
        name = "docker"

        def restore(self, snapshot: Any, scope: Any = None) -> None:
            pass

        def residue(self, snapshot: Any) -> list[str]:
            return desktop.residue(snapshot)

    desktop.run(["touch", "/root/stays.txt"])
    with pytest.raises(RollbackResidue, match=r"added: /root/stays.txt"):
        roll_back(NoRestore(), desktop.test_snapshot)  # type: ignore[arg-type]
    roll_back(desktop, desktop.test_snapshot)


def test_close_removes_containers_and_snapshot_images(base_image: str, docker_client: Any) -> None:
    from .desktop_helpers import make_env

    env = make_env(base_image)
    env.snapshot()
    run = env.run_id
    env.close()
    env.close()  # twice is fine
    assert docker_client.containers.list(all=True, sparse=True, filters={"label": f"pytest-cua.run={run}"}) == []
    assert docker_client.images.list(filters={"label": f"pytest-cua.run={run}"}) == []
