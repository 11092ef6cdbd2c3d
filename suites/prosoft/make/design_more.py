"""Writes tasks/r_more.json, tasks/inkscape_more.json and tasks/gimp_more.json: more L1 and L2 tasks for the
design and statistics programs (R for RGui, Inkscape for Illustrator, GIMP for Photoshop), one core function of
the program per L1 task. Run ``python suites/prosoft/make/design_more.py`` from the repository root.

Start files: ``fixtures/prosoft/design/`` (``make_fixtures.py`` there: study.csv, sites.csv, wide.csv,
shapes.svg, poster.png) and GIMP's profile files of ``fixtures/prosoft/imaging/``. The expected results are
computed here from the start files (numpy for the statistics, so that R's answer is checked against an
independent computation). Evaluators: ``checks/r_more.py`` (r_table, r_rds) and ``templates.py``'s
r_output; ``checks/inkscape_more.py``; ``checks/gimp_more.py`` and ``checks/gimp.py``'s gimp_image.

- R runs in its console (an xterm titled "R console"); the demonstration types R code, as the existing R
  tasks do.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, R_CMD, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
FIX = "fixtures/prosoft/design"
WORK = "/root/work"


def read_csv(name: str) -> list[dict[str, str]]:
    with open(ROOT / FIX / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


STUDY = read_csv("study.csv")
SITES = {r["group"]: r for r in read_csv("sites.csv")}
WIDE = read_csv("wide.csv")
COL = {c: np.array([float(r[c]) for r in STUDY]) for c in ("id", "dose", "age", "score")}
GROUP = np.array([r["group"] for r in STUDY])


def r6(x: float) -> float:
    return round(float(x), 6)


# --- R --------------------------------------------------------------------------------------------------------

R_START = {"start_files": [{"src": f"{FIX}/{n}", "dest": f"{WORK}/{n}"} for n in ("study.csv", "sites.csv",
                                                                                   "wide.csv")],
           "start_command": R_CMD, "window": "^R console$", "window_timeout_s": 60}
LOAD = f'd <- read.csv("{WORK}/study.csv")\n'
KNOW_R = ("R: read.csv(path) reads a CSV; write.csv(df, path, row.names = FALSE) writes one without row names; "
          "lm(y ~ x, data = d) fits a linear model, coef(m) its coefficients; t.test(y ~ g, data = d) is Welch's "
          "t-test (var.equal = TRUE for Student's), its p.value; quantile(x, p); cor(df); aggregate(y ~ g, data = "
          "d, FUN = mean); merge(a, b, by = \"key\"); reshape(w, direction = \"long\", ...); order(); "
          "saveRDS(x, path); png(path, width = w, height = h) ... dev.off() draws into a PNG of w x h pixels.")


def r_task(id, level, instruction, truth, code, artifacts, template=None, knowledge=KNOW_R):
    kind = template or ("pipeline" if "steps" in truth else truth.pop("template"))
    return task(id, level, instruction, kind, truth, R_START, [T(line + "\n") for line in code.strip().split("\n")]
                + [W(2)], tags=["r"], artifacts=artifacts, knowledge=knowledge)


def table_truth(name, key, columns, rows, **extra):
    return {"template": "r_table", "artifact": name, "key": key, "columns": columns, "rows": rows, **extra}


def ols(y, *xs):
    X = np.column_stack([np.ones(len(y)), *xs])
    return np.linalg.lstsq(X, y, rcond=None)[0]


def welch_p(a, b):
    from scipy import stats
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


score, dose, age = COL["score"], COL["dose"], COL["age"]
intercept, slope = ols(score, dose)
b0, b_dose, b_age = ols(score, dose, age)
LONG = {f"{r['id']}|{t}": {"value": float(r[t])} for r in WIDE for t in ("t1", "t2", "t3")}
high = sorted(((int(i), s) for i, s in zip(COL["id"], score) if s > 70), key=lambda p: -p[1])
cor = np.corrcoef(np.vstack([dose, age, score]))
names3 = ["dose", "age", "score"]
site_means = sorted(((SITES[g]["site"], float(score[GROUP == g].mean())) for g in "ABC"), key=lambda p: -p[1])
hi_dose = dose >= 5
C_ROWS = [r for r in STUDY if r["group"] == "C"]

r_tasks = [
    r_task("r-study-summary", "L1",
           f"In the R console, read {WORK}/study.csv and write a summary of its numeric measures dose, age and score "
           f"to {WORK}/summary.csv: one row per measure, columns variable, mean and sd (the sample standard "
           "deviation), no row names.",
           table_truth("summary", "variable", ["variable", "mean", "sd"],
                       {v: {"mean": r6(COL[v].mean()), "sd": r6(COL[v].std(ddof=1))} for v in names3},
                       row_names=False),
           LOAD + 'v <- c("dose", "age", "score")\n'
           f's <- data.frame(variable = v, mean = sapply(d[v], mean), sd = sapply(d[v], sd))\n'
           f'write.csv(s, "{WORK}/summary.csv", row.names = FALSE)', {"summary": f"{WORK}/summary.csv"}),
    r_task("r-lm-coefficients", "L1",
           f"In the R console, fit a linear model of score on dose (score ~ dose) to {WORK}/study.csv and write "
           f"its coefficients to {WORK}/coefficients.csv with columns term and estimate (the terms as R names "
           "them: (Intercept) and dose), no row names.",
           table_truth("coefficients", "term", ["term", "estimate"],
                       {"(Intercept)": {"estimate": r6(intercept)}, "dose": {"estimate": r6(slope)}},
                       row_names=False),
           LOAD + 'm <- lm(score ~ dose, data = d)\n'
           f'write.csv(data.frame(term = names(coef(m)), estimate = coef(m)), "{WORK}/coefficients.csv", '
           'row.names = FALSE)', {"coefficients": f"{WORK}/coefficients.csv"}),
    r_task("r-welch-ttest", "L1",
           f"In the R console, compare the score of the patients of {WORK}/study.csv younger than 45 with that of "
           f"the patients aged 45 or more, with Welch's two-sample t-test, and write its p-value (just the number) "
           f"to {WORK}/ttest_p.txt.",
           {"template": "r_output", "outputs": {"p": {"number": r6(welch_p(score[age < 45], score[age >= 45])),
                                                      "tolerance": 0.001}}},
           LOAD + 'r <- t.test(score ~ (age >= 45), data = d)\n'
           f'write(format(r$p.value, digits = 10), "{WORK}/ttest_p.txt")', {"p": f"{WORK}/ttest_p.txt"}),
    r_task("r-score-histogram", "L1",
           f"In the R console, draw a histogram of the score column of {WORK}/study.csv and save it as an 800x600 "
           f"pixel PNG at {WORK}/score_hist.png.",
           {"template": "r_output", "outputs": {"plot": {"png": {"min_width": 800, "size": [800, 600],
                                                                 "min_ink": 0.03}}}},
           LOAD + f'png("{WORK}/score_hist.png", width = 800, height = 600)\n'
           'hist(d$score, col = "grey70", main = "Scores")\ndev.off()', {"plot": f"{WORK}/score_hist.png"}),
    r_task("r-merge-sites", "L1",
           f"In the R console, merge {WORK}/study.csv with {WORK}/sites.csv by their group column and write the "
           f"merged table (every column of both: id, group, dose, age, score, site, city) to {WORK}/merged.csv, "
           "no row names.",
           table_truth("merged", "id", ["id", "group", "dose", "age", "score", "site", "city"],
                       {r["id"]: {"group": r["group"], "score": float(r["score"]), "site": SITES[r["group"]]["site"],
                                  "city": SITES[r["group"]]["city"]} for r in STUDY}, row_names=False),
           LOAD + f's <- read.csv("{WORK}/sites.csv")\nm <- merge(d, s, by = "group")\n'
           f'write.csv(m, "{WORK}/merged.csv", row.names = FALSE)', {"merged": f"{WORK}/merged.csv"}),
    r_task("r-reshape-long", "L1",
           f"In the R console, reshape {WORK}/wide.csv (one row per subject, the measurements t1, t2, t3 in "
           f"columns) to long form and write it to {WORK}/long.csv with columns id, time (t1, t2 or t3) and "
           "value: one row per subject and time, no row names.",
           table_truth("long", ["id", "time"], ["id", "time", "value"], LONG, row_names=False),
           f'w <- read.csv("{WORK}/wide.csv")\n'
           'l <- reshape(w, direction = "long", varying = c("t1", "t2", "t3"), v.names = "value", '
           'timevar = "time", times = c("t1", "t2", "t3"), idvar = "id")\n'
           f'write.csv(l[c("id", "time", "value")], "{WORK}/long.csv", row.names = FALSE)',
           {"long": f"{WORK}/long.csv"}),
    r_task("r-filter-sort", "L1",
           f"In the R console, select the patients of {WORK}/study.csv whose score is above 70, sort them by "
           f"score from highest to lowest and write their id and score to {WORK}/top.csv (columns id and score, "
           "in that order of rows, no row names).",
           table_truth("top", "id", ["id", "score"], {str(i): {"score": s} for i, s in high}, row_names=False,
                       ordered=True),
           LOAD + 'f <- d[d$score > 70, c("id", "score")]\nf <- f[order(-f$score), ]\n'
           f'write.csv(f, "{WORK}/top.csv", row.names = FALSE)', {"top": f"{WORK}/top.csv"}),
    r_task("r-score-quartiles", "L1",
           f"In the R console, compute the quartiles of the score column of {WORK}/study.csv (R's default quantile "
           f"method) and write the 25%, 50% and 75% quantiles to {WORK}/quartiles.txt, one number per line in "
           "that order.",
           {"template": "r_output", "outputs": {"quartiles": {"lines": [r6(q) for q in np.percentile(score, [25, 50, 75])]}}},
           LOAD + f'write(quantile(d$score, c(0.25, 0.5, 0.75)), "{WORK}/quartiles.txt", ncolumns = 1)',
           {"quartiles": f"{WORK}/quartiles.txt"}),
    r_task("r-cor-matrix", "L1",
           f"In the R console, compute the correlation matrix of dose, age and score in {WORK}/study.csv and "
           f"write it with write.csv to {WORK}/cor.csv, the variable names as row names and column names.",
           table_truth("cor", None, names3, {a: {b: r6(cor[i][j]) for j, b in enumerate(names3)}
                                              for i, a in enumerate(names3)}, row_names=True),
           LOAD + f'write.csv(cor(d[c("dose", "age", "score")]), "{WORK}/cor.csv")', {"cor": f"{WORK}/cor.csv"}),
    r_task("r-group-means", "L1",
           f"In the R console, compute the mean score per group of {WORK}/study.csv and write it to "
           f"{WORK}/group_means.csv with columns group and mean_score, no row names.",
           table_truth("means", "group", ["group", "mean_score"],
                       {g: {"mean_score": r6(score[GROUP == g].mean())} for g in "ABC"}, row_names=False),
           LOAD + 'a <- aggregate(score ~ group, data = d, FUN = mean)\nnames(a) <- c("group", "mean_score")\n'
           f'write.csv(a, "{WORK}/group_means.csv", row.names = FALSE)', {"means": f"{WORK}/group_means.csv"}),
    r_task("r-save-rds", "L1",
           f"In the R console, save the rows of group C of {WORK}/study.csv (all five columns, in the file's "
           f"order) as an R data file with saveRDS at {WORK}/group_c.rds.",
           {"template": "r_rds", "artifact": "rds", "columns": {
               "id": [int(r["id"]) for r in C_ROWS], "group": ["C"] * len(C_ROWS),
               "dose": [int(r["dose"]) for r in C_ROWS], "age": [int(r["age"]) for r in C_ROWS],
               "score": [float(r["score"]) for r in C_ROWS]}},
           LOAD + f'saveRDS(d[d$group == "C", ], "{WORK}/group_c.rds")', {"rds": f"{WORK}/group_c.rds"}),
    r_task("r-regression-report", "L2",
           f"In the R console, fit a linear model of score on dose and age (score ~ dose + age) to "
           f"{WORK}/study.csv; write its coefficients to {WORK}/model.csv (columns term and estimate, the terms as "
           f"R names them, no row names), and draw a scatter plot of score against dose with the fitted line of "
           f"score ~ dose, saved as a 640x480 pixel PNG at {WORK}/regression.png.",
           {"steps": [table_truth("model", "term", ["term", "estimate"],
                                  {"(Intercept)": {"estimate": r6(b0)}, "dose": {"estimate": r6(b_dose)},
                                   "age": {"estimate": r6(b_age)}}, row_names=False),
                      {"template": "r_output", "outputs": {"plot": {"png": {"min_width": 640, "size": [640, 480],
                                                                            "min_ink": 0.01}}}}]},
           LOAD + 'm <- lm(score ~ dose + age, data = d)\n'
           f'write.csv(data.frame(term = names(coef(m)), estimate = coef(m)), "{WORK}/model.csv", row.names = FALSE)\n'
           f'png("{WORK}/regression.png", width = 640, height = 480)\n'
           'plot(score ~ dose, data = d, pch = 19)\nabline(lm(score ~ dose, data = d), col = "red", lwd = 2)\n'
           'dev.off()', {"model": f"{WORK}/model.csv", "plot": f"{WORK}/regression.png"}),
    r_task("r-site-ranking", "L2",
           f"In the R console, join {WORK}/study.csv with {WORK}/sites.csv by group, compute the mean score per "
           f"site, and write the sites ranked from the highest mean score to the lowest to {WORK}/site_rank.csv "
           "with columns site and mean_score, no row names.",
           table_truth("rank", "site", ["site", "mean_score"], {s: {"mean_score": r6(m)} for s, m in site_means},
                       row_names=False, ordered=True),
           LOAD + f's <- read.csv("{WORK}/sites.csv")\nm <- merge(d, s, by = "group")\n'
           'a <- aggregate(score ~ site, data = m, FUN = mean)\nnames(a) <- c("site", "mean_score")\n'
           f'a <- a[order(-a$mean_score), ]\nwrite.csv(a, "{WORK}/site_rank.csv", row.names = FALSE)',
           {"rank": f"{WORK}/site_rank.csv"}),
    r_task("r-timepoint-stats", "L2",
           f"In the R console, reshape {WORK}/wide.csv (measurements t1, t2, t3 in columns) to long form, then "
           f"compute the mean and the sample standard deviation of the value at each time and write them to "
           f"{WORK}/timepoints.csv with columns time, mean and sd (one row per time, no row names).",
           table_truth("timepoints", "time", ["time", "mean", "sd"],
                       {t: {"mean": r6(np.mean([float(r[t]) for r in WIDE])),
                            "sd": r6(np.std([float(r[t]) for r in WIDE], ddof=1))} for t in ("t1", "t2", "t3")},
                       row_names=False),
           f'w <- read.csv("{WORK}/wide.csv")\n'
           'l <- reshape(w, direction = "long", varying = c("t1", "t2", "t3"), v.names = "value", '
           'timevar = "time", times = c("t1", "t2", "t3"), idvar = "id")\n'
           'a <- aggregate(value ~ time, data = l, FUN = function(x) c(mean = mean(x), sd = sd(x)))\n'
           'a <- data.frame(time = a$time, mean = a$value[, "mean"], sd = a$value[, "sd"])\n'
           f'write.csv(a, "{WORK}/timepoints.csv", row.names = FALSE)', {"timepoints": f"{WORK}/timepoints.csv"}),
    r_task("r-high-dose-groups", "L2",
           f"In the R console, keep the patients of {WORK}/study.csv with a dose of 5 or more; for them write, per "
           f"group, the number of patients and the median score to {WORK}/high_dose.csv (columns group, n and "
           f"median_score, no row names), and draw a boxplot of their score by group saved as a 600x400 pixel PNG "
           f"at {WORK}/high_dose.png.",
           {"steps": [table_truth("high", "group", ["group", "n", "median_score"],
                                  {g: {"n": int((hi_dose & (GROUP == g)).sum()),
                                       "median_score": r6(np.median(score[hi_dose & (GROUP == g)]))} for g in "ABC"},
                                  row_names=False),
                      {"template": "r_output", "outputs": {"plot": {"png": {"min_width": 600, "size": [600, 400],
                                                                            "min_ink": 0.01}}}}]},
           LOAD + 'h <- d[d$dose >= 5, ]\n'
           'a <- data.frame(group = sort(unique(h$group)), n = as.vector(table(h$group)[sort(unique(h$group))]), '
           'median_score = as.vector(tapply(h$score, h$group, median)[sort(unique(h$group))]))\n'
           f'write.csv(a, "{WORK}/high_dose.csv", row.names = FALSE)\n'
           f'png("{WORK}/high_dose.png", width = 600, height = 400)\n'
           'boxplot(score ~ group, data = h, col = "lightblue")\ndev.off()',
           {"high": f"{WORK}/high_dose.csv", "plot": f"{WORK}/high_dose.png"}),
]



# --- Inkscape -------------------------------------------------------------------------------------------------

INK_START = {"start_files": [{"src": f"{FIX}/shapes.svg", "dest": f"{WORK}/shapes.svg"}],
             "start_command": ["inkscape", f"{WORK}/shapes.svg"], "window": "shapes\\.svg",
             "window_timeout_s": 240, "artifacts": {"drawing": f"{WORK}/shapes.svg"}}
KNOW_INK = ("Inkscape 1.2: click selects, Shift+click adds to the selection; Ctrl+G groups, Home raises to the "
            "top; Path > Object to Path (Shift+Ctrl+C), Union (Ctrl++), Difference (Ctrl+-, the bottom object minus "
            "the top one); Object > Rotate 90° CW (Ctrl+]); Layer > Add Layer (Shift+Ctrl+N), Layer > Move "
            "Selection to Layer Above (Shift+Page Up); the selector toolbar's X, Y, W, H fields set the position "
            "and size in px; Ctrl+S saves as Inkscape SVG.")


def ink(x: float, y: float) -> dict:
    """A click at the drawing's user point (x, y): the 400x300 page shows at 78.25% from (499, 315)."""
    return {"type": "click", "target": {"x": round(499 + 0.7825 * x), "y": round(315 + 0.7825 * y)}}


