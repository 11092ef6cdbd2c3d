"""Writes tasks/impress.json and tasks/office_more.json: LibreOffice Impress tasks, more Calc/Writer/R/Inkscape
tasks, and L3 pipelines that end in Impress (Calc, R, Writer or Inkscape make what a slide then shows).

    python -m suites.prosoft.make.office        # from the repository root

Start files: fixtures/prosoft/office/ (deck.odp, deck.pptx and a LibreOffice profile that opens Impress at
full size; regenerate them with fixtures/prosoft/office/make_fixtures.py) and the first tasks' budget.xlsx,
report.docx, sales.csv and drawing.svg. Impress demonstrations click only fixed positions of the 1280x800
screen: the slide pane's thumbnails of the three-slide deck (x 100; y 207, 299, 391, 483) and the grey margin of
the edit view (540, 700), which gives the slide view the keyboard focus without selecting a shape. Entering a text
box's edit mode (Enter on a selected placeholder) is handled asynchronously: keys typed before it took effect
were lost or arrived out of order, so every demonstration waits two seconds after that Enter (and six after a
save, which under load was still running three seconds after Ctrl+S).
"""
import sys
from pathlib import Path

if __package__:
    from .common import CALC_START, CLICK_DOC, INK_START, LOAD, R_START, WRITER_START, C, K, P, T, W, task, write
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import (CALC_START, CLICK_DOC, INK_START, LOAD, R_START, WRITER_START, C, K, P, T, W, task,  # noqa: E402
                        write)

# Under load a saved file can still be being written 3 s after Ctrl+S (Impress shows "Save Document" in its status
# bar), and the artifact would be copied out before; and the first screenshot can show a window not yet painted.
SAVE = [K("ctrl", "s"), W(6)]
SETTLE = [W(3)]
CLICK_IN = [*SETTLE, *CLICK_DOC]  # Calc / Writer: a click into the sheet or page before the first key

LO_PROFILE = {"src": "fixtures/prosoft/office/registrymodifications.xcu",
              "dest": "/root/.config/libreoffice/4/user/registrymodifications.xcu"}


def impress_start(fmt="odp"):
    return {"start_files": [{"src": f"fixtures/prosoft/office/deck.{fmt}", "dest": f"/root/work/deck.{fmt}"},
                            LO_PROFILE],
            "start_command": ["soffice", "--norestore", "--impress", f"/root/work/deck.{fmt}"],
            "window": f"deck\\.{fmt}", "window_timeout_s": 180,
            "artifacts": {"deck": f"/root/work/deck.{fmt}"}}



TITLES = ["Quarterly Review", "Budget", "Next Steps"]
BUDGET_BODY = ["Rent stayed flat", "Salaries grew by 4%", "Travel fell by a quarter"]
NEXT_BODY = ["Review the travel policy", "Plan the training budget"]
REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]

# --- Impress action pieces -------------------------------------------------------------------------------------
THUMB = {1: (100, 207), 2: (100, 299), 3: (100, 391), 4: (100, 483)}  # slide pane thumbnails, 92 px apart


FOCUS_VIEW = [C(540, 700), W(1)]  # the grey margin below the slide: the edit view gets the focus


def slide(n):
    """Select slide n of the start deck in the slide pane (after a click on the margin: the first click into a
    freshly shown window can be lost, and a lost click on a thumbnail would leave the wrong slide selected)."""
    return [*FOCUS_VIEW, C(*THUMB[n]), W(1)]
DONE_TEXT = [P("escape"), P("escape"), W(1)]


def edit_box(text, tabs=1, replace=False):
    """Tab to the n-th shape of the current slide, enter its text, (replace and) type ``text``, leave it."""
    return [*FOCUS_VIEW, *[P("tab")] * tabs, W(1), P("enter"), W(2), *([K("ctrl", "a")] if replace else []), T(text),
            *DONE_TEXT]


