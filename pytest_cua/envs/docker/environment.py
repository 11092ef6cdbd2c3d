"""The Docker desktop environment: one container per xdist worker, rolled back by container replacement.

- Provision: start a container from the suite's image (``network_mode="none"``, memory and CPU limits,
  labels naming the run, worker, role and owner process), connect to its executor through the Docker API
  (``docker exec`` of the executor's relay: nothing mounted, so the daemon may be on another host), wait until
  the executor has the display and the window manager (polled, never a fixed sleep).
- Hosts: with ``--cua-docker-hosts`` the worker's desktop goes to the answering daemon with the fewest running
  pytest-cua containers, and the image is made present there (``pytest_cua.envs.docker.hosts``). A daemon that
  dies mid-task breaks the executor connection: an ``EnvironmentCrash`` (an error, not the agent's failure),
  the failed rollback discards the environment, and the next task provisions a new one (placed again).
- Snapshot: ``docker commit`` the prepared container to an image (role ``snapshot``), record a checksum
  listing of the home folder, and start a warm spare container from that image in the background.
- Restore: swap in the spare (already up), remove the used container in the background, start the next
  spare. When no spare is ready a fresh container is started from the snapshot image.
- Residue: ``docker diff`` of the container against the snapshot image (only the display server's own
  files are expected) plus the home listing compared with the one taken at the snapshot.

Actions are typed action dicts sent to the executor in the container (``pytest_cua/envs/docker/executor.py``),
which checks them against its own whitelist. Agent output never runs on the host.

Observations: ``screenshot``, ``axtree`` and ``som`` (``pytest_cua.envs.docker.observation``). An action whose
target is an element id of the last observation (``e12``) goes to the centre of that element's box on the
screen; an id the last observation did not show is a failed action naming it.

A task starts with the files, programs and windows of its ``task.extra`` (``pytest_cua.envs.docker.startup``);
``"artifacts": {"workbook": "/root/sales.xlsx"}`` are copied out by end_task, returned as {name: host path}.

The containers themselves (``Box``) are in ``pytest_cua.envs.docker.containers``; the ``docker`` provider that
makes this environment is in ``pytest_cua.envs.docker.provider``.
"""

from __future__ import annotations

import dataclasses
import fcntl
import itertools
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua.actions import TARGET_FIELDS, Action, ActionResult
from pytest_cua.envs.base import Environment, EnvironmentCrash, ProvisioningError, Snapshot
from pytest_cua.envs.docker.axtree import target_point
from pytest_cua.envs.docker.client import ExecutorClient, ExecutorError, executor_bundle
from pytest_cua.envs.docker.containers import (HOME, ORPHANS, Box, remove_orphans, rename_quietly, slug,
                                               wait_ready)
from pytest_cua.envs.docker.leftovers import owner_labels, sweep
from pytest_cua.envs.docker.observation import observe
from pytest_cua.envs.docker.options import DockerSettings
from pytest_cua.envs.docker.overlay import upper_diff
from pytest_cua.envs.docker.startup import start_task
from pytest_cua.envs.docker.task_io import copy_artifacts, send_action
from pytest_cua.observations import Observation

if TYPE_CHECKING:
    from pytest_cua.tasks.task import Task

SNAPSHOT_REPOSITORY = "pytest-cua-snapshot"
# what a fresh container writes by itself: the X server's lock and socket, logs, caches
EXPECTED_DIFF = ("/tmp/.X0-lock", "/tmp/.X11-unix", "/tmp/cua-", "/root/.cache/openbox", "/root/.Xauthority",
                 "/var/cache/fontconfig", "/var/lib/xkb", "/run/cua", "/usr/sbin/docker-init",
                 "/opt/cua", "/tmp/dbus-")  # /opt/cua: the executor, copied in at creation; a bus's autolaunch file
HOME_SKIP = (".cache/openbox", ".Xauthority")