def shift_ink(x: float, y: float) -> dict:
    return {**ink(x, y), "modifiers": ["shift"]}


SQ, DOT, BAR, CUT = (90, 90), (260, 90), (100, 220), (360, 250)
TRIPLE = lambda x, y: {"type": "triple_click", "target": {"x": x, "y": y}}  # noqa: E731
ROTATE_CW = [C(220, 106), W(1)]  # the selector toolbar's Rotate 90° clockwise button
FIELDS = {"x": (555, 106), "y": (710, 106), "w": (860, 106), "h": (1050, 106)}  # the selector toolbar's X Y W H


def fields(**values):
    """Type values into the selector toolbar's X, Y, W, H fields (px), each applied by Enter."""
    out = []
    for key, value in values.items():
        out += [TRIPLE(*FIELDS[key]), W(0.5), K("ctrl", "a"), T(f"{value}\n"), W(1)]
    return out


def fill_rgba(rgba):
    """Object > Fill and Stroke (docked at the right): the RGBA field of the flat fill colour."""
    return [K("shift", "ctrl", "f"), W(5), TRIPLE(1225, 594), W(0.5), K("ctrl", "a"), T(rgba + "\n"), W(1.5)]


def EXPORT_PNG(width, path):  # noqa: N802
    """File > Export (docked): Page, the width typed (the height follows), the file name, Export."""
    return [K("shift", "ctrl", "e"), W(5), C(994, 219), W(1), TRIPLE(940, 295), W(0.5), K("ctrl", "a"),
            T(f"{width}\t"), W(1), TRIPLE(900, 664), W(0.5), K("ctrl", "a"), T(path), W(0.5), C(1045, 703),
            SAVED(path, 60)]