def new_slide_after(n, title, body=None):
    """A new Title, Content slide after slide n with a title (and body paragraphs)."""
    actions = [*slide(n), K("ctrl", "m"), W(2), *edit_box(title)]
    if body:
        actions += edit_box("\n".join(body), tabs=2)
    return actions


NOTES_VIEW = [K("alt", "v"), W(1), P("down"), P("down"), P("enter"), W(2)]
NORMAL_VIEW = [K("alt", "v"), W(1), P("enter"), W(2)]
# File > Export As > Export Directly as PDF (eighth item from the bottom of the File menu), then the file dialog
EXPORT_PDF = [K("alt", "f"), W(1), *[P("up")] * 8, P("right"), W(1), P("down"), P("enter"), W(3)]
INSERT_IMAGE = [K("alt", "i"), W(1), P("enter"), W(3)]


def file_dialog(path):
    return [K("ctrl", "a"), T(path + "\n"), W(6)]


KNOW_IMPRESS = ("LibreOffice Impress: Slide > New Slide (Ctrl+M) inserts a Title, Content slide after the current "
                "one. In the slide view, Tab selects the next shape and Enter edits its text; Esc leaves the text "
                "and then the selection. Select a slide in the slide pane and press Delete to delete it. "
                "Slide > Move > Slide Up / Slide Down / Slide to Start / Slide to End (Shift+Alt+Page Up / Page "
                "Down / Home / End) reorder slides. View > Notes shows the speaker notes under each slide; View > "
                "Normal returns. File > Export As > Export as PDF / Export Directly as PDF writes a PDF, one page "
                "per slide. Insert > Image... places a picture file on the current slide. Ctrl+S saves in the "
                "file's own format (.odp or .pptx) without asking.")
KNOW_PIPE = ("Pipelines: finish and save in the first program before using its result in the second; switch "
             "windows with Alt+Tab. Cells copied in Calc (Ctrl+C) paste into an Impress slide (Ctrl+V) as a "
             "table.")


def imp(id, level, instruction, truth, demo, fmt="odp", template="impress", **kw):
    return task(id, level, instruction, template, truth, impress_start(fmt), [*SETTLE, *demo], tags=["impress"],
                time_limit_s=900, **kw)


