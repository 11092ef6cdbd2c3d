"""``pytest-cua compare BASE NEW``: compare two runs' ``reports/summary.json`` task by task, with significance.

A task is the key ``suite/id``; each run may hold several trials (episodes) of it. Skipped episodes are
ignored. A task is *paired* when it has at least one scored (passed or failed) trial in both runs; the
success-rate and score differences, their confidence intervals and p-values are computed over the paired
tasks, each task weighing the same whatever its number of trials. With one scored trial per task in both
runs the p-value is the exact McNemar test on the flips; with trials it is the exact paired sign-flip test of
the per-task success-rate differences (which is McNemar's with one trial); the confidence intervals come
from a paired bootstrap over tasks. The gate fails on a significant drop larger than ``--max-drop``, when
the new run has more error episodes than the base on the tasks both ran, or when no task is in both runs.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping, Sequence

from pytest_cua.results.stats import mcnemar_exact, paired_bootstrap, sign_flip_test
from pytest_cua.results.summary import task_key  # a task's identity across runs: suite/id

Change = Literal["both_pass", "both_fail", "to_fail", "to_pass", "flaky", "error", "only_base", "only_new"]
Status = Literal["pass", "fail", "flaky", "error"]
CHANGES: tuple[Change, ...] = ("both_pass", "both_fail", "to_fail", "to_pass", "flaky", "error", "only_base",
                               "only_new")
GROUP_FIELDS = ("suite", "persona", "difficulty", "template", "level")
TASK_FIELDS = ("persona", "difficulty", "level", "template")
# The bootstraps of the per-group rows draw at most this many resamples (the overall row draws all of
# ``resamples``): a run has many groups, and a group's interval needs less precision than the gate's.
GROUP_RESAMPLES = 2000
MAX_FLIPS_SHOWN = 20
# The change of a task whose trials all passed or all failed in both runs: (base status, new status).
_SETTLED: dict[tuple[str, str], Change] = {("pass", "pass"): "both_pass", ("fail", "fail"): "both_fail",
                                           ("pass", "fail"): "to_fail", ("fail", "pass"): "to_pass"}


class CompareError(ValueError):
    """A summary that cannot be compared: missing, unreadable, bad JSON, or not a pytest-cua summary."""


def load_summary(path: str | Path) -> dict[str, Any]:
    """The parsed ``summary.json`` at ``path`` (or in the folder ``path``); raises CompareError naming it."""
    path = Path(path)
    if path.is_dir() and (path / "summary.json").is_file():
        path = path / "summary.json"
    if not path.exists():
        raise CompareError(f"{path}: no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CompareError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CompareError(f"{path}: not a text file") from None
    except json.JSONDecodeError as exc:
        raise CompareError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise CompareError(f"{path}: not a pytest-cua summary (no \"tasks\" list)")
    check_summary(data, str(path))
    return data


OUTCOMES = ("passed", "failed", "partial", "error", "skipped")


def check_summary(data: Mapping[str, Any], source: str) -> None:
    """Every record a task record with usable values; raises CompareError naming ``source``, the record and
    the field: an unknown outcome, a score, cost or step count that is not a finite number, a trial that is
    not a whole number, the same task and trial twice, a ``run`` that is not an object."""
    if data.get("run") is not None and not isinstance(data.get("run"), Mapping):
        raise CompareError(f"{source}: \"run\" is not an object")
    seen: dict[tuple[str, int], int] = {}
    for index, record in enumerate(data["tasks"]):
        where = f"{source}: tasks[{index}]"
        if not isinstance(record, Mapping) or "id" not in record or "outcome" not in record:
            raise CompareError(f"{where} is not a task record (needs \"id\" and \"outcome\")")
        if record["outcome"] not in OUTCOMES:
            raise CompareError(f"{where}.outcome is {record['outcome']!r}, not one of {', '.join(OUTCOMES)}")
        for name in ("score", "cost_usd", "steps"):
            value = record.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value)):
                raise CompareError(f"{where}.{name} is {value!r}, not a finite number")
        trial = record.get("trial")
        if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int) or trial < 1):
            raise CompareError(f"{where}.trial is {trial!r}, not a whole number from 1")
        key = (task_key(record), int(trial or 1))
        if key in seen:
            raise CompareError(f"{where}: task {key[0]} trial {key[1]} is also tasks[{seen[key]}] (one record "
                               f"per task and trial)")
        seen[key] = index


@dataclass
class RunInfo:
    """One run's identity: its id, agent, the most trials of any task, and how many tasks it ran."""

    run_id: str | None
    agent: str | None
    trials: int
    tasks: int


