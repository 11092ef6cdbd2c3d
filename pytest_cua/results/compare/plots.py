"""The three plots of the HTML comparison, drawn with matplotlib (Agg) as PNG data URIs: success per
template, cost against success per task, steps per task. Their figures come from the two summaries' records.

matplotlib is an optional dependency (``pip install 'pytest-cua[report]'``); it is imported only when a
plot is drawn (``require_matplotlib`` says how to install it), so importing this module needs none.
"""

from __future__ import annotations

import base64
import io
import random
import statistics
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from pytest_cua.results.summary import task_key  # a task's identity across runs: suite/id

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSTALL_HINT = "the HTML comparison report needs matplotlib: pip install 'pytest-cua[report]'"
NO_TEMPLATE = "(none)"
MAX_TEMPLATE_BARS = 40  # more templates than this: the plot shows those whose success changed most
MAX_LABEL = 40  # characters of a template name on the plot's axis
BASE_COLOUR = "#9aa5b1"
NEW_COLOUR = "#2b6cb0"


class ReportDependencyError(RuntimeError):
    """matplotlib, which draws the plots, is not installed."""


@dataclass(frozen=True)
class Plot:
    """One embedded figure: its heading, the data URI of its PNG, and a caption."""

    title: str
    uri: str
    caption: str


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
        tasks.setdefault(task_key(r), []).append(r)
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


def require_matplotlib() -> None:
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
    figure, caption = template_figure(comparison, base, new)
    return Plot("Success rate per template", _png_uri(figure), caption)


def template_figure(comparison: Mapping[str, Any], base: Mapping[str, Any],
                    new: Mapping[str, Any]) -> tuple[Figure, str]:
    """Grouped horizontal bars: success rate per template, base and new. Every bar has its value written
    beside it, a 0 % bar is drawn as an outlined sliver at the axis (so it reads as zero, not as missing), and a
    run with no passed or failed episode of a template says "no data" where its bar would be."""
    rates = template_success(base), template_success(new)
    names = sorted(set(rates[0]) | set(rates[1]))
    caption = ("Success rate per template: passed / (passed + failed) over the template's episodes, written "
               "beside each bar; \u201cno data\u201d: the run has no passed or failed episode of that template.")
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
        for offset, side, colour, hatch, run_rates in ((-0.2, "base", BASE_COLOUR, "//", rates[0]),
                                                       (0.2, "new", NEW_COLOUR, None, rates[1])):
            ys = [p + offset for p, n in zip(positions, names) if run_rates.get(n) is not None]
            xs = [100 * (run_rates[n] or 0.0) for n in names if run_rates.get(n) is not None]
            # a 0 % bar keeps a visible sliver (0.6 of 100) with its outline; its label says 0 %
            bars = ax.barh(ys, [max(x, 0.6) for x in xs], height=0.4, color=colour, edgecolor="white",
                           hatch=hatch, linewidth=0.0, label=_run_label(comparison, side))
            ax.bar_label(bars, labels=[f"{x:.0f} %" for x in xs], padding=3, fontsize="x-small")
            for p, n in zip(positions, names):
                if run_rates.get(n) is None:
                    ax.text(1.0, p + offset, "no data", va="center", fontsize="x-small", color="#718096")
        ax.set_yticks(positions, [_short_label(n) for n in names])
        ax.invert_yaxis()
        ax.set_xlim(0, 112)  # room for the "100 %" labels
        ax.set_xticks([0, 20, 40, 60, 80, 100])
        ax.set_xlabel("success rate %")
        ax.grid(axis="x", alpha=0.3)
        figure.legend(loc="outside upper center", ncols=2, fontsize="small")
    return figure, caption


