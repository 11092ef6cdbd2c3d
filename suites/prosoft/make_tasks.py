"""Writes tasks/{calc,writer,r,pipelines,inkscape}.json (committed): the first ProSoft tasks with their start
files, ground truth and keyboard-first demonstrations. Edit here, then run ``python suites/prosoft/make_tasks.py``.
The other groups have their generators in ``make/``."""
import json

from make.common import CALC_START, CLICK_DOC, INK_START, LOAD, OUT, R_CMD, R_START, WRITER_START, K, P, T, W, SAVE, task  # noqa: E501 - the script's folder is on sys.path

REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]


calc = [
    task("calc-set-cell", "L1", "In budget.xlsx (open in LibreOffice Calc), change the Q1 travel cost in cell B4 to 950 and save the file in its current format.",
         "calc", {"values": {"B4": 950}, "unchanged_from": "budget.xlsx"}, CALC_START,
         [K("ctrl", "home"), P("right"), P("down"), P("down"), P("down"), T("950\n"), *SAVE], tags=["calc"]),
    task("calc-sum-q1", "L1", "In budget.xlsx, put a formula in B8 that sums the Q1 costs (B2:B7), then save.",
         "calc", {"formulas": {"B8": "SUM(B2:B7)"}, "formula_match": "equivalent", "values": {"B8": 8910}, "unchanged_from": "budget.xlsx"}, CALC_START,
         [K("ctrl", "home"), P("right"), K("ctrl", "down"), P("down"), T("=SUM(B2:B7)\n"), *SAVE], tags=["calc"]),
    task("calc-average-q2", "L1", "In budget.xlsx, put a formula in C8 that averages the Q2 costs (C2:C7), then save.",
         "calc", {"formulas": {"C8": "AVERAGE(C2:C7)"}, "formula_match": "equivalent", "values": {"C8": 1638.3333333333333}, "unchanged_from": "budget.xlsx"},
         CALC_START,
         [K("ctrl", "home"), P("right"), P("right"), K("ctrl", "down"), P("down"), T("=AVERAGE(C2:C7)\n"), *SAVE], tags=["calc"]),
    task("calc-bold-header", "L1", "In budget.xlsx, make the header cells A1, B1 and C1 bold, then save.",
         "calc", {"bold": ["A1", "B1", "C1"], "unchanged_from": "budget.xlsx"}, CALC_START,
         [K("ctrl", "home"), K("shift", "right"), K("shift", "right"), K("ctrl", "b"), *SAVE], tags=["calc"]),
    task("calc-total-row", "L2", "In budget.xlsx, add a total row: 'Total' in A8, and formulas summing each quarter in B8 and C8. Save the file.",
         "calc", {"values": {"A8": "Total", "B8": 8910, "C8": 9830}, "formulas": {"B8": "SUM(B2:B7)", "C8": "SUM(C2:C7)"},
                  "formula_match": "equivalent", "unchanged_from": "budget.xlsx"}, CALC_START,
         [K("ctrl", "home"), K("ctrl", "down"), P("down"), T("Total\t=SUM(B2:B7)\t=SUM(C2:C7)\n"), *SAVE], tags=["calc"]),
    task("calc-growth-column", "L2", "In budget.xlsx, add a column D titled 'Growth' holding, for each item, the formula Q2 minus Q1 (D2 = C2-B2 and so on down to row 7). Save the file.",
         "calc", {"values": {"D1": "Growth", "D5": 60, "D6": 600},
                  "formulas": {f"D{r}": f"C{r}-B{r}" for r in range(2, 8)}, "formula_match": "equivalent", 
                  "unchanged_from": "budget.xlsx"}, CALC_START,
         [K("ctrl", "home"), P("right"), P("right"), P("right"),
          T("Growth\n" + "".join(f"=C{r}-B{r}\n" for r in range(2, 8))), *SAVE], tags=["calc"]),
    task("calc-revise-budget", "L2", "In budget.xlsx, the travel cost for Q1 was really 950 and the training cost for Q2 was 1000: correct B4 and C6, add 'Total' in A8 with formulas summing B and C in B8 and C8, make the header row A1:C1 bold, and save.",
         "calc", {"values": {"B4": 950, "C6": 1000, "A8": "Total", "B8": 9030, "C8": 9930},
                  "formulas": {"B8": "SUM(B2:B7)", "C8": "SUM(C2:C7)"}, "formula_match": "equivalent", "bold": ["A1", "B1", "C1"],
                  "unchanged_from": "budget.xlsx"}, CALC_START,
         [K("ctrl", "home"), P("right"), P("down"), P("down"), P("down"), T("950\n"),
          K("ctrl", "home"), P("right"), P("right"), P("down"), P("down"), P("down"), P("down"), P("down"), T("1000\n"),
          K("ctrl", "home"), K("ctrl", "down"), P("down"), T("Total\t=SUM(B2:B7)\t=SUM(C2:C7)\n"),
          K("ctrl", "home"), K("shift", "right"), K("shift", "right"), K("ctrl", "b"), *SAVE], tags=["calc"]),
]

