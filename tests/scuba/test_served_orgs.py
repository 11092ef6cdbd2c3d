"""The SCUBA suite against orgs served elsewhere: two ``pytest-cua org serve`` processes on 127.0.0.1 written
into one orgs file, an inner ``pytest -n 2 --cua-orgs FILE`` whose workers lease one org each.

- the oracle passes a handful of tasks (lead conversion over SOAP, forms whose labels come from describe) and
  each org is back at its baseline after the run (rollback over HTTPS left nothing); replay passes through the
  browser; noop fails them (failures, not errors);
- ``-n 3`` with two orgs and a bad orgs file are usage errors before anything runs, naming file and entry;
- the summary names each worker's org, and no credential of the orgs file is in any file the run produced.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cua.orgs.localorg.control import BASELINE, ControlClient
from pytest_cua.orgs.pool import load_orgs
from tests.localorg.served import served_orgs

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TASKS = ["convert_lead_1", "convert_lead_2", "create_lead_1", "create_account_and_contact_1"]
NODES = [f"suites/scuba/test_scuba.py::test_task[{t}]" for t in TASKS]


@pytest.fixture(scope="module")
def orgs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, dict]]]:
    with served_orgs(tmp_path_factory.mktemp("served"), ["org-a", "org-b"]) as got:
        yield got


def inner(args: list[str], reports: Path, leases: Path) -> tuple[subprocess.CompletedProcess, dict[str, Any] | None]:
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cua-reports", str(reports),
           "--junitxml", str(reports / "junit.xml"), *args]
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTEST_CUA_ORG_LEASES": str(leases)}
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    path = reports / "summary.json"
    return proc, (json.loads(path.read_text()) if path.exists() else None)


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {t["id"]: t["outcome"] for t in summary["tasks"]}


def at_baseline(orgs_file: Path) -> dict[str, list[str]]:
    out = {}
    for e in load_orgs(orgs_file):
        creds = e.credentials()
        session = creds.requests_session()
        control = ControlClient(creds.instance_url, session, lambda c=creds, s=session: c.login(session=s))
        out[e.name] = control.residue(BASELINE)
    return out


def secrets_in(folder: Path, infos: dict[str, dict]) -> list[str]:
    secrets = [info[k] for info in infos.values() for k in ("client_secret", "password")]
    hits = []
    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            hits += [f"{path}: {s[:4]}..." for s in secrets if s in text]
    return hits


@pytest.mark.slow
def test_oracle_passes_on_two_served_orgs_and_leaves_them_at_baseline(orgs: tuple[Path, dict[str, dict]],
                                                                      tmp_path: Path) -> None:
    orgs_file, infos = orgs
    proc, summary = inner([*NODES, "--agent", "oracle", "-n", "2", "--cua-orgs", str(orgs_file)],
                          tmp_path / "reports", tmp_path / "leases")
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert outcomes(summary) == {t: "passed" for t in TASKS}, proc.stdout[-4000:]
    assert summary["run"]["orgs"] == {"gw0": ["org-a"], "gw1": ["org-b"]}
    assert "orgs: gw0 org-a, gw1 org-b" in proc.stdout
    assert {t["environment"]["org"] for t in summary["tasks"]} == {"org-a", "org-b"}
    assert at_baseline(orgs_file) == {"org-a": [], "org-b": []}
    assert secrets_in(tmp_path / "reports", infos) == []
    assert not any(s in proc.stdout + proc.stderr for i in infos.values() for s in (i["password"], i["client_secret"]))


def test_replay_passes_through_the_browser_on_served_orgs(orgs: tuple[Path, dict[str, dict]],
                                                          tmp_path: Path) -> None:
    orgs_file, infos = orgs
    proc, summary = inner([*NODES[1:3], "--agent", "replay", "-n", "2", "--cua-orgs", str(orgs_file)],
                          tmp_path / "reports", tmp_path / "leases")
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert outcomes(summary) == {t: "passed" for t in TASKS[1:3]}, proc.stdout[-4000:]
    assert at_baseline(orgs_file) == {"org-a": [], "org-b": []}
    assert secrets_in(tmp_path / "reports", infos) == []


@pytest.mark.full  # noop fails these tasks on the embedded org: tests/scuba/test_suite.py
def test_noop_fails_the_tasks_on_served_orgs(orgs: tuple[Path, dict[str, dict]], tmp_path: Path) -> None:
    proc, summary = inner([*NODES, "--agent", "noop", "-n", "2", "--cua-orgs", str(orgs[0])],
                          tmp_path / "reports", tmp_path / "leases")
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert outcomes(summary) == {t: "failed" for t in TASKS}, proc.stdout[-4000:]
    assert at_baseline(orgs[0]) == {"org-a": [], "org-b": []}


def test_more_workers_than_orgs_is_a_usage_error_before_anything_runs(orgs: tuple[Path, dict[str, dict]],
                                                                     tmp_path: Path) -> None:
    proc, summary = inner([*NODES, "--agent", "oracle", "-n", "3", "--cua-orgs", str(orgs[0])],
                          tmp_path / "reports", tmp_path / "leases")
    assert proc.returncode == 4 and summary is None
    assert f"--cua-orgs {orgs[0]} lists 2 org(s) (org-a, org-b) but -n 3 starts 3 workers" in proc.stderr
    assert "created:" not in proc.stdout and not (tmp_path / "leases").exists()  # no worker started


@pytest.mark.parametrize("change, expected", [
    (lambda e: e.pop("ca_path"), "entry 'org-b': kind 'localorg' needs the field(s) ca_path"),
    (lambda e: e.update(kind="mainframe"), "entry 'org-b': unknown kind 'mainframe'"),
])
def test_a_bad_orgs_file_is_a_usage_error_naming_file_and_entry(orgs: tuple[Path, dict[str, dict]], tmp_path: Path,
                                                                change: Any, expected: str) -> None:
    raw = json.loads(orgs[0].read_text())
    change(raw["orgs"]["org-b"])
    bad = tmp_path / "bad-orgs.json"
    bad.write_text(json.dumps(raw))
    proc, summary = inner([*NODES[:1], "--agent", "oracle", "--cua-orgs", str(bad)], tmp_path / "reports",
                          tmp_path / "leases")
    assert proc.returncode == 4 and summary is None
    assert f"orgs file {bad}, {expected}" in proc.stderr
    assert not any(s in proc.stderr for s in (raw["orgs"]["org-a"]["password"], raw["orgs"]["org-a"]["client_secret"]))
