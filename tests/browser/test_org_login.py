"""The browser logged in to the embedded org by frontdoor: no password typed, the session token never shows
in observations or trajectories, and a fresh context after restore is logged in again."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cua import actions as A
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.envs.browser.options import BrowserOptions
from pytest_cua.redaction import register_secret
from pytest_cua.tasks.task import Task
from pytest_cua.episode.trajectory import StepRecord, TrajectoryRecorder

pytestmark = pytest.mark.browser

server_module = pytest.importorskip("pytest_cua.orgs.localorg.server")


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory):
    server = server_module.OrgServer(tmp_path_factory.mktemp("org"))
    creds = server.start()
    yield server, creds
    server.stop()


def test_frontdoor_login_lands_on_home_without_leaking_the_token(org, chromium_available: None,
                                                                 tmp_path: Path) -> None:
    server, creds = org
    tokens: list[str] = []

    def login_url() -> str:
        token = server.access_token()
        register_secret(token)
        tokens.append(token)
        return f"{creds.instance_url}/secur/frontdoor.jsp?sid={token}"

    env = BrowserEnvironment(BrowserOptions(viewport=(1024, 700)), login_url=login_url,
                             home_url=creds.instance_url, ignore_https_errors=True, artifacts_dir=tmp_path)
    try:
        env.start()
        snap = env.snapshot()
        env.restore(snap)
        assert env.residue(snap) == []
        env.begin_task(Task(id="org-home", suite="crm", instruction="look at the home page"))
        obs = env.observe(frozenset({"screenshot", "axtree", "dom"}))
        assert obs.url.rstrip("/") == creds.instance_url and "frontdoor" not in obs.url
        assert "login" not in obs.url.lower()
        cookies = env.context.cookies()
        assert cookies, "the frontdoor login set a session cookie"
        for token in tokens:
            register_secret(token)
        recorder = TrajectoryRecorder(tmp_path / "traj")
        recorder.record_step(StepRecord(index=0, observation=obs, actions=[A.Done()], results=[]))
        recorder.finish({"cookies": [c["value"] for c in cookies], "login": login_url()})
        env.act(A.GoTo(creds.instance_url + "/"))
        # a task with its own start page is logged in first, then lands there
        env.begin_task(Task(id="org-page", suite="crm", instruction="x", extra={"start_url": "/?tab=2"}))
        assert env.page.url == creds.instance_url + "/?tab=2"
        assert 'button "View profile"' in (env.observe(frozenset({"axtree"})).axtree or "")  # the user's menu
        # a fresh context after restore is logged in again with a new token
        env.restore(snap)
        assert env.residue(snap) == []
        assert env.page.url.rstrip("/") == creds.instance_url
    finally:
        env.close()
    blob = b"".join(p.read_bytes() for p in (tmp_path / "traj").iterdir())
    for token in tokens:
        assert token.encode() not in blob
    for cookie in cookies:
        if len(cookie["value"]) >= 8:
            assert cookie["value"].encode() not in blob
