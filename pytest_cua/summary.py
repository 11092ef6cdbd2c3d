"""Aggregation of task records: the terminal table, ``reports/summary.json`` and the baseline gate.

Each task's record travels from the worker in the teardown report's ``user_properties`` (key
``cua_record``, a JSON string), so the same code aggregates with and without xdist. A rerun replaces the
earlier attempt: the last record of a nodeid wins.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from pytest_cua.jsonfile import load_option_json

RECORD_KEY = "cua_record"
GROUP_FIELDS = ("persona", "difficulty", "level")
SUMMARY_VERSION = 1


def outcome_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return counts


def group_stats(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Figures of one group. Success rate and mean score count passed and failed tasks only: an error is
    neither an agent failure nor a pass, and a skipped task did not run."""
    counts = outcome_counts(records)
    scored = [r for r in records if r["outcome"] in ("passed", "failed")]
    ran = [r for r in records if r["outcome"] != "skipped"]
    return {
        "tasks": len(records),
        **counts,
        "success_rate": round(counts["passed"] / len(scored), 4) if scored else None,
        "mean_score": round(statistics.fmean(r["score"] for r in scored), 4) if scored else None,
        "mean_time_s": round(statistics.fmean(r["times"]["wall_s"] for r in ran), 3) if ran else None,
        "mean_steps": round(statistics.fmean(r["steps"] for r in ran), 2) if ran else None,
        "mean_reset_s": _mean(r["times"].get("reset_s") for r in ran),
        "cost_usd": round(sum(r["cost_usd"] for r in records), 6),
        "tokens_in": sum(r["tokens_in"] for r in records),
        "tokens_out": sum(r["tokens_out"] for r in records),
        "asks": sum(r.get("asks", 0) for r in records),
    }


def _thousands(n: int) -> str:
    return str(n) if n < 1000 else f"{n / 1000:.1f}k" if n < 1_000_000 else f"{n / 1_000_000:.2f}M"


def _mean(values: Iterable[Any]) -> float | None:
    nums = [v for v in values if isinstance(v, (int, float))]
    return round(statistics.fmean(nums), 4) if nums else None


def build_summary(records: list[Mapping[str, Any]], run: Mapping[str, Any]) -> dict[str, Any]:
    records = sorted(records, key=lambda r: r["nodeid"])
    groups: dict[str, dict[str, Any]] = {"suite": {}}
    for field_name in GROUP_FIELDS:
        groups[field_name] = {}
    by_suite: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        by_suite.setdefault(r["suite"] or "-", []).append(r)
    groups["suite"] = {k: group_stats(v) for k, v in sorted(by_suite.items())}
    for field_name in GROUP_FIELDS:
        buckets: dict[str, list[Mapping[str, Any]]] = {}
        for r in records:
            if r.get(field_name):
                buckets.setdefault(f"{r['suite']}/{r[field_name]}", []).append(r)
        groups[field_name] = {k: group_stats(v) for k, v in sorted(buckets.items())}
    errors: dict[str, int] = {}
    for r in records:
        if r["outcome"] == "error":
            errors[r["error_kind"] or "unknown"] = errors.get(r["error_kind"] or "unknown", 0) + 1
    return {"version": SUMMARY_VERSION, "run": dict(run), "totals": {**group_stats(records), "errors_by_kind": errors},
            "groups": groups, "tasks": records}


def format_table(summary: Mapping[str, Any]) -> list[str]:
    """The terminal summary: one row per suite, then per persona / difficulty / level."""
    header = ("group", "tasks", "pass", "fail", "error", "success", "score", "time s", "steps", "tokens in/out",
              "cost $")
    rows: list[tuple[str, ...]] = []

    def row(name: str, s: Mapping[str, Any]) -> tuple[str, ...]:
        pct = "-" if s["success_rate"] is None else f"{100 * s['success_rate']:.1f}%"
        score = "-" if s["mean_score"] is None else f"{s['mean_score']:.3f}"
        t = "-" if s["mean_time_s"] is None else f"{s['mean_time_s']:.2f}"
        steps = "-" if s["mean_steps"] is None else f"{s['mean_steps']:.1f}"
        tokens = f"{_thousands(s['tokens_in'])}/{_thousands(s['tokens_out'])}"
        return (name, str(s["tasks"]), str(s["passed"]), str(s["failed"]), str(s["error"]), pct, score, t, steps,
                tokens, f"{s['cost_usd']:.4f}")

    groups = summary["groups"]
    for name, stats in groups["suite"].items():
        rows.append(row(name, stats))
    for field_name in GROUP_FIELDS:
        for name, stats in groups[field_name].items():
            rows.append(row(f"  {field_name} {name.split('/', 1)[1]}" if len(groups["suite"]) == 1 else
                            f"  {field_name} {name}", stats))
    rows.append(row("total", summary["totals"]))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = ["  ".join(h.ljust(widths[i]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(header))]
    for r in rows:
        out.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
    errors = summary["totals"].get("errors_by_kind") or {}
    if errors:
        out.append("errors by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(errors.items())))
    return out


@dataclass
class GateResult:
    ok: bool
    lines: list[str]


def compare_to_baseline(summary: Mapping[str, Any], baseline: Mapping[str, Any], *,
                        max_drop: float) -> GateResult:
    """The release gate: fail when the success rate or the mean score dropped by more than ``max_drop``
    (absolute, 0..1) against a baseline summary, or when the run had errors the baseline did not."""
    lines: list[str] = []
    ok = True
    now, before = summary["totals"], baseline.get("totals", {})
    for key in ("success_rate", "mean_score"):
        a, b = now.get(key), before.get(key)
        if a is None or b is None:
            lines.append(f"{key}: not comparable (run {a}, baseline {b})")
            continue
        drop = b - a
        verdict = "REGRESSION" if drop > max_drop + 1e-9 else "ok"
        ok &= verdict == "ok"
        lines.append(f"{key}: {a:.3f} vs baseline {b:.3f} ({a - b:+.3f}; allowed drop {max_drop:.3f}) {verdict}")
    old = {t["id"]: t for t in baseline.get("tasks", [])}
    lost = sorted(t["id"] for t in summary["tasks"] if t["outcome"] != "passed" and old.get(t["id"], {}).get("outcome") == "passed")
    if lost:
        lines.append(f"tasks that passed in the baseline and not now ({len(lost)}): {', '.join(lost[:20])}"
                     + (" ..." if len(lost) > 20 else ""))
    if now.get("error", 0) > before.get("error", 0):
        ok = False
        lines.append(f"errors: {now.get('error', 0)} vs baseline {before.get('error', 0)} REGRESSION")
    return GateResult(ok, lines)


def load_baseline(path: str | Path) -> dict[str, Any]:
    data = load_option_json(path, "--cua-baseline")
    if not isinstance(data, dict) or "totals" not in data:
        raise ValueError(f"--cua-baseline {path}: not a pytest-cua summary (no 'totals')")
    return data
