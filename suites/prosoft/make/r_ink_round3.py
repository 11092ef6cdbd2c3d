"""Writes tasks/r_ink_round3.json: a third round of R (for RGui) and Inkscape (for Illustrator) tasks, each L1 a
core function no earlier task of its program uses (R: Pearson's chi-squared test, dropping incomplete rows, a
one-way ANOVA, binning with cut, a factor's reference level, the Wilcoxon rank sum test, row proportions;
Inkscape: the Path menu's Union, Difference, Intersection, Exclusion and Combine, Flip Horizontal, Create Clone),
each L2 a chain of them into one result. Run ``python suites/prosoft/make/r_ink_round3.py`` from
the repository root.

Start files: ``fixtures/prosoft/r_ink_round3/trial.csv`` (``make_fixtures.py`` there) for R, and
``fixtures/prosoft/design/shapes.svg`` (read-only, shared with make/design_more.py) for Inkscape. The expected
results are computed here from the start files with numpy and scipy, independently of R. Evaluators:
``checks/r_more.py`` (r_table), ``templates.py``'s r_output, ``checks/inkscape_more.py`` (svg_shapes, svg_png)
and ``checks/r_ink_round3.py`` (svg_path: the outline, area and subpath count of a path Inkscape's boolean
operations made; svg_clone: where a clone shows its original).
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import R_CMD, C, K, P, T, W, task, write  # noqa: E402
from design_more import (BAR, CUT, EXPORT_PNG, INK_SAVE, INK_START, KNOW_INK, TRIPLE, fields, ink,  # noqa: E402
                         shift_ink)



def _stats():
    """scipy.stats, from the generators extra (``pip install -e .[generators]``), as the other generators take it."""
    from scipy import stats

    return stats


ROOT = Path(__file__).resolve().parents[3]
FIX = "fixtures/prosoft/r_ink_round3"
WORK = "/root/work"

with open(ROOT / FIX / "trial.csv", newline="", encoding="utf-8") as f:
    TRIAL = list(csv.DictReader(f))


def num(text: str) -> float | None:
    return None if text == "NA" else float(text)


def r6(x: float) -> float:
    return round(float(x), 6)


# --- R --------------------------------------------------------------------------------------------------------

R_START = {"start_files": [{"src": f"{FIX}/trial.csv", "dest": f"{WORK}/trial.csv"}],
           "start_command": R_CMD, "window": "^R console$", "window_timeout_s": 60}
LOAD = f'd <- read.csv("{WORK}/trial.csv")\n'
KNOW_R = ("R: read.csv(path) reads a CSV (NA marks a missing value); na.omit(d) or d[complete.cases(d), ] keeps "
          "the complete rows; write.csv(df, path, row.names = FALSE) writes a CSV without row names; "
          "table(a, b) cross-tabulates, chisq.test(table) is Pearson's chi-squared test (statistic, p.value); "
          "aov(y ~ g, data = d) a one-way ANOVA, summary(fit)[[1]] its table (\"F value\", \"Pr(>F)\"); "
          "cut(x, breaks) bins a number into right-closed intervals labelled (a,b]; relevel(factor(x), ref = "
          "\"level\") sets a factor's reference level; lm(y ~ x, data = d), coef(m), summary(m)$coefficients; "
          "aggregate(y ~ g, data = d, FUN = mean); order(); png(path, width = w, height = h) ... dev.off().")


def r_task(id, level, instruction, truth, code, artifacts):
    kind = "pipeline" if "steps" in truth else truth.pop("template")
    return task(id, level, instruction, kind, truth, R_START, [T(line + "\n") for line in code.strip().split("\n")]
                + [W(2)], tags=["r"], artifacts=artifacts, knowledge=KNOW_R)


def table_truth(name, key, columns, rows, **extra):
    return {"template": "r_table", "artifact": name, "key": key, "columns": columns, "rows": rows,
            "row_names": False, **extra}


ARMS = ("placebo", "low", "high")
OUTCOMES = ("improved", "unchanged", "worse")
COMPLETE = [r for r in TRIAL if r["weight"] != "NA" and r["bp"] != "NA"]
WITH_BP = [r for r in TRIAL if r["bp"] != "NA"]
BP = {a: np.array([float(r["bp"]) for r in WITH_BP if r["arm"] == a]) for a in ARMS}

# chi-squared test of arm x outcome (3 x 3: no continuity correction)
CROSS = np.array([[sum(1 for r in TRIAL if r["arm"] == a and r["outcome"] == o) for o in OUTCOMES] for a in ARMS])
CHI2, CHI_P, _, _ = _stats().chi2_contingency(CROSS, correction=False)
F_VALUE, F_P = _stats().f_oneway(*(BP[a] for a in ARMS))

BREAKS = (120, 130, 140, 160)
BANDS = [f"({lo},{hi}]" for lo, hi in zip(BREAKS, BREAKS[1:])]


def band(bp: float) -> str | None:
    return next((b for b, lo, hi in zip(BANDS, BREAKS, BREAKS[1:]) if lo < bp <= hi), None)


def ols(rows, terms):
    """Least squares of bp on dummy terms {name: row -> 0/1}: (estimates, two-sided p-values)."""
    X = np.array([[1.0, *(f(r) for f in terms.values())] for r in rows])
    y = np.array([float(r["bp"]) for r in rows])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    dof = len(y) - X.shape[1]
    sigma2 = float(((y - X @ beta) ** 2).sum()) / dof
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(X.T @ X)))
    p = 2 * _stats().t.sf(np.abs(beta / se), dof)
    return dict(zip(["(Intercept)", *terms], beta)), dict(zip(["(Intercept)", *terms], p))


ARM_TERMS = {"armhigh": lambda r: float(r["arm"] == "high"), "armlow": lambda r: float(r["arm"] == "low")}
ARM_EST, _ = ols(WITH_BP, ARM_TERMS)
FULL_EST, FULL_P = ols(WITH_BP, {**ARM_TERMS, "sexM": lambda r: float(r["sex"] == "M")})
ARM_STATS = sorted(((a, [r for r in COMPLETE if r["arm"] == a]) for a in ARMS),
                   key=lambda p: np.mean([float(r["bp"]) for r in p[1]]))
BP_F, BP_M = ([float(r["bp"]) for r in WITH_BP if r["sex"] == s] for s in "FM")
WILCOX_P = float(_stats().mannwhitneyu(BP_F, BP_M, method="exact").pvalue)  # no ties, n < 50: R's exact test
PROPORTIONS = {a: {o: CROSS[i][j] / CROSS[i].sum() for j, o in enumerate(OUTCOMES)} for i, a in enumerate(ARMS)}
PNG = lambda w, h: {"template": "r_output", "outputs": {"plot": {"png": {"min_width": w, "size": [w, h],  # noqa: E731
                                                                         "min_ink": 0.01}}}}

r_tasks = [
    r_task("r-chisq-arm-outcome", "L1",
           f"In the R console, read {WORK}/trial.csv and test whether the outcome depends on the arm with Pearson's "
           f"chi-squared test on the arm x outcome contingency table; write the test statistic (X-squared) to "
           f"{WORK}/chisq_stat.txt and its p-value to {WORK}/chisq_p.txt (just the number in each).",
           {"template": "r_output", "outputs": {"stat": {"number": r6(CHI2), "tolerance": 0.001},
                                                "p": {"number": r6(CHI_P), "tolerance": 0.0001}}},
           LOAD + 'r <- chisq.test(table(d$arm, d$outcome))\n'
           f'write(format(r$statistic, digits = 10), "{WORK}/chisq_stat.txt")\n'
           f'write(format(r$p.value, digits = 10), "{WORK}/chisq_p.txt")',
           {"stat": f"{WORK}/chisq_stat.txt", "p": f"{WORK}/chisq_p.txt"}),
    r_task("r-complete-cases", "L1",
           f"In the R console, read {WORK}/trial.csv, drop every patient with a missing value (NA) in any column, "
           f"and write the remaining rows, all six columns, to {WORK}/complete.csv, no row names.",
           table_truth("complete", "id", ["id", "arm", "sex", "outcome", "weight", "bp"],
                       {r["id"]: {"arm": r["arm"], "sex": r["sex"], "outcome": r["outcome"],
                                  "weight": float(r["weight"]), "bp": float(r["bp"])} for r in COMPLETE}),
           LOAD + f'write.csv(na.omit(d), "{WORK}/complete.csv", row.names = FALSE)',
           {"complete": f"{WORK}/complete.csv"}),
    r_task("r-anova-bp", "L1",
           f"In the R console, run a one-way analysis of variance of bp by arm on {WORK}/trial.csv (aov; patients "
           f"without a bp are left out, as R does by default) and write its F statistic (just the number) to "
           f"{WORK}/anova_f.txt.",
           {"template": "r_output", "outputs": {"f": {"number": r6(F_VALUE), "tolerance": 0.001}}},
           LOAD + 'a <- summary(aov(bp ~ arm, data = d))[[1]]\n'
           f'write(format(a[["F value"]][1], digits = 10), "{WORK}/anova_f.txt")', {"f": f"{WORK}/anova_f.txt"}),
    r_task("r-bp-bands", "L1",
           f"In the R console, bin the bp column of {WORK}/trial.csv with cut at the breaks 120, 130, 140 and 160 "
           f"(R's default right-closed intervals, labelled (120,130], (130,140], (140,160]) and write how many "
           f"patients fall in each band to {WORK}/bp_bands.csv with columns band and count (missing bp not "
           "counted), no row names.",
           table_truth("bands", "band", ["band", "count"],
                       {b: {"count": sum(1 for r in WITH_BP if band(float(r["bp"])) == b)} for b in BANDS},
                       tolerance=0),
           LOAD + 't <- table(cut(d$bp, breaks = c(120, 130, 140, 160)))\n'
           f'write.csv(data.frame(band = names(t), count = as.vector(t)), "{WORK}/bp_bands.csv", row.names = FALSE)',
           {"bands": f"{WORK}/bp_bands.csv"}),
    r_task("r-relevel-placebo", "L1",
           f"In the R console, make placebo the reference level of the arm column of {WORK}/trial.csv (relevel), "
           f"fit a linear model of bp on arm, and write its coefficients to {WORK}/arm_effects.csv with columns "
           "term and estimate (the terms as R names them: (Intercept), armhigh, armlow), no row names.",
           table_truth("effects", "term", ["term", "estimate"], {t: {"estimate": r6(v)} for t, v in ARM_EST.items()}),
           LOAD + 'd$arm <- relevel(factor(d$arm), ref = "placebo")\nm <- lm(bp ~ arm, data = d)\n'
           f'write.csv(data.frame(term = names(coef(m)), estimate = coef(m)), "{WORK}/arm_effects.csv", '
           'row.names = FALSE)', {"effects": f"{WORK}/arm_effects.csv"}),
    r_task("r-wilcox-sex", "L1",
           f"In the R console, compare the bp of the women and the men of {WORK}/trial.csv with the Wilcoxon rank "
           f"sum test (wilcox.test, R's default: here an exact test, as there are no ties) and write its p-value "
           f"(just the number) to {WORK}/wilcox_p.txt.",
           {"template": "r_output", "outputs": {"p": {"number": r6(WILCOX_P), "tolerance": 0.0005}}},
           LOAD + 'w <- wilcox.test(bp ~ sex, data = d)\n'
           f'write(format(w$p.value, digits = 10), "{WORK}/wilcox_p.txt")', {"p": f"{WORK}/wilcox_p.txt"}),
    r_task("r-outcome-proportions", "L1",
           f"In the R console, compute for each arm of {WORK}/trial.csv the share of its patients with each outcome "
           f"(row proportions of the arm x outcome table, prop.table) and write them to {WORK}/outcome_shares.csv: "
           "one row per arm, columns arm, improved, unchanged and worse (proportions between 0 and 1), no row names.",
           table_truth("shares", "arm", ["arm", *OUTCOMES],
                       {a: {o: r6(v) for o, v in PROPORTIONS[a].items()} for a in ARMS}),
           LOAD + 'p <- prop.table(table(d$arm, d$outcome), 1)\n'
           'r <- data.frame(arm = rownames(p), improved = p[, "improved"], unchanged = p[, "unchanged"], '
           'worse = p[, "worse"])\n'
           f'write.csv(r, "{WORK}/outcome_shares.csv", row.names = FALSE)', {"shares": f"{WORK}/outcome_shares.csv"}),
    r_task("r-complete-arm-report", "L2",
           f"In the R console, keep the patients of {WORK}/trial.csv with no missing value, then per arm write "
           f"the number of patients, their mean weight and their mean bp to {WORK}/arm_report.csv (columns arm, "
           "n, mean_weight and mean_bp; rows ordered from the lowest mean bp to the highest; no row names).",
           table_truth("report", "arm", ["arm", "n", "mean_weight", "mean_bp"],
                       {a: {"n": len(rs), "mean_weight": r6(np.mean([float(r["weight"]) for r in rs])),
                            "mean_bp": r6(np.mean([float(r["bp"]) for r in rs]))} for a, rs in ARM_STATS},
                       ordered=True),
           LOAD + 'c <- na.omit(d)\n'
           'a <- aggregate(cbind(weight, bp) ~ arm, data = c, FUN = mean)\n'
           'n <- aggregate(id ~ arm, data = c, FUN = length)\n'
           'r <- data.frame(arm = a$arm, n = n$id[match(a$arm, n$arm)], mean_weight = a$weight, mean_bp = a$bp)\n'
           f'r <- r[order(r$mean_bp), ]\nwrite.csv(r, "{WORK}/arm_report.csv", row.names = FALSE)',
           {"report": f"{WORK}/arm_report.csv"}),
    r_task("r-anova-report", "L2",
           f"In the R console, run a one-way analysis of variance of bp by arm on {WORK}/trial.csv (aov, patients "
           f"without a bp left out); write its F statistic to {WORK}/anova_f.txt and its p-value to "
           f"{WORK}/anova_p.txt (just the number in each), and draw a boxplot of bp by arm saved as an 800x600 "
           f"pixel PNG at {WORK}/bp_by_arm.png.",
           {"steps": [{"template": "r_output", "outputs": {"f": {"number": r6(F_VALUE), "tolerance": 0.001},
                                                           "p": {"number": float(f"{F_P:.6g}"),
                                                                 "tolerance": max(1e-9, F_P * 0.001)}}},
                      PNG(800, 600)]},
           LOAD + 'a <- summary(aov(bp ~ arm, data = d))[[1]]\n'
           f'write(format(a[["F value"]][1], digits = 10), "{WORK}/anova_f.txt")\n'
           f'write(format(a[["Pr(>F)"]][1], digits = 10), "{WORK}/anova_p.txt")\n'
           f'png("{WORK}/bp_by_arm.png", width = 800, height = 600)\n'
           'boxplot(bp ~ arm, data = d, col = "lightblue")\ndev.off()',
           {"f": f"{WORK}/anova_f.txt", "p": f"{WORK}/anova_p.txt", "plot": f"{WORK}/bp_by_arm.png"}),
    r_task("r-bands-by-sex", "L2",
           f"In the R console, bin the bp column of {WORK}/trial.csv with cut at the breaks 120, 130, 140 and 160 "
           f"(right-closed intervals, R's labels such as (120,130]) and cross-tabulate the bands against sex: write "
           f"to {WORK}/bands_by_sex.csv one row per band with columns band, F and M (the number of women and of "
           "men in the band; missing bp not counted), no row names.",
           table_truth("bands", "band", ["band", "F", "M"],
                       {b: {s: sum(1 for r in WITH_BP if band(float(r["bp"])) == b and r["sex"] == s) for s in "FM"}
                        for b in BANDS}, tolerance=0),
           LOAD + 't <- table(cut(d$bp, breaks = c(120, 130, 140, 160)), d$sex)\n'
           'r <- data.frame(band = rownames(t), F = as.vector(t[, "F"]), M = as.vector(t[, "M"]))\n'
           f'write.csv(r, "{WORK}/bands_by_sex.csv", row.names = FALSE)', {"bands": f"{WORK}/bands_by_sex.csv"}),
    r_task("r-outcome-chart", "L2",
           f"In the R console, compute for each arm of {WORK}/trial.csv the share of its patients with each outcome "
           f"(row proportions of the arm x outcome table) and write them to {WORK}/outcome_chart.csv (columns arm, "
           "improved, unchanged and worse; rows ordered from the highest share worse to the lowest; no row "
           f"names); then draw a stacked bar chart of these shares, one bar per arm, saved as a 700x500 pixel PNG at "
           f"{WORK}/outcome_chart.png.",
           {"steps": [table_truth("shares", "arm", ["arm", *OUTCOMES],
                                  {a: {o: r6(v) for o, v in PROPORTIONS[a].items()}
                                   for a in sorted(ARMS, key=lambda a: -PROPORTIONS[a]["worse"])}, ordered=True),
                      PNG(700, 500)]},
           LOAD + 'p <- prop.table(table(d$arm, d$outcome), 1)\n'
           'r <- data.frame(arm = rownames(p), improved = p[, "improved"], unchanged = p[, "unchanged"], '
           'worse = p[, "worse"])\nr <- r[order(-r$worse), ]\n'
           f'write.csv(r, "{WORK}/outcome_chart.csv", row.names = FALSE)\n'
           f'png("{WORK}/outcome_chart.png", width = 700, height = 500)\n'
           'barplot(t(p), legend.text = TRUE, col = c("seagreen", "grey70", "firebrick"))\ndev.off()',
           {"shares": f"{WORK}/outcome_chart.csv", "plot": f"{WORK}/outcome_chart.png"}),
    r_task("r-adjusted-model", "L2",
           f"In the R console, make placebo the reference level of arm in {WORK}/trial.csv, fit a linear model of "
           f"bp on arm and sex (bp ~ arm + sex), and write its coefficient table to {WORK}/adjusted_model.csv with "
           "columns term, estimate and p_value (the terms as R names them: (Intercept), armhigh, armlow, sexM; the "
           "p-values of the t tests of summary()), no row names.",
           table_truth("model", "term", ["term", "estimate", "p_value"],
                       {t: {"estimate": r6(v), "p_value": float(f"{FULL_P[t]:.6g}")} for t, v in FULL_EST.items()},
                       tolerance=0.0001),
           LOAD + 'd$arm <- relevel(factor(d$arm), ref = "placebo")\nm <- lm(bp ~ arm + sex, data = d)\n'
           's <- summary(m)$coefficients\n'
           'r <- data.frame(term = rownames(s), estimate = s[, "Estimate"], p_value = s[, "Pr(>|t|)"])\n'
           f'write.csv(r, "{WORK}/adjusted_model.csv", row.names = FALSE)', {"model": f"{WORK}/adjusted_model.csv"}),
]


# --- Inkscape -------------------------------------------------------------------------------------------------

KNOW_INK3 = KNOW_INK + (" Path > Union (Ctrl++), Difference (Ctrl+-: the bottom object minus the top one), "
                        "Intersection (Ctrl+*) and Exclusion (Ctrl+^) turn the selected shapes into one path; "
                        "Path > Combine (Ctrl+K) joins them into one path that keeps every outline; Edit > Clone > "
                        "Create Clone (Alt+D) makes a linked copy (an SVG <use>) on top of the original; Object > Flip "
                        "Horizontal (H) mirrors the selection as a whole about its vertical centre line.")
SQ, DOT = (90, 90), (260, 90)
BAR_CUT = [ink(*BAR), W(1), shift_ink(*CUT), W(1)]  # the green bar, then the orange rectangle on top of it
UNION, DIFFERENCE, INTERSECTION, EXCLUSION, COMBINE = ([*BAR_CUT, K("ctrl", key), W(1.5)]
                                                       for key in ("+", "-", "*", "^", "k"))
FLIP_PAIR = [ink(*SQ), W(1), shift_ink(*DOT), W(1), P("h"), W(1)]
CLONE_SQ = [ink(*SQ), W(1), K("alt", "d"), W(1)]
# what the boolean operations of the bar (40,200 300x40) and the orange rectangle (280,180 100x80) make
UNION_PATH = {"bbox": [40, 180, 340, 80], "area": 300 * 40 + 100 * 80 - 60 * 40, "subpaths": 1}
DIFFERENCE_PATH = {"bbox": [40, 200, 240, 40], "area": 240 * 40, "subpaths": 1}
INTERSECTION_PATH = {"bbox": [280, 200, 60, 40], "area": 60 * 40, "subpaths": 1}
EXCLUSION_PATH = {"bbox": [40, 180, 340, 80], "area": 300 * 40 + 100 * 80 - 2 * 60 * 40, "subpaths": 2}
COMBINED_PATH = {"bbox": [40, 180, 340, 80], "area": 300 * 40 + 100 * 80, "subpaths": 2}
ONE_PATH = {"rect": 1, "path": 1}  # the square stays a rect; the bar and the orange rectangle became one path
# Object > Fill and Stroke on the united path, whose fill the union left unset (it shows black): the Flat colour
# button first, then its RGBA field
FLAT_FILL = lambda rgba: [K("shift", "ctrl", "f"), W(5), C(997, 217), W(2), TRIPLE(1225, 594), W(0.5),  # noqa: E731
                          K("ctrl", "a"), T(rgba + "\n"), W(1.5)]
FLIPPED = {"template": "svg_shapes", "shapes": [{"id": "sq", "bbox": [210, 40, 100, 100], "fill": "#3366cc"},
                                                {"id": "dot", "bbox": [40, 40, 100, 100], "fill": "#cc3333"}]}


def ink_task(id, level, instruction, truth, demo, artifacts=None):
    kind = "pipeline" if "steps" in truth else truth.pop("template")
    return task(id, level, instruction, kind, truth, INK_START, [W(2), *demo, *INK_SAVE], tags=["inkscape"],
                knowledge=KNOW_INK3, artifacts=artifacts)


def path_truth(path, **extra):
    return {"template": "svg_path", "paths": [path], "count": ONE_PATH, **extra}


ink_tasks = [
    ink_task("inkscape-union-bar", "L1",
             "shapes.svg is open in Inkscape. Unite the green bar and the orange rectangle that overlaps its right "
             "end into one shape (Path > Union) and save the drawing.",
             path_truth(UNION_PATH), UNION),
    ink_task("inkscape-difference-bar", "L1",
             "shapes.svg is open in Inkscape. Cut the orange rectangle out of the green bar under it (Path > "
             "Difference: the bar minus the rectangle, which disappears) and save the drawing.",
             path_truth(DIFFERENCE_PATH), DIFFERENCE),
    ink_task("inkscape-intersection-bar", "L1",
             "shapes.svg is open in Inkscape. Replace the green bar and the orange rectangle by their overlap "
             "(Path > Intersection) and save the drawing.",
             path_truth(INTERSECTION_PATH), INTERSECTION),
    ink_task("inkscape-exclusion-bar", "L1",
             "shapes.svg is open in Inkscape. Replace the green bar and the orange rectangle by the parts of them "
             "that do not overlap (Path > Exclusion) and save the drawing.",
             path_truth(EXCLUSION_PATH), EXCLUSION),
    ink_task("inkscape-combine-bar", "L1",
             "shapes.svg is open in Inkscape. Combine the green bar and the orange rectangle into one path that "
             "keeps both outlines (Path > Combine, not a union) and save the drawing.",
             path_truth(COMBINED_PATH), COMBINE),
    ink_task("inkscape-flip-pair", "L1",
             "shapes.svg is open in Inkscape. Select the blue square and the red circle together and flip the "
             "selection horizontally (Object > Flip Horizontal), so that they swap sides; save the drawing.",
             dict(FLIPPED), FLIP_PAIR),
    ink_task("inkscape-clone-square", "L1",
             "shapes.svg is open in Inkscape. Make a clone of the blue square (Edit > Clone > Create Clone, a linked "
             "copy, not a duplicate) and move the clone to x=250 px (same y), leaving the original where it is; "
             "save the drawing.",
             {"template": "svg_clone", "clones": [{"of": "sq", "bbox": [250, 40, 100, 100]}],
              "keeps": {"sq": [40, 40, 100, 100]}},
             [*CLONE_SQ, *fields(x=250)]),
    ink_task("inkscape-union-logo", "L2",
             "shapes.svg is open in Inkscape. Make a one-piece logo mark: unite the green bar and the orange "
             "rectangle into one shape (Path > Union), fill that shape with #ffcc00, and save the drawing.",
             path_truth({**UNION_PATH, "fill": "#ffcc00"}), [*UNION, *FLAT_FILL("ffcc00ff")]),
    ink_task("inkscape-notch-export", "L2",
             f"shapes.svg is open in Inkscape. Cut the orange rectangle out of the green bar (Path > Difference), "
             f"save the drawing, then export the page as an 800x600 pixel PNG to {WORK}/notched.png.",
             {"steps": [path_truth(DIFFERENCE_PATH),
                        {"template": "svg_png", "size": [800, 600],
                         "colours": [{"rgb": "#3366cc", "min_fraction": 0.05}, {"rgb": "#cc3333", "min_fraction": 0.04}]}]},
             [*DIFFERENCE, *INK_SAVE, *EXPORT_PNG(800, f"{WORK}/notched.png")],
             artifacts={"png": f"{WORK}/notched.png"}),
    ink_task("inkscape-exclusion-badge", "L2",
             f"shapes.svg is open in Inkscape. Replace the green bar and the orange rectangle by the parts of them "
             f"that do not overlap (Path > Exclusion), fill the result with #663399, save the drawing, then export "
             f"the page as a 400x300 pixel PNG to {WORK}/badge.png.",
             {"steps": [path_truth({**EXCLUSION_PATH, "fill": "#663399"}),
                        {"template": "svg_png", "size": [400, 300],
                         "colours": [{"rgb": "#663399", "min_fraction": 0.08}, {"rgb": "#3366cc", "min_fraction": 0.05}]}]},
             [*EXCLUSION, *FLAT_FILL("663399ff"), *INK_SAVE, *EXPORT_PNG(400, f"{WORK}/badge.png")],
             artifacts={"png": f"{WORK}/badge.png"}),
    ink_task("inkscape-mirror-clone", "L2",
             "shapes.svg is open in Inkscape. Make a mirror image of the blue square that follows it: create a "
             "clone of it (Edit > Clone > Create Clone), flip the clone horizontally (Object > Flip Horizontal), and "
             "move the clone to x=250 px (same y), leaving the original where it is; save the drawing.",
             {"template": "svg_clone", "clones": [{"of": "sq", "bbox": [250, 40, 100, 100], "mirrored": True}],
              "keeps": {"sq": [40, 40, 100, 100]}},
             [*CLONE_SQ, P("h"), W(1), *fields(x=250)]),
    ink_task("inkscape-flip-and-unite", "L2",
             "shapes.svg is open in Inkscape. Flip the blue square and the red circle horizontally as one selection "
             "(Object > Flip Horizontal) so that they swap sides, then unite the green bar and the orange rectangle "
             "into one shape (Path > Union); save the drawing.",
             {"steps": [dict(FLIPPED), path_truth(UNION_PATH)]}, [*FLIP_PAIR, P("escape"), W(0.5), *UNION]),
]

if __name__ == "__main__":
    write("r_ink_round3", [*r_tasks, *ink_tasks])