impress = [
    imp("impress-add-slide", "L1",
        "deck.odp is open in LibreOffice Impress. Add a new slide at the end of the presentation with the title "
        "'Questions', then save the file in its current format.",
        {"slides": 4, "titles": [*TITLES, "Questions"]},
        [*new_slide_after(3, "Questions"), *SAVE], knowledge=KNOW_IMPRESS),
    imp("impress-rename-title", "L1",
        "deck.odp is open in LibreOffice Impress. Change the title of slide 2 from 'Budget' to 'Budget 2026' "
        "and save the file.",
        {"slides": 3, "titles": ["Quarterly Review", "Budget 2026", "Next Steps"], "bullets": {"2": BUDGET_BODY}},
        [*slide(2), *edit_box("Budget 2026", replace=True), *SAVE]),
    imp("impress-delete-slide", "L1",
        "deck.odp is open in LibreOffice Impress. Delete slide 2 ('Budget') and save the file.",
        {"slides": 2, "titles": ["Quarterly Review", "Next Steps"]},
        [*slide(2), P("delete"), W(1), *SAVE]),
    imp("impress-move-slide", "L1",
        "deck.odp is open in LibreOffice Impress. Move the slide 'Next Steps' so that it comes right after the "
        "title slide (it becomes slide 2), then save the file.",
        {"slides": 3, "titles": ["Quarterly Review", "Next Steps", "Budget"], "bullets": {"2": NEXT_BODY}},
        [*slide(3), K("shift", "alt", "pageup"), W(1), *SAVE], knowledge=KNOW_IMPRESS),
    imp("impress-speaker-notes", "L1",
        "deck.odp is open in LibreOffice Impress. Add the speaker notes 'Welcome the finance team.' to slide 1 "
        "and save the file.",
        {"slides": 3, "titles": TITLES, "notes": {"1": "Welcome the finance team."}},
        [*slide(1), *NOTES_VIEW, C(820, 500), W(1), P("tab"), P("tab"), W(1), P("enter"), W(2),
         T("Welcome the finance team."), *DONE_TEXT, *NORMAL_VIEW, *SAVE], knowledge=KNOW_IMPRESS),
    imp("impress-export-pdf", "L1",
        "deck.odp is open in LibreOffice Impress. Export the presentation as a PDF file /root/work/deck.pdf "
        "(one page per slide).",
        {"pages": 3, "page_text": {"1": ["Quarterly Review"], "2": ["Budget", *BUDGET_BODY],
                                   "3": ["Next Steps", *NEXT_BODY]}},
        [*FOCUS_VIEW, *EXPORT_PDF, *file_dialog("/root/work/deck.pdf")], template="impress_pdf",
        artifacts={"pdf": "/root/work/deck.pdf"}),
    imp("impress-pptx-rename-title", "L1",
        "deck.pptx (PowerPoint format) is open in LibreOffice Impress. Change the title of slide 3 from 'Next "
        "Steps' to 'Next Steps for Q2' and save the file, keeping the PowerPoint format.",
        {"format": "pptx", "slides": 3, "titles": ["Quarterly Review", "Budget", "Next Steps for Q2"]},
        [*slide(3), *edit_box("Next Steps for Q2", replace=True), *SAVE], fmt="pptx"),
    imp("impress-risks-slide", "L2",
        "deck.odp is open in LibreOffice Impress. After the 'Budget' slide, add a slide titled 'Risks' with two "
        "bullet points: 'Travel costs' and 'Hiring delays'. Save the file.",
        {"slides": 4, "titles": ["Quarterly Review", "Budget", "Risks", "Next Steps"],
         "bullets": {"3": ["Travel costs", "Hiring delays"], "2": BUDGET_BODY}},
        [*new_slide_after(2, "Risks", ["Travel costs", "Hiring delays"]), *SAVE], knowledge=KNOW_IMPRESS),
    imp("impress-reorganise", "L2",
        "deck.odp is open in LibreOffice Impress. Reorganise it: delete the 'Next Steps' slide, rename the "
        "'Budget' slide to 'Budget 2026', and add a last slide titled 'Questions'. Save the file.",
        {"slides": 3, "titles": ["Quarterly Review", "Budget 2026", "Questions"], "bullets": {"2": BUDGET_BODY}},
        [*slide(3), P("delete"), W(1), *slide(2), *edit_box("Budget 2026", replace=True),
         *new_slide_after(2, "Questions"), *SAVE]),
    imp("impress-notes-and-pdf", "L2",
        "deck.odp is open in LibreOffice Impress. Add the speaker notes 'Stress the travel savings.' to slide 2, "
        "save the presentation, then export it as a PDF file /root/work/deck.pdf.",
        {"steps": [{"template": "impress", "slides": 3, "titles": TITLES,
                    "notes": {"2": "Stress the travel savings."}},
                   {"template": "impress_pdf", "pages": 3, "page_text": {"2": ["Budget"]}}]},
        [*slide(2), *NOTES_VIEW, C(820, 500), W(1), P("tab"), P("tab"), W(1), P("enter"), W(2),
         T("Stress the travel savings."), *DONE_TEXT, *NORMAL_VIEW, *SAVE, *FOCUS_VIEW, *EXPORT_PDF,
         *file_dialog("/root/work/deck.pdf")], template="pipeline", artifacts={"pdf": "/root/work/deck.pdf"},
        knowledge=KNOW_IMPRESS),
    imp("impress-pptx-agenda", "L2",
        "deck.pptx (PowerPoint format) is open in LibreOffice Impress. Add a slide titled 'Agenda' right after "
        "the title slide (as slide 2) and change the title of the last slide from 'Next Steps' to 'Next Steps "
        "for Q2'. Save the file in PowerPoint format.",
        {"format": "pptx", "slides": 4, "titles": ["Quarterly Review", "Agenda", "Budget", "Next Steps for Q2"],
         "bullets": {"3": BUDGET_BODY}},
        [*new_slide_after(1, "Agenda"), *slide(4), *edit_box("Next Steps for Q2", replace=True),
         *SAVE], fmt="pptx", knowledge=KNOW_IMPRESS),
]


