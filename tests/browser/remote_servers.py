"""Browsers as separate services on loopback, for the remote-browser tests and benchmarks/remote_browsers.py:
a Playwright browser server (``playwright launch-server``, its own process group) and a Chromium with a
DevTools port."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_cua.envs.browser.chromium import QUIET_FLAGS, find_chromium



def kill_group(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """SIGKILL a process started with ``start_new_session`` and everything in its group; wait for it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)

class BrowserServer:
    """``python -m playwright launch-server --browser chromium`` with the system Chromium; ``url`` is its
    ws:// endpoint (with its secret path)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="cua-browser-server-"))
        exe = find_chromium(None) or ""
        config = {"executablePath": exe, "args": ["--no-sandbox", *QUIET_FLAGS], "headless": True,
                  "host": "127.0.0.1", "port": 0}
        (self.dir / "config.json").write_text(json.dumps(config))
        self.log = open(self.dir / "out.txt", "w+b")
        self.proc = subprocess.Popen([sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium",
                                      "--config", str(self.dir / "config.json")],
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.url = self._wait_url()

    def _wait_url(self) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = (self.dir / "out.txt").read_text(errors="replace")
            for line in text.splitlines():
                if line.startswith("ws://"):
                    return line.strip()
            if self.proc.poll() is not None:
                raise RuntimeError(f"launch-server exited: {text[-2000:]}")
            time.sleep(0.1)
        raise RuntimeError("launch-server printed no ws:// endpoint within 30 s")

    def kill(self) -> None:
        """SIGKILL the server and its Chromium (the whole process group)."""
        kill_group(self.proc)

    def close(self) -> None:
        self.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class DevToolsChromium:
    """A headless Chromium with ``--remote-debugging-port`` on 127.0.0.1; ``url`` is its http:// endpoint."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="cua-cdp-chromium-"))
        exe = find_chromium(None) or "chromium"
        self.proc = subprocess.Popen([exe, "--headless=new", "--no-sandbox", *QUIET_FLAGS,
                                      "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                                      f"--user-data-dir={self.dir}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        port_file = self.dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("Chromium opened no DevTools port")
            time.sleep(0.1)
        self.url = f"http://127.0.0.1:{port_file.read_text().split()[0]}"

    def close(self) -> None:
        kill_group(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)
