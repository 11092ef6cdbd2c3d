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

Observations: ``screenshot``; ``axtree`` and ``som`` from the accessibility tree (AT-SPI, read in the container
by ``executor_axtree.py``; text, elements and marks made by ``pytest_cua.envs.docker.axtree``); ``dom`` is not
offered. The elements of the last observation stay with the container: an action whose target is one of their
ids (``e12``) goes to the centre of that element's box on the screen; an id the last observation did not show
is a failed action naming it.

Task data read from ``task.extra``::

    "start_files": [{"src": "fixtures/prosoft/sales.xlsx", "dest": "/root/sales.xlsx"}]   (or {dest: src})
    "start_command": ["soffice", "--calc", "/root/sales.xlsx"]                           (or a string)
    "window": "sales.xlsx"              title regex of the window to wait for after the start command
    "window_timeout_s": 90
    "start_commands": [{"command": [...], "window": "..."}, ...]   more programs, started and waited for
                                        in order (the last one has the focus)
    "settle": true                      after each window: wait until the screen is painted and still
    "artifacts": {"workbook": "/root/sales.xlsx"}   copied out by end_task, returned as {name: host path}
"""

from __future__ import annotations

import dataclasses
import fcntl
import itertools
import json
import re
import shlex
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua.actions import Action, ActionResult
from pytest_cua.envs.docker.axtree import build_tree, missing_windows, target_point
from pytest_cua.envs.docker.client import ExecutorClient, ExecutorError, executor_bundle
from pytest_cua.envs.docker.leftovers import owner_labels, sweep
from pytest_cua.envs.docker.options import INI_NAMES, OPTION_NAMES, DockerSettings, add_docker_options, resolve_settings
from pytest_cua.envs.docker.overlay import upper_diff
from pytest_cua.envs.base import (EnvContext, Environment, EnvironmentCrash, EnvironmentProvider, ProvisioningError,
                                  Snapshot)
from pytest_cua.envs.marks import draw_marks
from pytest_cua.observations import Element, Observation

if TYPE_CHECKING:
    from pytest_cua.tasks.task import Task

SNAPSHOT_REPOSITORY = "pytest-cua-snapshot"
HOME = "/root"
SWEEP_SETTLE_S = 2.0  # a dead worker's sweep looks again after this long, for a container created meanwhile
# what a fresh container writes by itself: the X server's lock and socket, logs, caches
EXPECTED_DIFF = ("/tmp/.X0-lock", "/tmp/.X11-unix", "/tmp/cua-", "/root/.cache/openbox", "/root/.Xauthority",
                 "/var/cache/fontconfig", "/var/lib/xkb", "/run/cua", "/usr/sbin/docker-init",
                 "/opt/cua", "/tmp/dbus-")  # /opt/cua: the executor, copied in at creation; a bus's autolaunch file
HOME_SKIP = (".cache/openbox", ".Xauthority")
UNSUPPORTED_KINDS = ("dom",)
TREE_KINDS = frozenset({"axtree", "som"})
AXTREE_IO_TIMEOUT_S = 60.0  # the executor bounds its walk (20 s) and the walk's process (30 s) itself
TARGET_FIELDS = ("target", "source", "destination")
TERMINAL_TYPES = ("done", "answer", "fail", "ask")


def _slug(text: str) -> str:
    """``text`` usable in container names and image tags (the labels keep it as it is)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "x"


def _rename_quietly(container: Any, name: str) -> None:
    try:
        container.rename(name)
    except Exception:
        pass


# what close() could not remove because its daemon did not answer: (kind, id) by host url, removed at the next
# environment start on that host in this process
_ORPHANS: dict[str, list[tuple[str, str]]] = {}


