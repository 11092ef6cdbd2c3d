"""The HTML report of a comparison of two runs (``pytest-cua report --compare BASE NEW --html FILE``).

One self-contained file: an inline style sheet, no script, and the three plots of
``pytest_cua.results.compare.plots`` embedded as base64 PNG. The tables come from the comparison (its
``to_dict()``); the plots from the two summaries' task records. Every string from the summaries is
HTML-escaped (task ids, milestone names and error messages are data, not markup), and the page's
Content-Security-Policy allows no script and no request: images are data URIs.
"""

from __future__ import annotations

from html import escape
from typing import Any, Callable, Iterable, Mapping, Sequence

from pytest_cua.results.compare.formatting import number, p_value, signed
from pytest_cua.results.compare.plots import Plot, build_plots
from pytest_cua.results.summary import task_key  # a task's identity across runs: suite/id

MAX_ERROR_ROWS = 200  # error episodes listed per run
MAX_MESSAGE = 300  # characters of an error message in the table
CHANGE_LABELS = {
    "to_fail": "pass \u2192 fail",
    "to_pass": "fail \u2192 pass",
    "flaky": "flaky",
    "error": "error",
    "both_pass": "both pass",
    "both_fail": "both fail",
    "only_base": "only in base",
    "only_new": "only in new",
}
GROUP_TITLES = (("suite", "Per suite"), ("persona", "Per persona"), ("difficulty", "Per difficulty"),
                ("level", "Per level"), ("template", "Per template"))
DASH = "\u2013"

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 78rem;
       padding: 0 1rem; color: #1a202c; line-height: 1.4; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #cbd5e0; } h3 { margin-top: 1.4rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #cbd5e0; padding: .25rem .55rem; text-align: left; vertical-align: top; }