class DockerEnvironment(Environment):
    """A desktop in a container. Build with ``PROVIDER.create(ctx)`` or directly (tests, benchmarks)."""

    name = "docker"

    def __init__(self, settings: DockerSettings, *, run_id: str, worker_id: str,
                 artifacts_dir: Path | None = None, files_roots: Sequence[Path] = ()) -> None:
        self.settings = settings
        self.run_id = run_id
        self.worker_id = worker_id
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir else Path("reports") / "artifacts"
        self.files_roots = [Path(p) for p in files_roots] or [Path.cwd()]
        self.hosts = settings.docker_hosts()
        self.host: Any = None  # the DockerHost placed on (with --cua-docker-hosts)
        self.placement: dict[str, Any] = {}
        self.image_on_host: Any = None
        self.docker: Any = None
        self._counter = itertools.count(1)
        self.box: Box | None = None
        self._spare: Box | None = None
        self._spare_error: BaseException | None = None
        self._spare_thread: threading.Thread | None = None
        self._reapers: list[threading.Thread] = []
        self._snapshots: list[str] = []
        self.timings: dict[str, list[float]] = {"restore": [], "spare_start": []}
        self.spare_failures: list[str] = []  # why a spare was not ready (the restore then started one itself)

    # --- provisioning --------------------------------------------------------------------------------------

    def start(self) -> "DockerEnvironment":
        """Sweep dead runs' leftovers, make sure the image exists, start the first container."""
        if self.hosts:
            self._place()
        else:
            from pytest_cua.envs.docker.images import docker_client

            self.docker = docker_client()
            sweep(self.docker)
            self._ensure_image()
        self.box = self._start_box(self.settings.image, role="env")
        return self

    def _place(self) -> None:
        """Choose the host (fewest running pytest-cua containers), sweep every answering host's dead leftovers,
        make the image present on the chosen one."""
        from pytest_cua.envs.docker.hosts import DockerHostError, ensure_image, place, record_run_host

        def before(host: Any, client: Any) -> None:
            remove_orphans(host.url, client)
            sweep(client)

        try:
            placement = place(self.hosts, self.worker_id, before=before)
            self.host, self.docker = placement.host, placement.client
            self.placement = {"running": placement.running, "unreachable": placement.unreachable}
            record_run_host(self.run_id, self.host)
            self.image_on_host = ensure_image(self.docker, self.host, self.settings.image, build=self.settings.build)
        except DockerHostError as exc:
            raise ProvisioningError(str(exc)) from None

    def _ensure_image(self) -> None:
        from pytest_cua.envs.docker.images import build_image, cache_dir, image_state, recipe_of

        recipe, _ = recipe_of(self.settings.image)
        state = image_state(self.docker, self.settings.image, recipe.recipe_hash() if recipe is not None else None)
        if recipe is not None and self.settings.build == "auto" and state != "current":
            lock_path = cache_dir() / "build.lock"
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            with open(lock_path, "w") as lock:  # one build at a time across xdist workers
                fcntl.flock(lock, fcntl.LOCK_EX)
                build_image(recipe, client=self.docker, progress=lambda s: None)
            return
        if state == "missing":
            image_name = self.settings.image.split(":")[0]
            hint = (f"build it with: pytest-cua image build {image_name}" if recipe is not None
                    else "no recipe of that name in fixtures/images/")
            raise ProvisioningError(f"docker image {self.settings.image!r} does not exist ({hint})")

    def _start_box(self, image: str, role: str) -> Box:
        started = time.monotonic()
        labels = owner_labels(self.run_id, self.worker_id, role)
        name = (f"pytest-cua-{slug(self.run_id)[:16]}-{slug(self.worker_id)}-{role}-{next(self._counter)}-"
                f"{uuid.uuid4().hex[:4]}")
        container = None
        try:
            container = self.docker.containers.create(
                image, detach=True, name=name, network_mode="none", mem_limit=self.settings.memory,
                memswap_limit=self.settings.memory, nano_cpus=int(self.settings.cpus * 1e9),
                shm_size=self.settings.shm_size, labels=labels, init=True)
            container.put_archive("/", executor_bundle())  # this pytest-cua's executor, before it starts
            container.start()
            client = ExecutorClient(container)
            deadline = started + self.settings.ready_timeout_s
            client.connect(deadline)
            wait_ready(client, deadline)
        except BaseException as exc:  # a Ctrl-C while the container starts too: it must not outlive the run
            logs = ""
            if container is not None:
                if isinstance(exc, Exception):
                    try:
                        logs = container.logs(tail=20).decode(errors="replace")
                    except Exception:
                        pass
                try:
                    container.remove(force=True, v=True)
                except Exception:  # its daemon is down: removed once it answers again
                    ORPHANS.setdefault(self._host_key(), []).append(("container", container.id))
            if not isinstance(exc, Exception):
                raise
            where = f" on docker host {self.host.url}" if self.host is not None else ""
            raise ProvisioningError(f"container {name} from image {image!r}{where} did not become ready: {exc}"
                                    + (f"\ncontainer log:\n{logs}" if logs else "")) from exc
        return Box(container, client, image, time.monotonic() - started)

    # --- snapshot and rollback -----------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        box = self._box()
        tag = f"{slug(self.run_id)[:40]}-{slug(self.worker_id)}-{len(self._snapshots) + 1}".lower()
        home = box.client.request("listing", root=HOME, skip=list(HOME_SKIP))["files"]
        changes = [f"LABEL {k}={v}" for k, v in owner_labels(self.run_id, self.worker_id, "snapshot").items()]
        image = box.container.commit(repository=SNAPSHOT_REPOSITORY, tag=tag, changes=changes)
        self._snapshots.append(image.id)
        snap = Snapshot(self.name, data=image.id, meta={"image": f"{SNAPSHOT_REPOSITORY}:{tag}", "home": home})
        self._start_spare(image.id)
        return snap

    def _start_spare(self, image_id: str) -> None:
        if not self.settings.spare:
            return

        def run() -> None:
            try:
                self._spare = self._start_box(image_id, role="spare")
                self.timings["spare_start"].append(self._spare.started_s)
            except BaseException as exc:  # reported when the spare is taken
                self._spare_error = exc

        self._spare, self._spare_error = None, None
        self._spare_thread = threading.Thread(target=run, name=f"pytest-cua-spare-{self.worker_id}", daemon=True)
        self._spare_thread.start()

    def _take_spare(self, image_id: str) -> Box | None:
        thread = self._spare_thread
        if thread is not None:
            thread.join(self.settings.ready_timeout_s + 10)
        # forgotten only once joined: a Ctrl-C during the join leaves it to close(), which joins it and removes
        # the spare it started (forgotten before, that spare outlived the run)
        self._spare_thread = None
        spare, self._spare = self._spare, None
        if spare is None and self._spare_error is not None:
            self.spare_failures.append(str(self._spare_error))
            self._spare_error = None
        if spare is not None and spare.image != image_id:
            self._reap(spare)
            return None
        return spare

    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        started = time.monotonic()
        old, self.box = self.box, None
        if old is not None:
            self._reap(old)
        fresh = self._take_spare(snapshot.data)
        if fresh is not None:
            # labels are fixed at creation (role=spare stays); the name says what it is now (off the
            # critical path: a rename costs tens of milliseconds)
            container = fresh.container
            threading.Thread(target=rename_quietly, args=(container, container.name.replace("-spare-", "-env-", 1)),
                             daemon=True).start()
        if fresh is None:
            fresh = self._start_box(snapshot.data, role="env")
        self.box = fresh
        self._start_spare(snapshot.data)
        if ORPHANS.get(self._host_key()):  # what a daemon that was down could not remove earlier
            self._reapers.append(threading.Thread(target=remove_orphans, args=(self._host_key(), self.docker),
                                                  name="pytest-cua-orphans", daemon=True))
            self._reapers[-1].start()
        self.timings["restore"].append(time.monotonic() - started)

    def _reap(self, box: Box) -> None:
        """Remove a used container in the background (removal takes a while and nobody waits for it)."""
        thread = threading.Thread(target=box.remove, name="pytest-cua-reaper", daemon=True)
        thread.start()
        self._reapers = [t for t in self._reapers if t.is_alive()] + [thread]

    def residue(self, snapshot: Snapshot) -> list[str]:
        box = self._box()
        left: list[str] = []
        if box.image != snapshot.data:
            left.append(f"container {box.container.name} runs image {box.image[:19]}, not the snapshot "
                        f"{snapshot.meta.get('image')}")
        changes = self._diff(box)
        paths = [c["Path"] for c in changes]
        kinds = {0: "changed", 1: "added", 2: "deleted"}
        for change in changes:
            path = change["Path"]
            if any(path == p or path.startswith(p) for p in EXPECTED_DIFF):
                continue
            if any(other.startswith(path.rstrip("/") + "/") for other in paths):
                continue  # a folder listed only because something below it is (that entry is judged itself)
            left.append(f"{kinds.get(change['Kind'], change['Kind'])}: {path}")
        home_now = box.client.request("listing", root=HOME, skip=list(HOME_SKIP))["files"]
        home_then: Mapping[str, str] = snapshot.meta.get("home", {})
        for rel in sorted(set(home_now) | set(home_then)):
            before, after = home_then.get(rel), home_now.get(rel)
            if before == after:
                continue
            what = "added" if before is None else "deleted" if after is None else "changed"
            line = f"{what}: {HOME}/{rel}"
            if line not in left:
                left.append(line)
        return left

    def _diff(self, box: Box) -> list[dict[str, Any]]:
        """What the container changed against its image: the overlay upper directory walked on this machine
        (milliseconds) when the daemon is the local one, else ``docker diff`` (seconds on a busy daemon). A
        remote daemon's paths name its own file system, never this one's, even when both are on one machine."""
        if self.host is not None and not self.host.is_local:
            return list(box.container.diff() or [])
        if box.graph_driver is None:
            box.container.reload()
            box.graph_driver = dict(box.container.attrs.get("GraphDriver") or {})
        fast = upper_diff(box.graph_driver)
        return fast if fast is not None else list(box.container.diff() or [])

    # --- tasks -------------------------------------------------------------------------------------------------

    def begin_task(self, task: "Task") -> None:
        start_task(self._box(), task, files_roots=self.files_roots, window_timeout_s=self.settings.window_timeout_s)

    def end_task(self, task: "Task", *, failed: bool) -> dict[str, Any]:
        return copy_artifacts(self._box(), task, self.artifacts_dir / task.id, failed=failed, crash=self._crash)

    def _crash(self, exc: ExecutorError) -> EnvironmentCrash:
        return EnvironmentCrash(f"container {self._box().container.name}: {exc}")

    # --- agent interface ---------------------------------------------------------------------------------------

    def observe(self, kinds: frozenset[str]) -> Observation:
        return observe(self._box(), kinds)

    def act(self, action: Action) -> ActionResult:
        return send_action(self._box(), action, resolve=self._resolve, crash=self._crash)

    @staticmethod
    def _resolve(box: Box, action: Action) -> tuple[Action, dict[str, Any]]:
        """``action`` with each element id replaced by the screen point of that element in the last
        observation; LookupError naming the id when that observation did not show it."""
        changes: dict[str, Any] = {}
        resolved: dict[str, Any] = {}
        for name in TARGET_FIELDS:
            value = getattr(action, name, None)
            if not isinstance(value, str):
                continue
            element = box.elements.get(value)
            if element is None or element.bbox is None:
                if not box.elements:
                    raise LookupError(f"field {name!r}: element {value!r}: no element ids in the last observation "
                                      f"(observe with axtree or som, or give a screen point)")
                raise LookupError(f"field {name!r}: no element {value!r} in the latest observation (it shows "
                                  f"e1..e{len(box.elements)}); use an id shown there, or a screen point")
            point = target_point(element, box.screen)
            changes[name] = point
            resolved[name] = {"id": value, "x": point.x, "y": point.y, "role": element.role, "name": element.name}
        return dataclasses.replace(action, **changes), {"resolved": resolved}

    # --- helpers -----------------------------------------------------------------------------------------------

    def _host_key(self) -> str:
        return self.host.url if self.host is not None else "local"

    def _box(self) -> Box:
        if self.box is None:
            raise EnvironmentCrash("the docker environment has no running container (closed or failed restore)")
        return self.box

    def run(self, argv: Sequence[str], timeout: float = 60) -> dict[str, Any]:
        """Run a command in the container (evaluators: parse R output, convert files); returns returncode,
        stdout, stderr. For host-side code only: agents reach the container through ``act`` alone."""
        return self._box().client.request("run", argv=list(argv), timeout=timeout, io_timeout=timeout + 10)

    def describe(self) -> dict[str, Any]:
        box = self.box
        out: dict[str, Any] = {"name": self.name, "image": self.settings.image,
                               "container": box.container.name if box else None, "memory": self.settings.memory,
                               "cpus": self.settings.cpus, "network": "none",
                               "docker_host": self.host.url if self.host is not None else "local"}
        if self.image_on_host is not None:
            out["image_on_host"] = self.image_on_host.to_json()
        if self.placement.get("unreachable"):
            out["unreachable_hosts"] = sorted(self.placement["unreachable"])
        return out

    def keep_env_message(self) -> str:
        box = self.box
        name = box.container.name if box is not None else "(none running)"
        docker, sweep_hint = "docker", ""
        if self.host is not None:
            tls_dir = self.host.tls_dir
            docker = (f"DOCKER_HOST={self.host.url}" + (f" DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH={tls_dir}" if tls_dir
                                                         else "") + " docker")
            sweep_hint = f" --hosts {self.host.url}" + (f" --tls-dir {tls_dir}" if tls_dir else "")
        return "\n".join([
            f"pytest-cua --keep-env: desktop container {name} of worker {self.worker_id} left running "
            f"(image {self.settings.image}, no network)",
            f"  look inside: {docker} exec -it {name} bash",
            f"  talk to its executor (JSON lines such as {{\"op\": \"windows\"}}): {docker} exec -i {name} python3 "
            f"/opt/cua/executor.py connect",
            f"  remove it, its spare and its snapshot images once this run has ended: pytest-cua docker sweep{sweep_hint}"])

    def close(self) -> None:
        thread, self._spare_thread = self._spare_thread, None
        if thread is not None:
            thread.join(self.settings.ready_timeout_s + 10)
        import docker.errors

        orphans: list[tuple[str, str]] = []
        for box in (self.box, self._spare):
            if box is not None and not box.remove():
                orphans.append(("container", box.container.id))
        self.box = self._spare = None
        for thread in self._reapers:
            thread.join(30)
        self._reapers = []
        for image_id in self._snapshots:
            try:
                self.docker.images.remove(image_id, force=True)
            except docker.errors.ImageNotFound:
                pass
            except Exception:
                orphans.append(("image", image_id))
        self._snapshots = []
        if orphans:
            ORPHANS.setdefault(self._host_key(), []).extend(orphans)
        if self.docker is not None and ORPHANS.get(self._host_key()):
            remove_orphans(self._host_key(), self.docker)