class _Box:
    """One running container and the connection to its executor."""

    def __init__(self, container: Any, client: ExecutorClient, image: str, started_s: float) -> None:
        self.container = container
        self.client = client
        self.image = image
        self.started_s = started_s
        self.graph_driver: dict[str, Any] | None = None  # read once, for the fast diff
        # the elements of the last observation of this container, by id (an id resolves to its box)
        self.elements: dict[str, Element] = {}
        self.screen: tuple[int, int] = (1280, 800)

    def remove(self) -> bool:
        """Remove the container; False when the daemon did not take the request (it is down)."""
        import docker.errors

        self.client.close()
        try:
            self.container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
        except Exception:
            return False
        return True


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
        self.box: _Box | None = None
        self._spare: _Box | None = None
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
            _remove_orphans(host.url, client)
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
        from pytest_cua.envs.docker.images import LABEL_HASH, build_image, cache_dir, image_labels
        from pytest_cua.envs.docker.recipes import RecipeError, load_recipe

        labels = image_labels(self.docker, self.settings.image)
        image_name = self.settings.image.split(":")[0]
        try:
            recipe = load_recipe(image_name)
        except RecipeError:
            recipe = None
        if recipe is not None and self.settings.build == "auto" and (
                labels is None or labels.get(LABEL_HASH) != recipe.recipe_hash()):
            lock_path = cache_dir() / "build.lock"
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            with open(lock_path, "w") as lock:  # one build at a time across xdist workers
                fcntl.flock(lock, fcntl.LOCK_EX)
                build_image(recipe, client=self.docker, progress=lambda s: None)
            return
        if labels is None:
            hint = (f"build it with: pytest-cua image build {image_name}" if recipe is not None
                    else "no recipe of that name in fixtures/images/")
            raise ProvisioningError(f"docker image {self.settings.image!r} does not exist ({hint})")

    def _start_box(self, image: str, role: str) -> _Box:
        started = time.monotonic()
        labels = owner_labels(self.run_id, self.worker_id, role)
        name = (f"pytest-cua-{_slug(self.run_id)[:16]}-{_slug(self.worker_id)}-{role}-{next(self._counter)}-"
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
            self._wait_ready(client, deadline)
        except Exception as exc:
            logs = ""
            if container is not None:
                try:
                    logs = container.logs(tail=20).decode(errors="replace")
                except Exception:
                    pass
                try:
                    container.remove(force=True, v=True)
                except Exception:  # its daemon is down: removed once it answers again
                    _ORPHANS.setdefault(self._host_key(), []).append(("container", container.id))
            where = f" on docker host {self.host.url}" if self.host is not None else ""
            raise ProvisioningError(f"container {name} from image {image!r}{where} did not become ready: {exc}"
                                    + (f"\ncontainer log:\n{logs}" if logs else "")) from exc
        return _Box(container, client, image, time.monotonic() - started)

    @staticmethod
    def _wait_ready(client: ExecutorClient, deadline: float) -> None:
        """Poll the executor until the display answers and the window manager runs; bounded."""
        delay = 0.05
        while True:
            answer = client.request("ping", io_timeout=10)
            if answer.get("display") and answer.get("wm"):
                return
            if time.monotonic() > deadline:
                raise ExecutorError("ping", f"display or window manager not up: {answer}")
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    # --- snapshot and rollback -----------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        box = self._box()
        tag = f"{_slug(self.run_id)[:40]}-{_slug(self.worker_id)}-{len(self._snapshots) + 1}".lower()
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

    def _take_spare(self, image_id: str) -> _Box | None:
        thread, self._spare_thread = self._spare_thread, None
        if thread is not None:
            thread.join(self.settings.ready_timeout_s + 10)
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
            threading.Thread(target=_rename_quietly, args=(container, container.name.replace("-spare-", "-env-", 1)),
                             daemon=True).start()
        if fresh is None:
            fresh = self._start_box(snapshot.data, role="env")
        self.box = fresh
        self._start_spare(snapshot.data)
        if _ORPHANS.get(self._host_key()):  # what a daemon that was down could not remove earlier
            self._reapers.append(threading.Thread(target=_remove_orphans, args=(self._host_key(), self.docker),
                                                  name="pytest-cua-orphans", daemon=True))
            self._reapers[-1].start()
        self.timings["restore"].append(time.monotonic() - started)

    def _reap(self, box: _Box) -> None:
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

    def _diff(self, box: _Box) -> list[dict[str, Any]]:
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
        box = self._box()
        extra = task.extra
        for src, dest in self._start_files(task):
            box.client.put_file(src, dest)
        steps: list[tuple[str, Any, Any, Any]] = []
        if extra.get("start_command"):
            steps.append(("start_command", extra["start_command"], extra.get("window"),
                          extra.get("window_timeout_s")))
        elif extra.get("window"):
            steps.append(("window", None, extra["window"], extra.get("window_timeout_s")))
        raw_steps = extra.get("start_commands") or []
        if not isinstance(raw_steps, list):
            raise ProvisioningError(f"task {task.id!r}: field 'start_commands' must be a list of "
                                    f"{{'command': ..., 'window': ...}} objects")
        for i, step in enumerate(raw_steps):
            if not isinstance(step, Mapping) or "command" not in step:
                raise ProvisioningError(f"task {task.id!r}: field 'start_commands[{i}]' must be an object with "
                                        f"'command' (and 'window'), got {step!r}")
            steps.append((f"start_commands[{i}]", step["command"], step.get("window"), step.get("window_timeout_s")))
        for field_name, command, window, window_timeout in steps:
            if command:
                argv = shlex.split(command) if isinstance(command, str) else list(command)
                if not argv or not all(isinstance(a, str) for a in argv):
                    raise ProvisioningError(f"task {task.id!r}: field {field_name!r} must be a string or a list of "
                                            f"strings, got {command!r}")
                box.client.request("spawn", argv=argv, cwd=HOME)
            if window:
                timeout = float(window_timeout or self.settings.window_timeout_s)
                try:
                    box.client.request("wait_window", pattern=str(window), timeout=timeout, io_timeout=timeout + 15)
                except ExecutorError as exc:
                    raise ProvisioningError(f"task {task.id!r}: field {field_name!r}: window {window!r}: "
                                            f"{exc}") from None
                if extra.get("settle", True):
                    self._wait_settled(box, timeout, task.id)

    def _wait_settled(self, box: _Box, timeout: float, task_id: str, stable_s: float = 1.5,
                      min_colors: int = 12, max_changed_px: int = 40) -> None:
        """Wait until the screen shows more than a blank frame and stopped changing for ``stable_s``: an
        application maps its window before it paints the document, and keys sent earlier may be lost."""
        import io

        from PIL import Image

        from PIL import ImageChops

        deadline = time.monotonic() + timeout
        last: Any = None
        since = time.monotonic()
        while True:
            image = Image.open(io.BytesIO(box.client.screenshot())).convert("L").resize((320, 200))
            colors = image.getcolors(maxcolors=256)
            painted = colors is None or len(colors) >= min_colors
            now = time.monotonic()
            # a blinking text cursor changes a few pixels: "still" tolerates that much
            moved = last is None or sum(ImageChops.difference(image, last).point(
                lambda v: 255 if v > 24 else 0).histogram()[255:]) > max_changed_px
            if moved:
                last, since = image, now
            elif painted and now - since >= stable_s:
                return
            if now > deadline:
                raise ProvisioningError(f"task {task_id!r}: the screen did not settle within {timeout:.0f} s "
                                        f"({'still changing' if painted else 'nothing painted'})")
            time.sleep(0.25)

    def _start_files(self, task: "Task") -> list[tuple[Path, str]]:
        raw = task.extra.get("start_files") or []
        items: list[tuple[Any, Any]]
        if isinstance(raw, Mapping):
            items = [(src, dest) for dest, src in raw.items()]
        elif isinstance(raw, list):
            items = []
            for i, item in enumerate(raw):
                if not isinstance(item, Mapping) or "src" not in item or "dest" not in item:
                    raise ProvisioningError(f"task {task.id!r}: field 'start_files[{i}]' must be "
                                            f"{{'src': ..., 'dest': ...}}, got {item!r}")
                items.append((item["src"], item["dest"]))
        else:
            raise ProvisioningError(f"task {task.id!r}: field 'start_files' must be a list or a mapping")
        out = []
        for src, dest in items:
            if not isinstance(dest, str) or not dest.startswith("/"):
                raise ProvisioningError(f"task {task.id!r}: field 'start_files': dest must be an absolute path in "
                                        f"the container, got {dest!r}")
            out.append((self._find_file(task, str(src)), dest))
        return out

    def _find_file(self, task: "Task", src: str) -> Path:
        path = Path(src)
        candidates = [path] if path.is_absolute() else [root / path for root in self.files_roots]
        for candidate in candidates:
            if candidate.is_file():
                return candidate
        raise ProvisioningError(f"task {task.id!r}: field 'start_files': {src!r} not found (looked in "
                                f"{', '.join(str(c) for c in candidates)})")

    def end_task(self, task: "Task", *, failed: bool) -> dict[str, Any]:
        box = self._box()
        out: dict[str, Any] = {}
        folder = self.artifacts_dir / task.id
        artifacts = task.extra.get("artifacts") or {}
        if not isinstance(artifacts, Mapping):
            raise ProvisioningError(f"task {task.id!r}: field 'artifacts' must map names to container paths")
        for name, path in sorted(artifacts.items()):
            try:
                out[name] = box.client.get_file(str(path), folder / f"{name}{Path(str(path)).suffix}")
            except ExecutorError as exc:
                if exc.broken:
                    raise EnvironmentCrash(f"container {box.container.name}: {exc}") from None
                # a missing artifact is the agent's shortfall: the evaluator sees it absent
        if failed:
            folder.mkdir(parents=True, exist_ok=True)
            shot = folder / "final-screen.png"
            shot.write_bytes(box.client.screenshot())
            out["final_screen"] = shot
        return out

    # --- agent interface ---------------------------------------------------------------------------------------

    def observe(self, kinds: frozenset[str]) -> Observation:
        box = self._box()
        timings: dict[str, float] = {}
        tree_answer: dict[str, Any] | None = None
        try:
            wins = box.client.request("windows")
            if kinds & TREE_KINDS:  # first: the screenshot then shows the screen the ids were given on
                started = time.perf_counter()
                tree_answer = self._axtree(box)
                timings["axtree_ms"] = (time.perf_counter() - started) * 1000
            shot = None
            if kinds & {"screenshot", "som"}:
                started = time.perf_counter()
                shot = box.client.screenshot()
                timings["screenshot_ms"] = (time.perf_counter() - started) * 1000
                box.screen = _png_size(shot) or box.screen
        except ExecutorError as exc:
            raise EnvironmentCrash(f"container {box.container.name}: {exc}") from None
        titles = [w["title"] for w in wins["windows"]]
        extra: dict[str, Any] = {"windows": titles, "active_window": wins["active_title"]}
        obs = Observation(screenshot=shot if "screenshot" in kinds else None, title=wins["active_title"], extra=extra)
        unsupported = sorted(set(kinds) & set(UNSUPPORTED_KINDS))
        if unsupported:
            extra["unsupported_kinds"] = unsupported
            extra["note"] = (f"{', '.join(unsupported)} not available on the docker desktop; use axtree or som "
                             f"(the accessibility tree) or screenshot")
        if tree_answer is None:
            box.elements = {}  # ids name what the last observation showed: this one showed none
        else:
            self._add_tree(box, obs, kinds, tree_answer, titles)
            if "som" in kinds and shot is not None:
                started = time.perf_counter()
                obs.som = draw_marks(shot, obs.elements)
                timings["som_ms"] = (time.perf_counter() - started) * 1000
        extra["timings_ms"] = {k: round(v, 1) for k, v in timings.items()}
        return obs

    def _axtree(self, box: _Box) -> dict[str, Any]:
        """The executor's accessibility walk; an op that fails (not the connection) is an unavailable tree."""
        try:
            return box.client.request("axtree", io_timeout=AXTREE_IO_TIMEOUT_S)
        except ExecutorError as exc:
            if exc.broken:
                raise
            return {"available": False, "reason": str(exc)}

    @staticmethod
    def _add_tree(box: _Box, obs: Observation, kinds: frozenset[str], answer: dict[str, Any],
                  titles: list[str]) -> None:
        """The tree's text and elements into ``obs``; the elements become the container's id map (an
        unavailable tree empties it: no id resolves to an older screen)."""
        if answer.get("screen"):
            box.screen = (int(answer["screen"][0]), int(answer["screen"][1]))
        if not answer.get("available"):
            box.elements = {}
            reason = str(answer.get("reason") or "unknown")
            obs.extra["axtree_unavailable"] = reason
            if "axtree" in kinds:
                obs.axtree = f"(no accessibility tree: {reason})"
            return
        tree = build_tree(answer.get("nodes") or [], box.screen)
        box.elements = dict(tree.elements)
        obs.elements = tree.elements
        apps = list(answer.get("apps") or [])
        silent = missing_windows(titles, apps)
        if "axtree" in kinds:
            note = ("\n(windows without an accessibility tree, see the screenshot: "
                    + "; ".join(json.dumps(t, ensure_ascii=False) for t in silent) + ")") if silent else ""
            obs.axtree = (tree.text or "(no program on the screen exports an accessibility tree)") + note
        obs.extra["axtree"] = {"apps": [{"name": a.get("name"), "nodes": a.get("nodes")} for a in apps],
                               "nodes": tree.nodes, "elements": len(tree.elements),
                               "truncated": list(answer.get("truncated") or []),
                               "walk_ms": round(float(answer.get("walk_s") or 0) * 1000, 1)}
        if silent:
            obs.extra["axtree"]["windows_without_tree"] = silent

    def act(self, action: Action) -> ActionResult:
        started = time.monotonic()
        if action.kind in TERMINAL_TYPES:
            return ActionResult(action, ok=True, duration_s=0.0)
        box = self._box()
        sent: Action = action
        detail: dict[str, Any] = {}
        if any(isinstance(getattr(action, f, None), str) for f in TARGET_FIELDS):
            try:
                sent, detail = self._resolve(box, action)
            except LookupError as exc:
                return ActionResult(action, ok=False, error=str(exc.args[0]), duration_s=time.monotonic() - started)
        try:
            box.client.request("act", action=sent.to_dict())
        except ExecutorError as exc:
            if exc.broken:
                raise EnvironmentCrash(f"container {box.container.name}: {exc}") from None
            return ActionResult(action, ok=False, error=str(exc).split(": ", 1)[-1],
                                duration_s=time.monotonic() - started, detail=detail)
        return ActionResult(action, ok=True, duration_s=time.monotonic() - started, detail=detail)

    @staticmethod
    def _resolve(box: _Box, action: Action) -> tuple[Action, dict[str, Any]]:
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

    def _box(self) -> _Box:
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
            _ORPHANS.setdefault(self._host_key(), []).extend(orphans)
        if self.docker is not None and _ORPHANS.get(self._host_key()):
            _remove_orphans(self._host_key(), self.docker)


class DockerProvider(EnvironmentProvider):
    """The ``docker`` provider: a desktop container per xdist worker (entry point of
    ``pytest_cua.environments``). Settings: ``--cua-docker-*`` options over the suite's
    ``environment_options`` over the defaults (``pytest_cua.envs.docker.options``)."""

    name = "docker"

    def add_options(self, group: Any) -> None:
        add_docker_options(group)

    def configure(self, config: Any) -> None:
        """The ``--cua-docker-*`` options and ini keys (hosts, certificate folder, sizes) are checked before
        anything runs; what a suite's ``environment_options`` add is checked when its desktop is made."""
        if not any(getattr(config.option, dest, None) is not None for dest in OPTION_NAMES.values()) \
                and not any(_ini(config, key) for key in INI_NAMES.values()):
            return
        try:
            resolve_settings(config)
        except ValueError as exc:
            import pytest

            raise pytest.UsageError(str(exc)) from None

    def create(self, ctx: EnvContext) -> DockerEnvironment:
        try:
            settings = resolve_settings(ctx.config, ctx.suite)
        except ValueError as exc:
            raise ProvisioningError(str(exc)) from None
        roots = []
        base_dir = getattr(ctx.suite, "base_dir", None) if ctx.suite is not None else None
        if base_dir is not None:
            roots.append(Path(base_dir))
        rootpath = getattr(ctx.config, "rootpath", None)
        if rootpath is not None:
            roots.append(Path(rootpath))
        env = DockerEnvironment(settings, run_id=ctx.run_id, worker_id=ctx.worker_id,
                                artifacts_dir=ctx.artifacts_dir, files_roots=roots)
        try:
            return env.start()
        except BaseException:
            env.close()
            raise


    def sweep(self, run_id: str, worker_id: str | None) -> list[str]:
        """The containers, spares and snapshot images of a dead worker (or of every process of the run), on the
        local daemon and on every host the run placed desktops on (``hosts.run_hosts``)."""
        try:
            import docker  # noqa: F401
        except ModuleNotFoundError:
            return []
        from pytest_cua.envs.docker.hosts import LOCAL, DockerHost, DockerHostError, connect, run_hosts

        lines: list[str] = []
        for host in [DockerHost(LOCAL), *run_hosts(run_id)]:
            try:
                client = connect(host, timeout=30)
            except DockerHostError as exc:
                if not host.is_local:  # no local daemon: nothing of ours can be running there
                    lines.append(f"docker: sweeping {host.url} failed: {exc}")
                continue
            prefix = "" if host.is_local else f"{host.url}: "
            found: list[str] = []
            errors: list[str] = []
            try:
                report = sweep(client, run_id=run_id, worker_id=worker_id, progress=found.append)
                errors += report.errors
                if report.containers:
                    # a container the dead process was creating (its warm spare) may appear after the first pass
                    time.sleep(SWEEP_SETTLE_S)
                    again = sweep(client, run_id=run_id, worker_id=worker_id, progress=found.append)
                    errors += again.errors
            finally:
                client.close()
            lines += [prefix + line for line in found] + [f"docker: {prefix}{e}" for e in errors]
        return lines


def _png_size(png: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's header (no decoding)."""
    if len(png) >= 24 and png[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return None


def _ini(config: Any, name: str) -> str:
    try:
        return str(config.getini(name) or "")
    except ValueError:  # not registered
        return ""


def _remove_orphans(host_url: str, client: Any) -> None:
    """Remove what an earlier environment of this process could not remove from ``host_url`` (its daemon was
    down then); what still fails stays listed."""
    import docker.errors

    left = []
    for kind, ident in _ORPHANS.pop(host_url, []):
        try:
            if kind == "container":
                client.api.remove_container(ident, force=True, v=True)
            else:
                client.api.remove_image(ident, force=True)
        except docker.errors.NotFound:
            pass
        except Exception:
            left.append((kind, ident))
    if left:
        _ORPHANS.setdefault(host_url, []).extend(left)


PROVIDER = DockerProvider()
provide = create = PROVIDER.create
