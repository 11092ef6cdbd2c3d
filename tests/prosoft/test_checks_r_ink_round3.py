"""The third round of R and Inkscape tasks (tasks/r_ink_round3.json, checks/r_ink_round3.py) without docker: for
each task the artifact the demonstration makes (or an equivalent one) passes every milestone, and near misses
fail the milestone that names them, never with an evaluator error: the right operation with a wrong parameter
(Yates' correction, left-closed bins, the default reference level, a combination for a union, the top minus the
bottom), the result of another function (Kruskal-Wallis for the ANOVA, a duplicate for a clone), row names
where the task says none, the unchanged start file, and a file of the wrong type under the expected name.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pytest
from scipy import stats

from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones

ROOT = Path(__file__).resolve().parents[2]
TRIAL_CSV = ROOT / "fixtures" / "prosoft" / "r_ink_round3" / "trial.csv"
SHAPES_SVG = (ROOT / "fixtures" / "prosoft" / "design" / "shapes.svg").read_text()
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites" / "prosoft" / "tasks" / "r_ink_round3.json").read_text())[
    "tasks"]}
ARMS = ("placebo", "low", "high")
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


def steps(task_id: str) -> list[dict[str, Any]]:
    task = TASKS[task_id]
    if task["template"] == "pipeline":
        return [dict(s) for s in task["ground_truth"]["steps"]]
    return [dict(task["ground_truth"], template=task["template"])]


def run(task_id: str, artifacts: Mapping[str, Path], kind: str | None = None) -> dict[str, str | None]:
    """Every milestone of the task (or of its steps of ``kind``) on these artifacts."""
    out: dict[str, str | None] = {}
    for step in steps(task_id):
        if kind is None or step["template"] == kind:
            out.update(milestones(step["template"], step, artifacts))
    return out


def test_every_task_has_a_known_kind_a_level_an_app_and_start_files():
    assert sum(t["level"] == "L1" for t in TASKS.values()) >= 5 and sum(t["level"] == "L2" for t in TASKS.values()) >= 4
    for task in TASKS.values():
        assert task["template"] in TEMPLATES, task["id"]
        assert all(s["template"] in KINDS for s in steps(task["id"])), task["id"]
        assert task["level"] in ("L1", "L2") and task["apps"] in (["r"], ["inkscape"]), task["id"]
        assert task["demonstration"]["actions"] and task["knowledge"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]


def test_no_task_shares_start_files_and_expected_result_or_its_id_with_another():
    def key(task: Mapping[str, Any]) -> str:
        return json.dumps([sorted(f["src"] for f in task.get("start_files", [])), task["ground_truth"]], sort_keys=True)
    others = [t for path in sorted((ROOT / "suites" / "prosoft" / "tasks").glob("*.json"))
              if path.name != "r_ink_round3.json" for t in json.loads(path.read_text())["tasks"]]
    taken = {key(t): t["id"] for t in others}
    ids = {t["id"] for t in others}
    for task in TASKS.values():
        assert key(task) not in taken, f"{task['id']} repeats {taken.get(key(task))}"
        taken[key(task)] = task["id"]
        assert task["id"] not in ids, task["id"]


# --- R --------------------------------------------------------------------------------------------------------

def trial() -> list[dict[str, str]]:
    with open(TRIAL_CSV, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]], row_names: bool = False) -> Path:
    """A CSV as R's write.csv writes it (strings quoted, NA bare; with row names an empty first header)."""
    def cell(v: Any) -> str:
        return "NA" if v is None else f'"{v}"' if isinstance(v, str) else repr(v)
    lines = [",".join(cell(h) for h in ([""] if row_names else []) + list(header))]
    lines += [",".join(([cell(str(i + 1))] if row_names else []) + [cell(v) for v in row]) for i, row in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def number(path: Path, value: float) -> Path:
    path.write_text(f"{value:.10g}\n")
    return path


def num(text: str) -> float | None:
    return None if text == "NA" else float(text)


def with_bp() -> list[dict[str, str]]:
    return [r for r in trial() if r["bp"] != "NA"]


def crosstab(a: str, b: str) -> np.ndarray:
    rows = trial()
    return np.array([[sum(1 for r in rows if r[a] == x and r[b] == y) for y in sorted({r[b] for r in rows})]
                     for x in sorted({r[a] for r in rows})])


def test_chisq_passes_and_the_corrected_or_another_table_fails(tmp_path):
    chi2, p, _, _ = stats.chi2_contingency(crosstab("arm", "outcome"), correction=False)
    good = {"stat": number(tmp_path / "s.txt", chi2), "p": number(tmp_path / "p.txt", p)}
    assert not failed(run("r-chisq-arm-outcome", good))
    sex = stats.chi2_contingency(crosstab("sex", "outcome"), correction=False)
    other = {"stat": number(tmp_path / "s2.txt", sex[0]), "p": number(tmp_path / "p2.txt", sex[1])}
    assert failed(run("r-chisq-arm-outcome", other)) == ["p output", "stat output"]
    # the p-value written where the statistic belongs, and a PNG under the p-value's name
    swapped = {"stat": good["p"], "p": tmp_path / "p.png"}
    swapped["p"].write_bytes(PNG_BYTES)
    result = run("r-chisq-arm-outcome", swapped)
    assert failed(result) == ["p output", "stat output"], result


def test_wilcoxon_exact_p_passes_and_the_normal_approximation_or_a_t_test_fails(tmp_path):
    rows = with_bp()
    women, men = ([float(r["bp"]) for r in rows if r["sex"] == s] for s in "FM")
    exact = stats.mannwhitneyu(women, men, method="exact").pvalue
    assert not failed(run("r-wilcox-sex", {"p": number(tmp_path / "e.txt", exact)}))
    normal = stats.mannwhitneyu(women, men, method="asymptotic").pvalue  # wilcox.test(exact = FALSE)
    assert failed(run("r-wilcox-sex", {"p": number(tmp_path / "n.txt", normal)})) == ["p output"]
    welch = stats.ttest_ind(women, men, equal_var=False).pvalue
    assert failed(run("r-wilcox-sex", {"p": number(tmp_path / "t.txt", welch)})) == ["p output"]


def test_outcome_shares_pass_and_column_proportions_or_counts_fail(tmp_path):
    table = crosstab("arm", "outcome")  # rows high, low, placebo; columns improved, unchanged, worse
    header = ["arm", "improved", "unchanged", "worse"]
    arms = ["high", "low", "placebo"]
    good = write_csv(tmp_path / "g.csv", header, [[a, *(table[i] / table[i].sum()).tolist()] for i, a in enumerate(arms)])
    assert not failed(run("r-outcome-proportions", {"shares": good}))
    by_column = table / table.sum(axis=0)  # prop.table(t, 2): the share of each arm within an outcome
    wrong = write_csv(tmp_path / "c.csv", header, [[a, *by_column[i].tolist()] for i, a in enumerate(arms)])
    assert failed(run("r-outcome-proportions", {"shares": wrong})) == ["shares rows and values"]
    counts = write_csv(tmp_path / "n.csv", header, [[a, *table[i].tolist()] for i, a in enumerate(arms)])
    assert failed(run("r-outcome-proportions", {"shares": counts})) == ["shares rows and values"]
    named = write_csv(tmp_path / "r.csv", header, [[a, *(table[i] / table[i].sum()).tolist()] for i, a in enumerate(arms)],
                      row_names=True)
    assert failed(run("r-outcome-proportions", {"shares": named})) == ["shares has no row names"]


def test_outcome_chart_needs_the_order_by_worse_and_a_700x500_plot(tmp_path):
    table = crosstab("arm", "outcome")
    shares = {a: (table[i] / table[i].sum()).tolist() for i, a in enumerate(["high", "low", "placebo"])}
    header = ["arm", "improved", "unchanged", "worse"]
    ordered = sorted(shares, key=lambda a: -shares[a][2])
    good = {"shares": write_csv(tmp_path / "g.csv", header, [[a, *shares[a]] for a in ordered]),
            "plot": plot(tmp_path / "p.png", (700, 500))}
    assert not failed(run("r-outcome-chart", good))
    alphabetical = write_csv(tmp_path / "a.csv", header, [[a, *shares[a]] for a in sorted(shares)])
    assert failed(run("r-outcome-chart", {**good, "shares": alphabetical})) == ["shares row order"]
    assert failed(run("r-outcome-chart", {**good, "plot": plot(tmp_path / "s.png", (480, 480))})) == ["plot output"]
    assert failed(run("r-outcome-chart", {"shares": good["shares"]})) == ["plot output"]


def complete_rows() -> list[list[Any]]:
    return [[int(r["id"]), r["arm"], r["sex"], r["outcome"], num(r["weight"]), num(r["bp"])] for r in trial()
            if "NA" not in (r["weight"], r["bp"])]


HEADER = ["id", "arm", "sex", "outcome", "weight", "bp"]


def test_complete_cases_pass_and_na_rows_row_names_or_one_column_only_fail(tmp_path):
    good = write_csv(tmp_path / "c.csv", HEADER, complete_rows())
    assert not failed(run("r-complete-cases", {"complete": good}))
    everything = [[int(r["id"]), r["arm"], r["sex"], r["outcome"], num(r["weight"]), num(r["bp"])] for r in trial()]
    assert failed(run("r-complete-cases", {"complete": write_csv(tmp_path / "all.csv", HEADER, everything)})) == [
        "complete rows and values"]
    only_bp = [row for row in everything if row[5] is not None]  # rows without a bp dropped, missing weights kept
    assert failed(run("r-complete-cases", {"complete": write_csv(tmp_path / "bp.csv", HEADER, only_bp)})) == [
        "complete rows and values"]
    named = write_csv(tmp_path / "n.csv", HEADER, complete_rows(), row_names=True)
    assert failed(run("r-complete-cases", {"complete": named})) == ["complete has no row names"]


def bp_by_arm() -> list[list[float]]:
    rows = with_bp()
    return [[float(r["bp"]) for r in rows if r["arm"] == a] for a in ARMS]


def test_anova_f_passes_and_kruskal_or_sex_fails(tmp_path):
    f, _ = stats.f_oneway(*bp_by_arm())
    assert not failed(run("r-anova-bp", {"f": number(tmp_path / "f.txt", f)}))
    h, _ = stats.kruskal(*bp_by_arm())
    assert failed(run("r-anova-bp", {"f": number(tmp_path / "h.txt", h)})) == ["f output"]
    rows = with_bp()
    by_sex, _ = stats.f_oneway(*[[float(r["bp"]) for r in rows if r["sex"] == s] for s in "FM"])
    assert failed(run("r-anova-bp", {"f": number(tmp_path / "s.txt", by_sex)})) == ["f output"]
    assert failed(run("r-anova-bp", {})) == ["f output"]


def plot(path: Path, size: tuple[int, int]) -> Path:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", size, "white")
    ImageDraw.Draw(im).rectangle([size[0] // 5, size[1] // 4, size[0] // 2, size[1] * 3 // 4], fill="lightblue",
                                 outline="black", width=3)
    im.save(path)
    return path


def test_anova_report_needs_the_p_value_and_an_800x600_plot(tmp_path):
    f, p = stats.f_oneway(*bp_by_arm())
    good = {"f": number(tmp_path / "f.txt", f), "p": number(tmp_path / "p.txt", p),
            "plot": plot(tmp_path / "b.png", (800, 600))}
    assert not failed(run("r-anova-report", good))
    small = {**good, "plot": plot(tmp_path / "s.png", (480, 480))}
    assert failed(run("r-anova-report", small)) == ["plot output"]
    rounded = {**good, "p": number(tmp_path / "r.txt", 0.0)}  # "p < 0.001" written as 0
    assert failed(run("r-anova-report", rounded)) == ["p output"]


def band(bp: float, right: bool = True) -> str | None:
    for lo, hi in ((120, 130), (130, 140), (140, 160)):
        if (lo < bp <= hi) if right else (lo <= bp < hi):
            return f"({lo},{hi}]" if right else f"[{lo},{hi})"
    return None


def test_bp_bands_pass_and_left_closed_bins_fail(tmp_path):
    bps = [float(r["bp"]) for r in with_bp()]
    labels = ["(120,130]", "(130,140]", "(140,160]"]
    good = write_csv(tmp_path / "b.csv", ["band", "count"], [[b, sum(band(v) == b for v in bps)] for b in labels])
    assert not failed(run("r-bp-bands", {"bands": good}))
    left = ["[120,130)", "[130,140)", "[140,160)"]
    wrong = write_csv(tmp_path / "l.csv", ["band", "count"],
                      [[b, sum(band(v, right=False) == b for v in bps)] for b in left])
    assert failed(run("r-bp-bands", {"bands": wrong})) == ["bands rows and values"]
    # the right labels with the counts of left-closed bins (140.0 counted in (140,160])
    miscounted = write_csv(tmp_path / "m.csv", ["band", "count"],
                           [[b, sum(band(v, right=False) == c for v in bps)] for b, c in zip(labels, left)])
    assert failed(run("r-bp-bands", {"bands": miscounted})) == ["bands rows and values"]
    table = write_csv(tmp_path / "t.csv", ["Var1", "Freq"], [[b, sum(band(v) == b for v in bps)] for b in labels])
    assert failed(run("r-bp-bands", {"bands": table})) == ["bands columns band, count", "bands rows and values"]


def test_bands_by_sex_pass_and_a_transposed_table_fails(tmp_path):
    rows = with_bp()
    labels = ["(120,130]", "(130,140]", "(140,160]"]
    count = lambda b, s: sum(1 for r in rows if band(float(r["bp"])) == b and r["sex"] == s)  # noqa: E731
    good = write_csv(tmp_path / "g.csv", ["band", "F", "M"], [[b, count(b, "F"), count(b, "M")] for b in labels])
    assert not failed(run("r-bands-by-sex", {"bands": good}))
    swapped = write_csv(tmp_path / "s.csv", ["band", "F", "M"], [[b, count(b, "M"), count(b, "F")] for b in labels])
    assert failed(run("r-bands-by-sex", {"bands": swapped})) == ["bands rows and values"]
    transposed = write_csv(tmp_path / "t.csv", ["sex", *labels], [[s, *(count(b, s) for b in labels)] for s in "FM"])
    assert "bands columns band, F, M" in failed(run("r-bands-by-sex", {"bands": transposed}))


def ols(rows: list[dict[str, str]], terms: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    X = np.array([[1.0, *(f(r) for f in terms.values())] for r in rows])
    y = np.array([float(r["bp"]) for r in rows])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    dof = len(y) - X.shape[1]
    se = np.sqrt(np.diag(float(((y - X @ beta) ** 2).sum()) / dof * np.linalg.inv(X.T @ X)))
    names = ["(Intercept)", *terms]
    return dict(zip(names, map(float, beta))), dict(zip(names, map(float, 2 * stats.t.sf(np.abs(beta / se), dof))))


def dummy(column: str, value: str) -> Any:
    return lambda r: float(r[column] == value)


def test_relevel_passes_and_the_default_reference_level_fails(tmp_path):
    est, _ = ols(with_bp(), {"armhigh": dummy("arm", "high"), "armlow": dummy("arm", "low")})
    good = write_csv(tmp_path / "e.csv", ["term", "estimate"], list(est.items()))
    assert not failed(run("r-relevel-placebo", {"effects": good}))
    default, _ = ols(with_bp(), {"armlow": dummy("arm", "low"), "armplacebo": dummy("arm", "placebo")})
    wrong = write_csv(tmp_path / "d.csv", ["term", "estimate"], list(default.items()))
    assert failed(run("r-relevel-placebo", {"effects": wrong})) == ["effects rows and values"]


def test_adjusted_model_passes_and_the_model_without_sex_or_without_p_values_fails(tmp_path):
    terms = {"armhigh": dummy("arm", "high"), "armlow": dummy("arm", "low"), "sexM": dummy("sex", "M")}
    est, p = ols(with_bp(), terms)
    good = write_csv(tmp_path / "m.csv", ["term", "estimate", "p_value"], [[t, est[t], p[t]] for t in est])
    assert not failed(run("r-adjusted-model", {"model": good}))
    est2, p2 = ols(with_bp(), {k: terms[k] for k in ("armhigh", "armlow")})
    arm_only = write_csv(tmp_path / "a.csv", ["term", "estimate", "p_value"], [[t, est2[t], p2[t]] for t in est2])
    assert failed(run("r-adjusted-model", {"model": arm_only})) == ["model rows and values"]
    no_p = write_csv(tmp_path / "n.csv", ["term", "estimate"], [[t, est[t]] for t in est])
    assert failed(run("r-adjusted-model", {"model": no_p})) == ["model columns term, estimate, p_value",
                                                                 "model rows and values"]


def arm_report(rows: list[dict[str, str]]) -> list[list[Any]]:
    out = []
    for a in ARMS:
        mine = [r for r in rows if r["arm"] == a]
        out.append([a, len(mine), float(np.mean([float(r["weight"]) for r in mine])),
                     float(np.mean([float(r["bp"]) for r in mine]))])
    return sorted(out, key=lambda row: row[3])


def test_arm_report_passes_and_another_order_or_incomplete_rows_fail(tmp_path):
    header = ["arm", "n", "mean_weight", "mean_bp"]
    complete = [r for r in trial() if "NA" not in (r["weight"], r["bp"])]
    good = write_csv(tmp_path / "r.csv", header, arm_report(complete))
    assert not failed(run("r-complete-arm-report", {"report": good}))
    descending = write_csv(tmp_path / "d.csv", header, arm_report(complete)[::-1])
    assert failed(run("r-complete-arm-report", {"report": descending})) == ["report row order"]
    # each mean over every patient with that value (na.rm), not over the complete rows
    loose = []
    for a, n, _, _ in arm_report(complete):
        mine = [r for r in trial() if r["arm"] == a]
        loose.append([a, n, float(np.mean([float(r["weight"]) for r in mine if r["weight"] != "NA"])),
                      float(np.mean([float(r["bp"]) for r in mine if r["bp"] != "NA"]))])
    result = run("r-complete-arm-report", {"report": write_csv(tmp_path / "l.csv", header, loose)})
    assert "report rows and values" in failed(result)


# --- Inkscape -------------------------------------------------------------------------------------------------

BAR = '<rect id="bar" x="40" y="200" width="300" height="40" fill="#33aa55"/>'
CUT = '<rect id="cut" x="280" y="180" width="100" height="80" fill="#ee9922"/>'


def svg(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def boolean(d: str, fill: str = "#33aa55") -> str:
    """The drawing with the bar and the orange rectangle replaced by one path, as Inkscape writes it."""
    return SHAPES_SVG.replace(BAR, f'<path id="path1" style="fill:{fill};fill-rule:evenodd" d="{d}"/>').replace(CUT, "")


UNION_D = "m 280,180 v 20 H 40 v 40 h 240 v 20 h 100 v -80 z"
DIFFERENCE_D = "M 40,200 V 240 H 280 V 200 Z"
INTERSECTION_D = "m 280,200 h 60 v 40 h -60 z"


def test_unchanged_drawing_fails_every_inkscape_task_and_a_png_under_its_name_fails_cleanly(tmp_path):
    start = svg(tmp_path, "shapes.svg", SHAPES_SVG)
    png = tmp_path / "png.svg"
    png.write_bytes(PNG_BYTES)
    for task_id, task in TASKS.items():
        if task["apps"] != ["inkscape"]:
            continue
        for kind in {s["template"] for s in steps(task_id)} - {"svg_png"}:
            assert failed(run(task_id, {"drawing": start}, kind)), task_id
            result = run(task_id, {"drawing": png}, kind)
            assert len(failed(result)) == len(result) and "PNG" in str(result), (task_id, result)


def test_union_passes_and_a_combination_or_a_group_fails(tmp_path):
    assert not failed(run("inkscape-union-bar", {"drawing": svg(tmp_path, "u.svg", boolean(UNION_D))}))
    # the GUI's form: absolute commands and the result keeping the bottom object's id, moved by a transform
    moved = boolean("M 0,0 V 20 H -240 V 60 H 0 V 80 H 100 V 0 Z").replace('id="path1"',
                                                                          'id="bar" transform="translate(280,180)"')
    assert not failed(run("inkscape-union-bar", {"drawing": svg(tmp_path, "t.svg", moved)}))
    combined = boolean("m 280,180 h 100 v 80 H 280 Z M 40,200 h 300 v 40 H 40 Z", "#ee9922")
    result = run("inkscape-union-bar", {"drawing": svg(tmp_path, "c.svg", combined)})
    assert failed(result) == ["drawing a path with bbox [40, 180, 340, 80], area 17600, subpaths 1"], result
    assert "area 20000 subpaths 2" in str(result)
    grouped = SHAPES_SVG.replace(BAR, f"<g id='g1'>{BAR}").replace(CUT, f"{CUT}</g>")
    assert failed(run("inkscape-union-bar", {"drawing": svg(tmp_path, "g.svg", grouped)})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 17600, subpaths 1", "drawing 1 path", "drawing 1 rect"]


def test_difference_passes_and_the_top_minus_the_bottom_or_an_intersection_fails(tmp_path):
    assert not failed(run("inkscape-difference-bar", {"drawing": svg(tmp_path, "d.svg", boolean(DIFFERENCE_D))}))
    reverse = boolean("m 280,180 h 100 v 80 h -100 v -20 h 60 v -40 h -60 z", "#ee9922")
    assert failed(run("inkscape-difference-bar", {"drawing": svg(tmp_path, "r.svg", reverse)})) == [
        "drawing a path with bbox [40, 200, 240, 40], area 9600, subpaths 1"]
    assert failed(run("inkscape-difference-bar", {"drawing": svg(tmp_path, "i.svg", boolean(INTERSECTION_D))}))
    # the bar cut but the orange rectangle kept
    kept = SHAPES_SVG.replace(BAR, f'<path id="bar" style="fill:#33aa55" d="{DIFFERENCE_D}"/>')
    assert failed(run("inkscape-difference-bar", {"drawing": svg(tmp_path, "k.svg", kept)})) == ["drawing 1 rect"]


def test_intersection_passes_and_a_union_fails(tmp_path):
    assert not failed(run("inkscape-intersection-bar", {"drawing": svg(tmp_path, "i.svg", boolean(INTERSECTION_D))}))
    assert failed(run("inkscape-intersection-bar", {"drawing": svg(tmp_path, "u.svg", boolean(UNION_D))})) == [
        "drawing a path with bbox [280, 200, 60, 40], area 2400, subpaths 1"]


EXCLUSION_D = ("M 280 180 L 280 200 L 340 200 L 340 240 L 280 240 L 280 260 L 380 260 L 380 180 L 280 180 z "
               "M 280 240 L 280 200 L 40 200 L 40 240 L 280 240 z")
COMBINED_D = "m 280,180 h 100 v 80 H 280 Z M 40,200 h 300 v 40 H 40 Z"


def test_exclusion_and_combine_pass_and_fail_each_other(tmp_path):
    exclusion = svg(tmp_path, "x.svg", boolean(EXCLUSION_D))
    combined = svg(tmp_path, "c.svg", boolean(COMBINED_D, "#ee9922"))
    assert not failed(run("inkscape-exclusion-bar", {"drawing": exclusion}))
    assert not failed(run("inkscape-combine-bar", {"drawing": combined}))
    assert failed(run("inkscape-exclusion-bar", {"drawing": combined})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 15200, subpaths 2"]
    assert failed(run("inkscape-combine-bar", {"drawing": exclusion})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 20000, subpaths 2"]
    union = svg(tmp_path, "u.svg", boolean(UNION_D))
    assert failed(run("inkscape-combine-bar", {"drawing": union})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 20000, subpaths 2"]
    # a path with a hole wound the other way: the hole subtracts
    holed = svg(tmp_path, "h.svg", boolean("M 40,180 H 380 V 260 H 40 Z M 100,200 V 240 H 200 V 200 Z"))
    result = run("inkscape-exclusion-bar", {"drawing": holed})
    assert "area 23200 subpaths 2" in str(result), result


def test_exclusion_badge_needs_the_fill_and_the_png(tmp_path):
    from PIL import Image, ImageDraw

    im = Image.new("RGBA", (400, 300), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rectangle([40, 40, 140, 140], fill="#3366cc")
    draw.rectangle([40, 200, 280, 240], fill="#663399")
    draw.rectangle([280, 180, 380, 200], fill="#663399")
    draw.rectangle([340, 200, 380, 260], fill="#663399")
    draw.rectangle([280, 240, 340, 260], fill="#663399")
    png = tmp_path / "badge.png"
    im.save(png)
    drawing = svg(tmp_path, "b.svg", boolean(EXCLUSION_D, "#663399"))
    assert not failed(run("inkscape-exclusion-badge", {"drawing": drawing, "png": png}))
    black = svg(tmp_path, "k.svg", boolean(EXCLUSION_D).replace("fill:#33aa55;", ""))  # the fill left unset
    assert failed(run("inkscape-exclusion-badge", {"drawing": black, "png": png})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 15200, subpaths 2, fill #663399"]
    jpeg = tmp_path / "badge.jpg.png"
    im.convert("RGB").save(jpeg, "JPEG")  # a JPEG under the PNG's name
    result = run("inkscape-exclusion-badge", {"drawing": drawing, "png": jpeg})
    assert failed(result) == ["png is 400x300 px", "png shows #663399", "png shows #3366cc"], result


def test_union_logo_needs_the_new_fill(tmp_path):
    assert not failed(run("inkscape-union-logo", {"drawing": svg(tmp_path, "y.svg", boolean(UNION_D, "#ffcc00"))}))
    assert failed(run("inkscape-union-logo", {"drawing": svg(tmp_path, "g.svg", boolean(UNION_D))})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 17600, subpaths 1, fill #ffcc00"]
    # the square recoloured instead
    square = boolean(UNION_D).replace('fill="#3366cc"', 'fill="#ffcc00"')
    assert failed(run("inkscape-union-logo", {"drawing": svg(tmp_path, "s.svg", square)}))


def test_notch_export_checks_the_drawing_and_the_png(tmp_path):
    from PIL import Image, ImageDraw

    def page(size: tuple[int, int]) -> Path:
        im = Image.new("RGBA", size, (0, 0, 0, 0))
        draw, k = ImageDraw.Draw(im), size[0] / 400
        draw.rectangle([40 * k, 40 * k, 140 * k, 140 * k], fill="#3366cc")
        draw.ellipse([210 * k, 40 * k, 310 * k, 140 * k], fill="#cc3333")
        draw.rectangle([40 * k, 200 * k, 280 * k, 240 * k], fill="#33aa55")
        path = tmp_path / f"{size[0]}.png"
        im.save(path)
        return path
    drawing = svg(tmp_path, "d.svg", boolean(DIFFERENCE_D))
    assert not failed(run("inkscape-notch-export", {"drawing": drawing, "png": page((800, 600))}))
    assert failed(run("inkscape-notch-export", {"drawing": drawing, "png": page((400, 300))})) == ["png is 800x600 px"]
    assert failed(run("inkscape-notch-export", {"drawing": drawing})) == [
        "png is 800x600 px", "png shows #3366cc", "png shows #cc3333"]


FLIPPED = (SHAPES_SVG.replace('<rect id="sq" x="40"', '<rect id="sq" x="-310" transform="scale(-1,1)"')
           .replace('cx="260"', 'cx="-90" transform="scale(-1,1)"'))


def test_flip_passes_in_inkscape_s_form_and_a_flip_of_one_shape_fails(tmp_path):
    assert not failed(run("inkscape-flip-pair", {"drawing": svg(tmp_path, "f.svg", FLIPPED)}))
    moved = SHAPES_SVG.replace('<rect id="sq" x="40"', '<rect id="sq" x="210"').replace('cx="260"', 'cx="90"')
    assert not failed(run("inkscape-flip-pair", {"drawing": svg(tmp_path, "m.svg", moved)}))
    alone = SHAPES_SVG.replace('<rect id="sq" x="40"', '<rect id="sq" x="-140" transform="scale(-1,1)"')
    assert failed(run("inkscape-flip-pair", {"drawing": svg(tmp_path, "a.svg", alone)})) == [
        "drawing #sq with bbox [210, 40, 100, 100], fill #3366cc", "drawing #dot with bbox [40, 40, 100, 100], fill #cc3333"]


def test_flip_and_unite_needs_both(tmp_path):
    both = FLIPPED.replace(BAR, f'<path id="bar" style="fill:#33aa55" d="{UNION_D}"/>').replace(CUT, "")
    assert not failed(run("inkscape-flip-and-unite", {"drawing": svg(tmp_path, "b.svg", both)}))
    assert failed(run("inkscape-flip-and-unite", {"drawing": svg(tmp_path, "f.svg", FLIPPED)})) == [
        "drawing a path with bbox [40, 180, 340, 80], area 17600, subpaths 1", "drawing 1 path", "drawing 1 rect"]
    assert len(failed(run("inkscape-flip-and-unite", {"drawing": svg(tmp_path, "u.svg", boolean(UNION_D))}))) == 2


def clone(transform: str) -> str:
    return SHAPES_SVG.replace("</g>", f'<use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#sq" '
                                      f'id="use1" x="0" y="0" transform="{transform}"/></g>')


def test_clone_passes_and_a_duplicate_an_unmoved_clone_or_a_moved_original_fails(tmp_path):
    assert not failed(run("inkscape-clone-square", {"drawing": svg(tmp_path, "c.svg", clone("translate(210)"))}))
    href = clone("translate(210,0)").replace("xlink:href", "href")  # SVG 2's plain href
    assert not failed(run("inkscape-clone-square", {"drawing": svg(tmp_path, "h.svg", href)}))
    duplicate = SHAPES_SVG.replace("</g>", '<rect id="rect9" x="250" y="40" width="100" height="100" '
                                           'fill="#3366cc"/></g>')
    result = run("inkscape-clone-square", {"drawing": svg(tmp_path, "d.svg", duplicate)})
    assert failed(result) == ["drawing clone of #sq with bbox [250, 40, 100, 100]"] and "none" in str(result)
    assert failed(run("inkscape-clone-square", {"drawing": svg(tmp_path, "u.svg", clone(""))})) == [
        "drawing clone of #sq with bbox [250, 40, 100, 100]"]
    # the original moved to x=250 and the clone left on the original's place
    swapped = clone("translate(-210)").replace('<rect id="sq" x="40"', '<rect id="sq" x="250"')
    assert failed(run("inkscape-clone-square", {"drawing": svg(tmp_path, "s.svg", swapped)})) == [
        "drawing clone of #sq with bbox [250, 40, 100, 100]", "drawing original sq unmoved"]


def test_mirror_clone_needs_the_flip(tmp_path):
    mirrored = clone("matrix(-1,0,0,1,390,0)")
    assert not failed(run("inkscape-mirror-clone", {"drawing": svg(tmp_path, "m.svg", mirrored)}))
    plain = clone("translate(210)")
    assert failed(run("inkscape-mirror-clone", {"drawing": svg(tmp_path, "p.svg", plain)})) == [
        "drawing clone of #sq with bbox [250, 40, 100, 100], mirrored"]
    # the original flipped in place (its own transform) and an unflipped clone: the clone shows it mirrored
    own = plain.replace('<rect id="sq" x="40"', '<rect id="sq" x="-140" transform="scale(-1,1)"')
    assert not failed(run("inkscape-mirror-clone", {"drawing": svg(tmp_path, "o.svg", own)}))


@pytest.mark.parametrize("kind", ["svg_path", "svg_clone"])
def test_a_missing_drawing_fails_each_milestone_without_an_error(kind):
    task_id = "inkscape-union-bar" if kind == "svg_path" else "inkscape-clone-square"
    result = run(task_id, {})
    assert result and len(failed(result)) == len(result), result
