"""Aggregation of task records: the terminal table and ``reports/summary.json`` (the gate: ``compare``).

Each task's record travels from the worker in the teardown report's ``user_properties`` (key
``pytest_cua.results.records.RECORD_KEY``, a JSON string), so the same code aggregates with and without xdist.
A rerun replaces the earlier attempt: the last record of a nodeid wins.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Mapping

from pytest_cua.results.stats import mean_se

OUTCOMES = ("passed", "failed", "partial", "error", "skipped")  # a record's outcome is one of these
GROUP_FIELDS = ("persona", "difficulty", "level")
SUMMARY_VERSION = 1


def outcome_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(OUTCOMES, 0)
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return counts


def task_key(record: Mapping[str, Any]) -> str:
    """A task across trials and runs: ``suite/id``."""
    return f"{record.get('suite') or '-'}/{record['id']}"


def per_task(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each task's figures over its trials: pass@k (a trial passed), pass^k (every trial passed), the mean
    score of its scored trials and that mean's standard error. Errors and skips are not trials that scored."""
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        by_key.setdefault(task_key(r), []).append(r)
    out: dict[str, dict[str, Any]] = {}
    for key, trials in sorted(by_key.items()):
        scored = [r for r in trials if r["outcome"] in ("passed", "failed")]
        mean, se = mean_se([float(r["score"]) for r in scored])
        passed = sum(r["outcome"] == "passed" for r in scored)
        out[key] = {"key": key, "suite": trials[0].get("suite"), "id": trials[0]["id"], "trials": len(trials),
                    "scored": len(scored), "passed": passed, "errors": sum(r["outcome"] == "error" for r in trials),
                    "pass_at_k": passed > 0 if scored else None,
                    "pass_hat_k": passed == len(scored) if scored else None,
                    "mean_score": _round(mean), "score_se": _round(se)}
    return out


def _round(value: float | None, digits: int = 4) -> float | None:
    return round(value, digits) if value is not None else None