writer = [
    task("writer-append-line", "L1", "In report.docx (open in LibreOffice Writer), add a final paragraph 'Approved by Finance.' and save in the current format.",
         "writer", {"last_paragraphs": ["Approved by Finance."], "keeps": REPORT}, WRITER_START,
         [K("ctrl", "end"), P("enter"), T("Approved by Finance."), *SAVE], tags=["writer"]),
    task("writer-bold-title", "L1", "In report.docx, make the title line 'Quarterly Report' bold and save.",
         "writer", {"bold_paragraphs": [0], "keeps": REPORT}, WRITER_START,
         [K("ctrl", "home"), K("shift", "end"), K("ctrl", "b"), *SAVE], tags=["writer"]),
    task("writer-next-steps", "L2", "In report.docx, make the title bold, then add two paragraphs at the end: 'Next steps' and 'Review the travel policy by March.' Save the file.",
         "writer", {"bold_paragraphs": [0], "last_paragraphs": ["Next steps", "Review the travel policy by March."], "keeps": REPORT},
         WRITER_START,
         [K("ctrl", "home"), K("shift", "end"), K("ctrl", "b"), K("ctrl", "end"), P("enter"),
          T("Next steps\nReview the travel policy by March."), *SAVE], tags=["writer"]),
]

r = [
    task("r-mean-amount", "L1", "In the R console, compute the mean of the amount column of /root/work/sales.csv and write it (just the number) to /root/work/mean.txt.",
         "r_output", {"outputs": {"mean": {"number": 152.1}}}, R_START,
         [T(LOAD + 'write(mean(d$amount), "/root/work/mean.txt")\n'), W(2)], artifacts={"mean": "/root/work/mean.txt"}, tags=["r"]),
    task("r-count-north", "L1", "In the R console, count the rows of /root/work/sales.csv whose region is North and write the count to /root/work/north.txt.",
         "r_output", {"outputs": {"north": {"number": 4, "tolerance": 0}}}, R_START,
         [T(LOAD + 'write(sum(d$region == "North"), "/root/work/north.txt")\n'), W(2)], artifacts={"north": "/root/work/north.txt"}, tags=["r"]),
    task("r-summary-stats", "L2", "In the R console, write the mean, the median and the maximum of the amount column of /root/work/sales.csv to /root/work/stats.txt, one number per line in that order.",
         "r_output", {"outputs": {"stats": {"lines": [152.1, 135.25, 310]}}}, R_START,
         [T(LOAD + 'a <- d$amount\n'), T('write(c(mean(a), median(a), max(a)), "/root/work/stats.txt", ncolumns = 1)\n'), W(2)],
         artifacts={"stats": "/root/work/stats.txt"}, tags=["r"]),
    task("r-region-totals", "L2", "In the R console, total the amount per region of /root/work/sales.csv and write a CSV /root/work/region_totals.csv with columns region and total (no row names).",
         "r_output", {"outputs": {"totals": {"csv": {"North": 615.75, "South": 390, "East": 249.5, "West": 265.75},
                                             "key": "region", "value": "total", "row_names": False}}}, R_START,
         [T(LOAD + 't <- aggregate(amount ~ region, data = d, FUN = sum)\n'), T('names(t) <- c("region", "total")\n'),
          T('write.csv(t, "/root/work/region_totals.csv", row.names = FALSE)\n'), W(2)],
         artifacts={"totals": "/root/work/region_totals.csv"}, tags=["r"]),
    task("r-product-totals", "L2", "In the R console, total the amount per product of /root/work/sales.csv and write a CSV /root/work/product_totals.csv with columns product and total (no row names).",
         "r_output", {"outputs": {"totals": {"csv": {"Widget": 435.25, "Gadget": 1085.75}, "key": "product", "value": "total",
                                             "row_names": False}}}, R_START,
         [T(LOAD + 't <- aggregate(amount ~ product, data = d, FUN = sum)\n'), T('names(t) <- c("product", "total")\n'),
          T('write.csv(t, "/root/work/product_totals.csv", row.names = FALSE)\n'), W(2)],
         artifacts={"totals": "/root/work/product_totals.csv"}, tags=["r"]),
    task("r-bar-plot", "L2", "In the R console, draw a bar chart of the total amount per region of /root/work/sales.csv and save it as a 640x480 PNG at /root/work/regions.png.",
         "r_output", {"outputs": {"plot": {"png": {"min_width": 640, "size": [640, 480], "min_ink": 0.03}}}}, R_START,
         [T(LOAD + 't <- tapply(d$amount, d$region, sum)\n'), T('png("/root/work/regions.png", width = 640, height = 480)\n'),
          T('barplot(t, col = "steelblue", main = "Sales by region")\n'), T('dev.off()\n'), W(3)],
         artifacts={"plot": "/root/work/regions.png"}, tags=["r"]),
]