def DOC_SIZE(width, height):  # noqa: N802
    """File > Document Properties (a window): the page width and height in px, then close it."""
    return [K("shift", "ctrl", "d"), WIN("Document Properties"), W(3), TRIPLE(500, 228), W(0.5), K("ctrl", "a"),
            T(f"{width}\t"), W(1), TRIPLE(500, 266), W(0.5), K("ctrl", "a"), T(f"{height}\t"), W(1),
            C(890, 63), GONE("Document Properties"), W(1)]
INK_SAVE = [K("ctrl", "s"), W(3)]


def ink_task(id, level, instruction, template, truth, demo, knowledge=KNOW_INK, artifacts=None):
    return task(id, level, instruction, template, truth, INK_START, [W(2), *demo, *INK_SAVE], tags=["inkscape"],
                knowledge=knowledge, artifacts=artifacts)


ink_tasks = [
    ink_task("inkscape-object-to-path", "L1",
             "shapes.svg is open in Inkscape. Convert the red circle into a path (Path > Object to Path) and save "
             "the drawing.",
             "svg_shapes", {"shapes": [{"tag": "path", "bbox": [210, 40, 100, 100], "fill": "#cc3333"}],
                            "count": {"circle": 0, "rect": 3}},
             [ink(*DOT), W(1), K("shift", "ctrl", "c"), W(1)]),
    ink_task("inkscape-group-pair", "L1",
             "shapes.svg is open in Inkscape. Group the blue square and the red circle together (one group holding "
             "just those two) and save the drawing.",
             "svg_structure", {"group": ["sq", "dot"], "outside": ["bar", "cut"]},
             [ink(*SQ), W(1), shift_ink(*DOT), W(1), K("ctrl", "g"), W(1)]),
    ink_task("inkscape-rotate-bar", "L1",
             "shapes.svg is open in Inkscape. Rotate the green bar by 90 degrees clockwise about its centre "
             "(Object > Rotate 90° CW) and save the drawing.",
             "svg_shapes", {"shapes": [{"id": "bar", "bbox": [170, 70, 40, 300]}]},
             [ink(*BAR), W(1), *ROTATE_CW]),
    ink_task("inkscape-raise-top", "L1",
             "shapes.svg is open in Inkscape. Raise the blue square to the top of the drawing order (Object > Raise "
             "to Top) and save the drawing.",
             "svg_structure", {"order": ["dot", "bar", "cut", "sq"]},
             [ink(*SQ), W(1), P("home"), W(1)]),
    ink_task("inkscape-add-layer", "L1",
             "shapes.svg is open in Inkscape. Add a new layer named 'Notes' above the current layer and save the "
             "drawing.",
             "svg_structure", {"layers": {"Notes": [], "Layer 1": ["sq", "dot", "bar", "cut"]}},
             [ink(*SQ), W(1), P("escape"), K("shift", "ctrl", "n"), WIN("Add Layer"), W(1), K("ctrl", "a"),
              T("Notes"), W(0.5), P("enter"), GONE("Add Layer"), W(1)]),
    ink_task("inkscape-position-size", "L1",
             "shapes.svg is open in Inkscape. Move and resize the blue square so that it is a 80x60 px rectangle "
             "whose top left corner is at x=200, y=150 (px), and save the drawing.",
             "svg_shapes", {"shapes": [{"id": "sq", "bbox": [200, 150, 80, 60], "fill": "#3366cc"}]},
             [ink(*SQ), W(1), *fields(x=200, y=150, w=80, h=60)]),
    ink_task("inkscape-fill-colour", "L1",
             "shapes.svg is open in Inkscape. Change the fill colour of the red circle to #ffcc00 (Object > Fill "
             "and Stroke) and save the drawing.",
             "svg_shapes", {"shapes": [{"id": "dot", "bbox": [210, 40, 100, 100], "fill": "#ffcc00"}]},
             [ink(*DOT), W(1), *fill_rgba("ffcc00ff")]),
    ink_task("inkscape-duplicate-move", "L1",
             "shapes.svg is open in Inkscape. Duplicate the blue square and move the copy to x=250 (px; same y), "
             "leaving the original where it is, and save the drawing.",
             "svg_shapes", {"shapes": [{"id": "sq", "bbox": [40, 40, 100, 100]},
                                       {"tag": "rect", "bbox": [250, 40, 100, 100], "fill": "#3366cc"}],
                            "count": {"rect": 4}},
             [ink(*SQ), W(1), K("ctrl", "d"), W(1), *fields(x=250)]),
    ink_task("inkscape-document-size", "L1",
             "shapes.svg is open in Inkscape. Change the document (page) size to 600 x 450 px (File > Document "
             "Properties) and save the drawing.",
             "svg_document", {"width": 600, "height": 450, "keeps": ["sq", "dot", "bar", "cut"]},
             [*DOC_SIZE(600, 450)]),
    ink_task("inkscape-add-text", "L1",
             "shapes.svg is open in Inkscape. With the Text tool, add the text 'Spring Sale' near the bottom left of "
             "the page and save the drawing.",
             "svg_styled_text", {"texts": [{"text": "Spring Sale"}]},
             [ink(200, 170), W(1), P("escape"), P("t"), W(1), ink(60, 280), W(1), T("Spring Sale"), W(1),
              P("escape"), W(1)]),
    ink_task("inkscape-export-png", "L1",
             f"shapes.svg is open in Inkscape. Export the page as an 800x600 pixel PNG to {WORK}/export.png "
             "(File > Export).",
             "svg_png", {"size": [800, 600], "colours": [{"rgb": "#3366cc", "min_fraction": 0.05},
                                                          {"rgb": "#cc3333", "min_fraction": 0.03}]},
             [ink(200, 170), W(1), P("escape"), *EXPORT_PNG(800, f"{WORK}/export.png")],
             artifacts={"png": f"{WORK}/export.png"}),
    ink_task("inkscape-group-to-top", "L2",
             "shapes.svg is open in Inkscape. Group the blue square and the red circle (one group of just those "
             "two), raise the group to the top of the drawing order, and save the drawing.",
             "svg_structure", {"group": ["sq", "dot"], "outside": ["bar", "cut"], "order": ["bar", "cut", "sq", "dot"]},
             [ink(*SQ), W(1), shift_ink(*DOT), W(1), K("ctrl", "g"), W(1), P("home"), W(1)]),
    ink_task("inkscape-layer-move", "L2",
             "shapes.svg is open in Inkscape. Add a new layer named 'Notes' above 'Layer 1', move the green bar into "
             "it (Layer > Move Selection to Layer Above), and save the drawing.",
             "svg_structure", {"layers": {"Notes": ["bar"], "Layer 1": ["sq", "dot", "cut"]}},
             [ink(*SQ), W(1), P("escape"), K("shift", "ctrl", "n"), WIN("Add Layer"), W(1), K("ctrl", "a"),
              T("Notes"), W(0.5), P("enter"), GONE("Add Layer"), W(1), ink(*BAR), W(1), K("shift", "Page_Up"), W(1)]),
    ink_task("inkscape-recolour-resize", "L2",
             "shapes.svg is open in Inkscape. Make the blue square 150x150 px (keeping its top left corner at x=40, "
             "y=40) and fill it with #ffcc00; save the drawing.",
             "svg_shapes", {"shapes": [{"id": "sq", "bbox": [40, 40, 150, 150], "fill": "#ffcc00"}]},
             [ink(*SQ), W(1), *fields(w=150, h=150), ink(60, 60), W(1), *fill_rgba("ffcc00ff")]),
    ink_task("inkscape-path-and-export", "L2",
             f"shapes.svg is open in Inkscape. Convert the red circle to a path, save the drawing, then export the "
             f"page as a 400x300 pixel PNG to {WORK}/page.png.",
             "pipeline", {"steps": [
                 {"template": "svg_shapes", "shapes": [{"tag": "path", "bbox": [210, 40, 100, 100], "fill": "#cc3333"}],
                  "count": {"circle": 0}},
                 {"template": "svg_png", "size": [400, 300], "colours": [{"rgb": "#cc3333", "min_fraction": 0.03}]}]},
             [ink(*DOT), W(1), K("shift", "ctrl", "c"), W(1), *INK_SAVE, *EXPORT_PNG(400, f"{WORK}/page.png")],
             artifacts={"png": f"{WORK}/page.png"}),
    ink_task("inkscape-duplicate-rotate", "L2",
             "shapes.svg is open in Inkscape. Duplicate the green bar and rotate the copy by 90 degrees clockwise "
             "about its centre, leaving the original bar as it is; save the drawing.",
             "svg_shapes", {"shapes": [{"id": "bar", "bbox": [40, 200, 300, 40]},
                                       {"tag": "rect", "bbox": [170, 70, 40, 300], "fill": "#33aa55"}],
                            "count": {"rect": 4}},
             [ink(*BAR), W(1), K("ctrl", "d"), W(1), *ROTATE_CW]),
    ink_task("inkscape-page-and-export", "L2",
             f"shapes.svg is open in Inkscape. Change the document size to 600 x 450 px, save the drawing, and "
             f"export the page as a 600x450 pixel PNG to {WORK}/poster.png.",
             "pipeline", {"steps": [
                 {"template": "svg_document", "width": 600, "height": 450},
                 {"template": "svg_png", "size": [600, 450], "colours": [{"rgb": "#33aa55", "min_fraction": 0.03}]}]},
             [*DOC_SIZE(600, 450), *INK_SAVE, *EXPORT_PNG(600, f"{WORK}/poster.png")],
             artifacts={"png": f"{WORK}/poster.png"}),
]

