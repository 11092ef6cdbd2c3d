"""Remote browsers (``--cua-browser-endpoint``): a Playwright browser server and a DevTools Chromium, each
its own process on loopback. Connecting, rollback in a remote browser, bad URLs, a dropped connection (an
environment error, then a reconnect), and the SCUBA suite with its browsers remote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cua.envs.base import EnvironmentCrash, ProvisioningError, roll_back
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.envs.browser.options import BrowserOptionError, BrowserOptions, parse_endpoints, show_endpoint
from pytest_cua.tasks.task import Task

from .remote_servers import BrowserServer, DevToolsChromium

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def servers(chromium_available: None) -> Iterator[list[BrowserServer]]:
    made = [BrowserServer(), BrowserServer()]
    yield made
    for server in made:
        server.close()


@pytest.fixture(scope="module")
def devtools(chromium_available: None) -> Iterator[DevToolsChromium]:
    chromium = DevToolsChromium()
    yield chromium
    chromium.close()


def _remote_env(pages_url: str, *endpoints: str, worker: str = "gw0") -> BrowserEnvironment:
    return BrowserEnvironment(BrowserOptions(viewport=(1280, 800), action_timeout_s=2.0, endpoints=endpoints),
                              start_url=pages_url + "actions.html", worker_id=worker)


@pytest.mark.parametrize("kind", ["server", "devtools"])
def test_a_remote_browser_runs_tasks_and_rolls_back_clean(kind, servers, devtools, pages_url):
    url = servers[0].url if kind == "server" else devtools.url
    env = _remote_env(pages_url, url).start()
    try:
        snap = env.snapshot()
        env.begin_task(Task(id="t1", suite="s", instruction="x"))
        obs = env.observe(frozenset({"axtree", "screenshot"}))
        assert obs.url.endswith("actions.html") and obs.screenshot and obs.axtree
        env.page.evaluate("() => { document.cookie = 'left=1'; localStorage.setItem('left', '1'); }")
        env.context.new_page()
        left_over = env.context
        roll_back(env, snap)  # restore + residue: raises on anything left
        assert env.context is not left_over and [c["name"] for c in env.context.cookies()] == []
        shown = env.describe()["endpoint"]
        assert shown == show_endpoint(url)
        if kind == "server":  # the server's secret path is not shown
            assert url.rsplit("/", 1)[1] not in shown and shown.endswith("/...")
    finally:
        env.close()
    if kind == "devtools":  # closing disconnects; the DevTools browser itself goes on
        assert devtools.proc.poll() is None


def test_workers_spread_over_the_endpoints():
    options = BrowserOptions(endpoints=("ws://127.0.0.1:1/a", "http://127.0.0.1:2"))
    assert [options.endpoint_for(w) for w in ("gw0", "gw1", "gw2", "master")] == [
        "ws://127.0.0.1:1/a", "http://127.0.0.1:2", "ws://127.0.0.1:1/a", "ws://127.0.0.1:1/a"]


@pytest.mark.parametrize("url, message", [
    ("ftp://127.0.0.1:9/x", "is not a browser endpoint"),
    ("127.0.0.1:9222", "is not a browser endpoint"),
    ("ws://127.0.0.1:99999/x", "bad port"),
    ("http://:9222", "names no host"),
])
def test_a_bad_endpoint_url_names_the_option_and_the_url(url, message):
    with pytest.raises(BrowserOptionError, match=message) as err:
        parse_endpoints(f"ws://127.0.0.1:1/ok,{url}")
    assert "--cua-browser-endpoint" in str(err.value)


def test_an_unreachable_endpoint_is_a_provisioning_error_naming_it(pages_url, chromium_available):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    token = "0123456789abcdef0123456789abcdef"
    with pytest.raises(ProvisioningError, match=r"--cua-browser-endpoint.*ws://127\.0\.0\.1:%d/\.\.\." % port) as err:
        _remote_env(pages_url, f"ws://127.0.0.1:{port}/{token}").start()
    assert token not in str(err.value)


def test_headed_and_keep_env_say_they_do_not_apply_to_a_remote_browser():
    class Opt:
        cua_browser_endpoint = "ws://127.0.0.1:1/x"
        headed = True
    with pytest.raises(BrowserOptionError, match="--headed"):
        BrowserOptions.from_config(Opt())
    Opt.headed = False
    Opt.keep_env = True  # type: ignore[attr-defined]
    with pytest.raises(BrowserOptionError, match="--keep-env"):
        BrowserOptions.from_config(Opt())


def test_a_dropped_connection_is_an_environment_crash_then_the_worker_reconnects(pages_url, chromium_available):
    first, second = BrowserServer(), BrowserServer()
    env = _remote_env(pages_url, first.url, second.url).start()
    try:
        snap = env.snapshot()
        env.begin_task(Task(id="t1", suite="s", instruction="x"))
        env.observe(frozenset({"axtree"}))
        first.kill()
        with pytest.raises(EnvironmentCrash, match="connection to the browser at --cua-browser-endpoint"):
            for _ in range(50):  # the drop shows at the next call that reaches the browser
                env.observe(frozenset({"axtree", "screenshot"}))
        roll_back(env, snap)  # reconnects (to the next endpoint: the first is gone) and proves it clean
        assert env.reconnects == 1 and env.describe()["endpoint"] == show_endpoint(second.url)
        env.begin_task(Task(id="t2", suite="s", instruction="x"))
        assert env.observe(frozenset({"axtree"})).url.endswith("actions.html")
        second.kill()
        env.end_task(Task(id="t2", suite="s", instruction="x"), failed=False)
        with pytest.raises(EnvironmentCrash, match="reconnecting failed.*--cua-browser-endpoint"):
            for _ in range(50):
                env.restore(snap)
    finally:
        env.close()
        first.close()
        second.close()


# --- the SCUBA suite with remote browsers ---------------------------------------------------------------

TASKS = ["freeze_user_1", "deactivate_user_1", "qa_service_knowledge_1", "create_public_group_1"]


def _scuba(tmp_path: Path, endpoints: str, tasks: list[str], *args: str, env: dict[str, str] | None = None
           ) -> dict:
    reports = tmp_path / "reports"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--agent", "oracle", "--cua-reports",
           str(reports), "--cua-browser-endpoint", endpoints, *args,
           *[f"suites/scuba/test_scuba.py::test_task[{t}]" for t in tasks]]
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{Path(__file__).parent}",
                               **(env or {})})
    path = reports / "summary.json"
    assert path.exists(), proc.stdout[-4000:] + proc.stderr[-4000:]
    summary = json.loads(path.read_text())
    summary["_output"] = proc.stdout + proc.stderr
    return summary


def _endpoint_of(task: dict) -> str:
    return task["environment"]["browser"]["endpoint"]


def test_scuba_passes_with_two_workers_on_two_browser_servers(servers, tmp_path):
    summary = _scuba(tmp_path, f"{servers[0].url},{servers[1].url}", TASKS, "-n", "2")
    tasks = summary["tasks"]
    assert sorted(t["id"] for t in tasks) == sorted(TASKS)
    assert [t["id"] for t in tasks if t["outcome"] != "passed"] == [], summary["_output"][-3000:]
    assert {_endpoint_of(t) for t in tasks} == {show_endpoint(s.url) for s in servers}
    assert not any(s.url.rsplit("/", 1)[1] in summary["_output"] + json.dumps(tasks) for s in servers)


def test_scuba_a_killed_browser_server_is_an_error_for_its_task_and_the_next_task_passes(tmp_path,
                                                                                         chromium_available):
    doomed, spare = BrowserServer(), BrowserServer()
    try:
        tasks = ["freeze_user_1", "deactivate_user_1", "create_public_group_1"]
        summary = _scuba(tmp_path, f"{doomed.url},{spare.url}", tasks, "-p", "remote_kill_plugin",
                         env={"CUA_KILL_TASK": "deactivate_user_1", "CUA_KILL_PGID": str(doomed.proc.pid)})
    finally:
        doomed.close()
        spare.close()
    by_id = {t["id"]: t for t in summary["tasks"]}
    assert sorted(by_id) == sorted(tasks), summary["_output"][-3000:]
    killed = by_id["deactivate_user_1"]
    assert (killed["outcome"], killed["error_kind"]) == ("error", "environment"), killed
    assert "--cua-browser-endpoint" in killed["error"] and doomed.url.rsplit("/", 1)[1] not in killed["error"]
    assert by_id["freeze_user_1"]["outcome"] == "passed" and _endpoint_of(by_id["freeze_user_1"]) == \
        show_endpoint(doomed.url)
    after = by_id["create_public_group_1"]
    assert after["outcome"] == "passed", summary["_output"][-3000:]
    assert _endpoint_of(after) == show_endpoint(spare.url) and after["environment"]["browser"]["reconnects"] == 1
    assert "never retrieved" not in summary["_output"], summary["_output"][-3000:]  # no asyncio noise on the drop
