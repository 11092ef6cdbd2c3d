"""Labels on everything pytest-cua starts in Docker, and the sweep of what a crashed run left behind.

Every container and snapshot image carries ``pytest-cua.run`` (run id), ``pytest-cua.worker`` (xdist
worker id), ``pytest-cua.role`` (env, spare or snapshot) and its owner: ``pytest-cua.host``,
``pytest-cua.pid`` and ``pytest-cua.pid-start`` (the owner's start time, so a reused pid is not mistaken for
the owner). A resource is a leftover when its owner is on this host and no longer alive.
"""

from __future__ import annotations

import os
import shutil
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

LABEL_RUN = "pytest-cua.run"
LABEL_WORKER = "pytest-cua.worker"
LABEL_ROLE = "pytest-cua.role"
LABEL_HOST = "pytest-cua.host"
LABEL_PID = "pytest-cua.pid"
LABEL_PID_START = "pytest-cua.pid-start"
# containers of earlier versions carried a host folder bind-mounted for their executor socket: swept with them
LABEL_SHARE = "pytest-cua.share"
SHARE_ROOT = Path(os.environ.get("PYTEST_CUA_SHARE", "/tmp/pytest-cua"))


def process_start(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot (field 22 of /proc/PID/stat), or "" if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def owner_labels(run_id: str, worker_id: str, role: str) -> dict[str, str]:
    """The labels naming this process as the owner of a container or image."""
    pid = os.getpid()
    return {LABEL_RUN: run_id, LABEL_WORKER: worker_id, LABEL_ROLE: role, LABEL_HOST: socket.gethostname(),
            LABEL_PID: str(pid), LABEL_PID_START: process_start(pid)}


def owner_alive(labels: dict[str, str]) -> bool | None:
    """True/False for an owner on this host; None when the owner is on another host (never touched)."""
    if labels.get(LABEL_HOST) != socket.gethostname():
        return None
    try:
        pid = int(labels.get(LABEL_PID, ""))
    except ValueError:
        return False
    start = process_start(pid)
    return bool(start) and start == labels.get(LABEL_PID_START, start)


@dataclass
class SweepReport:
    containers: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    kept_alive: int = 0
    other_hosts: int = 0
    errors: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return (f"removed {len(self.containers)} container(s) and {len(self.images)} snapshot image(s) of dead "
                f"runs; kept {self.kept_alive} of live runs" +
                (f"; left {self.other_hosts} owned by other hosts" if self.other_hosts else "") +
                (f"; {len(self.errors)} error(s): " + "; ".join(self.errors) if self.errors else ""))


def sweep(client: Any, *, run_id: str | None = None, everything: bool = False, worker_id: str | None = None,
          progress: Callable[[str], None] | None = None) -> SweepReport:
    """Remove containers and snapshot images whose owner is dead (all of them with ``everything``; only
    those of ``run_id`` when given, and of its worker ``worker_id`` when given too). Containers go first: an
    image in use cannot be removed."""
    import docker.errors

    report = SweepReport()
    filters = {"label": [f"{LABEL_RUN}={run_id}" if run_id else LABEL_RUN]}
    if worker_id is not None:
        if not run_id:
            raise ValueError("sweep: worker_id needs run_id (worker ids repeat across runs)")
        filters["label"].append(f"{LABEL_WORKER}={worker_id}")

    def doomed(labels: dict[str, str]) -> bool:
        if everything or run_id:
            return True
        alive = owner_alive(labels)
        if alive is None:
            report.other_hosts += 1
            return False
        if alive:
            report.kept_alive += 1
            return False
        return True

    # the low-level listings return labels directly: the high-level list() fetches every container again and
    # fails when one is removed meanwhile (our own reaper threads remove used containers in the background)
    for info in client.api.containers(all=True, filters=filters):
        labels = dict(info.get("Labels") or {})
        name = (info.get("Names") or [info["Id"][:12]])[0].lstrip("/")
        if not doomed(labels):
            continue
        try:
            client.api.remove_container(info["Id"], force=True, v=True)
            report.containers.append(name)
            if progress:
                progress(f"removed container {name} (run {labels.get(LABEL_RUN)}, role {labels.get(LABEL_ROLE)})")
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:
            report.errors.append(f"container {name}: {exc.explanation or exc}")
        share = labels.get(LABEL_SHARE)
        if share and Path(share).parent == SHARE_ROOT:
            shutil.rmtree(share, ignore_errors=True)
    for info in client.api.images(filters=filters):
        labels = dict(info.get("Labels") or {})
        if labels.get(LABEL_ROLE) != "snapshot" or not doomed(labels):
            continue
        tags = [t for t in (info.get("RepoTags") or []) if t != "<none>:<none>"] or [info["Id"]]
        try:
            client.api.remove_image(info["Id"], force=True)
            report.images.extend(tags)
            if progress:
                progress(f"removed snapshot image {', '.join(tags)} (run {labels.get(LABEL_RUN)})")
        except docker.errors.ImageNotFound:
            pass
        except docker.errors.APIError as exc:
            report.errors.append(f"image {', '.join(tags)}: {exc.explanation or exc}")
    return report
