"""The paired comparison of two runs, task by task (``compare``).

A task is the key ``suite/id``; each run may hold several trials (episodes) of it. Skipped episodes are
ignored. A task is *paired* when it has at least one scored (passed or failed) trial in both runs; the
success-rate and score differences, their confidence intervals and p-values are computed over the paired
tasks, each task weighing the same whatever its number of trials. With one scored trial per task in both
runs the p-value is the exact McNemar test on the flips; with trials it is the exact paired sign-flip test of
the per-task success-rate differences (which is McNemar's with one trial); the confidence intervals come
from a paired bootstrap over tasks. The verdict is the gate's (``pytest_cua.results.compare.gate``).
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Mapping, Sequence

from pytest_cua.results.compare.gate import decide_gate
from pytest_cua.results.compare.model import CHANGES, Change, Comparison, Group, MilestoneChange, RunInfo, Side, \
    Status, TaskChange
from pytest_cua.results.stats import mcnemar_exact, paired_bootstrap, sign_flip_test
from pytest_cua.results.summary import incomplete_reason, task_key  # a task's identity across runs: suite/id

GROUP_FIELDS = ("suite", "persona", "difficulty", "template", "level")
# The bootstraps of the per-group rows draw at most this many resamples (the overall row draws all of
# ``resamples``): a run has many groups, and a group's interval needs less precision than the gate's.
GROUP_RESAMPLES = 2000
# The change of a task whose trials all passed or all failed in both runs: (base status, new status).
_SETTLED: dict[tuple[str, str], Change] = {("pass", "pass"): "both_pass", ("fail", "fail"): "both_fail",
                                           ("pass", "fail"): "to_fail", ("fail", "pass"): "to_pass"}


def _episodes(summary: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """The non-skipped records of a summary by task key, each task's trials in trial order (absent: 1)."""
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for record in summary.get("tasks") or []:
        if record.get("outcome") != "skipped":
            by_key.setdefault(task_key(record), []).append(record)
    for records in by_key.values():
        records.sort(key=lambda r: r.get("trial") or 1)
    return by_key


def _scored(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in records if r.get("outcome") in ("passed", "failed")]


def _side(records: Sequence[Mapping[str, Any]]) -> Side:
    """One task's figures in one run from its non-skipped trials."""
    scored = _scored(records)
    passed = sum(1 for r in scored if r["outcome"] == "passed")
    status: Status
    if not scored:
        status = "error"
    elif passed == len(scored):
        status = "pass"
    elif passed == 0:
        status = "fail"
    else:
        status = "flaky"
    return Side(
        trials=len(records), passed=passed, failed=len(scored) - passed,
        errors=sum(1 for r in records if r.get("outcome") == "error"),
        success=passed / len(scored) if scored else None,
        score=statistics.fmean(float(r.get("score") or 0.0) for r in scored) if scored else None,
        status=status,
        cost_usd=round(math.fsum(float(r.get("cost_usd") or 0.0) for r in records), 6),
        steps=round(statistics.fmean(float(r.get("steps") or 0) for r in records), 3) if records else 0.0,
    )


def _change(base: Side | None, new: Side | None) -> Change:
    if new is None:
        return "only_base"
    if base is None:
        return "only_new"
    if "error" in (base.status, new.status):
        return "error"
    if "flaky" in (base.status, new.status):
        return "flaky"
    return _SETTLED[(base.status, new.status)]


def _milestones(record: Mapping[str, Any] | None) -> dict[str, bool]:
    """A record's milestones by name (the first of a repeated name)."""
    found: dict[str, bool] = {}
    for m in (record or {}).get("milestones") or []:
        if isinstance(m, Mapping) and "name" in m:
            found.setdefault(str(m["name"]), bool(m.get("passed")))
    return found