th { background: #edf2f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-size: .85rem; overflow-wrap: anywhere; }
.verdict { padding: .8rem 1.1rem; border-radius: 6px; margin: 1rem 0; }
.verdict.ok { background: #e6f4ea; border: 2px solid #2f855a; }
.verdict.failed { background: #fdecea; border: 2px solid #c53030; }
.verdict .word { font-size: 1.5rem; font-weight: 700; margin: 0; }
.verdict.ok .word { color: #276749; } .verdict.failed .word { color: #9b2c2c; }
.worse { color: #9b2c2c; font-weight: 600; } .better { color: #276749; font-weight: 600; }
.muted { color: #718096; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; border: 1px solid #e2e8f0; }
figcaption { color: #4a5568; font-size: .9rem; max-width: 60rem; }
details summary { cursor: pointer; font-weight: 600; }
"""
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _e(value: object) -> str:
    """``value`` as escaped HTML text (None as a dash)."""
    return DASH if value is None else escape(str(value), quote=True)


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def _pp(value: float | None) -> str:
    """A difference of two rates, in percentage points with its sign."""
    return DASH if value is None else f"{100 * value:+.1f}"


def _ci(low: float | None, high: float | None, fmt: Callable[[float], str]) -> str:
    """`` [low, high]`` formatted by ``fmt``, or nothing when the interval is unknown."""
    if low is None or high is None:
        return ""
    return f" [{fmt(low)}, {fmt(high)}]"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Iterable[int] = ()) -> str:
    """An HTML table; ``header`` is plain text, the cells of ``rows`` are HTML already escaped."""
    right = set(numeric)
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = "".join(f'<td class="num">{c}</td>' if i in right else f"<td>{c}</td>" for i, c in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    if not body:
        return '<p class="muted">none</p>'
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _verdict(comparison: Mapping[str, Any]) -> str:
    gate = comparison.get("gate") or {}
    ok = bool(gate.get("ok"))
    reasons = "".join(f"<li>{_e(r)}</li>" for r in gate.get("reasons") or [])
    settings = (f"alpha {comparison.get('alpha')}, allowed drop {_pct(comparison.get('max_drop'))}, "
                f"flaky tasks {'quarantined' if comparison.get('quarantine_flaky') else 'counted'}")
    return (f'<section class="verdict {"ok" if ok else "failed"}">'
            f'<p class="word">{"PASSED" if ok else "FAILED"}</p>'
            f"<p>{_e(gate.get('line', ''))}</p>"
            + (f"<ul>{reasons}</ul>" if reasons else "")
            + f'<p class="muted">{_e(settings)}</p></section>')


def _runs(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The two runs side by side: agent, run id, trials, tasks, episodes, wall time and cost."""
    sides = [(comparison.get("base") or {}, base), (comparison.get("new") or {}, new)]

    def totals(summary: Mapping[str, Any], key: str) -> Any:
        return (summary.get("totals") or {}).get(key)

    rows = [
        ["agent", *(_e(c.get("agent")) for c, _ in sides)],
        ["run id", *(f"<code>{_e(c.get('run_id'))}</code>" for c, _ in sides)],
        ["trials per task", *(_e(c.get("trials")) for c, _ in sides)],
        ["tasks", *(_e(c.get("tasks")) for c, _ in sides)],
        ["episodes", *(_e(len(s.get("tasks") or [])) for _, s in sides)],
        ["wall time s", *(_e(_round((s.get("run") or {}).get("wall_s"), 1)) for _, s in sides)],
        ["cost $", *(_e(_round(totals(s, "cost_usd"), 4)) for _, s in sides)],
    ]
    if any(c.get("scoring") for c, _ in sides):
        rows.append(["scored by", *(_e(c.get("scoring") or "-") for c, _ in sides)])
    names = dict.fromkeys(n for c, _ in sides for n in (c.get("scorings") or {}))
    rows += [[f"mean score_{n}", *(_e(_round((c.get("scorings") or {}).get(n), 4)) for c, _ in sides)]
             for n in names]
    return "<h2>Runs</h2>" + _table(["", "base", "new"], rows)


def _round(value: Any, digits: int) -> Any:
    return round(value, digits) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _counts(comparison: Mapping[str, Any]) -> str:
    counts = comparison.get("counts") or {}
    rows = [[_e(label), _e(counts.get(change, 0))] for change, label in CHANGE_LABELS.items()]
    return "<h2>Changes</h2>" + _table(["task change", "tasks"], rows, numeric=[1])


def _diff_class(group: Mapping[str, Any], alpha: float) -> str:
    """``worse`` or ``better`` when the success difference is significant at ``alpha``."""
    p, diff = group.get("p_value"), group.get("diff")
    if p is None or diff is None or p >= alpha or diff == 0:
        return ""
    return "worse" if diff < 0 else "better"


GROUP_HEADER = ["group", "tasks", "success base \u2192 new", "diff pp [CI]", "p (test)",
                "mean score base \u2192 new", "score diff [CI]", "pass \u2192 fail", "fail \u2192 pass"]


def _group_row(name: str, group: Mapping[str, Any], alpha: float) -> list[str]:
    cls = _diff_class(group, alpha)
    diff = _pp(group.get("diff")) + _ci(group.get("ci_low"), group.get("ci_high"), _pp)
    return [
        _e(name),
        _e(group.get("tasks")),
        f"{_pct(group.get('base_success'))} \u2192 {_pct(group.get('new_success'))}",
        f'<span class="{cls}">{_e(diff)}</span>' if cls else _e(diff),
        f"{p_value(group.get('p_value'), DASH)} ({_e(group.get('test'))})",
        f"{number(group.get('base_score'), dash=DASH)} \u2192 {number(group.get('new_score'), dash=DASH)}",
        _e(signed(group.get("score_diff"), dash=DASH)
           + _ci(group.get("score_ci_low"), group.get("score_ci_high"), signed)),
        _e(group.get("flips_to_fail", 0)),
        _e(group.get("flips_to_pass", 0)),
    ]


def _groups(comparison: Mapping[str, Any]) -> str:
    """The overall table, then one table per grouping that has groups."""
    alpha = float(comparison.get("alpha") or 0.05)
    numeric = [1, 2, 3, 4, 5, 6, 7, 8]
    parts = ["<h2>Success and score</h2>",
             '<p class="muted">Success counts passed and failed episodes; diff is new minus base in '
             f"percentage points with its confidence interval; coloured when p &lt; {_e(alpha)}.</p>",
             "<h3>Overall</h3>",
             _table(GROUP_HEADER, [_group_row("all tasks", comparison.get("overall") or {}, alpha)], numeric=numeric)]
    groups = comparison.get("groups") or {}
    for field, title in GROUP_TITLES:
        buckets = groups.get(field) or {}
        if buckets:
            rows = [_group_row(name, g, alpha) for name, g in sorted(buckets.items())]
            parts += [f"<h3>{_e(title)}</h3>", _table(GROUP_HEADER, rows, numeric=numeric)]
    return "".join(parts)


def _side(side: Mapping[str, Any] | None) -> str:
    """One run's result for a task: status, passed of trials, mean score."""
    if side is None:
        return '<span class="muted">absent</span>'
    text = f"{side.get('status')} {side.get('passed', 0)}/{side.get('trials', 0)}"
    if side.get("errors"):
        text += f", {side.get('errors')} error"
    if side.get("score") is not None:
        text += f", score {number(side.get('score'), dash=DASH)}"
    return _e(text)


def _tick(value: bool | None) -> str:
    return DASH if value is None else "\u2713" if value else "\u2717"


def _milestones(changed: Iterable[Mapping[str, Any]]) -> str:
    items = [f"{_e(m.get('name'))}: {_tick(m.get('base'))} \u2192 {_tick(m.get('new'))}" for m in changed]
    return "<br>".join(items) if items else '<span class="muted">none</span>'


def _task_name(task: Mapping[str, Any]) -> str:
    return f"<code>{_e(task.get('key'))}</code>"


def _flipped(tasks: Sequence[Mapping[str, Any]]) -> str:
    order = {"to_fail": 0, "to_pass": 1}
    flipped = sorted((t for t in tasks if t.get("change") in order),
                     key=lambda t: (order[t["change"]], str(t.get("key"))))
    rows = [[_task_name(t), _e(CHANGE_LABELS[t["change"]]), _side(t.get("base")), _side(t.get("new")),
             _milestones(t.get("milestones_changed") or [])] for t in flipped]
    return ("<h2>Flipped tasks</h2>"
            + _table(["task", "change", "base", "new", "milestones changed (base \u2192 new)"], rows))


def _flaky(comparison: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]]) -> str:
    keys = set(comparison.get("flaky") or [])
    flaky = sorted((t for t in tasks if t.get("change") == "flaky" or t.get("key") in keys),
                   key=lambda t: str(t.get("key")))
    note = ('<p class="muted">Quarantined: flaky tasks do not count in the gate.</p>'
            if comparison.get("quarantine_flaky") and flaky else "")
    rows = [[_task_name(t), _side(t.get("base")), _side(t.get("new"))] for t in flaky]
    return "<h2>Flaky tasks</h2>" + note + _table(["task", "base", "new"], rows)


def _errors(comparison: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]],
            base: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """Error counts, the tasks whose change is an error, and each run's error episodes."""
    counts = comparison.get("errors") or {}
    parts = ["<h2>Errors</h2>",
             f"<p>Error episodes: base {_e(counts.get('base', 0))}, new {_e(counts.get('new', 0))}. "
             "An error is neither a pass nor a failure of the agent: it is left out of the success rates.</p>"]
    errored = sorted((t for t in tasks if t.get("change") == "error"), key=lambda t: str(t.get("key")))
    if errored:
        rows = [[_task_name(t), _side(t.get("base")), _side(t.get("new"))] for t in errored]
        parts += ["<h3>Tasks with errors</h3>", _table(["task", "base", "new"], rows)]
    for run, summary in (("base", base), ("new", new)):
        records = [r for r in summary.get("tasks") or [] if r.get("outcome") == "error"]
        if not records:
            continue
        rows = []
        for r in records[:MAX_ERROR_ROWS]:
            message = str(r.get("error") or "")
            if len(message) > MAX_MESSAGE:
                message = message[:MAX_MESSAGE] + "\u2026"
            rows.append([f"<code>{_e(task_key(r))}</code>", _e(r.get("trial", 1)), _e(r.get("error_kind")),
                         f"<code>{_e(message)}</code>" if message else DASH])
        more = (f'<p class="muted">{len(records) - MAX_ERROR_ROWS} more not listed.</p>'
                if len(records) > MAX_ERROR_ROWS else "")
        parts += [f"<h3>Error episodes of the {run} run</h3>",
                  _table(["task", "trial", "kind", "message"], rows, numeric=[1]), more]
    return "".join(parts)


def _one_sided(tasks: Sequence[Mapping[str, Any]]) -> str:
    rows = [[_task_name(t), _e(CHANGE_LABELS[t["change"]]), _side(t.get("base") or t.get("new"))]
            for t in sorted(tasks, key=lambda t: (str(t.get("change")), str(t.get("key"))))
            if t.get("change") in ("only_base", "only_new")]
    if not rows:
        return ""
    return "<h2>Tasks in one run only</h2>" + _table(["task", "where", "result"], rows)


def _all_tasks(tasks: Sequence[Mapping[str, Any]]) -> str:
    rows = [[_task_name(t), _e(CHANGE_LABELS.get(str(t.get("change")), t.get("change"))),
             _side(t.get("base")), _side(t.get("new"))] for t in sorted(tasks, key=lambda t: str(t.get("key")))]
    return (f"<details><summary>All tasks ({len(rows)})</summary>"
            + _table(["task", "change", "base", "new"], rows) + "</details>")


def _plots(plots: Sequence[Plot]) -> str:
    parts = ["<h2>Plots</h2>"]
    for plot in plots:
        parts.append(f'<figure><h3>{_e(plot.title)}</h3><img src="{plot.uri}" alt="{_e(plot.title)}">'
                     f"<figcaption>{_e(plot.caption)}</figcaption></figure>")
    return "".join(parts)


def default_title(comparison: Mapping[str, Any]) -> str:
    def run(side: str) -> str:
        info = comparison.get(side) or {}
        return f"{info.get('agent') or side} ({info.get('run_id') or '?'})"

    return f"pytest-cua comparison: {run('base')} \u2192 {run('new')}"


def render_html(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any], *,
                title: str | None = None) -> str:
    """The whole report as one HTML document.

    ``comparison`` is ``Comparison.to_dict()`` of ``pytest_cua.results.compare``; ``base`` and ``new`` are the two
    summaries it was computed from (their records feed the plots). Raises ReportDependencyError when
    matplotlib is not installed.
    """
    plots = build_plots(comparison, base, new)
    title = title or default_title(comparison)
    tasks = [t for t in comparison.get("tasks") or [] if isinstance(t, Mapping)]
    body = "".join([
        f"<h1>{_e(title)}</h1>",
        _verdict(comparison),
        _runs(comparison, base, new),
        _counts(comparison),
        _groups(comparison),
        _flipped(tasks),
        _flaky(comparison, tasks),
        _errors(comparison, tasks, base, new),
        _one_sided(tasks),
        _plots(plots),
        _all_tasks(tasks),
        '<footer><p class="muted">Written by pytest-cua report --compare.</p></footer>',
    ])
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")
