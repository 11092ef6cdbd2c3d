"""A real guest (QEMU/KVM, the base recipe's disk): boot, snapshot, what a task leaves behind, restore, and the
residue check proving the restore; an action's round trip through the channel; a QEMU that dies is an
environment error. One guest for the module (the ``vm_desktop`` fixture): about a boot and a few restores."""

from __future__ import annotations

import base64
import os
import signal
import time
from typing import Any

import pytest

from pytest_cua.actions import Click, Point, Type
from pytest_cua.envs.base import EnvironmentCrash, roll_back
from pytest_cua.envs.docker.client import ExecutorError

pytestmark = pytest.mark.vm

MARKER = "/root/residue-from-the-task.txt"


def test_restore_removes_what_a_task_wrote_and_started(vm_desktop: Any) -> None:
    env, snap = vm_desktop, vm_desktop.first
    client = env.box.client
    assert env.residue(snap) == []
    client.request("put", dest=MARKER, data=base64.b64encode(b"left by the task").decode())
    client.request("put", dest="/tmp/scratch.bin", data=base64.b64encode(os.urandom(4096)).decode())
    client.request("spawn", argv=["xterm", "-T", "residue-xterm"])
    client.request("wait_window", pattern="residue-xterm", timeout=60)
    left = env.residue(snap)
    assert f"added: {MARKER}" in left and "added: /tmp/scratch.bin" in left
    assert any(line.startswith("process added:") and "xterm" in line for line in left), left
    assert any(line.startswith("window added:") and "residue-xterm" in line for line in left), left

    roll_back(env, snap)  # restore, then residue must be empty or it raises

    with pytest.raises(ExecutorError, match="no file"):
        client.request("get", src=MARKER)
    titles = [w["title"] for w in client.request("windows")["windows"]]
    assert "residue-xterm" not in titles
    assert env.timings["restore"][-1] < 30


def test_an_action_goes_through_the_channel_and_changes_the_screen(vm_desktop: Any) -> None:
    env, snap = vm_desktop, vm_desktop.first
    env.box.client.request("spawn", argv=["xterm", "-T", "typing-target", "-geometry", "80x10+0+0"])
    env.box.client.request("wait_window", pattern="typing-target", timeout=60)
    before = env.observe(frozenset({"screenshot"})).screenshot
    assert env.act(Click(target=Point(100, 60))).ok
    result = env.act(Type(text="echo typed-in-the-guest > /root/typed.txt\n"))
    assert result.ok, result.error
    deadline = time.monotonic() + 30
    while True:
        try:
            data = env.box.client.request("get", src="/root/typed.txt")["data"]
            break
        except ExecutorError:
            assert time.monotonic() < deadline, "the typed command did not write its file"
            time.sleep(0.2)
    assert base64.b64decode(data) == b"typed-in-the-guest\n"
    assert env.observe(frozenset({"screenshot"})).screenshot != before
    roll_back(env, snap)


def test_a_dead_qemu_is_an_environment_crash(vm_desktop: Any) -> None:
    env = vm_desktop
    os.kill(env.guest.process.pid, signal.SIGKILL)
    env.guest.process.wait(10)
    with pytest.raises(EnvironmentCrash):
        env.act(Click(target=Point(10, 10)))
    with pytest.raises(EnvironmentCrash, match="QEMU"):
        env.restore(env.first)