# --- more Calc, Writer, R, Inkscape -------------------------------------------------------------------------------

KNOW_WRITER = ("LibreOffice Writer: Ctrl+1 applies the paragraph style Heading 1 (Ctrl+0 Text Body); Ctrl+E "
               "centres the paragraph, Ctrl+L aligns it left; Ctrl+Home / Ctrl+End go to the start / end of the "
               "document. Ctrl+S keeps the .docx format without asking.")
KNOW_CALC = ("LibreOffice Calc: =MAX(range), =MIN(range), =SUM(range); $B$8 is an absolute reference that stays "
             "fixed when a formula is filled down. Ctrl+S keeps the .xlsx format without asking.")
KNOW_R = ("R: d <- read.csv(path) reads a CSV; sd(x) is the sample standard deviation; substr(d$date, 1, 7) "
          "gives the year-month of an ISO date; aggregate(amount ~ month, data = d, FUN = sum) totals per "
          "group; write(x, path) and write.csv(df, path, row.names = FALSE) write files.")

more = [
    task("calc-max-q2", "L1", "In budget.xlsx (open in LibreOffice Calc), put a formula in C8 that gives the "
         "largest Q2 cost (C2:C7), then save the file in its current format.",
         "calc", {"formulas": {"C8": "MAX(C2:C7)"}, "formula_match": "equivalent", "values": {"C8": 5600}, "unchanged_from": "budget.xlsx"},
         CALC_START, [K("ctrl", "home"), P("right"), P("right"), K("ctrl", "down"), P("down"),
                      T("=MAX(C2:C7)\n"), *SAVE], tags=["calc"], knowledge=KNOW_CALC),
    task("calc-min-q1", "L1", "In budget.xlsx, put a formula in B8 that gives the smallest Q1 cost (B2:B7), "
         "then save the file.",
         "calc", {"formulas": {"B8": "MIN(B2:B7)"}, "formula_match": "equivalent", "values": {"B8": 300}, "unchanged_from": "budget.xlsx"},
         CALC_START, [K("ctrl", "home"), P("right"), K("ctrl", "down"), P("down"), T("=MIN(B2:B7)\n"), *SAVE],
         tags=["calc"]),
    task("calc-share-column", "L2", "In budget.xlsx, add 'Total' in A8 with a formula summing the Q1 costs in "
         "B8, then a column D titled 'Share' in which D2 to D7 hold each item's share of the Q1 total as a "
         "formula (D2 = B2/$B$8 and so on). Save the file.",
         "calc", {"values": {"A8": "Total", "B8": 8910, "D1": "Share", "D3": 5400 / 8910, "D6": 300 / 8910},
                  "formulas": {"B8": "SUM(B2:B7)", **{f"D{r}": f"B{r}/$B$8" for r in range(2, 8)}},
                  "formula_match": "equivalent",
                  "unchanged_from": "budget.xlsx"},
         CALC_START, [K("ctrl", "home"), K("ctrl", "down"), P("down"), T("Total\t=SUM(B2:B7)\n"),
                      K("ctrl", "home"), P("right"), P("right"), P("right"),
                      T("Share\n" + "".join(f"=B{r}/$B$8\n" for r in range(2, 8))), *SAVE],
         tags=["calc"], knowledge=KNOW_CALC),
    task("writer-heading-title", "L1", "In report.docx (open in LibreOffice Writer), give the title line "
         "'Quarterly Report' the paragraph style Heading 1 and save the file in its current format.",
         "pipeline", {"steps": [{"template": "docx_format", "styles": {"0": "Heading1"}},
                                {"template": "writer", "keeps": REPORT}]},
         WRITER_START, [K("ctrl", "home"), K("ctrl", "1"), W(1), *SAVE], tags=["writer"], knowledge=KNOW_WRITER),
    task("writer-center-title", "L1", "In report.docx, centre the title line 'Quarterly Report' and save the "
         "file.",
         "pipeline", {"steps": [{"template": "docx_format", "centered": [0]}, {"template": "writer", "keeps": REPORT}]},
         WRITER_START, [K("ctrl", "home"), K("ctrl", "e"), W(1), *SAVE], tags=["writer"]),
    task("writer-tidy-report", "L2", "In report.docx, give the title 'Quarterly Report' the paragraph style "
         "Heading 1 and centre it, then add a final paragraph 'Prepared by the finance team.' Save the file.",
         "pipeline", {"steps": [{"template": "docx_format", "styles": {"0": "Heading1"}, "centered": [0]},
                                {"template": "writer", "last_paragraphs": ["Prepared by the finance team."],
                                 "keeps": REPORT}]},
         WRITER_START, [K("ctrl", "home"), K("ctrl", "1"), W(1), K("ctrl", "e"), K("ctrl", "end"), P("enter"),
                        T("Prepared by the finance team."), *SAVE], tags=["writer"], knowledge=KNOW_WRITER),
    task("r-sd-amount", "L1", "In the R console, compute the sample standard deviation of the amount column of "
         "/root/work/sales.csv and write it (just the number) to /root/work/sd.txt.",
         "r_output", {"outputs": {"sd": {"number": 81.4262, "tolerance": 0.01}}}, R_START,
         [T(LOAD + 'write(sd(d$amount), "/root/work/sd.txt")\n'), W(2)], artifacts={"sd": "/root/work/sd.txt"},
         tags=["r"], knowledge=KNOW_R),
    task("r-monthly-totals", "L2", "In the R console, total the amount of /root/work/sales.csv per month (the "
         "year-month of the date, e.g. 2026-01) and write a CSV /root/work/monthly.csv with columns month and "
         "total (no row names).",
         "r_output", {"outputs": {"monthly": {"csv": {"2026-01": 1135.25, "2026-02": 385.75}, "key": "month",
                                              "value": "total", "row_names": False}}}, R_START,
         [T(LOAD + 'd$month <- substr(d$date, 1, 7)\n'), T('t <- aggregate(amount ~ month, data = d, FUN = sum)\n'),
          T('names(t) <- c("month", "total")\n'), T('write.csv(t, "/root/work/monthly.csv", row.names = FALSE)\n'),
          W(2)], artifacts={"monthly": "/root/work/monthly.csv"}, tags=["r"], knowledge=KNOW_R),
    task("inkscape-duplicate-circle", "L1", "drawing.svg is open in Inkscape. Duplicate the red circle (Edit > "
         "Duplicate) so that the drawing has two circles, and save the drawing.",
         "svg", {"count": {"circle": 2, "rect": 2}}, INK_START,
         [C(702, 384), W(1), K("ctrl", "d"), W(1), K("ctrl", "s"), W(3)], tags=["inkscape"]),
    task("inkscape-swap-box", "L2", "drawing.svg is open in Inkscape. Duplicate the red circle and delete the blue "
         "rectangle, so that the drawing holds two circles and the green bar; save the drawing.",
         "svg", {"count": {"circle": 2, "rect": 1}, "ids_absent": ["box"]}, INK_START,
         [C(702, 384), W(1), K("ctrl", "d"), W(1), P("escape"), C(576, 376), W(1), P("delete"), W(1),
          K("ctrl", "s"), W(3)], tags=["inkscape"]),
]


