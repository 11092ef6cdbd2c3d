"""The comparison as text: terminal lines (``render_text``, also the baseline gate's in a pytest run) and a
GitHub comment in markdown (``render_markdown``)."""

from __future__ import annotations

from typing import Sequence

from pytest_cua.results.compare.formatting import interval, level, number, p_value, plural, signed
from pytest_cua.results.compare.model import Comparison, Group, MilestoneChange, RunInfo, TaskChange

MAX_FLIPS_SHOWN = 20


def _names(keys: Sequence[str]) -> str:
    """Task keys for a terminal line: the first MAX_FLIPS_SHOWN, then how many more."""
    shown = ", ".join(keys[:MAX_FLIPS_SHOWN])
    return shown + (f" ... {len(keys) - MAX_FLIPS_SHOWN} more" if len(keys) > MAX_FLIPS_SHOWN else "")


def _run_line(info: RunInfo) -> str:
    trials = plural(info.trials, "trial")
    scored = f", scored by {info.scoring}" if info.scoring else ""
    return f"{info.run_id or '-'} ({info.agent or '-'}, {plural(info.tasks, 'task')}, up to {trials}{scored})"


def scoring_lines(comparison: Comparison) -> list[str]:
    """The runs' other scorings (``score_scuba`` beside the corrected score): their mean scores on each side,
    and a warning when the two runs were decided by different scorings (their figures do not compare)."""
    base, new = comparison.base, comparison.new
    out = []
    for name in dict.fromkeys([*base.scorings, *new.scorings]):
        out.append(f"score_{name} (mean): base {number(base.scorings.get(name))}, new "
                   f"{number(new.scorings.get(name))}")
    if base.scoring and new.scoring and base.scoring != new.scoring:
        out.append(f"warning: the runs were decided by different scorings (base {base.scoring}, new "
                   f"{new.scoring}): compare runs made with the same --cua-scoring")
    return out


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))
            for r in [header, *rows]]


def _group_row(name: str, g: Group) -> list[str]:
    return [name, str(g.tasks), number(g.base_success), number(g.new_success), signed(g.diff), interval(g),
            p_value(g.p_value), g.test, f"{g.flips_to_fail}/{g.flips_to_pass}"]


def _header(comparison: Comparison) -> list[str]:
    return ["group", "tasks", "base", "new", "diff", f"{level(comparison.alpha)} CI", "p", "test", "flips -/+"]


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
    lines += scoring_lines(comparison)
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
    out += [*(f"- {_md(line)}" for line in scoring_lines(comparison)), ""] if scoring_lines(comparison) else []
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
