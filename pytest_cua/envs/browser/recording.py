"""What is recorded of a task in the browser: the Playwright trace (``--cua-trace``, redacted when saved) and
a screencast of every tab (``--cua-video``, encoded when the task ends). A recording is a debugging aid: it
never fails a task.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_cua.envs.browser.options import BrowserOptions
from pytest_cua.envs.browser.traces import redact_zip
from pytest_cua.envs.browser.video import Screencast, find_ffmpeg
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


class TaskRecording:
    """The trace and the screencasts of the running task's context."""

    def __init__(self, options: BrowserOptions) -> None:
        self.options = options
        self.tracing = False
        self.screencasts: list[Screencast] = []

    def start_trace(self, context: "BrowserContext | None") -> None:
        if self.options.trace == "off" or context is None or self.tracing:
            return
        context.tracing.start(screenshots=True, snapshots=True, sources=False)
        self.tracing = True

    def stop_trace(self, context: "BrowserContext | None", path: Path | None) -> None:
        """Stop tracing; save the trace to ``path`` (redacted) unless it is None."""
        if not self.tracing:
            return
        self.tracing = False
        if context is None:
            return
        try:
            if path is None:
                context.tracing.stop()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                context.tracing.stop(path=str(path))
                redact_zip(path)
        except Exception:  # noqa: BLE001 - a trace is a debugging aid, never a failure
            pass

    def record_tabs(self, context: "BrowserContext | None") -> None:
        """--cua-video: record every open tab (a tab is recorded from the first call after it is ready)."""
        if not self.options.video or context is None:
            return
        recorded = {id(cast.page) for cast in self.screencasts}
        for page in context.pages:
            if id(page) not in recorded and not page.is_closed():
                try:
                    self.screencasts.append(Screencast(context, page, self.options.viewport))
                except Exception:  # noqa: BLE001 - not attached yet: the next call tries again
                    pass

    def stop_screencasts(self) -> None:
        for cast in self.screencasts:
            cast.stop()
        self.screencasts = []

    def forget(self) -> None:
        """The context is gone (a dropped connection): nothing of it can be saved."""
        self.screencasts = []
        self.tracing = False

    def save_videos(self, folder: Path, stem: str, artifacts: dict[str, Any]) -> None:
        """Encode the screencasts to ``folder/stem.webm`` (``stem-tab1.webm`` ...) and add their paths (or why
        there is none) to ``artifacts``."""
        casts, self.screencasts = self.screencasts, []
        ffmpeg = find_ffmpeg()
        videos = []
        for i, cast in enumerate(casts):
            dest = folder / f"{stem}{'' if i == 0 else f'-tab{i}'}.webm"
            try:
                if ffmpeg and cast.encode(ffmpeg, dest):
                    videos.append(str(dest))
                else:
                    artifacts["video_error"] = redact(f"{len(cast.frames)} frame(s); {cast.error or 'no frames'}")
            except Exception as exc:  # noqa: BLE001 - a video is a debugging aid, never a failure
                cast.stop()
                artifacts["video_error"] = f"{type(exc).__name__}: {exc}"[:300]
        if videos:
            artifacts["video"] = videos[0]
            if len(videos) > 1:
                artifacts["videos"] = videos


def safe_name(text: str) -> str:
    """``text`` (a task id) usable as a file name of its trace or video."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:120] or "task"