# --- GIMP -----------------------------------------------------------------------------------------------------

IMG = "fixtures/prosoft/imaging"
GIMP_START = {"start_files": [{"src": f"{FIX}/poster.png", "dest": f"{WORK}/poster.png"},
                              {"src": f"{IMG}/gimp_sessionrc", "dest": "/root/.config/GIMP/2.10/sessionrc"},
                              {"src": f"{IMG}/gimp_gimprc", "dest": "/root/.config/GIMP/2.10/gimprc"}],
              "start_command": ["gimp", "--no-splash", f"{WORK}/poster.png"],
              "window": "\\[poster\\].*GIMP", "window_timeout_s": 240}
KNOW_GIMP = ("GIMP 2.10: the '/' key searches every menu command (Enter runs the selected match). Colors > "
             "Desaturate > Desaturate (mode Luminance); Colors > Brightness-Contrast; Filters > Blur > Gaussian Blur "
             "(Size = standard deviation in px); Filters > Enhance > Unsharp Mask; Image > Canvas Size (Center "
             "puts the picture in the middle; the new area is transparent); Image > Transform for flips and "
             "rotations; Image > Scale Image. File > Export As (Shift+Ctrl+E) writes PNG, JPEG, TIFF, ... chosen by "
             "the file name's extension.")
