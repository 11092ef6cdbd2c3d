"""What a desktop does for a task through its executor, the same whether the desktop is a container or a virtual
machine (``pytest_cua.envs.vm``): copy a task's artifacts out, send an action. The caller says how a broken
executor channel becomes its ``EnvironmentCrash`` (``crash``), naming its container or guest."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from pytest_cua.actions import TARGET_FIELDS, Action, ActionResult
from pytest_cua.envs.base import EnvironmentCrash, ProvisioningError
from pytest_cua.envs.docker.client import ExecutorError

if TYPE_CHECKING:
    from pytest_cua.envs.docker.containers import Box
    from pytest_cua.tasks.task import Task

Crash = Callable[[ExecutorError], EnvironmentCrash]
Resolve = Callable[["Box", Action], "tuple[Action, dict[str, Any]]"]

#: the actions that end an episode: nothing is sent to the executor
TERMINAL_TYPES = ("done", "answer", "fail", "ask")


def copy_artifacts(box: "Box", task: "Task", folder: Path, *, failed: bool, crash: Crash,
                   paths: str = "container paths") -> dict[str, Any]:
    """Copy the task's ``artifacts`` ({name: path on the desktop}) into ``folder``: {name: host path}; a missing
    artifact is the agent's shortfall (the evaluator sees it absent). A failed task also keeps its final screen."""
    out: dict[str, Any] = {}
    artifacts = task.extra.get("artifacts") or {}
    if not isinstance(artifacts, Mapping):
        raise ProvisioningError(f"task {task.id!r}: field 'artifacts' must map names to {paths}")
    for name, path in sorted(artifacts.items()):
        try:
            out[name] = box.client.get_file(str(path), folder / f"{name}{Path(str(path)).suffix}")
        except ExecutorError as exc:
            if exc.broken:
                raise crash(exc) from None
    if failed:
        folder.mkdir(parents=True, exist_ok=True)
        shot = folder / "final-screen.png"
        shot.write_bytes(box.client.screenshot())
        out["final_screen"] = shot
    return out


def send_action(box: "Box", action: Action, *, resolve: Resolve, crash: Crash) -> ActionResult:
    """Carry out ``action`` on the desktop: an element id becomes its point in the last observation
    (``resolve``), the executor performs it; a refused action is a failed result, a broken channel a crash."""
    started = time.monotonic()
    if action.kind in TERMINAL_TYPES:
        return ActionResult(action, ok=True, duration_s=0.0)
    sent: Action = action
    detail: dict[str, Any] = {}
    if any(isinstance(getattr(action, f, None), str) for f in TARGET_FIELDS):
        try:
            sent, detail = resolve(box, action)
        except LookupError as exc:
            return ActionResult(action, ok=False, error=str(exc.args[0]), duration_s=time.monotonic() - started)
    try:
        box.client.request("act", action=sent.to_dict())
    except ExecutorError as exc:
        if exc.broken:
            raise crash(exc) from None
        return ActionResult(action, ok=False, error=str(exc).split(": ", 1)[-1],
                            duration_s=time.monotonic() - started, detail=detail)
    return ActionResult(action, ok=True, duration_s=time.monotonic() - started, detail=detail)
