"""Rollback time per task on an org reached over its APIs only, beside the embedded org's in-process rollback and
a full reset of the whole org (what a harness that resets once per run, as SCUBA's does, pays each time).

    python3 benchmarks/realorg_rollback.py                 # the first release task of each SCUBA template (60)
    python3 benchmarks/realorg_rollback.py --tasks all     # all 300 release tasks
    python3 benchmarks/realorg_rollback.py --suite own     # the 135 own SCUBA tasks
    python3 benchmarks/realorg_rollback.py --limit 1 --resets 1   # one task and one full reset (a smoke run)

Runs the oracle twice over the same tasks with one worker: against ``pytest-cua org serve --entry-kind salesforce``
in another process (the real-org path: REST, SOAP and Metadata API over HTTPS on 127.0.0.1) and with the embedded
org in process (``--cua-org local``). Reads each task's ``times.reset_s`` (the rollback and its residue check)
and ``environment.api_requests`` from the summaries, then times a full reset of the served org (every watched
object and tracked metadata type back to the baseline, proved by the residue check) after a task-sized change.
Prints one table; the figures are of one run on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.scuba.release_root import release_root  # noqa: E402

ROOT = release_root()  # $PYTEST_CUA_SCUBA_ROOT, else <repository>/../shared/scuba/release


def release_tasks(which: str) -> list[str]:
    records = json.loads((ROOT / "data" / "test_zero_shot.json").read_text(encoding="utf-8"))
    if which == "all":
        return [r["task_id"] for r in records]
    seen: dict[str, str] = {}
    for r in records:
        seen.setdefault(r["query_template_name"], r["task_id"])
    return list(seen.values())


def own_tasks() -> list[str]:
    """The suite's own task ids, in the order of its task files."""
    ids: list[str] = []
    for path in sorted((REPO / "suites" / "scuba" / "tasks").glob("*.json")):
        ids += [t["id"] for t in json.loads(path.read_text(encoding="utf-8"))]
    return ids


