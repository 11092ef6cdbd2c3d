"""What a desktop task starts with, from ``task.extra``: files put in the container, programs started, their
windows waited for and the screen settled (``start_task``)::

    "start_files": [{"src": "fixtures/prosoft/sales.xlsx", "dest": "/root/sales.xlsx"}]   (or {dest: src})
    "start_command": ["soffice", "--calc", "/root/sales.xlsx"]                           (or a string)
    "window": "sales.xlsx"              title regex of the window to wait for after the start command
    "window_timeout_s": 90
    "start_commands": [{"command": [...], "window": "..."}, ...]   more programs, started and waited for
                                        in order (the last one has the focus)
    "settle": true                      after each window: wait until the screen is painted and still
                                        (false: no wait; {"min_shades": N}: the window's client area must
                                        show more than N shades, for a program that paints its frame first)
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua.envs.base import ProvisioningError
from pytest_cua.envs.docker.client import ExecutorError
from pytest_cua.envs.docker.containers import HOME, Box

if TYPE_CHECKING:
    from pytest_cua.tasks.task import Task


def files_roots(ctx: Any) -> list[Path]:
    """Where a task's relative start files are looked up (an ``EnvContext``): the suite's folder, then the run's
    root folder."""
    roots = []
    base_dir = getattr(ctx.suite, "base_dir", None) if ctx.suite is not None else None
    if base_dir is not None:
        roots.append(Path(base_dir))
    rootpath = getattr(ctx.config, "rootpath", None)
    if rootpath is not None:
        roots.append(Path(rootpath))
    return roots


#: programs that map their window and paint an empty frame (a flat area and a rule or two) seconds before the
#: document: the client area must show more than this many shades before keys reach them (LibreOffice's
#: toolbar icons and antialiased labels bring dozens; its frame alone brings two)
FRAME_FIRST_SHADES = {"soffice": 16, "libreoffice": 16, "localc": 16, "lowriter": 16, "loimpress": 16}


def settle_shades(settle: Any, argv: Sequence[str] | None, task_id: str) -> int | None:
    """How many shades the window's client area must exceed once the screen is still (None: no settling): a
    task's ``"settle": {"min_shades": N}``, else the start program's entry in ``FRAME_FIRST_SHADES``, else 1."""
    if settle is False:
        return None
    if isinstance(settle, Mapping):
        unknown = sorted(set(settle) - {"min_shades"})
        shades = settle.get("min_shades", 1)
        if unknown or isinstance(shades, bool) or not isinstance(shades, int) or shades < 1:
            raise ProvisioningError(f"task {task_id!r}: field 'settle' must be true, false or "
                                    f"{{\"min_shades\": N}} with N a whole number >= 1, got {settle!r}")
        return shades
    if settle is not True:
        raise ProvisioningError(f"task {task_id!r}: field 'settle' must be true, false or {{\"min_shades\": N}}, "
                                f"got {settle!r}")
    program = Path(argv[0]).name if argv else ""
    return FRAME_FIRST_SHADES.get(program, 1)


def start_task(box: Box, task: "Task", *, files_roots: Sequence[Path], window_timeout_s: float) -> None:
    """Put the task's start files in the container, run its start commands and wait for their windows (and
    for the screen to settle); a bad field or a window that does not come is a ``ProvisioningError``."""
    extra = task.extra
    for src, dest in _start_files(task, files_roots):
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
        argv: list[str] | None = None
        if command:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
            if not argv or not all(isinstance(a, str) for a in argv):
                raise ProvisioningError(f"task {task.id!r}: field {field_name!r} must be a string or a list of "
                                        f"strings, got {command!r}")
            box.client.request("spawn", argv=argv, cwd=HOME)
        if window:
            timeout = float(window_timeout or window_timeout_s)
            try:
                found = box.client.request("wait_window", pattern=str(window), timeout=timeout,
                                           io_timeout=timeout + 15)
            except ExecutorError as exc:
                raise ProvisioningError(f"task {task.id!r}: field {field_name!r}: window {window!r}: "
                                        f"{exc}") from None
            shades = settle_shades(extra.get("settle", True), argv, task.id)
            if shades is not None:
                _wait_settled(box, timeout, task.id, window=str(found.get("window", "")), client_shades=shades)
    box.client.request("mark_task")  # a wait on a file ends when the file is written from now on


def _wait_settled(box: Box, timeout: float, task_id: str, *, window: str = "", stable_s: float = 1.5,
                  min_colors: int = 12, max_changed_px: int = 40, client_shades: int = 1) -> None:
    """Wait until the window's client area shows more than ``client_shades`` shades and the screen stopped
    changing for ``stable_s``: an application maps its window (the window manager draws the title bar at once)
    before it paints the document, and keys sent earlier are lost. Without a window (or when it is gone), the
    whole screen is looked at."""
    import io

    from PIL import Image, ImageChops

    deadline = time.monotonic() + timeout
    last: Any = None
    since = time.monotonic()
    while True:
        screen = Image.open(io.BytesIO(box.client.screenshot())).convert("L")
        image = screen.resize((320, 200))
        now = time.monotonic()
        # a blinking text cursor changes a few pixels: "still" tolerates that much
        moved = last is None or sum(ImageChops.difference(image, last).point(
            lambda v: 255 if v > 24 else 0).histogram()[255:]) > max_changed_px
        if moved:
            last, since = image, now
        elif now - since >= stable_s and _painted(box, screen, window, min_colors, client_shades):
            return
        if now > deadline:
            painted = _painted(box, screen, window, min_colors, client_shades)
            raise ProvisioningError(f"task {task_id!r}: the screen did not settle within {timeout:.0f} s "
                                    f"({'still changing' if painted else 'the window shows nothing'})")
        time.sleep(0.25)


def _painted(box: Box, screen: Any, window: str, min_colors: int, client_shades: int = 1, inset: int = 4) -> bool:
    """Is anything drawn? In the window's client area: more than ``client_shades`` shades (one by default: a
    terminal's black text on white is two); on the whole screen, for want of a window, more than ``min_colors`` shades (the window
    manager's decorations alone bring a few). The client area is taken ``inset`` pixels inside its edges (a
    blank window may draw a border), and shades are counted at full resolution (scaling down would invent
    shades at every edge)."""
    if window:
        try:
            g = box.client.request("window_geometry", window=window)
        except ExecutorError:
            g = None
        if g and g["width"] > 0 and g["height"] > 0:
            pad = min(inset, g["width"] // 4, g["height"] // 4)
            area = screen.crop((max(0, g["x"] + pad), max(0, g["y"] + pad),
                                min(screen.width, g["x"] + g["width"] - pad),
                                min(screen.height, g["y"] + g["height"] - pad)))
            return area.width > 0 and area.height > 0 and area.getcolors(maxcolors=client_shades) is None
    return screen.getcolors(maxcolors=min_colors) is None


def _start_files(task: "Task", files_roots: Sequence[Path]) -> list[tuple[Path, str]]:
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
        out.append((_find_file(task, str(src), files_roots), dest))
    return out


def _find_file(task: "Task", src: str, files_roots: Sequence[Path]) -> Path:
    path = Path(src)
    candidates = [path] if path.is_absolute() else [root / path for root in files_roots]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ProvisioningError(f"task {task.id!r}: field 'start_files': {src!r} not found (looked in "
                            f"{', '.join(str(c) for c in candidates)})")
