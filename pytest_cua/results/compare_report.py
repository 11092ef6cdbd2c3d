"""The HTML report of a comparison of two runs (``pytest-cua report --compare BASE NEW --html FILE``).

One self-contained file: an inline style sheet, no script, and three plots drawn with matplotlib (Agg) and
embedded as base64 PNG. The tables come from the comparison (``pytest_cua.results.compare``, as its ``to_dict()``);
the plots come from the two summaries' task records. Every string from the summaries is HTML-escaped (task
ids, milestone names and error messages are data, not markup), and the page's Content-Security-Policy
allows no script and no request: images are data URIs.

matplotlib is an optional dependency (``pip install 'pytest-cua[report]'``); it is imported only when a
plot is drawn, so importing this module and writing the markdown need none.
"""

from __future__ import annotations

import base64
import io
import random
import statistics
import sys
import warnings
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSTALL_HINT = "the HTML comparison report needs matplotlib: pip install 'pytest-cua[report]'"
NO_TEMPLATE = "(none)"
MAX_TEMPLATE_BARS = 40  # more templates than this: the plot shows those whose success changed most
MAX_ERROR_ROWS = 200  # error episodes listed per run
MAX_LABEL = 40  # characters of a template name on the plot's axis
MAX_MESSAGE = 300  # characters of an error message in the table
BASE_COLOUR = "#9aa5b1"
NEW_COLOUR = "#2b6cb0"
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


class ReportDependencyError(RuntimeError):
    """matplotlib, which draws the plots, is not installed."""


@dataclass(frozen=True)
class Plot:
    """One embedded figure: its heading, the data URI of its PNG, and a caption."""

    title: str
    uri: str
    caption: str


# ---------------------------------------------------------------- formatting


def _e(value: object) -> str:
    """``value`` as escaped HTML text (None as a dash)."""
    return DASH if value is None else escape(str(value), quote=True)


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def _pp(value: float | None) -> str:
    """A difference of two rates, in percentage points with its sign."""
    return DASH if value is None else f"{100 * value:+.1f}"