@dataclass
class Side:
    """One task's trials in one run."""

    trials: int
    passed: int
    failed: int
    errors: int
    success: float | None  # passed / (passed + failed)
    score: float | None  # mean score of the passed and failed trials
    status: Status
    cost_usd: float
    steps: float  # mean over the trials that ran


@dataclass
class MilestoneChange:
    name: str
    base: bool | None  # None: the milestone is absent on that side
    new: bool | None


@dataclass
class TaskChange:
    key: str
    suite: str | None
    id: str
    persona: str | None
    difficulty: str | None
    level: str | None
    template: str | None
    base: Side | None
    new: Side | None
    change: Change
    milestones_changed: list[MilestoneChange] = field(default_factory=list)


@dataclass
class Group:
    """The paired comparison of one group of tasks (``overall``, or one suite, persona, ...)."""

    tasks: int
    base_success: float | None
    new_success: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    test: Literal["mcnemar", "sign-flip"]
    base_score: float | None
    new_score: float | None
    score_diff: float | None
    score_ci_low: float | None
    score_ci_high: float | None
    flips_to_fail: int
    flips_to_pass: int


@dataclass
class Gate:
    ok: bool
    reasons: list[str]
    line: str


@dataclass
class Comparison:
    """The result of :func:`compare`; ``to_dict()`` is its JSON form (the HTML report reads it)."""

    base: RunInfo
    new: RunInfo
    alpha: float
    max_drop: float
    quarantine_flaky: bool
    tasks: list[TaskChange]
    counts: dict[str, int]
    flaky: list[str]
    overall: Group
    groups: dict[str, dict[str, Group]]
    errors: dict[str, int]
    gate: Gate

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
    return RunInfo(run_id=run.get("id"), agent=run.get("agent"),
                   trials=max((len(v) for v in episodes.values()), default=0), tasks=len(episodes))


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
        gate=_gate(overall, errors, alpha=alpha, max_drop=max_drop, quarantined=len(left_out),
                   evidence=bool(paired) or not (old_runs and new_runs)))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _names(keys: Sequence[str]) -> str:
    """Task keys for a terminal line: the first MAX_FLIPS_SHOWN, then how many more."""
    shown = ", ".join(keys[:MAX_FLIPS_SHOWN])
    return shown + (f" ... {len(keys) - MAX_FLIPS_SHOWN} more" if len(keys) > MAX_FLIPS_SHOWN else "")


def _run_line(info: RunInfo) -> str:
    trials = _plural(info.trials, "trial")
    return f"{info.run_id or '-'} ({info.agent or '-'}, {_plural(info.tasks, 'task')}, up to {trials})"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _p_value(value: float | None) -> str:
    """``0.039``; below 0.001 (a bootstrap p of 0 included) ``<0.001``."""
    if value is None:
        return "-"
    return f"{value:.3f}" if value >= 0.001 else "<0.001"


def _p(value: float | None) -> str:
    """``p=0.039``, ``p<0.001``."""
    text = _p_value(value)
    return f"p{text}" if text.startswith("<") else f"p={text}"


def _ci(group: Group) -> str:
    if group.ci_low is None or group.ci_high is None:
        return "-"
    return f"{group.ci_low:+.3f}..{group.ci_high:+.3f}"


def _level(alpha: float) -> str:
    return f"{100 * (1 - alpha):g}%"


def _errors_grew(errors: Mapping[str, int]) -> bool:
    """More errors than the base: by count when both runs ran as many episodes of the shared tasks, else by
    share of episodes (a run with 3 trials per task against one with 1 is not judged on raw counts)."""
    base_n, new_n = errors.get("base_episodes", 0), errors.get("new_episodes", 0)
    if base_n == new_n or not base_n or not new_n:
        return errors["new"] > errors["base"]
    return errors["new"] * base_n > errors["base"] * new_n


def _errors_text(errors: Mapping[str, int]) -> str:
    base_n, new_n = errors.get("base_episodes", 0), errors.get("new_episodes", 0)
    if base_n == new_n or not base_n or not new_n:
        return f"{errors['base']} -> {errors['new']}"
    return f"{errors['base']}/{base_n} -> {errors['new']}/{new_n} episodes"