def _cost_plot(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> Plot:
    figure, caption = cost_figure(comparison, base, new)
    return Plot("Cost against success per task", _png_uri(figure), caption)


def cost_figure(comparison: Mapping[str, Any], base: Mapping[str, Any],
                new: Mapping[str, Any]) -> tuple[Figure, str]:
    """Scatter: one point per task and run, mean cost per trial against success rate; the cost axis starts at
    0; the runs differ by colour and by marker (base hollow circles, new filled triangles), so equal points of
    the two runs stay apart to the eye."""
    runs = [("base", BASE_COLOUR, *task_cost_success(base)), ("new", NEW_COLOUR, *task_cost_success(new))]
    figure = _new_figure(8.0, 4.4)
    ax = figure.subplots()
    jitter = random.Random(0)  # the same picture for the same runs
    total = sum(len(points) for _, _, points, _ in runs)
    caption = ("One point per task and run: x is the task's cost summed over its trials divided by its trials, "
               "y its success rate over passed and failed trials (skipped trials left out; jittered by up to "
               "\u00b10.02 so equal points stay visible).")
    if not total:
        _empty(ax, "no task passed or failed")
    else:
        for side, colour, points, _ in runs:
            if not points:
                continue
            xs = [p[0] for p in points]
            ys = [p[1] + jitter.uniform(-0.02, 0.02) for p in points]
            if side == "base":
                ax.scatter(xs, ys, s=36, facecolors="none", edgecolors=colour, linewidths=1.4, marker="o",
                           clip_on=False, label=_run_label(comparison, side))
            else:
                ax.scatter(xs, ys, s=22, alpha=0.75, color=colour, edgecolors="none", marker="^", clip_on=False,
                           label=_run_label(comparison, side))
        ax.set_xlabel("cost per trial $")
        ax.set_ylabel("success rate")
        ax.set_ylim(-0.08, 1.08)
        ax.grid(alpha=0.3)
        figure.legend(loc="outside upper center", ncols=2, fontsize="small")
        highest = max(p[0] for _, _, points, _ in runs for p in points)
        if highest <= 0:
            ax.set_xlim(0, 1)
            ax.set_xticks([0], ["$0"])
            caption += (" Every task cost $0 in both runs (no priced model), so cost cannot tell the tasks apart:"
                        " all points sit at x = 0.")
        else:
            ax.set_xlim(0, highest * 1.08)
    unscored = {side: n for side, _, _, n in runs if n}
    if unscored:
        caption += " Not shown, no passed or failed trial: " + ", ".join(
            f"{n} task{'s' if n != 1 else ''} of {side}" for side, n in unscored.items()) + "."
    return figure, caption


def _steps_plot(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> Plot:
    figure, caption = steps_figure(comparison, base, new)
    return Plot("Steps per task", _png_uri(figure), caption)


def steps_figure(comparison: Mapping[str, Any], base: Mapping[str, Any],
                 new: Mapping[str, Any]) -> tuple[Figure, str]:
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
                base_side = side == "base"  # equal curves stay apart: base wide and dashed under new
                ax.plot(range(1, len(steps) + 1), steps, color=colour, linewidth=4 if base_side else 1.8,
                        linestyle="--" if base_side else "-", zorder=1 if base_side else 2,
                        marker=("o" if base_side else "^") if len(steps) <= 30 else None, markersize=4,
                        label=_run_label(comparison, side))
                medians.append(f"{side} {statistics.median(steps):.1f}")
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # tasks are counted: 1, 2, 3, not 1.5
        ax.set_xlabel("tasks, sorted by mean steps")
        ax.set_ylabel("mean steps per trial")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        figure.legend(loc="outside upper center", ncols=2, fontsize="small")
    caption = ("Mean steps per task over the trials that ran (skipped trials left out), each run sorted "
               "ascending: a lower curve takes fewer steps.")
    if medians:
        caption += " Median steps per task: " + ", ".join(medians) + "."
    return figure, caption


def build_plots(comparison: Mapping[str, Any], base: Mapping[str, Any], new: Mapping[str, Any]) -> list[Plot]:
    """The three plots of the report; raises ReportDependencyError without matplotlib."""
    require_matplotlib()
    import matplotlib

    # Task and template names are data: no mathtext for a "$" in them, no TeX.
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        return [_template_plot(comparison, base, new), _cost_plot(comparison, base, new),
                _steps_plot(comparison, base, new)]