# --- L3 pipelines into Impress --------------------------------------------------------------------------------------

def into_impress(id, instruction, first, first_truth, demo, deck_truth, apps, first_artifacts=None):
    """An L3 task: ``first`` (a start dict of another program) and deck.odp in Impress, both open.

    The other program starts after Impress, so its window is the active one. Impress raises its window when its
    document has loaded, which once left it above an R console started after it (R's commands went to
    Impress), and Alt+Tab away from a freshly started Impress sometimes did nothing; so the R console raises
    itself once more (wmctrl) eight seconds after it starts, and the demonstration waits for that."""
    deck = impress_start()
    command = first["start_command"]
    if apps[0] == "r":
        command = ["sh", "-c", "(sleep 8; wmctrl -a 'R console') & exec " + " ".join(
            f"'{a}'" if " " in a else a for a in command)]
    other = {"command": command, "window": first["window"], "window_timeout_s": first.get("window_timeout_s", 180)}
    impress_step = {"command": deck["start_command"], "window": deck["window"], "window_timeout_s": 180}
    start = {"start_files": first.get("start_files", []) + deck["start_files"],
             "start_commands": [impress_step, other],
             "artifacts": {**first.get("artifacts", {}), **deck["artifacts"], **(first_artifacts or {})}}
    prefix = [W(10) if apps[0] == "r" else W(3), *WAKE[apps[0]]]
    return task(id, "L3", instruction, "pipeline", {"steps": [first_truth, {"template": "impress", **deck_truth}]},
                start, [*prefix, *demo], tags=[*apps, "impress", "pipeline"], apps=[*apps, "impress"],
                knowledge=KNOW_PIPE, max_steps=80, time_limit_s=1200)