def _gate(overall: Group, errors: Mapping[str, int], *, alpha: float, max_drop: float, quarantined: int,
          evidence: bool = True) -> Gate:
    """The verdict: fail on a significant drop larger than ``max_drop``, or on more errors than the base."""
    failures: list[str] = []
    passes: list[str] = []
    test = "McNemar" if overall.test == "mcnemar" else "sign-flip"
    if overall.diff is None or overall.p_value is None:
        success = "success: no paired tasks to compare"
        if evidence:
            passes.append(success)
        else:  # both runs ran tasks, none in common that scored: nothing says the release is not worse
            success = "success: no task scored in both runs (no evidence either way)"
            failures.append(success)
    else:
        significant = overall.p_value < alpha
        comparison = "<" if significant else ">="
        success = (f"success {_rate(overall.base_success)} -> {_rate(overall.new_success)} "
                   f"({_signed(overall.diff)}, {_level(alpha)} CI {_ci(overall)}, "
                   f"{test} {_p(overall.p_value)} {comparison} {alpha:g}, "
                   f"{_plural(overall.flips_to_fail, 'flip')} to fail, {overall.flips_to_pass} to pass)")
        drop = -overall.diff
        if not significant:
            passes.append(f"success change not significant ({_p(overall.p_value)} >= {alpha:g})")
            success += " (not significant)"
        elif drop <= 0:
            passes.append(f"success did not drop ({_signed(overall.diff)}, {_p(overall.p_value)})")
        elif drop > max_drop + 1e-9:
            failures.append(f"success dropped significantly by {drop:.3f} ({_p(overall.p_value)} < {alpha:g}), "
                            f"more than the allowed {max_drop:.3f}")
        else:
            passes.append(f"success dropped significantly by {drop:.3f} ({_p(overall.p_value)} < {alpha:g}), "
                          f"within the allowed {max_drop:.3f}")
            success += f" (within max drop {max_drop:.3f})"
    shown = _errors_text(errors)
    if _errors_grew(errors):
        failures.append(f"errors grew: {shown}")
    else:
        passes.append(f"errors did not grow: {shown}")
    ok = not failures
    note = f"; {quarantined} flaky quarantined" if quarantined else ""
    line = f"gate {'passed' if ok else 'FAILED'}: {success}; errors {shown}{note}"
    return Gate(ok=ok, reasons=passes if ok else failures, line=line)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))
            for r in [header, *rows]]


def _group_row(name: str, g: Group) -> list[str]:
    return [name, str(g.tasks), _rate(g.base_success), _rate(g.new_success), _signed(g.diff), _ci(g),
            _p_value(g.p_value), g.test, f"{g.flips_to_fail}/{g.flips_to_pass}"]


def _header(comparison: Comparison) -> list[str]:
    return ["group", "tasks", "base", "new", "diff", f"{_level(comparison.alpha)} CI", "p", "test", "flips -/+"]


def _counts_line(comparison: Comparison) -> str:
    return f"tasks: {comparison.overall.tasks} paired; " + ", ".join(
        f"{c} {n}" for c, n in comparison.counts.items())


def _milestone_text(m: MilestoneChange) -> str:
    def mark(v: bool | None) -> str:
        return "absent" if v is None else "pass" if v else "fail"
    return f"{m.name}: {mark(m.base)} -> {mark(m.new)}"


def _flips(comparison: Comparison) -> list[TaskChange]:
    return ([t for t in comparison.tasks if t.change == "to_fail"]
            + [t for t in comparison.tasks if t.change == "to_pass"])


def render_text(comparison: Comparison) -> list[str]:
    """Terminal lines: the gate, the counts, the overall and per-suite table, the flips, the flaky tasks."""
    lines = [comparison.gate.line, _counts_line(comparison)]
    base, new = comparison.base, comparison.new
    lines.append(f"base {_run_line(base)} vs new {_run_line(new)}")
    rows = [_group_row("overall", comparison.overall)]
    rows += [_group_row(f"suite {name}", g) for name, g in comparison.groups["suite"].items()]
    lines += _table(_header(comparison), rows)
    flips = _flips(comparison)
    if flips:
        lines.append(f"flips ({len(flips)}):")
        for t in flips[:MAX_FLIPS_SHOWN]:
            what = "pass -> fail" if t.change == "to_fail" else "fail -> pass"
            detail = "; ".join(_milestone_text(m) for m in t.milestones_changed)
            lines.append(f"  {t.key}: {what}" + (f" [{detail}]" if detail else ""))
        if len(flips) > MAX_FLIPS_SHOWN:
            lines.append(f"  ... {len(flips) - MAX_FLIPS_SHOWN} more")
    errored = [t.key for t in comparison.tasks if t.change == "error"]
    if errored:
        lines.append(f"errored ({len(errored)}): " + _names(errored))
    if comparison.flaky:
        note = " (quarantined: left out of the figures and the gate)" if comparison.quarantine_flaky else ""
        lines.append(f"flaky ({len(comparison.flaky)}){note}: " + _names(comparison.flaky))
    return lines