SRC = "design/poster.png"


def gimp_run(command, pick=0, dialog=None):
    """GIMP's Search and Run a Command (as in make/imaging.py)."""
    opened = [WIN(f"^{dialog}$"), W(0.7)] if dialog else [W(0.7)]
    return [P("/"), WIN("^Search Actions$"), W(0.5), T(command), W(1.2), *[P("down")] * pick, P("enter"),
            GONE("^Search Actions$"), *opened]


def gimp_export(path):
    """File > Export As: the path, Enter, then Export in the format's options dialog."""
    return [K("shift", "ctrl", "e"), WIN("^Export Image$"), W(0.7), K("ctrl", "a"), T(path + "\n"),
            WIN("^Export Image as "), W(0.7), P("enter"), SAVED(path, 60)]


def gimp_value_dialog(command, dialog, value):
    """A GEGL dialog whose first field (after the presets) takes ``value``; OK by Alt+O."""
    return [*gimp_run(command, dialog=dialog), P("tab"), W(0.7), K("ctrl", "a"), T(str(value)), W(0.5), P("tab"),
            W(1.5), K("alt", "o"), GONE(f"^{dialog}$"), W(1)]


DESATURATE = [*gimp_run("desaturate", dialog="Desaturate"), K("alt", "o"), GONE("^Desaturate$"), W(1)]
UNSHARP = [*gimp_run("unsharp mask", dialog="Unsharp Mask"), W(1), K("alt", "o"), GONE("^Unsharp Mask$"), W(1)]
# Image > Canvas Size (the dialog opens centred, its focus on Template): the width and the height (the chain is
# open), Center, Resize
CANVAS = [*gimp_run("canvas size", dialog="Set Image Canvas Size"), W(1), {"type": "triple_click", "target": {
    "x": 520, "y": 311}}, W(0.5), K("ctrl", "a"), T("360\t"), W(1), {"type": "triple_click", "target": {"x": 520, "y": 339}}, W(0.5),
          K("ctrl", "a"), T("240\t"), W(1.5), C(770, 430), W(1), C(828, 628),
          GONE("^Set Image Canvas Size$"), W(1)]
