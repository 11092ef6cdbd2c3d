"""Desktop accessibility-tree benchmark: axtree and set-of-marks on a Calc window with a filled sheet.

    python benchmarks/desktop_axtree.py [--rounds 10] [--rows 200] [--cols 10] [--image cua-desktop-office]

A workbook of ``--rows`` x ``--cols`` numbers (openpyxl, on the host) is copied into an office container and
opened in LibreOffice Calc; then, per round, three observations: ``screenshot`` alone, ``axtree`` alone (the
AT-SPI walk in the container plus the text and ids on the host) and ``som`` (walk, screenshot and the drawing).
Printed: median and slowest of each, the executor's own walk time, the node and element counts, the load
average before and after (the machine is shared: read the figures with it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_cua.envs.docker.options import resolve_settings  # noqa: E402
from pytest_cua.envs.docker.environment import DockerEnvironment  # noqa: E402
from pytest_cua.tasks.task import Task  # noqa: E402


def workbook(path: Path, rows: int, cols: int) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Data"
    sheet.append([f"col{c}" for c in range(1, cols + 1)])
    for r in range(1, rows + 1):
        sheet.append([r * 10 + c for c in range(1, cols + 1)])
    book.save(path)
    return path


def _stats(values: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(values), 1), "max_ms": round(max(values), 1), "n": len(values)}


def _line(label: str, values: list[float]) -> str:
    s = _stats(values)
    return f"  {label:<38} median {s['median_ms']:8.1f} ms   max {s['max_ms']:8.1f} ms   (n={s['n']})"


def run(image: str, rounds: int, rows: int, cols: int) -> dict[str, Any]:
    load_before = os.getloadavg()
    settings = resolve_settings(image=image, build="never", spare=False, memory="2g")
    env = DockerEnvironment(settings, run_id=f"bench-axtree-{uuid.uuid4().hex[:8]}", worker_id="gw0").start()
    times: dict[str, list[float]] = {"screenshot": [], "axtree": [], "walk": [], "som": [], "som_draw": []}
    counts: dict[str, list[int]] = {"nodes": [], "elements": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            book = workbook(Path(tmp) / "filled.xlsx", rows, cols)
            started = time.perf_counter()
            env.begin_task(Task(id="bench-axtree", suite="bench", instruction="-", extra={
                "start_files": [{"src": str(book), "dest": "/root/filled.xlsx"}],
                "start_command": ["soffice", "--calc", "--norestore", "/root/filled.xlsx"],
                "window": "filled.xlsx", "window_timeout_s": 120}))
            open_s = time.perf_counter() - started
        env.observe(frozenset({"axtree"}))  # the first walk after the start: not counted
        for _ in range(rounds):
            for kinds, key in ((("screenshot",), "screenshot"), (("axtree",), "axtree"), (("som",), "som")):
                started = time.perf_counter()
                obs = env.observe(frozenset(kinds))
                times[key].append((time.perf_counter() - started) * 1000)
                if key == "axtree":
                    info = obs.extra["axtree"]
                    times["walk"].append(info["walk_ms"])
                    counts["nodes"].append(info["nodes"])
                    counts["elements"].append(info["elements"])
                    if info["truncated"]:
                        print(f"  truncated: {info['truncated']}", flush=True)
                if key == "som":
                    times["som_draw"].append(obs.extra["timings_ms"]["som_ms"])
    finally:
        env.close()
    return {"image": image, "sheet": f"{rows}x{cols}", "rounds": rounds, "calc_open_s": round(open_s, 2),
            "times": {k: _stats(v) for k, v in times.items()}, "raw_ms": times,
            "nodes": sorted(set(counts["nodes"])), "elements": sorted(set(counts["elements"])),
            "load_before": [round(v, 2) for v in load_before], "load_after": [round(v, 2) for v in os.getloadavg()]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", default="cua-desktop-office")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--cols", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = run(args.image, args.rounds, args.rows, args.cols)
    raw = result["raw_ms"]
    print(f"Calc with a {result['sheet']} sheet ({args.image}), {args.rounds} rounds; "
          f"Calc opened in {result['calc_open_s']} s")
    print(_line("screenshot (observe screenshot)", raw["screenshot"]))
    print(_line("axtree (observe axtree)", raw["axtree"]))
    print(_line("  of which the walk in the container", raw["walk"]))
    print(_line("som (observe som: walk+shot+marks)", raw["som"]))
    print(_line("  of which drawing the marks", raw["som_draw"]))
    print(f"  nodes {result['nodes']}   elements {result['elements']}")
    print(f"  load average before {result['load_before']}   after {result['load_after']} "
          f"({os.cpu_count()} cpus)")
    if args.json:
        args.json.write_text(json.dumps({k: v for k, v in result.items() if k != "raw_ms"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