def pipeline(id, instruction, r_demo, r_truth, r_artifacts, lo_start, lo_demo, lo_truth):
    start = {"start_files": R_START["start_files"] + lo_start["start_files"],
             "start_commands": [{"command": lo_start["start_command"], "window": lo_start["window"], "window_timeout_s": 180},
                                {"command": R_CMD, "window": "^R console$", "window_timeout_s": 60}],
             "artifacts": {**lo_start["artifacts"], **r_artifacts}}
    office = "calc" if "--calc" in lo_start["start_command"] else "writer"
    return task(id, "L3", instruction, "pipeline", {"steps": [r_truth, lo_truth]}, start,
                [*r_demo, W(2), K("alt", "tab"), W(2), *CLICK_DOC, *lo_demo], tags=["r", "pipeline"], apps=["r", office])

pipelines = [
    pipeline("pipe-r-north-to-calc", "Two programs are open: an R console and budget.xlsx in LibreOffice Calc. In R, compute the total amount of the North region in /root/work/sales.csv and write it to /root/work/north_total.txt; then in Calc put the label 'North sales' in A9 and that total as a number in B9, and save the workbook.",
             [T(LOAD + 'write(sum(d$amount[d$region == "North"]), "/root/work/north_total.txt")\n')],
             {"template": "r_output", "outputs": {"north_total": {"number": 615.75}}}, {"north_total": "/root/work/north_total.txt"},
             CALC_START, [K("ctrl", "home"), K("ctrl", "down"), P("down"), P("down"), T("North sales\t615.75\n"), *SAVE],
             {"template": "calc", "values": {"A9": "North sales", "B9": 615.75}, "unchanged_from": "budget.xlsx"}),
    pipeline("pipe-r-max-to-calc", "Two programs are open: an R console and budget.xlsx in LibreOffice Calc. In R, find the largest amount in /root/work/sales.csv and write it to /root/work/max.txt; then in Calc put 'Largest sale' in A9 and that amount in B9, and save the workbook.",
             [T(LOAD + 'write(max(d$amount), "/root/work/max.txt")\n')],
             {"template": "r_output", "outputs": {"max": {"number": 310}}}, {"max": "/root/work/max.txt"},
             CALC_START, [K("ctrl", "home"), K("ctrl", "down"), P("down"), P("down"), T("Largest sale\t310\n"), *SAVE],
             {"template": "calc", "values": {"A9": "Largest sale", "B9": 310}, "unchanged_from": "budget.xlsx"}),
    pipeline("pipe-r-mean-to-writer", "Two programs are open: an R console and report.docx in LibreOffice Writer. In R, compute the mean amount of /root/work/sales.csv and write it to /root/work/mean.txt; then add the final paragraph 'Average sale: 152.1' to the report (with the mean you computed) and save it.",
             [T(LOAD + 'write(mean(d$amount), "/root/work/mean.txt")\n')],
             {"template": "r_output", "outputs": {"mean": {"number": 152.1}}}, {"mean": "/root/work/mean.txt"},
             WRITER_START, [K("ctrl", "end"), P("enter"), T("Average sale: 152.1"), *SAVE],
             {"template": "writer", "last_paragraphs": ["Average sale: 152.1"], "keeps": REPORT}),
    pipeline("pipe-r-regions-to-writer", "Two programs are open: an R console and report.docx in LibreOffice Writer. In R, write the total amount per region of /root/work/sales.csv to /root/work/region_totals.csv (columns region, total; no row names); then add the final paragraph 'North leads with 615.75.' (with the North total) to the report and save it.",
             [T(LOAD + 't <- aggregate(amount ~ region, data = d, FUN = sum)\n'), T('names(t) <- c("region", "total")\n'),
              T('write.csv(t, "/root/work/region_totals.csv", row.names = FALSE)\n')],
             {"template": "r_output", "outputs": {"totals": {"csv": {"North": 615.75, "South": 390, "East": 249.5, "West": 265.75},
                                                             "key": "region", "value": "total", "row_names": False}}},
             {"totals": "/root/work/region_totals.csv"},
             WRITER_START, [K("ctrl", "end"), P("enter"), T("North leads with 615.75."), *SAVE],
             {"template": "writer", "last_paragraphs": ["North leads with 615.75."], "keeps": REPORT}),
]