SWITCH = [W(2), K("alt", "tab"), W(3)]
# a harmless first input for the other program (the first keys were lost once: R read "<- read.csv(...)"): an
# empty R line, a click on an empty cell, page or canvas spot
WAKE = {"r": [P("enter"), W(1)], "calc": [C(640, 600), W(1)], "writer": [C(640, 600), W(1)],
        "inkscape": [C(1000, 650), W(1)]}

pipelines = [
    into_impress(
        "pipe-calc-impress-table",
        "Two programs are open: budget.xlsx in LibreOffice Calc and deck.odp in LibreOffice Impress. In Calc, "
        "add 'Total' in A8 with formulas summing Q1 and Q2 in B8 and C8, and save the workbook. Then copy the "
        "table A1:C8 onto a new last slide of deck.odp titled 'Budget table' and save the presentation.",
        CALC_START,
        {"template": "calc", "values": {"A8": "Total", "B8": 8910, "C8": 9830},
         "formulas": {"B8": "SUM(B2:B7)", "C8": "SUM(C2:C7)"}, "formula_match": "equivalent", "unchanged_from": "budget.xlsx"},
        [K("ctrl", "home"), K("ctrl", "down"), P("down"), T("Total\t=SUM(B2:B7)\t=SUM(C2:C7)\n"), *SAVE,
         K("ctrl", "home"), K("ctrl", "shift", "end"), K("ctrl", "c"), *SWITCH,
         *new_slide_after(3, "Budget table"), K("ctrl", "v"), W(3), *DONE_TEXT, *SAVE],
        {"slides": 4, "titles": [*TITLES, "Budget table"], "object_text": {"4": ["Salaries", "Total", "8910", "9830"]}},
        ["calc"]),
    into_impress(
        "pipe-r-impress-chart",
        "Two programs are open: an R console and deck.odp in LibreOffice Impress. In R, draw a bar chart of the "
        "total amount per region of /root/work/sales.csv and save it as a 640x480 PNG /root/work/regions.png. "
        "Then add a new last slide titled 'Sales by region' to deck.odp showing that picture, and save the "
        "presentation.",
        R_START, {"template": "r_output",
                  "outputs": {"plot": {"png": {"min_width": 640, "size": [640, 480], "min_ink": 0.03}}}},
        [T(LOAD + 't <- tapply(d$amount, d$region, sum)\n'), T('png("/root/work/regions.png", width = 640, height = 480)\n'),
         T('barplot(t, col = "steelblue", main = "Sales by region")\n'), T('dev.off()\n'), W(2), *SWITCH,
         *new_slide_after(3, "Sales by region"), *INSERT_IMAGE, *file_dialog("/root/work/regions.png"),
         *DONE_TEXT, *SAVE],
        {"slides": 4, "titles": [*TITLES, "Sales by region"], "picture": {"4": {"png_size": [640, 480]}}},
        ["r"], first_artifacts={"plot": "/root/work/regions.png"}),
    into_impress(
        "pipe-r-impress-average",
        "Two programs are open: an R console and deck.odp in LibreOffice Impress. In R, compute the mean amount "
        "of /root/work/sales.csv and write it to /root/work/mean.txt. Then add a new last slide to deck.odp "
        "titled 'Average sale' whose text is the mean (152.1 if computed correctly), and save the presentation.",
        R_START, {"template": "r_output", "outputs": {"mean": {"number": 152.1}}},
        [T(LOAD + 'write(mean(d$amount), "/root/work/mean.txt")\n'), *SWITCH,
         *new_slide_after(3, "Average sale", ["152.1"]), *SAVE],
        {"slides": 4, "titles": [*TITLES, "Average sale"], "bullets": {"4": ["152.1"]}},
        ["r"], first_artifacts={"mean": "/root/work/mean.txt"}),
    into_impress(
        "pipe-inkscape-impress-figure",
        "Two programs are open: drawing.svg in Inkscape and deck.odp in LibreOffice Impress. In Inkscape, delete "
        "the red circle and save the drawing. Then add a new last slide titled 'Layout' to deck.odp that shows "
        "the saved drawing (Insert > Image, /root/work/drawing.svg), and save the presentation.",
        INK_START, {"template": "svg", "count": {"rect": 2, "circle": 0}, "ids_absent": ["dot"]},
        [C(702, 384), W(1), P("delete"), K("ctrl", "s"), W(3), *SWITCH,
         *new_slide_after(3, "Layout"), *INSERT_IMAGE, *file_dialog("/root/work/drawing.svg"), *DONE_TEXT, *SAVE],
        {"slides": 4, "titles": [*TITLES, "Layout"],
         "picture": {"4": {"svg_ids": ["box", "bar"], "svg_lacks_ids": ["dot"]}}},
        ["inkscape"]),
    into_impress(
        "pipe-writer-impress-summary",
        "Two programs are open: report.docx in LibreOffice Writer and deck.odp in LibreOffice Impress. In "
        "Writer, make the title 'Quarterly Report' bold and save the report. Then add a new last slide titled "
        "'Summary' to deck.odp whose only text is the report's second paragraph ('Spending stayed within the "
        "plan for the first two quarters.'), and save the presentation.",
        WRITER_START, {"template": "writer", "bold_paragraphs": [0], "keeps": REPORT},
        [K("ctrl", "home"), K("shift", "end"), K("ctrl", "b"), *SAVE, *SWITCH,
         *new_slide_after(3, "Summary", [REPORT[1]]), *SAVE],
        {"slides": 4, "titles": [*TITLES, "Summary"], "bullets": {"4": [REPORT[1]]}},
        ["writer"]),
]

for item in more:  # settle first; Calc and Writer also get a click into the document (keys were lost without)
    prefix = CLICK_IN if item["apps"][0] in ("calc", "writer") else SETTLE
    item["demonstration"]["actions"][:0] = prefix

if __name__ == "__main__":
    write("impress", impress)
    write("office_more", more + pipelines)
