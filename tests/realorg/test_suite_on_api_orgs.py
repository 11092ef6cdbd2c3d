"""The SCUBA suite on orgs reached over their standard APIs only: ``pytest-cua org serve`` processes whose orgs
file entries are of kind ``salesforce`` (client credentials, the org's CA), so the workers take the real-org path
(``pytest_cua.orgs.realorg``): provisioning by upsert, per-task rollback and its residue check over REST, SOAP and the
Metadata API, the browser logged in by frontdoor with a session from the API.

- the first task of SCUBA's release templates (every 6th template; all 60 in a full run, tests/tiers.py) passes
  under the oracle on two orgs with ``-n 2``, each worker holding one org, with no residue; the first run
  installs the prerequisites, the next finds them;
- replay passes through the browser on such an org;
- a change outside the task's scope is a rollback error naming it; the next task resets the org and passes
  (a full run: for release templates too, whose rollback scope decides);
- a worker killed mid-task leaves an org the next lease resets (a full run: release templates too);
- the org's API limit running out during a task is an environment error, never a failure;
- every task's record has the API requests it used, the terminal summary their total; no secret is in any file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.localorg.served import served_orgs
from tests.scuba import release_root as scuba_release
from tests.tiers import FULL_ENV, full_or

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
ROOT = scuba_release.release_root()  # $PYTEST_CUA_SCUBA_ROOT, else <repository>/../shared/scuba/release
ZERO_SHOT = ROOT / scuba_release.ZERO_SHOT


def _first_per_template() -> list[str]:
    if not ZERO_SHOT.is_file():
        return []
    seen: dict[str, str] = {}
    for r in json.loads(ZERO_SHOT.read_text(encoding="utf-8")):
        seen.setdefault(r["query_template_name"], r["task_id"])
    return list(seen.values())


RELEASE = _first_per_template()
#: the release templates the two-org oracle run passes: every 12th of the 60 (admin, sales and service alike);
#: PYTEST_CUA_API_ORG_TASKS=all or a full run (tests/tiers.py) runs the first task of all 60
TEMPLATE_TASKS = RELEASE if full_or("PYTEST_CUA_API_ORG_TASKS") else RELEASE[::12]
#: the release templates the fault tests of a full run take (each fault re-provisions the org): a spread of
#: record, metadata and question templates; PYTEST_CUA_API_ORG_FAULT_TASKS=all: the first task of all 60
SAMPLE = ["admin_001_001", "admin_007_001", "admin_018_001", "sales_001_001", "sales_010_001", "service_004_001"]
FAULT_TASKS = RELEASE if os.environ.get("PYTEST_CUA_API_ORG_FAULT_TASKS") == "all" else \
    [t for t in SAMPLE if t in RELEASE]
#: whether the release templates go through the faults (CI: the own tasks' fault tests prove the mechanism)
RELEASE_FAULTS = bool(RELEASE) and full_or("PYTEST_CUA_API_ORG_FAULT_TASKS")
release_faults = pytest.mark.skipif(not RELEASE_FAULTS, reason=f"part of the full run: set {FULL_ENV}=1 (or "
                                    "PYTEST_CUA_API_ORG_FAULT_TASKS=all)")


@pytest.fixture(scope="module")
def orgs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, dict]]]:
    with served_orgs(tmp_path_factory.mktemp("api-orgs"), ["org-a", "org-b"], kind="salesforce") as got:
        yield got


@pytest.fixture(scope="module")
def leases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("leases")


def inner(args: list[str], reports: Path, leases: Path, fault: str = "",
          fault_log: Path | None = None) -> tuple[subprocess.CompletedProcess, dict[str, Any] | None]:
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "org_fault_plugin", "--cua-reports",
           str(reports), *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(Path(__file__).parent)]),
           "PYTEST_CUA_ORG_LEASES": str(leases), "PYTEST_CUA_TEST_ORG_FAULT": fault,
           "PYTEST_CUA_TEST_ORG_FAULT_LOG": str(fault_log or "")}
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900, env=env)
    path = reports / "summary.json"
    return proc, (json.loads(path.read_text()) if path.exists() else None)


def records(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in summary["tasks"]}


def secrets_in(folder: Path, infos: dict[str, dict]) -> list[str]:
    secrets = [info[k] for info in infos.values() for k in ("client_secret", "password")]
    return [f"{p}: {s[:4]}..." for p in folder.rglob("*") if p.is_file()
            for s in secrets if s in p.read_bytes().decode("utf-8", "replace")]


@pytest.mark.slow
@scuba_release.needs_release()  # skipped without the release, a failure when CI is set
def test_release_templates_pass_on_two_api_orgs_and_provisioning_is_found_later(orgs: tuple[Path, dict[str, dict]],
                                                                                tmp_path: Path, leases: Path) -> None:
    orgs_file, infos = orgs
    release = ["--scuba-root", str(ROOT), "-m", "scuba_release", "--agent", "oracle", "-n", "2",
               "--cua-orgs", str(orgs_file)]
    proc, summary = inner(["suites/scuba", *release, "-k", " or ".join(TEMPLATE_TASKS)], tmp_path / "first", leases)
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    got = records(summary)
    assert sorted(got) == sorted(TEMPLATE_TASKS)
    bad = {i: (r["outcome"], (r["error"] or "")[:300]) for i, r in got.items() if r["outcome"] != "passed"}
    assert bad == {}, proc.stdout[-3000:]
    assert summary["run"]["orgs"] == {"gw0": ["org-a"], "gw1": ["org-b"]}
    envs = [r["environment"] for r in got.values()]
    assert {(e["org_kind"], e["org_auth"]) for e in envs} == {("salesforce", "client_credentials")}
    assert all(isinstance(e.get("api_requests"), int) and e["api_requests"] > 0 for e in envs)
    assert all(" created (" in e["org_provisioning"] for e in envs), {e["org_provisioning"] for e in envs}
    requests = summary["run"]["api_requests"]
    assert requests["tasks"] == len(TEMPLATE_TASKS) and set(requests["by_org"]) == {"org-a", "org-b"}
    assert f"org API requests: {requests['total']} for {len(TEMPLATE_TASKS)} tasks" in proc.stdout
    assert secrets_in(tmp_path / "first", infos) == []
    # a later run finds the baseline and the prerequisites: nothing is installed again
    proc, summary = inner(["suites/scuba", *release, "-k", " or ".join(TEMPLATE_TASKS[:4])], tmp_path / "again", leases)
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    again = [r["environment"] for r in records(summary).values()]
    assert {r["outcome"] for r in records(summary).values()} == {"passed"}, proc.stdout[-3000:]
    assert {e["org_baseline"] for e in again} == {"found"}
    assert all(e["org_provisioning"].endswith(" found, 0 created") for e in again), again


def test_replay_passes_through_the_browser_on_an_api_org(orgs: tuple[Path, dict[str, dict]], tmp_path: Path,
                                                         leases: Path) -> None:
    orgs_file, infos = orgs
    proc, summary = inner(["suites/scuba/test_scuba.py::test_task[create_lead_1]",
                           "suites/scuba/test_scuba.py::test_task[convert_lead_2]", "--agent", "replay",
                           "--cua-orgs", str(orgs_file), "--cua-org", "org-a"], tmp_path / "reports", leases)
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert {i: r["outcome"] for i, r in records(summary).items()} == {"create_lead_1": "passed",
                                                                       "convert_lead_2": "passed"}, proc.stdout[-3000:]
    assert secrets_in(tmp_path / "reports", infos) == []


def _task_nodes(own: list[str]) -> list[str]:
    """The nodes of ``own`` tasks, then (with the release) of the FAULT_TASKS: one inner run serves the own-task
    test and the release test of a fault, in this order (the own tasks' assertions count on theirs coming
    first, one after the other)."""
    ids = [*own, *(FAULT_TASKS if RELEASE_FAULTS else [])]
    return [f"suites/scuba/test_scuba.py::test_task[{i}]" for i in ids]


def _release_args() -> list[str]:
    return ["--scuba-root", str(ROOT)] if RELEASE_FAULTS else []


@pytest.fixture(scope="module")
def outside_run(orgs: tuple[Path, dict[str, dict]], tmp_path_factory: pytest.TempPathFactory,
                leases: Path) -> tuple[subprocess.CompletedProcess, dict[str, Any] | None, Path]:
    """One inner run on org-b for both change-outside-the-scope tests: create_lead_1 changes an Account outside
    its scope, create_lead_2 (no fault) follows it; then, in a full run, every one of the FAULT_TASKS changes
    an Account."""
    orgs_file, _ = orgs
    base = tmp_path_factory.mktemp("outside")
    faulted = ["create_lead_1", *(FAULT_TASKS if RELEASE_FAULTS else [])]
    proc, summary = inner([*_task_nodes(["create_lead_1", "create_lead_2"]), *_release_args(), "--agent", "oracle",
                           "--cua-orgs", str(orgs_file), "--cua-org", "org-b"], base / "reports", leases,
                          fault="outside:" + ",".join(faulted), fault_log=base / "faults.log")
    return proc, summary, base / "faults.log"


def test_a_change_outside_the_scope_is_a_rollback_error_and_the_next_task_resets(
        outside_run: tuple[subprocess.CompletedProcess, dict[str, Any] | None, Path]) -> None:
    proc, summary, _ = outside_run
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    got = records(summary)
    first, second = got["create_lead_1"], got["create_lead_2"]
    assert (first["outcome"], first["error_kind"]) == ("error", "rollback"), first["error"]
    assert "changed outside the task's scope (Lead): Description: None -> 'set by the fault plugin'" in first["error"]
    assert second["outcome"] == "passed", second["error"]
    assert "gave it back after a failed rollback" in second["environment"]["org_reset"]


@release_faults  # the own tasks' test above proves the rollback error and the reset after it
@scuba_release.needs_release()  # skipped without the release, a failure when CI is set
def test_release_templates_report_a_change_outside_their_scope(
        outside_run: tuple[subprocess.CompletedProcess, dict[str, Any] | None, Path]) -> None:
    """The fault plugin changes an Account during every one of these tasks: a task whose rollback scope leaves
    Account out is a rollback error naming the change; one whose scope takes Account in (or everything) puts it
    back and passes. Either way the next task starts from the baseline."""
    proc, summary, faults_log = outside_run
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    got = {i: r for i, r in records(summary).items() if not i.startswith("create_lead_")}
    assert sorted(got) == sorted(FAULT_TASKS)
    made = dict(line.split(" ", 1) for line in faults_log.read_text().splitlines())
    made.pop("create_lead_1")
    assert sorted(made) == sorted(FAULT_TASKS)
    reported = 0
    for tid, r in got.items():
        scope = r["environment"]["rollback_scope"]
        if made[tid] != "changed":  # the task's own validation rule refused the change: nothing to report
            assert r["outcome"] == "passed", (tid, made[tid], r["error"])
        elif scope is None or "Account" in scope:
            assert r["outcome"] == "passed", (tid, scope, r["error"])
        else:
            reported += 1
            assert (r["outcome"], r["error_kind"]) == ("error", "rollback"), (tid, r["outcome"], r["error"])
            assert (f"changed outside the task's scope ({', '.join(sorted(scope))}): Description: None -> "
                    f"'set by the fault plugin'") in r["error"], (tid, r["error"])
    assert reported >= len(FAULT_TASKS) // 2, {t: r["environment"]["rollback_scope"] for t, r in got.items()}
    for earlier, later in zip(FAULT_TASKS, FAULT_TASKS[1:]):
        if got[earlier]["outcome"] == "error":
            assert "gave it back after a failed rollback" in got[later]["environment"]["org_reset"], later


def test_a_worker_killed_mid_task_leaves_an_org_the_next_lease_resets(orgs: tuple[Path, dict[str, dict]],
                                                                      tmp_path: Path, leases: Path) -> None:
    orgs_file, _ = orgs
    nodes = [f"suites/scuba/test_scuba.py::test_task[create_lead_{i}]" for i in (1, 2, 3)]
    proc, summary = inner([*nodes, "--agent", "oracle", "-n", "1", "--cua-orgs", str(orgs_file), "--cua-org",
                           "org-a"], tmp_path / "reports", leases, fault="kill:create_lead_2")
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "worker 'gw0' crashed" in proc.stdout or "crashed while running" in proc.stdout, proc.stdout[-3000:]
    got = records(summary)
    assert got["create_lead_1"]["outcome"] == "passed" and got["create_lead_3"]["outcome"] == "passed"
    assert "worker gw0" in got["create_lead_3"]["environment"]["org_reset"]
    assert "without giving it back" in got["create_lead_3"]["environment"]["org_reset"]  # gone, or a zombie


@release_faults  # the own tasks' test above proves the lease reset after a killed worker
@scuba_release.needs_release()  # skipped without the release, a failure when CI is set
def test_release_templates_survive_a_worker_killed_mid_task(orgs: tuple[Path, dict[str, dict]], tmp_path: Path,
                                                            leases: Path) -> None:
    """Every other task's worker is killed after it changed the org; the task after it runs in a new worker
    whose lease finds the org held by the dead one, resets it to the baseline and passes."""
    orgs_file, _ = orgs
    killed, survivors = FAULT_TASKS[0::2], FAULT_TASKS[1::2]
    proc, summary = inner(["suites/scuba", "--scuba-root", str(ROOT), "-m", "scuba_release", "--agent", "oracle",
                           "-n", "1", "--max-worker-restart", str(len(killed) + 1), "--cua-orgs", str(orgs_file),
                           "--cua-org", "org-a", "-k", " or ".join(FAULT_TASKS)],
                          tmp_path / "reports", leases, fault="kill:" + ",".join(killed))
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    got = records(summary)
    for tid in survivors:
        r = got[tid]
        assert r["outcome"] == "passed", (tid, r["error"], proc.stdout[-2000:])
        assert "without giving it back" in r["environment"]["org_reset"], (tid, r["environment"].get("org_reset"))


def test_an_exhausted_api_limit_is_an_environment_error(tmp_path: Path) -> None:
    with served_orgs(tmp_path / "limited", ["org-l"], ui=False, kind="salesforce",
                     extra=["--daily-api-requests", "3000"]) as (orgs_file, _):
        nodes = [f"suites/scuba/test_scuba.py::test_task[create_lead_{i}]" for i in (1, 2)]
        proc, summary = inner([*nodes, "--agent", "oracle", "--cua-orgs", str(orgs_file)], tmp_path / "reports",
                              tmp_path / "leases", fault="exhaust:create_lead_1")
    assert summary is not None, proc.stdout[-4000:] + proc.stderr[-4000:]
    first = records(summary)["create_lead_1"]
    assert (first["outcome"], first["error_kind"]) == ("error", "environment"), (first["outcome"], first["error"])
    assert "REQUEST_LIMIT_EXCEEDED" in first["error"] and "not the agent's" in first["error"]
    assert records(summary)["create_lead_2"]["outcome"] == "error"  # the org has no requests left today
    assert "failed" not in {r["outcome"] for r in records(summary).values()}