def group_stats(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Figures of one group. Success rate and mean score count passed and failed episodes only: an error is
    neither an agent failure nor a pass, and a skipped task did not run. ``tasks`` counts tasks, ``episodes``
    their trials; pass@k and pass^k are shares of the tasks that scored, ``score_se`` the standard error of
    the mean score over those tasks (each task's mean over its trials)."""
    counts = outcome_counts(records)
    scored = [r for r in records if r["outcome"] in ("passed", "failed")]
    ran = [r for r in records if r["outcome"] != "skipped"]
    tasks = [t for t in per_task(records).values() if t["scored"]]
    _, score_se = mean_se([t["mean_score"] for t in tasks])
    return {
        "tasks": len({task_key(r) for r in records}),
        "episodes": len(records),
        **counts,
        "pass_at_k": _round(sum(bool(t["pass_at_k"]) for t in tasks) / len(tasks)) if tasks else None,
        "pass_hat_k": _round(sum(bool(t["pass_hat_k"]) for t in tasks) / len(tasks)) if tasks else None,
        "score_se": _round(score_se),
        "retries": sum(int(r.get("retries") or 0) for r in records),
        "success_rate": round(counts["passed"] / len(scored), 4) if scored else None,
        "mean_score": round(statistics.fmean(r["score"] for r in scored), 4) if scored else None,
        # a task's whole time: its start (a desktop program's start-up), episode, evaluation and rollback
        "mean_time_s": round(statistics.fmean(task_seconds(r) for r in ran), 3) if ran else None,
        "mean_episode_s": round(statistics.fmean(r["times"]["wall_s"] for r in ran), 3) if ran else None,
        "mean_start_s": _mean((r["times"] or {}).get("start_s") for r in ran),
        "mean_steps": round(statistics.fmean(r["steps"] for r in ran), 2) if ran else None,
        "mean_reset_s": _mean(r["times"].get("reset_s") for r in ran),
        "cost_usd": round(sum(r["cost_usd"] for r in records), 6),
        "tokens_in": sum(r["tokens_in"] for r in records),
        "tokens_out": sum(r["tokens_out"] for r in records),
        "asks": sum(r.get("asks", 0) for r in records),
        **help_stats(records),
        **end_stats(records),
        **scoring_stats(records),
        # figures of other record fields join here (one helper function each, like help_stats)
    }


def task_seconds(record: Mapping[str, Any]) -> float:
    """A record's whole time on its worker (``times.task_s``; the episode's for a record written before it)."""
    times = record.get("times") or {}
    total = times.get("task_s")
    return float(total if isinstance(total, (int, float)) else times.get("wall_s") or 0.0)


def help_stats(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Human help (takeovers, ``pytest_cua.episode.human``): how much, and the success rate with and without it.
    ``success_with_help`` is the success rate (every pass counts), ``success_without_help`` counts only the
    passes with no takeover, over the same scored episodes; ``helped`` is how many scored episodes had one."""
    scored = [r for r in records if r["outcome"] in ("passed", "failed")]
    helped = [r for r in scored if int(r.get("takeovers") or 0) > 0]
    passed = sum(r["outcome"] == "passed" for r in scored)
    passed_helped = sum(r["outcome"] == "passed" for r in helped)
    return {
        "takeovers": sum(int(r.get("takeovers") or 0) for r in records),
        "human_steps": sum(int(r.get("human_steps") or 0) for r in records),
        "agent_steps": sum(int(r.get("agent_steps", r.get("steps")) or 0) for r in records),
        "helped": len(helped),
        "passed_with_help": passed_helped,
        "passed_without_help": passed - passed_helped,
        "success_with_help": round(passed / len(scored), 4) if scored else None,
        "success_without_help": round((passed - passed_helped) / len(scored), 4) if scored else None,
    }


def end_stats(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Episodes a model refused (end state ``refused``) or a vendor safety check stopped (``safety_check``):
    both are agent failures, counted here so that the table says why."""
    return {"refused": sum(r.get("end") == "refused" for r in records),
            "safety_stopped": sum(r.get("end") == "safety_check" for r in records),
            "safety_checks": sum(len(r.get("safety_checks") or []) for r in records)}


def _scoring_names(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The suites' scorings the records carry (``score_<name>``, ``pytest_cua.results.records.scoring_fields``)."""
    names: dict[str, None] = {}
    for r in records:
        if "scoring" in r:  # a record of a suite with other scorings (the deciding one is its ``score``)
            names.update((key[6:], None) for key in r if key.startswith("score_") and key[6:] != r["scoring"])
    return list(names)


def scoring_stats(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Each scoring of the suite besides the one in ``score`` (``Suite.scorings``: SCUBA's exact rules, or
    the suite's own when ``--cua-scoring`` chose another): ``scorings[name]`` holds its mean score and success
    rate over the same scored episodes (a crash's score, SCUBA's -1, counts as 0), how many episodes its
    evaluator would crash on, and the tasks it scores otherwise (``differ``: id, the deciding score, its
    score). Nothing when the records carry no other scoring."""
    scored = [r for r in records if r["outcome"] in ("passed", "failed")]
    out: dict[str, Any] = {}
    for name in _scoring_names(records):
        values = [max(0.0, float(r[f"score_{name}"])) for r in scored if r.get(f"score_{name}") is not None]
        differ = [{"id": r["id"], "score": r["score"], name: r.get(f"score_{name}"),
                   **({"crash": r[f"{name}_crash"]} if r.get(f"{name}_crash") else {})}
                  for r in scored if r.get(f"score_{name}") is not None
                  and round(float(r[f"score_{name}"]), 2) != round(float(r["score"]), 2)]
        out[name] = {"mean_score": round(statistics.fmean(values), 4) if values else None,
                     "success_rate": round(sum(v >= 1 for v in values) / len(values), 4) if values else None,
                     "crashes": sum(bool(r.get(f"{name}_crash")) for r in records),
                     "differ": differ}
    return {"scorings": out} if out else {}


def scoring_lines(totals: Mapping[str, Any], decided_by: str | None) -> list[str]:
    """The terminal's lines on the other scorings: their mean and success beside the table's, and the tasks they
    score otherwise (none when every task scores the same, or when there is no other scoring)."""
    out = []
    by = f" (the table: {decided_by})" if decided_by else ""
    for name, s in (totals.get("scorings") or {}).items():
        if not s["differ"] and not s["crashes"]:
            out.append(f"score_{name}: every task scores the same{by}")
            continue
        mean = "-" if s["mean_score"] is None else f"{s['mean_score']:.3f}"
        rate = "-" if s["success_rate"] is None else f"{100 * s['success_rate']:.1f}%"
        shown = ", ".join(f"{d['id']} {d['score']:.2f} vs {d[name]:.2f}" + (" (crash)" if d.get("crash") else "")
                          for d in s["differ"][:8])
        more = f" and {len(s['differ']) - 8} more" if len(s["differ"]) > 8 else ""
        out.append(f"score_{name}{by}: mean {mean}, success {rate}; {len(s['differ'])} task(s) score otherwise"
                   f"{': ' + shown + more if shown else ''}; its evaluator would crash on {s['crashes']}")
    return out


def end_lines(totals: Mapping[str, Any]) -> list[str]:
    """The terminal's line on refusals and safety checks (none when there were none)."""
    refused, stopped, checks = (int(totals.get(k) or 0) for k in ("refused", "safety_stopped", "safety_checks"))
    if not (refused or stopped or checks):
        return []
    return [f"model refusals: {refused} episode(s) ended refused; safety checks: {checks} raised, "
            f"{stopped} episode(s) stopped by one (--cua-safety-checks); both count as agent failures"]


def help_lines(totals: Mapping[str, Any]) -> list[str]:
    """The terminal's human-help line (none when no human took over)."""
    if not totals.get("takeovers"):
        return []

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    return [f"human help: {totals['takeovers']} takeover(s) in {totals['helped']} scored episode(s), "
            f"{totals['human_steps']} human step(s), {totals['agent_steps']} agent step(s); success with help "
            f"{pct(totals['success_with_help'])} ({totals['passed']} passed), without help "
            f"{pct(totals['success_without_help'])} ({totals['passed_without_help']} passed with no takeover)"]


def _thousands(n: int) -> str:
    return str(n) if n < 1000 else f"{n / 1000:.1f}k" if n < 1_000_000 else f"{n / 1_000_000:.2f}M"


def _mean(values: Iterable[Any]) -> float | None:
    nums = [v for v in values if isinstance(v, (int, float))]
    return round(statistics.fmean(nums), 4) if nums else None


def orgs_by_worker(records: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Which org each worker's tasks ran against, by name (an org of an orgs file; never credentials):
    ``{"gw0": ["org-a"], ...}``; empty when no task names an org other than an embedded one."""
    out: dict[str, set[str]] = {}
    for r in records:
        env = r.get("environment") or {}
        org, worker = env.get("org"), env.get("worker")
        if isinstance(org, str) and org != "local" and worker:
            out.setdefault(str(worker), set()).add(org)
    return {w: sorted(names) for w, names in sorted(out.items())}


def api_requests(records: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The org API requests the tasks used (``environment.api_requests``, from the org's limits resource
    before and after each task, its rollback included): total, per task mean and most, and per org; None when
    no task counted any (the embedded org in process does not)."""
    used = [(str((r.get("environment") or {}).get("org") or "-"), r["environment"]["api_requests"]) for r in records
            if isinstance((r.get("environment") or {}).get("api_requests"), int)]
    if not used:
        return None
    by_org: dict[str, int] = {}
    for org, n in used:
        by_org[org] = by_org.get(org, 0) + n
    counts = [n for _, n in used]
    return {"total": sum(counts), "tasks": len(counts), "mean_per_task": round(statistics.fmean(counts), 1),
            "max_per_task": max(counts), "by_org": dict(sorted(by_org.items()))}


def incomplete_reason(summary: Mapping[str, Any]) -> str | None:
    """Why a run's summary does not stand for the whole run (``run.complete`` false: interrupted, stopped by -x
    or --maxfail, still under way or its controller died), or None. A summary written before ``complete`` was
    recorded counts as complete."""
    run = summary.get("run") or {}
    if run.get("complete", True) is not False:
        return None
    name = run.get("id") or "?"
    if run.get("state") == "running":
        why = "was still running when this summary was written (or its controller died)"
    else:
        why = "ended early"
    return (f"run {name} is incomplete: it {why}; {run.get('missing', '?')} of {run.get('collected', '?')} "
            f"collected task test(s) have no final record")


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
    orgs = orgs_by_worker(records)
    run = {**run, "orgs": orgs} if orgs else dict(run)
    requests = api_requests(records)
    if requests is not None:
        run["api_requests"] = requests
    return {"version": SUMMARY_VERSION, "run": dict(run), "totals": {**group_stats(records), "errors_by_kind": errors},
            "groups": groups, "per_task": list(per_task(records).values()), "tasks": records}


def format_table(summary: Mapping[str, Any]) -> list[str]:
    """The terminal summary: one row per suite, then per persona / difficulty / level."""
    trials = int(summary.get("run", {}).get("trials") or 1)
    header: tuple[str, ...] = ("group", "tasks", "pass", "fail", "error", "success", "score", "time s", "steps",
                               "tokens in/out", "cost $")
    if trials > 1:  # the pass/fail/error columns count episodes (trials), pass@k and pass^k tasks
        header = (*header[:6], "pass@k", "pass^k", "score \u00b1se", *header[7:])
    rows: list[tuple[str, ...]] = []

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    def row(name: str, s: Mapping[str, Any]) -> tuple[str, ...]:
        score = "-" if s["mean_score"] is None else f"{s['mean_score']:.3f}"
        t = "-" if s["mean_time_s"] is None else f"{s['mean_time_s']:.2f}"
        steps = "-" if s["mean_steps"] is None else f"{s['mean_steps']:.1f}"
        tokens = f"{_thousands(s['tokens_in'])}/{_thousands(s['tokens_out'])}"
        cells = [name, str(s["tasks"]), str(s["passed"]), str(s["failed"]), str(s["error"]), pct(s["success_rate"])]
        if trials > 1:
            se = s.get("score_se")
            cells += [pct(s.get("pass_at_k")), pct(s.get("pass_hat_k")),
                      score if se is None else f"{score}\u00b1{se:.3f}"]
        else:
            cells.append(score)
        return (*cells, t, steps, tokens, f"{s['cost_usd']:.4f}")

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
    orgs = summary.get("run", {}).get("orgs") or {}
    if orgs:
        out.append("orgs: " + ", ".join(f"{w} {'+'.join(names)}" for w, names in orgs.items()))
    requests = summary.get("run", {}).get("api_requests")
    if requests:
        out.append(f"org API requests: {requests['total']} for {requests['tasks']} tasks (mean "
                   f"{requests['mean_per_task']}, most {requests['max_per_task']} per task; " +
                   ", ".join(f"{o} {n}" for o, n in requests["by_org"].items()) + ")")
    out += help_lines(summary["totals"])
    out += end_lines(summary["totals"])
    decided = {r.get("scoring") for r in summary.get("tasks") or [] if r.get("scoring")}
    out += scoring_lines(summary["totals"], ", ".join(sorted(decided)) if decided else None)
    errors = summary["totals"].get("errors_by_kind") or {}
    if errors:
        out.append("errors by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(errors.items())))
    retries = summary["totals"].get("retries") or 0
    if retries:
        out.append(f"retries: {retries} attempt(s) that ended in error ran again (--cua-retry-errors); the "
                   f"table counts each test's last attempt")
    if trials > 1:
        out.append(f"trials: {trials} per task; pass/fail/error count episodes, pass@k and pass^k tasks")
    return out
