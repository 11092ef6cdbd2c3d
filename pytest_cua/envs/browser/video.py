"""Video of a task (``--cua-video``): a CDP screencast of each tab, encoded to WebM with an ffmpeg."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

def find_ffmpeg() -> str | None:
    """An ffmpeg to encode ``--cua-video``: imageio-ffmpeg's bundled binary, one on PATH, or Playwright's own
    (``playwright install ffmpeg``)."""
    try:
        import imageio_ffmpeg

        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except Exception:  # noqa: BLE001 - not installed, or no binary for this platform
        pass
    found = shutil.which("ffmpeg")
    if found:
        return found
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    for candidate in sorted(root.glob("ffmpeg-*/ffmpeg-linux"), reverse=True):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return None


class Screencast:
    """A video of one tab from CDP screencast frames, encoded to WebM with ffmpeg at the end.

    Unlike Playwright's own recording it needs no context option (so the task's context stays open for the
    evaluator) and works with any ffmpeg; frames arrive whenever the page repaints, their timestamps set the
    timing."""

    FPS = 5
    MAX_SECONDS = 1800

    MAX_SIZE = (1280, 720)

    def __init__(self, context: "BrowserContext", page: "Page", viewport: tuple[int, int]) -> None:
        self.frames: list[tuple[float, bytes]] = []
        self.error: str | None = None
        vw, vh = viewport
        self.viewport = viewport
        self.scale = min(self.MAX_SIZE[0] / vw, self.MAX_SIZE[1] / vh, 1.0)
        w, h = int(vw * self.scale), int(vh * self.scale)
        self.size = (w - w % 2, h - h % 2)  # what Chrome sends, made even for the encoder
        self.page = page
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("Page.screencastFrame", self._on_frame)
        self.cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70, "maxWidth": self.MAX_SIZE[0],
                                               "maxHeight": self.MAX_SIZE[1]})
        self.active = True

    def _grab(self) -> None:
        """One frame on demand: a static page sends no screencast frames after the first."""
        try:
            clip = {"x": 0, "y": 0, "width": self.viewport[0], "height": self.viewport[1], "scale": self.scale}
            data = self.cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": 70, "clip": clip,
                                                            "optimizeForSpeed": True})
            self.frames.append((time.time(), base64.b64decode(data["data"])))
        except Exception:  # noqa: BLE001 - the tab closed meanwhile
            pass

    def _on_frame(self, params: dict[str, Any]) -> None:
        try:
            self.frames.append((float(params["metadata"].get("timestamp") or time.time()),
                                base64.b64decode(params["data"])))
            self.cdp.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})
        except Exception:  # noqa: BLE001 - the tab closed meanwhile
            pass

    def stop(self) -> None:
        if self.active:
            self._grab()
            self.active = False
            try:
                self.cdp.send("Page.stopScreencast")
                self.cdp.detach()
            except Exception:  # noqa: BLE001 - already gone
                pass

    def encode(self, ffmpeg: str, dest: Path) -> bool:
        """Write the frames as a constant-rate WebM; False when there was nothing to write."""
        self.stop()
        if not self.frames:
            return False
        frames = sorted(self.frames, key=lambda f: f[0])
        start, end = frames[0][0], min(frames[-1][0] + 1.0, frames[0][0] + self.MAX_SECONDS)
        count = max(1, int((end - start) * self.FPS))
        dest.parent.mkdir(parents=True, exist_ok=True)
        w, h = self.size
        proc = subprocess.Popen(
            [ffmpeg, "-y", "-loglevel", "error", "-f", "image2pipe", "-framerate", str(self.FPS), "-c:v", "mjpeg",
             "-i", "-", "-vf", f"crop='min(iw,{w})':'min(ih,{h})':0:0,pad={w}:{h}:0:0",
             "-c:v", "vp8" if "ms-playwright" in ffmpeg else "libvpx", "-b:v", "1M", "-pix_fmt", "yuv420p",
             str(dest)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        index = 0
        try:
            for n in range(count):
                t = start + n / self.FPS
                while index + 1 < len(frames) and frames[index + 1][0] <= t:
                    index += 1
                assert proc.stdin is not None
                proc.stdin.write(frames[index][1])
            proc.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass
        proc.wait(timeout=300)
        if proc.returncode != 0:
            self.error = (proc.stderr.read().decode(errors="replace") if proc.stderr else "")[-500:]
        return proc.returncode == 0 and dest.exists()
