"""Fixtures of the browser tests: the local pages served on 127.0.0.1 and one Chromium per test module."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.envs.browser.options import BrowserOptions


PAGES = Path(__file__).with_name("pages")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser closed a context mid-download


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL of tests/browser/pages served on 127.0.0.1."""
    server, url = serve(PAGES)
    yield url
    server.shutdown()


@pytest.fixture(scope="module")
def browser_env(pages_url: str, chromium_available: None, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[BrowserEnvironment]:
    """One started browser environment per test module (1280x800 to keep screenshots cheap)."""
    env = BrowserEnvironment(BrowserOptions(viewport=(1280, 800), action_timeout_s=2.0),
                             start_url=pages_url + "actions.html",
                             artifacts_dir=tmp_path_factory.mktemp("artifacts"))
    env.start()
    yield env
    env.close()


@pytest.fixture
def env(browser_env: BrowserEnvironment) -> BrowserEnvironment:
    """The module's browser, on a fresh context at actions.html."""
    browser_env.new_context()
    return browser_env


def events(env: BrowserEnvironment) -> list[str]:
    return env.page.evaluate("window.events")
