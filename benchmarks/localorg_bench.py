"""Benchmark of the embedded org: snapshot / restore time on the seeded org and SOQL queries per second over
HTTPS with simple-salesforce (127.0.0.1 only, bounded loops).

    python benchmarks/localorg_bench.py [--runs 200] [--queries 500] [--seconds 10]
    pytest -m benchmark tests/localorg
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TYPICAL_QUERY = "SELECT Id, Name, Owner.Name FROM Account WHERE Name LIKE 'A%'"


def _ms(values: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(values) * 1000, 4), "max_ms": round(max(values) * 1000, 4)}


def bench_snapshots(runs: int = 200) -> dict[str, Any]:
    """Time snapshot, restore (after a few writes) and residue on the seeded org."""
    from pytest_cua.orgs.localorg.seed import seeded_org

    org = seeded_org()
    base = org.snapshot()
    snap_t, restore_t, residue_t = [], [], []
    account = org.find("Account", Name="Elmstead Foods")[0]["Id"]
    for i in range(runs):
        t0 = time.perf_counter()
        snap = org.snapshot()
        snap_t.append(time.perf_counter() - t0)
        org.create("Account", {"Name": f"Bench {i}"})
        org.update("Account", account, {"Phone": str(i)})
        t0 = time.perf_counter()
        org.restore(snap)
        restore_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        left = org.residue(snap)
        residue_t.append(time.perf_counter() - t0)
        assert not left, left
    assert org.residue(base) == []
    return {"records": sum(org.counts().values()), "runs": runs, "snapshot": _ms(snap_t), "restore": _ms(restore_t),
            "residue": _ms(residue_t)}


def bench_queries(queries: int = 500, seconds: float = 10.0, query: str = TYPICAL_QUERY) -> dict[str, Any]:
    """Queries per second of ``query`` through simple-salesforce over HTTPS (one client, keep-alive)."""
    from simple_salesforce import Salesforce

    from pytest_cua.orgs.localorg.server import OrgServer

    with OrgServer(host="127.0.0.1", port=0, extensions=[]) as server:
        creds = server.org_credentials
        assert creds is not None
        sf = Salesforce(instance_url=creds.instance_url, session_id=creds.login(), session=creds.requests_session())
        rows = sf.query(query)["totalSize"]
        done = 0
        latencies = []
        start = time.perf_counter()
        while done < queries and time.perf_counter() - start < seconds:
            t0 = time.perf_counter()
            sf.query(query)
            latencies.append(time.perf_counter() - t0)
            done += 1
        elapsed = time.perf_counter() - start
    return {"query": query, "rows": rows, "queries": done, "seconds": round(elapsed, 3),
            "qps": round(done / elapsed, 1), "latency": _ms(latencies)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="snapshot/restore rounds (default 200)")
    parser.add_argument("--queries", type=int, default=500, help="HTTPS queries at most (default 500)")
    parser.add_argument("--seconds", type=float, default=10.0, help="time budget of the query loop (default 10)")
    args = parser.parse_args(argv)
    result = {"snapshots": bench_snapshots(args.runs), "https_queries": bench_queries(args.queries, args.seconds)}
    s, q = result["snapshots"], result["https_queries"]
    print(f"seeded org: {s['records']} records, {s['runs']} runs")
    print(f"snapshot: median {s['snapshot']['median_ms']} ms, max {s['snapshot']['max_ms']} ms")
    print(f"restore:  median {s['restore']['median_ms']} ms, max {s['restore']['max_ms']} ms")
    print(f"residue:  median {s['residue']['median_ms']} ms, max {s['residue']['max_ms']} ms")
    print(f"HTTPS simple-salesforce: {q['qps']} queries/s ({q['queries']} in {q['seconds']} s, {q['rows']} rows each, "
          f"median latency {q['latency']['median_ms']} ms) for: {q['query']}")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
