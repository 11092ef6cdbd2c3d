#!/usr/bin/env python3
"""How many of SCUBA's sample release tasks run end to end with ``--agent oracle`` on the embedded org.

Builds a temporary checkout layout (``data/test_zero_shot.json``, ``data/test_demo_aug.json``,
``scuba/prerequisites/data/bulk_data/*.json``) under /tmp from a folder holding SCUBA's sample records
(``sample_tasks.json`` and ``prerequisites/*.json``), runs ``pytest suites/scuba --scuba-root <tmp>
-m scuba_release --agent oracle``, reads ``summary.json`` and prints one line::

    N of 26 sample release tasks run end to end with --agent oracle (M skipped: no evaluator for templates
    ...; K errors: ...; F failed: ...)

Usage: scripts/scuba_release_sample.py [--sample DIR] [-n WORKERS] [--agent oracle] [--keep]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.scuba.release_root import shared_root  # noqa: E402

_ULTIMATE = re.compile(r"## Your ultimate task\s*```\s*(.*?)\s*```\s*$", re.S)


def zero_shot(record: dict[str, Any]) -> dict[str, Any]:
    """A demonstration-augmented record as its zero-shot twin: no ``memory``, the bare task as ``query``."""
    out = {k: v for k, v in record.items() if k != "memory"}
    found = _ULTIMATE.search(str(record.get("query", "")))
    if found:
        out["query"] = found.group(1)
    return out


def build_checkout(sample: Path, dest: Path) -> Path:
    """A SCUBA checkout layout under ``dest`` from the sample records (nothing is written in the repo)."""
    records = json.loads((sample / "sample_tasks.json").read_text(encoding="utf-8"))
    data = dest / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "test_demo_aug.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    (data / "test_zero_shot.json").write_text(json.dumps([zero_shot(r) for r in records], indent=1),
                                              encoding="utf-8")
    seed = dest / "scuba/prerequisites/data/bulk_data"
    seed.mkdir(parents=True, exist_ok=True)
    for path in sorted((sample / "prerequisites").glob("*.json")):
        shutil.copy(path, seed / path.name)
    return dest


def describe(summary: dict[str, Any], agent: str) -> str:
    tasks = [t for t in summary["tasks"] if t.get("id")]
    passed = [t for t in tasks if t["outcome"] == "passed"]
    skipped = [t for t in tasks if t["outcome"] == "skipped"]
    errors = [t for t in tasks if t["outcome"] == "error"]
    failed = [t for t in tasks if t["outcome"] == "failed"]
    line = f"{len(passed)} of {len(tasks)} sample release tasks run end to end with --agent {agent}"
    parts = []
    if skipped:
        names = sorted({t.get("template") or "?" for t in skipped})
        parts.append(f"{len(skipped)} skipped: no evaluator for templates {', '.join(names)}")
    if errors:
        parts.append(f"{len(errors)} errors: " + "; ".join(
            f"{t['id']} ({t.get('error_kind')}: {str(t.get('error') or t.get('message') or '')[:160]})" for t in errors))
    if failed:
        parts.append(f"{len(failed)} failed: " + ", ".join(f"{t['id']} (score {t.get('score')})" for t in failed))
    return line + (f" ({'; '.join(parts)})" if parts else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", default=str(shared_root()),
                        help="folder with sample_tasks.json and prerequisites/ (default: SCUBA's shared folder, the "
                             "parent of $PYTEST_CUA_SCUBA_ROOT, else <repository>/../shared/scuba)")
    parser.add_argument("-n", dest="workers", default="2", help="xdist workers (default 2; 0 for none)")
    parser.add_argument("--agent", default="oracle")
    parser.add_argument("--demos", action="store_true", help="use the demonstration-augmented file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary checkout and reports")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="pytest-cua-scuba-sample-"))
    try:
        root = build_checkout(Path(args.sample), tmp / "SCUBA")
        reports = tmp / "reports"
        cmd = [sys.executable, "-m", "pytest", "suites/scuba", "--scuba-root", str(root), "-m", "scuba_release",
               "--agent", args.agent, "--cua-reports", str(reports), "-q", "-p", "no:cacheprovider", "-rs"]
        if args.workers not in ("0", ""):
            cmd += ["-n", args.workers]
        if args.demos:
            cmd.append("--demos")
        cmd += args.pytest_args
        proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True)
        summary_path = reports / "summary.json"
        if not summary_path.exists():
            sys.stdout.write(proc.stdout[-4000:] + proc.stderr[-4000:])
            print("no summary.json written", file=sys.stderr)
            return 2
        print(describe(json.loads(summary_path.read_text()), args.agent))
        if args.keep:
            print(f"kept: {tmp}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