FLIP_H = [K("alt", "i"), P("t"), P("h"), W(1.5)]


def gimp_scale(width):
    return [K("alt", "i"), P("s"), W(2), T(f"{width}\t"), W(1), K("alt", "s"), W(2)]


def gimp_task(id, level, instruction, truth, demo, out):
    truth = {"artifact": "image", "source": SRC, **truth}
    return task(id, level, instruction, "gimp_adjusted", truth, GIMP_START, [W(2), *demo, *gimp_export(out)],
                tags=["gimp"], artifacts={"image": out}, knowledge=KNOW_GIMP, max_steps=60, time_limit_s=900)


gimp_tasks = [
    gimp_task("gimp-desaturate", "L1",
              f"poster.png is open in GIMP. Desaturate it (Colors > Desaturate > Desaturate, mode Luminance) and "
              f"export it as PNG to {WORK}/desaturated.png.",
              {"format": "PNG", "gray": True, "ops": [["desaturate"]], "tolerance": 3}, DESATURATE,
              f"{WORK}/desaturated.png"),
    gimp_task("gimp-brightness", "L1",
              f"poster.png is open in GIMP. Raise its brightness by 40 (Colors > Brightness-Contrast: Brightness 40, "
              f"Contrast 0) and export it as PNG to {WORK}/brighter.png.",
              {"format": "PNG", "size": [300, 200], "ops": [["brightness", 40]], "tolerance": 3},
              gimp_value_dialog("brightness-contrast", "Brightness-Contrast", 40), f"{WORK}/brighter.png"),
    gimp_task("gimp-gaussian-blur", "L1",
              f"poster.png is open in GIMP. Blur it with a Gaussian blur of size 5 px (Filters > Blur > Gaussian "
              f"Blur, Size X and Y = 5) and export it as PNG to {WORK}/blurred.png.",
              {"format": "PNG", "size": [300, 200], "ops": [["blur", 5]], "tolerance": 6,
               "blurrier_than": {"source": SRC, "ops": [["blur", 3]], "factor": 1.15}},
              gimp_value_dialog("gaussian blur", "Gaussian Blur", 5), f"{WORK}/blurred.png"),
    gimp_task("gimp-unsharp", "L1",
              f"poster.png is open in GIMP. Sharpen it with Filters > Enhance > Unsharp Mask (its default settings) "
              f"and export it as PNG to {WORK}/sharp.png.",
              {"format": "PNG", "size": [300, 200], "ops": [["unsharp"]], "tolerance": 12,
               "sharper_than": {"source": SRC, "ops": [], "factor": 1.1}}, UNSHARP, f"{WORK}/sharp.png"),
    gimp_task("gimp-export-tiff", "L1",
              f"poster.png is open in GIMP. Export it unchanged as a TIFF file to {WORK}/poster.tif.",
              {"format": "TIFF", "size": [300, 200], "ops": [], "tolerance": 1}, [], f"{WORK}/poster.tif"),
    gimp_task("gimp-canvas-size", "L1",
              f"poster.png (300x200) is open in GIMP. Enlarge the canvas to 360x240 px with the picture centred "
              f"(Image > Canvas Size; the new border stays transparent) and export it as PNG to {WORK}/canvas.png.",
              {"format": "PNG", "size": [360, 240], "ops": [["canvas", 360, 240, 30, 20]], "tolerance": 2}, CANVAS,
              f"{WORK}/canvas.png"),
    gimp_task("gimp-posterize", "L1",
              f"poster.png is open in GIMP. Posterize it to 4 levels (Colors > Posterize, Posterize levels 4) and "
              f"export it as PNG to {WORK}/posterized.png.",
              {"format": "PNG", "size": [300, 200], "ops": [["posterize", 4]], "tolerance": 3},
              gimp_value_dialog("posterize", "Posterize", 4), f"{WORK}/posterized.png"),
    gimp_task("gimp-desaturate-blur-jpeg", "L2",
              f"poster.png is open in GIMP. Desaturate it (mode Luminance), blur it with a Gaussian blur of size 2 px, "
              f"and export it as a JPEG to {WORK}/soft_gray.jpg.",
              {"format": "JPEG", "gray": True, "ops": [["desaturate"], ["blur", 2]], "tolerance": 5,
               "blurrier_than": {"source": SRC, "ops": [["gray"]], "factor": 1.3}},
              [*DESATURATE, *gimp_value_dialog("gaussian blur", "Gaussian Blur", 2)], f"{WORK}/soft_gray.jpg"),
    gimp_task("gimp-flip-canvas", "L2",
              f"poster.png (300x200) is open in GIMP. Flip it horizontally, enlarge the canvas to 360x240 px with the "
              f"picture centred (transparent border), and export it as PNG to {WORK}/framed_flip.png.",
              {"format": "PNG", "size": [360, 240], "ops": [["flip_h"], ["canvas", 360, 240, 30, 20]], "tolerance": 2},
              [*FLIP_H, *CANVAS], f"{WORK}/framed_flip.png"),
    gimp_task("gimp-bright-thumbnail", "L2",
              f"poster.png (300x200) is open in GIMP. Raise its brightness by 40 (Brightness-Contrast, contrast 0), "
              f"scale it to 150x100 px, and export it as PNG to {WORK}/bright_small.png.",
              {"format": "PNG", "size": [150, 100], "ops": [["brightness", 40], ["scale", 150, 100]], "tolerance": 5},
              [*gimp_value_dialog("brightness-contrast", "Brightness-Contrast", 40), *gimp_scale(150)],
              f"{WORK}/bright_small.png"),
]


if __name__ == "__main__":
    write("r_more", r_tasks)
    write("inkscape_more", ink_tasks)
    write("gimp_more", gimp_tasks)
