"""Fixtures of the UI tests: one org server and one Chromium per test module, a page logged in through
frontdoor, the org rolled back after every test, and simple-salesforce to read what the UI wrote."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.envs.browser.options import BrowserOptions
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.orgs.localorg.store import Org

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def logged_in_environment(server: OrgServer, artifacts: Path) -> BrowserEnvironment:
    """The product's browser environment (1280x900, 5 s per action), started and logged in to ``server`` by
    frontdoor; the caller closes it."""
    environment = BrowserEnvironment(
        BrowserOptions(viewport=(1280, 900), action_timeout_s=5.0),
        login_url=lambda: f"{server.url}/secur/frontdoor.jsp?sid={server.access_token()}", home_url=server.url,
        ignore_https_errors=True, artifacts_dir=artifacts)
    environment.start()
    environment.restore(environment.snapshot())
    return environment


@pytest.fixture(scope="module")
def env(ui_server: OrgServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserEnvironment]:
    """The product's browser environment logged in to the module's org (``logged_in_environment``), for tests
    that act as an agent does; closed after the module."""
    environment = logged_in_environment(ui_server, tmp_path_factory.mktemp("env"))
    yield environment
    environment.close()


@pytest.fixture(scope="session")
def _ui_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # shared by the modules' servers so that the TLS files and credentials are made once
    return tmp_path_factory.mktemp("uiorg")


@pytest.fixture(scope="module")
def ui_server(_ui_data_dir: Path) -> Iterator[OrgServer]:
    """A running org server with the UI (one per module)."""
    server = OrgServer(_ui_data_dir, host="127.0.0.1", port=0)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def _playwright() -> Iterator[Any]:
    # the Playwright driver (a node process) starts once, and the browser too (``ui_browser``)
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found")
    from pytest_cua.envs.browser import shared_playwright

    with shared_playwright() as pw:  # shared with browser environments of other tests in this process
        yield pw


@pytest.fixture(scope="session")
def _ui_browsers(_playwright: Any) -> Iterator[list[Any]]:
    # one Chromium per worker process, launched by the first module that wants it (each module has its own
    # contexts); a module that finds it gone (a crash) launches another
    browsers: list[Any] = []
    yield browsers
    for browser in browsers:
        try:
            browser.close()
        except Exception:  # noqa: BLE001 - gone already
            pass


@pytest.fixture(scope="module")
def ui_browser(_playwright: Any, _ui_browsers: list[Any]) -> Any:
    """Headless Chromium through Playwright's sync API (one per worker; contexts per module)."""
    if not _ui_browsers or not _ui_browsers[-1].is_connected():
        _ui_browsers.append(_playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                        args=CHROMIUM_ARGS))
    return _ui_browsers[-1]


@pytest.fixture(scope="module")
def _ui_context(ui_browser: Any, ui_server: OrgServer) -> Iterator[Any]:
    context = ui_browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(5000)
    page = context.new_page()
    page.goto(f"{ui_server.url}/secur/frontdoor.jsp?sid={ui_server.access_token()}&retURL=/lightning/page/home")
    assert page.url.endswith("/lightning/page/home")
    yield context
    context.close()


@pytest.fixture
def org(ui_server: OrgServer) -> Iterator[Org]:
    """The served org, restored to its state before the test afterwards (and proven clean)."""
    snap = ui_server.org.snapshot()
    yield ui_server.org
    ui_server.org.restore(snap)
    assert ui_server.org.residue(snap) == []


@pytest.fixture
def page(_ui_context: Any, org: Org) -> Any:
    """The logged-in page of the module's browser (the org is rolled back after the test)."""
    return _ui_context.pages[0]


@pytest.fixture
def base(ui_server: OrgServer) -> str:
    """The instance URL."""
    return ui_server.url


@pytest.fixture(scope="module")
def sf(ui_server: OrgServer) -> Any:
    """simple-salesforce against the same org over HTTPS."""
    from simple_salesforce import Salesforce

    creds = ui_server.org_credentials
    assert creds is not None
    return Salesforce(instance_url=creds.instance_url, session_id=ui_server.access_token(),
                      session=creds.requests_session())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests here that drive Chromium as browser tests."""
    here = Path(__file__).parent
    for item in items:
        uses_browser = {"page", "ui_browser"} & set(getattr(item, "fixturenames", ()))
        if uses_browser and here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