def run(args: list[str], reports: Path, leases: Path, targets: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "pytest", *targets, "-p", "no:cacheprovider", "-q", "--agent", "oracle",
           "--cua-reports", str(reports), *args]
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTEST_CUA_ORG_LEASES": str(leases)}
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=7200)
    path = reports / "summary.json"
    if not path.exists():
        raise SystemExit(f"no summary from {' '.join(cmd)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return dict(json.loads(path.read_text()))


def figures(summary: dict[str, Any]) -> dict[str, Any]:
    tasks = summary["tasks"]
    resets = sorted(t["times"]["reset_s"] for t in tasks if t["times"].get("reset_s") is not None)
    calls = [t["environment"]["api_requests"] for t in tasks if isinstance(t["environment"].get("api_requests"), int)]
    outcomes: dict[str, int] = {}
    for t in tasks:
        outcomes[t["outcome"]] = outcomes.get(t["outcome"], 0) + 1
    return {"tasks": len(tasks), "outcomes": outcomes, "reset_mean_s": statistics.fmean(resets) if resets else None,
            "reset_median_s": statistics.median(resets) if resets else None,
            "reset_p95_s": resets[int(0.95 * (len(resets) - 1))] if resets else None,
            "api_requests_mean": statistics.fmean(calls) if calls else None, "wall_s": summary["run"].get("wall_s")}


def full_reset_seconds(orgs_file: Path, leases: Path, repeats: int) -> list[float]:
    """A full reset of the served org after a task-sized change (a lead, an account edit, a new field)."""
    os.environ["PYTEST_CUA_ORG_LEASES"] = str(leases)
    from pytest_cua.orgs import mdapi
    from pytest_cua.orgs.pool import lease_one, load_orgs
    from pytest_cua.orgs.realorg.handle import ApiOrg

    handle = ApiOrg(lease_one(load_orgs(orgs_file), worker_id="bench", run_id="bench", wait_s=60))
    handle.start()
    snap = handle.snapshot()
    sf: Any = handle.client.sf  # type: ignore[union-attr]  # simple_salesforce's objects by attribute (sf.Lead)
    out = []
    ns = mdapi.MD_NS
    try:
        for i in range(repeats):
            sf.Lead.create({"LastName": f"Bench {i}", "Company": "Bench"})
            account = sf.query("SELECT Id FROM Account ORDER BY Name LIMIT 1")["records"][0]["Id"]
            sf.Account.update(account, {"Description": f"bench {i}"})
            mdapi.deploy(sf, {"objects/Lead.object": f'<?xml version="1.0" encoding="UTF-8"?><CustomObject xmlns="{ns}">'
                              f"<fields><fullName>Bench{i}__c</fullName><label>Bench</label><type>Text</type>"
                              f"<length>10</length></fields></CustomObject>"}, {"CustomField": [f"Lead.Bench{i}__c"]})
            started = time.perf_counter()
            handle.restore(snap, None)
            left = handle.residue(snap)
            out.append(time.perf_counter() - started)
            if left:
                raise SystemExit(f"full reset left {left}")
    finally:
        handle.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=("release", "own"), default="release")
    parser.add_argument("--tasks", choices=("templates", "all"), default="templates",
                        help="release tasks: the first of each template (default) or all 300")
    parser.add_argument("--resets", type=int, default=3, help="full resets to time (default 3)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="only the first N tasks of the selection (default: all of them)")
    args = parser.parse_args()
    if (args.limit is not None and args.limit < 1) or args.resets < 1:
        parser.error("--limit and --resets take 1 or more")
    from tests.localorg.served import served_orgs

    selection: list[str] = []
    targets = ["suites/scuba"]
    if args.suite == "release":
        tasks = release_tasks(args.tasks)[:args.limit]
        selection = ["--scuba-root", str(ROOT), "-m", "scuba_release", "-k", " or ".join(tasks)]
    elif args.limit is not None:  # the test ids themselves: -k would match a task's id in longer ones
        targets = [f"suites/scuba/test_scuba.py::test_task[{t}]" for t in own_tasks()[:args.limit]]
    with tempfile.TemporaryDirectory(prefix="pytest-cua-bench-") as tmp:
        base = Path(tmp)
        with served_orgs(base / "served", ["bench-org"], ui=False, kind="salesforce") as (orgs_file, _):
            api = figures(run([*selection, "--cua-orgs", str(orgs_file)], base / "api", base / "leases", targets))
            resets = full_reset_seconds(orgs_file, base / "leases", args.resets)
        local = figures(run(selection, base / "local", base / "leases-local", targets))
    load = os.getloadavg()[0]
    print(f"rollback per task, {api['tasks']} {args.suite} tasks under the oracle, one worker, load {load:.1f}")
    print(f"{'org':44} {'tasks':>5} {'outcomes':24} {'mean s':>7} {'median':>7} {'p95':>7} {'API req/task':>12}")
    for label, f in (("over its APIs (HTTPS, org serve process)", api), ("embedded, in process (store snapshot)", local)):
        calls = f"{f['api_requests_mean']:.1f}" if f["api_requests_mean"] is not None else "-"
        print(f"{label:44} {f['tasks']:>5} {json.dumps(f['outcomes']):24} {f['reset_mean_s']:7.3f} "
              f"{f['reset_median_s']:7.3f} {f['reset_p95_s']:7.3f} {calls:>12}")
    print(f"full reset of the API org (every watched object and metadata type, with its residue check): "
          f"{', '.join(f'{s:.2f}' for s in resets)} s (mean {statistics.fmean(resets):.2f} s)")
    print(f"ratio: API rollback per task / embedded = {api['reset_mean_s'] / local['reset_mean_s']:.1f}x; "
          f"full reset / API rollback per task = {statistics.fmean(resets) / api['reset_mean_s']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
