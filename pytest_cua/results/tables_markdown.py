"""The paper's tables of a run (``pytest_cua.results.tables.build_tables``) as markdown: one section per table,
each with the line that says how its figures were made."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pytest_cua.results.tables import ALL


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def rate_cell(figures: Mapping[str, Any]) -> str:
    """A success rate in percent: ``75.0 ± 14.4`` over two or more trials, ``75.0 (n=1)`` over one, ``-`` with no
    scored episode."""
    if figures.get("mean") is None:
        return "-"
    mean = 100 * figures["mean"]
    if figures.get("se") is None:
        return f"{mean:.1f} (n={figures.get('n', 1)})"
    return f"{mean:.1f} ± {100 * figures['se']:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _label(level: str) -> str:
    return "**all**" if level == ALL else level


def task_section(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    rows = []
    for level, t in table.items():
        demos = "" if t["demos"] is None or t["demos"] == t["tasks"] else f" ({t['demos']} with a demonstration)"
        rows.append([_label(level), str(t["tasks"]), _num(t["demo_steps"]) + demos, _num(t["replay_s"]),
                     _num(t["paper_steps"]), _num(t["paper_s"])])
    no_steps = all(t["demo_steps"] is None for t in table.values())
    no_secs = all(t["replay_episodes"] is None for t in table.values())
    notes = ["Steps: the actions of each task's demonstration (waits and the final done left out), mean over the "
             "run's tasks" + (" (not counted: give --demos with the task files)" if no_steps else "") + "; seconds: "
             "mean episode wall time (from the agent's first step to its last, the program already open) of the "
             "passed episodes of a replay run" +
             (" (none: give a replay run with --replay)" if no_secs else "") +
             ". Paper: ProSoftArena's human figures (Table 2); it gives none for L4."]
    return ["## Tasks and demonstration length per level (Table 2's layout)", "",
            *_table(["level", "tasks", "steps (ours, demos)", "seconds (ours, replay)", "steps (paper, human)",
                     "seconds (paper, human)"], rows), "", *notes]


def results_section(table: Mapping[str, Mapping[str, Any]], trials: int) -> list[str]:
    rows = [[_label(level), str(f["tasks"]), str(f["episodes"]), str(f["passed"]), str(f["failed"]),
             str(f["partial"]), str(f["errors"]), rate_cell(f), _num(f["mean_steps"])]
            for level, f in table.items()]
    how = (f"mean ± standard error over {trials} trials (each trial's passed / scored episodes)" if trials > 1 else
           "one trial (n=1): no standard error; run with --cua-trials 3 for mean ± standard error")
    return ["## Success rate per level", "",
            *_table(["level", "tasks", "episodes", "passed", "failed", "partial", "errors", "success %",
                     "steps (mean)"], rows), "",
            f"Success %: {how}. Errors, skips and partially scored episodes are not scored."]


def group_section(title: str, what: str, table: Mapping[str, Any], note: str = "") -> list[str]:
    levels = list(table["levels"])
    if not table["rows"]:
        return [f"## Success rate per {title}", "", f"No record names its {what}." + (f" {note}" if note else "")]
    rows = [[name, str(by_level[ALL]["tasks"]), *(rate_cell(by_level[lv]) if by_level[lv]["episodes"] else ""
                                                 for lv in levels), rate_cell(by_level[ALL])]
            for name, by_level in table["rows"].items()]
    lines = [f"## Success rate per {title}", "", *_table([title, "tasks", *levels, "all"], rows), "",
             "Success % as in the table per level" +
             (f"; a task of several {what}s counts in each." if what in ("program", "domain") else ".")]
    if table.get("ungrouped"):
        lines.append(f"{table['ungrouped']} episode(s) name no {what} and are left out.")
    if note:
        lines.append(note)
    return lines


def usage_section(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    rows = [[_label(level), str(u["episodes"]), str(u["tokens_in"]), str(u["tokens_out"]),
             _num(u["tokens_per_episode"]), f"{u['cost_usd']:.4f}",
             "-" if u["cost_per_episode"] is None else f"{u['cost_per_episode']:.4f}"]
            for level, u in table.items()]
    return ["## Tokens and cost per level", "",
            *_table(["level", "episodes", "tokens in", "tokens out", "tokens per episode", "cost $",
                     "cost $ per episode"], rows)]


def to_markdown(tables: Mapping[str, Any]) -> str:
    """Every table of ``build_tables`` as one markdown document."""
    run = tables["run"]
    head = [f"# Results of {run['agent'] or 'the run'}: {run['tasks']} tasks, {run['episodes']} episodes, "
            f"{run['trials']} trial(s)", "", f"From `{run['source']}`.", ""]
    markers = "" if tables["markers_recorded"] else ("The records carry no markers (a run made before records "
                                                     "had them): no program or domain to group by.")
    observation = "" if tables["observation_recorded"] else (
        "The records do not name their observation setting: every episode is under 'not recorded'.")
    sections = [task_section(tables["task_table"]), results_section(tables["results"], run["trials"]),
                group_section("program", "program", tables["by_program"], markers),
                group_section("domain", "domain", tables["by_domain"], markers),
                group_section("observation setting", "observation setting", tables["by_observation"], observation),
                usage_section(tables["usage"])]
    out = head
    for section in sections:
        out += [*section, ""]
    return "\n".join(out)