def _md(text: str) -> str:
    """Text from a summary as inert markdown: no table breaks, no HTML (a comment would render it, and
    fetch its images), no code spans."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
            .replace("`", "&#96;"))


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(_md(c) for c in header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(_md(c) for c in r) + " |" for r in rows)]


def render_markdown(comparison: Comparison) -> str:
    """A GitHub-comment report: the verdict, the overall/suite and template tables, flips, flaky tasks."""
    gate = comparison.gate
    verdict = "✅ gate passed" if gate.ok else "❌ gate FAILED"
    base, new = comparison.base, comparison.new
    out = [f"## pytest-cua compare: {verdict}", "", f"`{gate.line}`", ""]
    out += [f"- {_md(r)}" for r in gate.reasons]
    out += ["", f"Base {_md(_run_line(base))} vs new {_md(_run_line(new))}. {_counts_line(comparison)}.", ""]
    rows = [_group_row("overall", comparison.overall)]
    rows += [_group_row(f"suite {name}", g) for name, g in comparison.groups["suite"].items()]
    out += _md_table(_header(comparison), rows)
    templates = comparison.groups["template"]
    if templates:
        out += ["", "### By template", ""]
        out += _md_table(_header(comparison), [_group_row(name, g) for name, g in templates.items()])
    flips = _flips(comparison)
    if flips:
        out += ["", f"<details><summary>Flipped tasks ({len(flips)})</summary>", ""]
        for t in flips:
            what = "pass → fail" if t.change == "to_fail" else "fail → pass"
            out.append(f"- `{t.key}`: {what}")
            out += [f"  - {_md(_milestone_text(m))}" for m in t.milestones_changed]
        out += ["", "</details>"]
    if comparison.flaky:
        note = " (quarantined)" if comparison.quarantine_flaky else ""
        out += ["", f"**Flaky tasks{note}** ({len(comparison.flaky)}): "
                + ", ".join(f"`{k}`" for k in comparison.flaky)]
    return "\n".join(out) + "\n"


def _alpha(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not strictly between 0 and 1")
    return value


def _drop(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"pytest-cua compare: wrote {path}")


def _run(args: argparse.Namespace) -> int:
    try:
        base, new = load_summary(args.base), load_summary(args.new)
    except CompareError as exc:
        print(f"pytest-cua compare: {exc}", file=sys.stderr)
        return 2
    try:
        comparison = compare(base, new, alpha=args.alpha, max_drop=args.max_drop,
                             quarantine_flaky=args.quarantine_flaky, resamples=args.resamples)
    except ValueError as exc:
        print(f"pytest-cua compare: {exc}", file=sys.stderr)
        return 2
    for line in render_text(comparison):
        print(line)
    if args.markdown:
        _write(Path(args.markdown), render_markdown(comparison))
    if args.json:
        _write(Path(args.json), json.dumps(comparison.to_dict(), indent=2) + "\n")
    return 0 if comparison.gate.ok else 1


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``compare`` to the ``pytest-cua`` command."""
    parser = subparsers.add_parser("compare", help="compare two runs' summary.json with significance tests",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("base", help="the reference run's summary.json (or its reports folder)")
    parser.add_argument("new", help="the candidate run's summary.json (or its reports folder)")
    parser.add_argument("--alpha", type=_alpha, default=0.05,
                        help="significance level; intervals are at 1 - alpha (default 0.05)")
    parser.add_argument("--max-drop", type=_drop, default=0.0,
                        help="success-rate drop (absolute, 0..1) a significant regression may have and "
                             "still pass (default 0)")
    parser.add_argument("--quarantine-flaky", action="store_true",
                        help="leave tasks flaky in either run out of the figures and the gate")
    parser.add_argument("--resamples", type=_positive, default=10000,
                        help="bootstrap resamples of the overall figures (default 10000)")
    parser.add_argument("--markdown", metavar="FILE", help="also write a GitHub-comment markdown report")
    parser.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")
    parser.set_defaults(func=_run)