def milestones_changed(base: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[MilestoneChange]:
    """The milestones whose ``passed`` differs between two records, in base order then new-only names."""
    old, now = _milestones(base), _milestones(new)
    names = [*old, *(n for n in now if n not in old)]
    return [MilestoneChange(n, old.get(n), now.get(n)) for n in names if old.get(n) != now.get(n)]


def _field(records: Sequence[Mapping[str, Any]], name: str) -> str | None:
    value = next((r.get(name) for r in records if r.get(name) is not None), None)
    return None if value is None else str(value)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _group(tasks: Sequence[TaskChange], *, alpha: float, resamples: int, seed: int) -> Group:
    """The paired comparison of ``tasks`` (paired tasks only: both sides have a scored trial)."""
    base = [t.base for t in tasks if t.base is not None]
    new = [t.new for t in tasks if t.new is not None]
    base_success = [s.success for s in base if s.success is not None]
    new_success = [s.success for s in new if s.success is not None]
    base_score = [s.score for s in base if s.score is not None]
    new_score = [s.score for s in new if s.score is not None]
    flips_to_fail = sum(1 for t in tasks if t.change == "to_fail")
    flips_to_pass = sum(1 for t in tasks if t.change == "to_pass")
    single = all(s.passed + s.failed == 1 for s in (*base, *new))
    success = paired_bootstrap(base_success, new_success, resamples=resamples, seed=seed, alpha=alpha)
    score = paired_bootstrap(base_score, new_score, resamples=resamples, seed=seed, alpha=alpha)
    if not tasks:
        p_value: float | None = None
    elif single:
        p_value = mcnemar_exact(flips_to_fail, flips_to_pass)
    else:
        p_value = sign_flip_test([after - before for before, after in zip(base_success, new_success)],
                                 resamples=resamples, seed=seed)
    return Group(
        tasks=len(tasks), base_success=_mean(base_success), new_success=_mean(new_success), diff=success.diff,
        ci_low=success.ci_low, ci_high=success.ci_high, p_value=p_value,
        test="mcnemar" if single else "sign-flip",
        base_score=_mean(base_score), new_score=_mean(new_score), score_diff=score.diff,
        score_ci_low=score.ci_low, score_ci_high=score.ci_high,
        flips_to_fail=flips_to_fail, flips_to_pass=flips_to_pass,
    )


def _run_info(summary: Mapping[str, Any], episodes: Mapping[str, Sequence[Mapping[str, Any]]]) -> RunInfo:
    run = summary.get("run") or {}
    decided = sorted({str(r["scoring"]) for v in episodes.values() for r in v if r.get("scoring")})
    others = ((summary.get("totals") or {}).get("scorings") or {})
    return RunInfo(run_id=run.get("id"), agent=run.get("agent"),
                   trials=max((len(v) for v in episodes.values()), default=0), tasks=len(episodes),
                   scoring="+".join(decided) or None,
                   scorings={name: s.get("mean_score") for name, s in others.items()})


def compare(base: Mapping[str, Any], new: Mapping[str, Any], *, alpha: float = 0.05, max_drop: float = 0.0,
            quarantine_flaky: bool = False, resamples: int = 10000, seed: int = 0) -> Comparison:
    """Compare two summaries (``base`` the reference, ``new`` the candidate) task by task.

    ``alpha`` is the significance level (intervals are at 1 - alpha); ``max_drop`` the success-rate drop
    (absolute, 0..1) a significant regression may have and still pass the gate; with ``quarantine_flaky``
    the tasks that were flaky in either run are left out of the figures and the gate.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    if max_drop < 0:
        raise ValueError(f"max_drop cannot be negative, not {max_drop}")
    old_runs, new_runs = _episodes(base), _episodes(new)
    tasks: list[TaskChange] = []
    for key in sorted(set(old_runs) | set(new_runs)):
        old_records, new_records = old_runs.get(key, []), new_runs.get(key, [])
        both = [*new_records, *old_records]  # the task's fields as the new run has them
        old_side = _side(old_records) if old_records else None
        new_side = _side(new_records) if new_records else None
        change = _change(old_side, new_side)
        flips = []
        if change in ("to_fail", "to_pass"):
            flips = milestones_changed(_scored(old_records)[0], _scored(new_records)[0])
        tasks.append(TaskChange(
            key=key, suite=_field(both, "suite"), id=str(both[0]["id"]),
            persona=_field(both, "persona"), difficulty=_field(both, "difficulty"), level=_field(both, "level"),
            template=_field(both, "template"), base=old_side, new=new_side, change=change,
            milestones_changed=flips))
    flaky = [t.key for t in tasks if any(s is not None and s.status == "flaky" for s in (t.base, t.new))]
    left_out = set(flaky) if quarantine_flaky else set()
    shared = [t for t in tasks if t.base is not None and t.new is not None]
    common = [t for t in shared if t.key not in left_out]
    paired = [t for t in common if t.change != "error"]
    overall = _group(paired, alpha=alpha, resamples=resamples, seed=seed)
    groups: dict[str, dict[str, Group]] = {}
    for name in GROUP_FIELDS:
        buckets: dict[str, list[TaskChange]] = {}
        for t in paired:
            value = getattr(t, name)
            if value is not None:
                buckets.setdefault(value, []).append(t)
        groups[name] = {value: _group(members, alpha=alpha, resamples=min(resamples, GROUP_RESAMPLES), seed=seed)
                        for value, members in sorted(buckets.items())}
    # errors over every task both runs ran: quarantining flaky tasks never hides errors
    errors = {"base": sum(t.base.errors for t in shared if t.base is not None),
              "new": sum(t.new.errors for t in shared if t.new is not None),
              "base_episodes": sum(t.base.trials for t in shared if t.base is not None),
              "new_episodes": sum(t.new.trials for t in shared if t.new is not None)}
    counts: dict[str, int] = {c: sum(1 for t in tasks if t.change == c) for c in CHANGES}
    return Comparison(
        base=_run_info(base, old_runs), new=_run_info(new, new_runs), alpha=alpha, max_drop=max_drop,
        quarantine_flaky=quarantine_flaky, tasks=tasks, counts=counts, flaky=flaky, overall=overall,
        groups=groups, errors=errors,
        gate=decide_gate(overall, errors, alpha=alpha, max_drop=max_drop, quarantined=len(left_out),
                         evidence=bool(paired) or not (old_runs and new_runs),
                         incomplete=[f"the {side} {why} (finish it with --cua-resume, then compare)"
                                     for side, why in (("base", incomplete_reason(base)), ("new", incomplete_reason(new)))
                                     if why is not None]))