for item in calc + writer:
    item["demonstration"]["actions"][:0] = CLICK_DOC

for name, items in (("calc", calc), ("writer", writer), ("r", r), ("pipelines", pipelines)):
    (OUT / f"{name}.json").write_text(json.dumps({"tasks": items}, indent=1) + "\n")
from collections import Counter
print(Counter(t["level"] for t in calc + writer + r + pipelines))

inkscape = [
    task("inkscape-delete-circle", "L1", "drawing.svg is open in Inkscape. Delete the red circle and save the drawing.",
         "svg", {"count": {"rect": 2, "circle": 0}, "ids_absent": ["dot"]}, INK_START,
         [{"type": "click", "target": {"x": 702, "y": 384}}, P("delete"), K("ctrl", "s"), W(3)], tags=["inkscape"]),
    task("inkscape-keep-bar", "L2", "drawing.svg is open in Inkscape. Remove the blue rectangle and the red circle so that only the green bar is left, then save the drawing.",
         "svg", {"count": {"rect": 1, "circle": 0}, "ids_absent": ["box", "dot"]}, INK_START,
         [{"type": "click", "target": {"x": 300, "y": 620}}, P("escape"), P("tab"), P("delete"), P("tab"), P("delete"),
          K("ctrl", "s"), W(3)], tags=["inkscape"]),
]
(OUT / "inkscape.json").write_text(json.dumps({"tasks": inkscape}, indent=1) + "\n")
