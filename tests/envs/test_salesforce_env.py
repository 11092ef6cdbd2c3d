"""The salesforce environment: org + browser per worker, rollback within a scope, leftovers of dead workers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pytest_cua.envs.base import EnvContext, RollbackResidue, roll_back
from pytest_cua.envs.salesforce import OWNER_FILE, create, sweep_stale_org_dirs


class _Config:
    class option:  # noqa: N801 - mimics pytest's config.option
        cua_org = "local"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    environment = create(EnvContext(worker_id="gw7", run_id="envtest", config=None,
                                    reports_dir=tmp_path_factory.mktemp("reports")))
    yield environment
    environment.close()


def test_the_org_is_reached_over_https_and_the_browser_is_logged_in(env):
    assert env.credentials.instance_url.startswith("https://127.0.0.1:")
    assert env.org.query("SELECT COUNT() FROM User")["totalSize"] > 0
    obs = env.observe(frozenset({"axtree"}))
    assert obs.url.startswith(env.credentials.instance_url) and "/secur/" not in obs.url
    assert "sid=" not in obs.url and "login" not in obs.url.lower()


def test_rollback_restores_the_scope_and_residue_catches_the_rest(env):
    snap = env.snapshot()
    account = env.org.Account.create({"Name": "Residue Probe Ltd"})["id"]
    lead = env.org.Lead.create({"LastName": "Probe", "Company": "Residue Probe Ltd"})["id"]
    with pytest.raises(RollbackResidue) as info:
        roll_back(env, snap, scope=("Account",))
    text = str(info.value)
    assert "Lead" in text and lead[:15] in text and account[:15] not in text
    roll_back(env, snap)  # the whole org
    assert env.residue(snap) == []


def test_dead_workers_org_folders_are_swept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / "pytest-cua-org-run-gw3-abc"
    stale.mkdir()
    (stale / OWNER_FILE).write_text(dead.stdout.strip())
    live = tmp_path / "pytest-cua-org-run-gw4-def"
    live.mkdir()
    (live / OWNER_FILE).write_text(str(os.getpid()))
    assert sweep_stale_org_dirs(tmp_path) == [stale]
    assert not stale.exists() and live.exists()


def test_close_removes_the_orgs_folder_with_its_keys(tmp_path):
    env = create(EnvContext(worker_id="gw8", run_id="envtest", config=None, reports_dir=tmp_path))
    data_dir = env.server.data_dir
    assert (data_dir / OWNER_FILE).exists() and (data_dir / "credentials.json").exists()
    env.close()
    assert not data_dir.exists()
    env.close()  # twice is fine