def _num(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def _signed(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:+.{digits}f}"


def _p_value(value: float | None) -> str:
    if value is None:
        return DASH
    return "<0.001" if value < 0.001 else f"{value:.3f}"


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


def _task_key(record: Mapping[str, Any]) -> str:
    """The key of a record's task across runs, ``suite/id`` (``-`` without a suite), as the comparison's."""
    return f"{record.get('suite') or '-'}/{record.get('id')}"


# ---------------------------------------------------------------- sections


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
        f"{_p_value(group.get('p_value'))} ({_e(group.get('test'))})",
        f"{_num(group.get('base_score'))} \u2192 {_num(group.get('new_score'))}",
        _e(_signed(group.get("score_diff")) + _ci(group.get("score_ci_low"), group.get("score_ci_high"), _signed)),
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
        text += f", score {_num(side.get('score'))}"
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
            rows.append([f"<code>{_e(_task_key(r))}</code>", _e(r.get("trial", 1)), _e(r.get("error_kind")),
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


# ---------------------------------------------------------------- plots


def _records(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in summary.get("tasks") or [] if isinstance(r, Mapping)]


def _success_rate(records: Iterable[Mapping[str, Any]]) -> float | None:
    """passed / (passed + failed) over ``records``; None when none passed or failed."""
    outcomes = [r.get("outcome") for r in records]
    scored = sum(1 for o in outcomes if o in ("passed", "failed"))
    return sum(1 for o in outcomes if o == "passed") / scored if scored else None


def template_success(summary: Mapping[str, Any]) -> dict[str, float | None]:
    """Success rate per template over its episodes; records without a template under ``(none)``."""
    by_template: dict[str, list[Mapping[str, Any]]] = {}
    for r in _records(summary):
        template = r.get("template")
        by_template.setdefault(NO_TEMPLATE if template is None else str(template), []).append(r)
    return {name: _success_rate(rs) for name, rs in by_template.items()}


def _by_task(summary: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    tasks: dict[str, list[Mapping[str, Any]]] = {}
    for r in _records(summary):
        tasks.setdefault(_task_key(r), []).append(r)
    return tasks


def task_cost_success(summary: Mapping[str, Any]) -> tuple[list[tuple[float, float]], int]:
    """Per task, (cost summed over its trials / trials, success rate), skipped trials left out; and how many
    tasks had no passed or failed trial."""
    points: list[tuple[float, float]] = []
    unscored = 0
    for all_records in _by_task(summary).values():
        records = [r for r in all_records if r.get("outcome") != "skipped"]
        rate = _success_rate(records)
        if rate is None:
            unscored += 1
            continue
        cost = sum(float(r.get("cost_usd") or 0.0) for r in records) / len(records)
        points.append((cost, rate))
    return points, unscored


def task_steps(summary: Mapping[str, Any]) -> list[float]:
    """Mean steps per task over its trials that ran (skipped trials left out), sorted ascending."""
    steps = []
    for records in _by_task(summary).values():
        ran = [int(r.get("steps") or 0) for r in records if r.get("outcome") != "skipped"]
        if ran:
            steps.append(statistics.fmean(ran))
    return sorted(steps)


def _short_label(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "\u2026"


def _run_label(comparison: Mapping[str, Any], side: str) -> str:
    agent = (comparison.get(side) or {}).get("agent")
    return f"{side} ({agent})" if agent else side


def _load_matplotlib() -> None:
    """Import matplotlib, or raise ReportDependencyError saying how to install it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ReportDependencyError(INSTALL_HINT) from exc


def _new_figure(width: float, height: float) -> Figure:
    """A figure on an Agg canvas (no pyplot, no global backend change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png_uri(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#718096")
    ax.set_xticks([])
    ax.set_yticks([])


def _template_plot(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> Plot:
    """Grouped horizontal bars: success rate per template, base and new."""
    rates = template_success(base), template_success(new)
    names = sorted(set(rates[0]) | set(rates[1]))
    caption = ("Success rate per template: passed / (passed + failed) over the template's episodes; a missing "
               "bar means the run has no passed or failed episode of that template.")
    if len(names) > MAX_TEMPLATE_BARS:

        def change(name: str) -> float:
            a, b = rates[0].get(name), rates[1].get(name)
            return abs((b or 0.0) - (a or 0.0)) if a is not None and b is not None else 1.0

        shown = sorted(sorted(names, key=change, reverse=True)[:MAX_TEMPLATE_BARS])
        caption += f" Showing the {len(shown)} of {len(names)} templates whose success changed most."
        names = shown
    figure = _new_figure(8.0, max(2.6, 0.42 * len(names) + 1.2))
    ax = figure.subplots()
    if not names:
        _empty(ax, "no episodes")
    else:
        positions = list(range(len(names)))
        for offset, side, colour, run_rates in ((-0.2, "base", BASE_COLOUR, rates[0]),
                                                 (0.2, "new", NEW_COLOUR, rates[1])):
            ys = [p + offset for p, n in zip(positions, names) if run_rates.get(n) is not None]
            xs = [100 * (run_rates[n] or 0.0) for n in names if run_rates.get(n) is not None]
            ax.barh(ys, xs, height=0.4, color=colour, label=_run_label(comparison, side))
        ax.set_yticks(positions, [_short_label(n) for n in names])
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("success rate %")
        ax.grid(axis="x", alpha=0.3)
        figure.legend(loc="outside upper center", ncols=2, fontsize="small")
    return Plot("Success rate per template", _png_uri(figure), caption)


def _cost_plot(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> Plot:
    """Scatter: one point per task and run, mean cost per trial against success rate."""
    runs = [("base", BASE_COLOUR, *task_cost_success(base)), ("new", NEW_COLOUR, *task_cost_success(new))]
    figure = _new_figure(8.0, 4.4)
    ax = figure.subplots()
    jitter = random.Random(0)  # the same picture for the same runs
    total = sum(len(points) for _, _, points, _ in runs)
    caption = ("One point per task and run: x is the task's cost summed over its trials divided by its trials, "
               "y its success rate over passed and failed trials (skipped trials left out; jittered by up to \u00b10.02 so equal points "
               "stay visible).")
    if not total:
        _empty(ax, "no task passed or failed")
    else:
        for side, colour, points, _ in runs:
            if not points:
                continue
            xs = [p[0] for p in points]
            ys = [p[1] + jitter.uniform(-0.02, 0.02) for p in points]
            ax.scatter(xs, ys, s=22, alpha=0.65, color=colour, edgecolors="none", label=_run_label(comparison, side))
        ax.set_xlabel("cost per trial $")
        ax.set_ylabel("success rate")
        ax.set_ylim(-0.08, 1.08)
        ax.grid(alpha=0.3)
        figure.legend(loc="outside upper center", ncols=2, fontsize="small")
        if all(p[0] == 0 for _, _, points, _ in runs for p in points):
            ax.set_xlim(-1, 1)
            caption += (" Every task cost $0 in both runs (no priced model), so cost cannot tell the tasks apart:"
                        " all points sit at x = 0.")
    unscored = {side: n for side, _, _, n in runs if n}
    if unscored:
        caption += " Not shown, no passed or failed trial: " + ", ".join(
            f"{n} task{'s' if n != 1 else ''} of {side}" for side, n in unscored.items()) + "."
    return Plot("Cost against success per task", _png_uri(figure), caption)


def _steps_plot(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> Plot:
    """Each run's mean steps per task, sorted ascending (a step line per run)."""
    runs = [("base", BASE_COLOUR, task_steps(base)), ("new", NEW_COLOUR, task_steps(new))]
    figure = _new_figure(8.0, 4.0)
    ax = figure.subplots()
    medians = []
    if not any(steps for _, _, steps in runs):
        _empty(ax, "no task ran")
    else:
        for side, colour, steps in runs:
            if steps:
                ax.plot(range(1, len(steps) + 1), steps, color=colour, linewidth=2,
                        marker="o" if len(steps) <= 30 else None, markersize=3,
                        label=_run_label(comparison, side))
                medians.append(f"{side} {statistics.median(steps):.1f}")
        ax.set_xlabel("tasks, sorted by mean steps")
        ax.set_ylabel("mean steps per trial")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        figure.legend(loc="outside upper center", ncols=2, fontsize="small")
    caption = ("Mean steps per task over the trials that ran (skipped trials left out), each run sorted "
               "ascending: a lower curve takes fewer steps.")
    if medians:
        caption += " Median steps per task: " + ", ".join(medians) + "."
    return Plot("Steps per task", _png_uri(figure), caption)


def build_plots(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> list[Plot]:
    """The three plots of the report; raises ReportDependencyError without matplotlib."""
    _load_matplotlib()
    import matplotlib

    # Task and template names are data: no mathtext for a "$" in them, no TeX.
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        return [_template_plot(comparison, base, new), _cost_plot(comparison, base, new),
                _steps_plot(comparison, base, new)]


# ---------------------------------------------------------------- the page


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


def _write(path: str | Path, text: str) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def write_report(base_path: str | Path, new_path: str | Path, *, html: str | Path | None = None,
                 markdown: str | Path | None = None, alpha: float = 0.05, max_drop: float = 0.0,
                 quarantine_flaky: bool = False) -> int:
    """Compare two summary.json files and write the HTML and/or markdown report.

    Returns 0 when the gate passes, 1 when it fails, and 2 when the inputs are not usable (the message on
    stderr), a file cannot be written, or the HTML was asked for without matplotlib installed.
    """
    prefix = "pytest-cua report:"
    if html is not None:
        try:
            _load_matplotlib()
        except ReportDependencyError as exc:
            print(f"{prefix} {exc}", file=sys.stderr)
            return 2
    from pytest_cua.results.compare import compare, load_summary, render_markdown

    try:
        base = load_summary(base_path)
        new = load_summary(new_path)
        result = compare(base, new, alpha=alpha, max_drop=max_drop, quarantine_flaky=quarantine_flaky)
    except ValueError as exc:  # CompareError (a ValueError naming the file), or a bad alpha / max_drop
        print(f"{prefix} {exc}", file=sys.stderr)
        return 2
    comparison = result.to_dict()
    try:
        if html is not None:
            written = _write(html, render_html(comparison, base, new))
            print(f"{prefix} HTML comparison in {written}")
        if markdown is not None:
            written = _write(markdown, render_markdown(result))
            print(f"{prefix} markdown comparison in {written}")
    except OSError as exc:
        print(f"{prefix} cannot write the report: {exc}", file=sys.stderr)
        return 2
    gate = comparison.get("gate") or {}
    if gate.get("line"):
        print(f"{prefix} {gate['line']}")
    return 0 if gate.get("ok") else 1
