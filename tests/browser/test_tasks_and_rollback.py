"""Per-task contexts, snapshot / restore / residue, traces and videos, crash reporting, options."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from pytest_cua import actions as A
from pytest_cua.envs.base import EnvironmentCrash, ProvisioningError, RollbackResidue, roll_back
from pytest_cua.envs.browser import BrowserEnvironment, check_display, find_chromium, normalize_key
from pytest_cua.envs.browser.options import BrowserOptionError, BrowserOptions, parse_viewport
from pytest_cua.tasks.task import Task

pytestmark = pytest.mark.browser


def make_task(tid: str = "t1", **extra: object) -> Task:
    return Task(id=tid, suite="web", instruction="do it", extra=extra)


def test_restore_leaves_one_clean_context(browser_env: BrowserEnvironment, pages_url: str) -> None:
    env = browser_env
    snap = env.snapshot()
    roll_back(env, snap)
    env.begin_task(make_task())
    env.act(A.NewTab(pages_url + "other.html"))
    env.page.evaluate("document.cookie = 'leftover=1'")
    env.browser.new_context()  # a context the environment did not open
    left = env.residue(snap)
    assert any("browser contexts open: 2" in line for line in left)
    assert any("open tabs: 2" in line for line in left)
    assert any("cookies left: leftover" in line for line in left)
    roll_back(env, snap)  # restore closes everything and starts fresh
    assert env.residue(snap) == []
    assert env.page.url == pages_url + "actions.html"


def test_residue_is_reported_when_restore_cannot_clean(browser_env: BrowserEnvironment,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    env = browser_env
    snap = env.snapshot()
    env.begin_task(make_task())
    env.act(A.Click("e1"))
    monkeypatch.setattr(env, "restore", lambda snapshot, scope=None: None)  # a restore that does nothing
    with pytest.raises(RollbackResidue, match="used after restore"):
        roll_back(env, snap)


def test_task_start_url_and_fresh_ids(browser_env: BrowserEnvironment) -> None:
    env = browser_env
    env.begin_task(make_task(start_url="other.html"))
    obs = env.observe(frozenset({"axtree"}))
    assert obs.title == "Other page"
    assert min(int(i[1:]) for i in obs.elements) == 1  # a new context numbers from e1


def test_trace_is_saved_and_redacted(pages_url: str, chromium_available: None, tmp_path: Path) -> None:
    from pytest_cua.redaction import register_secret

    session = "00D5g000001abcd!AQ8AQSecretSessionValue123"
    register_secret(session)
    env = BrowserEnvironment(BrowserOptions(viewport=(800, 600), trace="on"), artifacts_dir=tmp_path,
                             login_url=lambda: pages_url + "actions.html?sid=" + session)
    try:
        env.start()
        env.restore(env.snapshot())
        env.begin_task(make_task("traced"))
        env.act(A.Fill("e1", "typed"))  # no observation yet: fails cleanly
        env.observe(frozenset({"axtree"}))
        assert env.act(A.Fill("e1", session)).ok  # the secret even gets typed into the page
        artifacts = env.end_task(make_task("traced"), failed=True)
    finally:
        env.close()
    trace = Path(artifacts["trace"])
    assert trace.exists() and env.last_artifacts == artifacts
    with zipfile.ZipFile(trace) as zf:
        names = zf.namelist()
        blob = b"".join(zf.read(n) for n in names)
    assert any(n.endswith(".trace") for n in names)
    assert b"actions.html" in blob and b"[REDACTED]" in blob
    assert session.encode() not in blob and b"AQ8AQSecretSessionValue123" not in blob


def test_video_is_recorded(pages_url: str, chromium_available: None, tmp_path: Path) -> None:
    env = BrowserEnvironment(BrowserOptions(viewport=(640, 400), video=True), artifacts_dir=tmp_path,
                             start_url=pages_url + "actions.html")
    try:
        env.start()
        try:
            env.begin_task(make_task("filmed"))
        except ProvisioningError as exc:
            assert "imageio-ffmpeg" in str(exc) and "playwright install ffmpeg" in str(exc)
            pytest.skip(str(exc))
        env.observe(frozenset({"axtree"}))
        env.act(A.Scroll(dy=300))
        env.act(A.Wait(0.5))
        env.act(A.Scroll(dy=-300))
        env.act(A.Wait(0.5))
        artifacts = env.end_task(make_task("filmed"), failed=False)
    finally:
        env.close()
    assert "video" in artifacts, artifacts
    video = Path(artifacts["video"])
    assert video.suffix == ".webm" and video.stat().st_size > 1000
    assert video.read_bytes()[:4] == b"\x1aE\xdf\xa3"  # WebM (Matroska)


def test_crash_raises_environment_crash(pages_url: str, chromium_available: None) -> None:
    env = BrowserEnvironment(BrowserOptions(viewport=(640, 400)), start_url=pages_url + "actions.html")
    env.start()
    try:
        env.new_context()
        env.browser.close()  # the browser goes away under the environment
        with pytest.raises(EnvironmentCrash):
            env.act(A.Click("e1"))
        with pytest.raises(EnvironmentCrash):
            env.observe(frozenset({"axtree"}))
    finally:
        env.close()


def test_options_parse_and_name_the_option() -> None:
    class Opt:
        headed = False
        slowmo = 300
        cua_viewport = "1280x800"
        cua_observe = "screenshot,som"
        cua_trace = "retain-on-failure"
        cua_video = True
        keep_env = False
        cua_action_timeout = 3

    opts = BrowserOptions.from_config(Opt())
    assert opts.viewport == (1280, 800) and opts.observe == frozenset({"screenshot", "som"})
    assert opts.slowmo_ms == 300 and opts.trace == "retain-on-failure" and opts.video and opts.action_timeout_s == 3
    assert BrowserOptions.from_config(object()).viewport == (1920, 1080)
    with pytest.raises(BrowserOptionError, match="--cua-viewport"):
        parse_viewport("big")
    Opt.cua_observe = "screenshot,smell"
    with pytest.raises(ValueError, match="--cua-observe.*smell"):
        BrowserOptions.from_config(Opt())


def test_key_names() -> None:
    assert [normalize_key(k) for k in ("enter", "ctrl", "PgDn", "f5", "a", "Escape")] == [
        "Enter", "Control", "PageDown", "F5", "a", "Escape"]


def test_headed_without_display_says_xvfb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(ProvisioningError, match="xvfb-run"):
        check_display(BrowserOptions(headless=False))
    with pytest.raises(ProvisioningError, match="xvfb-run"):
        BrowserEnvironment(BrowserOptions(headless=False)).start()


def test_no_chromium_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_cua.envs.browser.chromium as chromium

    monkeypatch.setattr(chromium, "SYSTEM_CHROMIUM", ())
    monkeypatch.setattr(chromium, "PATH_NAMES", ())
    with pytest.raises(ProvisioningError, match="apt-get install chromium.*playwright install chromium"):
        find_chromium(None)
    with pytest.raises(ProvisioningError, match="does not exist"):
        find_chromium(None, "/nonexistent/chrome")


@pytest.fixture
def xvfb() -> object:
    import shutil
    import time

    exe = shutil.which("Xvfb")
    if exe is None:
        pytest.skip("Xvfb is not installed")
    display = ":97"
    proc = subprocess.Popen([exe, display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = Path("/tmp/.X11-unix/X97")
    deadline = time.monotonic() + 10
    while not socket.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    if not socket.exists():
        proc.kill()
        pytest.skip("Xvfb did not start")
    time.sleep(0.2)
    yield display
    proc.terminate()
    proc.wait(5)


def test_headed_with_slowmo_under_xvfb(xvfb: str, pages_url: str, chromium_available: None,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("DISPLAY", xvfb)
    env = BrowserEnvironment(BrowserOptions(headless=False, slowmo_ms=300, viewport=(800, 600)),
                             start_url=pages_url + "actions.html")
    try:
        env.start()
        env.new_context()
        obs = env.observe(frozenset({"axtree"}))
        started = time.perf_counter()
        assert env.act(A.Click(next(i for i, el in obs.elements.items() if el.name == "Click me"))).ok
        assert time.perf_counter() - started >= 0.3  # slow motion is on
        assert env.page.evaluate("window.events") == ["click"]
    finally:
        env.close()


def test_keep_env_leaves_the_browser_running(pages_url: str, chromium_available: None) -> None:
    from playwright.sync_api import sync_playwright

    env = BrowserEnvironment(BrowserOptions(viewport=(800, 600), keep_env=True), start_url=pages_url + "actions.html")
    env.start()
    env.new_context()
    env.act(A.GoTo(pages_url + "other.html"))
    info = env.describe()
    env.close()
    message = env.keep_env_message()
    assert info["cdp"] in message and f"kill {info['pid']}" in message
    from pytest_cua.envs.browser import driver

    pw = driver.acquire_playwright(sync_playwright)  # one sync Playwright per thread
    try:
        browser = pw.chromium.connect_over_cdp(info["cdp"])
        urls = [p.url for c in browser.contexts for p in c.pages]
        assert pages_url + "other.html" in urls
        browser.close()
    finally:
        driver.release_playwright(pw)
        os.kill(info["pid"], 15)
        import shutil
        import time

        time.sleep(0.5)
        shutil.rmtree(env._user_data_dir or "/nonexistent", ignore_errors=True)


def test_trace_of_a_task_without_end_task_is_kept(pages_url: str, chromium_available: None, tmp_path: Path) -> None:
    env = BrowserEnvironment(BrowserOptions(viewport=(640, 400), trace="retain-on-failure"), artifacts_dir=tmp_path,
                             start_url=pages_url + "actions.html")
    try:
        env.start()
        snap = env.snapshot()
        env.begin_task(make_task("broken-episode"))
        env.observe(frozenset({"axtree"}))
        env.restore(snap)  # the episode broke: no end_task before the rollback
        assert env.last_artifacts == {"trace": str(tmp_path / "traces" / "broken-episode.zip")}
        assert (tmp_path / "traces" / "broken-episode.zip").stat().st_size > 1000
        env.begin_task(make_task("next"))
        assert env.last_artifacts == {}
    finally:
        env.close()
