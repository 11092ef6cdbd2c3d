"""Writes tasks/office_round3.json: more LibreOffice Calc and Writer tasks, one core function each that no earlier
task of the program uses (Calc: COUNTIF, VLOOKUP, IF, a named range; Writer: a comment, 1.5 line spacing, a
hyperlink), and L2 tasks chaining them into a business result (a product summary, a lookup through a named
range, a reviewed report). Checked by ``checks/office_round3.py``.

    python -m suites.prosoft.make.office_round3        # from the repository root

Start files (read only): ``fixtures/prosoft/budget.xlsx``, ``report.docx`` and ``office/sales.xlsx``. The
demonstrations use make/office_more.py's pieces: a click into the document first, the Name Box (75, 140) to go to
a cell or range, Ctrl+S (the profile keeps .xlsx and .docx) and a wait on the saved file. Formulas are typed with
``;`` between arguments, which Calc accepts whatever its separator setting.
"""
import sys
from pathlib import Path

if __package__:
    from .common import CALC_START, GONE, WIN, WRITER_START, C, K, P, T, W, task, write
    from .office import BUDGET_BODY, NORMAL_VIEW, NOTES_VIEW, TITLES, edit_box, impress_start, new_slide_after, slide
    from .office_more import CLICK_IN, REPORT, SALES, SALES_START, SAVE, name_box
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import CALC_START, GONE, WIN, WRITER_START, C, K, P, T, W, task, write  # noqa: E402
    from office import BUDGET_BODY, NORMAL_VIEW, NOTES_VIEW, TITLES, edit_box, impress_start, new_slide_after, slide  # noqa: E402
    from office_more import CLICK_IN, REPORT, SALES, SALES_START, SAVE, name_box  # noqa: E402

BUDGET = "budget.xlsx"
INVOICES = "office_round3/invoices.xlsx"  # fixtures/prosoft/office_round3/make_fixtures.py
INVOICES_START = {"start_files": [{"src": f"fixtures/prosoft/{INVOICES}", "dest": "/root/work/invoices.xlsx"}],
                  "start_command": ["soffice", "--norestore", "--calc", "/root/work/invoices.xlsx"],
                  "window": "invoices\\.xlsx", "window_timeout_s": 180,
                  "artifacts": {"workbook": "/root/work/invoices.xlsx"}}
DUE = {"E2": "2026-03-31", "E3": "2026-03-24", "E4": "2026-05-14", "E5": "2026-04-19"}  # date + days
# fixtures/prosoft/office/sales.xlsx rows 3..10: region, product, units, price
SALES_ROWS = [("Nth", "Widget", 12), ("Sth", "Gadget", 5), ("Nth", "Gadget", 8), ("East", "Widget", 20),
              ("West", "Widget", 7), ("Nth", "Widget", 15), ("Sth", "Widget", 9), ("East", "Gadget", 3)]

KNOW_CALC = ("LibreOffice Calc: =COUNTIF(range; criterion) counts the cells of range matching the criterion; "
             "=SUMIF(range; criterion; sum_range) adds the sum_range cells whose range cell matches; "
             "=VLOOKUP(value; table; column; 0) finds value in the first column of table and returns the given "
             "column of that row (0: exact match); =IF(test; then; else); a date plus a number is the date that many days later (=B2+C2). Arguments are separated by ';' (or ','). "
             "The Name Box left of the formula bar goes to a cell or range; typing a new name into it while a "
             "range is selected defines a named range (Sheet > Named Ranges and Expressions > Define, Ctrl+F3, "
             "does too), and a formula may use the name instead of the range. Format > Number Format > Currency "
             "(Shift+Ctrl+4). Tools > Protect Sheet protects the current sheet. Ctrl+S keeps the .xlsx format.")
KNOW_WRITER = ("LibreOffice Writer: Insert > Comment (Ctrl+Alt+C) attaches a comment at the cursor and puts the "
               "cursor in it (Esc returns to the text). Format > Spacing > Line Spacing: 1 / 1.15 / 1.5 / 2 sets "
               "the selected paragraphs' line spacing (Format > Paragraph > Indents & Spacing too). "
               "Insert > Hyperlink (Ctrl+K) links the selected text or inserts a link at the cursor: URL, then "
               "OK. Ctrl+Home / Ctrl+End go to the start / end, Home / End of the line. Ctrl+S keeps the .docx "
               "format without asking.")


def calc(id, level, instruction, template, truth, demo, start=CALC_START):
    return task(id, level, instruction, template, truth, start, [*CLICK_IN, *demo, *SAVE], tags=["calc"],
                knowledge=KNOW_CALC)


def writer(id, level, instruction, template, truth, demo):
    return task(id, level, instruction, template, truth, WRITER_START, [*CLICK_IN, *demo, *SAVE], tags=["writer"],
                knowledge=KNOW_WRITER)


def at(ref, text):
    """Go to ``ref`` through the Name Box and type ``text`` (Enter moves down a row)."""
    return [*name_box(ref), T(text), W(1)]


def define_name(ref, name):
    """Select ``ref`` in the Name Box, then type a new name into it: Calc defines the named range."""
    return [*name_box(ref), *name_box(name)]


# Tools > Protect Sheet... (clicked where the Tools menu opens it), OK with no password
PROTECT = [K("alt", "t"), W(2), C(477, 436), WIN("^Protect Sheet$"), W(2), P("enter"), GONE("^Protect Sheet$"), W(1)]
COUNTIF_WIDGET = '=COUNTIF(B3:B10;"Widget")'
IF_ROWS = {f"E{r}": {"function": "IF", "value": "Large" if units >= 10 else "Small"}
           for r, (_, _, units) in enumerate(SALES_ROWS, start=3)}
WIDGETS = sum(1 for _, p, _ in SALES_ROWS if p == "Widget")
GADGETS = sum(1 for _, p, _ in SALES_ROWS if p == "Gadget")
WIDGET_UNITS = sum(u for _, p, u in SALES_ROWS if p == "Widget")
GADGET_UNITS = sum(u for _, p, u in SALES_ROWS if p == "Gadget")

calc_tasks = [
    calc("calc-countif-widgets", "L1",
         "sales.xlsx is open in LibreOffice Calc. In F3, use COUNTIF to count the orders whose product (B3:B10) is "
         "'Widget', then save the file in its current format.",
         "calc_function", {"cells": {"F3": {"function": "COUNTIF", "value": WIDGETS}}, "from": SALES},
         at("F3", COUNTIF_WIDGET + "\n"), start=SALES_START),
    calc("calc-vlookup-travel", "L1",
         "In budget.xlsx (open in LibreOffice Calc), put in E2 a VLOOKUP formula that looks up 'Travel' in the "
         "table A2:C7 and returns its Q2 cost (the third column). Save the file.",
         "calc_function", {"cells": {"E2": {"function": "VLOOKUP", "value": 610}}, "from": BUDGET},
         at("E2", '=VLOOKUP("Travel";A2:C7;3;0)\n')),
    calc("calc-if-order-size", "L1",
         "sales.xlsx is open in LibreOffice Calc. In E3 to E10, use IF to label each order 'Large' when its units "
         "(column C) are 10 or more and 'Small' otherwise. Save the file.",
         "calc_function", {"cells": IF_ROWS, "from": SALES},
         at("E3", "".join(f'=IF(C{r}>=10;"Large";"Small")\n' for r in range(3, 11))), start=SALES_START),
    calc("calc-named-range", "L1",
         "In budget.xlsx, define a named range 'Costs' for the cost cells B2:C7, then save the file.",
         "calc_named_range", {"name": "Costs", "ref": "B2:C7", "from": BUDGET}, define_name("B2:C7", "Costs")),
    calc("calc-protect-sheet", "L1",
         "In budget.xlsx, protect the sheet Budget against changes (Tools > Protect Sheet; no password needed), "
         "then save the file.",
         "calc_protected", {"from": BUDGET}, PROTECT),
    calc("calc-due-dates", "L1",
         "invoices.xlsx is open in LibreOffice Calc. In E2 to E5, put formulas giving each invoice's due date: its "
         "date (column B) plus its payment terms in days (column C). Save the file.",
         "calc_function", {"cells": {c: {"value": d, "date": True, "uses": [f"B{c[1:]}", f"C{c[1:]}"]}
                                     for c, d in DUE.items()}, "from": INVOICES},
         at("E2", "".join(f"=B{r}+C{r}\n" for r in range(2, 6))), start=INVOICES_START),
    # --- L2
    calc("calc-product-summary", "L2",
         "sales.xlsx is open in LibreOffice Calc. Build a product summary to the right of the data: headers "
         "'Product', 'Orders' and 'Units' in F2, G2 and H2; 'Widget' in F3 and 'Gadget' in F4; in G3 and G4 the "
         "number of orders of each product (COUNTIF over B3:B10) and in H3 and H4 its total units (SUMIF over "
         "the units C3:C10). Save the file.",
         "calc_function", {"values": {"F2": "Product", "G2": "Orders", "H2": "Units", "F3": "Widget",
                                      "F4": "Gadget"},
                           "cells": {"G3": {"function": "COUNTIF", "value": WIDGETS},
                                     "G4": {"function": "COUNTIF", "value": GADGETS},
                                     "H3": {"function": "SUMIF", "value": WIDGET_UNITS},
                                     "H4": {"function": "SUMIF", "value": GADGET_UNITS}},
                           "from": SALES},
         [*at("F2", "Product\tOrders\tUnits\n"),
          *at("F3", 'Widget\t=COUNTIF(B3:B10;F3)\t=SUMIF(B3:B10;F3;C3:C10)\n'),
          *at("F4", 'Gadget\t=COUNTIF(B3:B10;F4)\t=SUMIF(B3:B10;F4;C3:C10)\n')], start=SALES_START),
    calc("calc-named-lookup", "L2",
         "In budget.xlsx, define a named range 'CostTable' for the whole table body A2:C7; then put the label "
         "'Travel Q2' in E1 and in E2 a VLOOKUP formula that finds 'Travel' in CostTable (use the name, not the "
         "cell range) and returns its Q2 cost. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc_named_range", "name": "CostTable", "ref": "A2:C7", "from": BUDGET},
             {"template": "calc_function", "values": {"E1": "Travel Q2"},
              "cells": {"E2": {"function": "VLOOKUP", "value": 610, "uses": ["CostTable"]}}, "from": BUDGET,
              "keep_cells": False}]},
         [*define_name("A2:C7", "CostTable"), *at("E1", 'Travel Q2\n=VLOOKUP("Travel";CostTable;3;0)\n')]),
    calc("calc-locked-totals", "L2",
         "In budget.xlsx, add 'Total' in A8 with formulas summing the Q1 and Q2 costs in B8 and C8, then protect "
         "the sheet (no password needed) so that the figures cannot be changed by mistake. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc", "values": {"A8": "Total", "B8": 8910, "C8": 9830},
              "formulas": {"B8": "SUM(B2:B7)", "C8": "SUM(C2:C7)"}, "formula_match": "equivalent",
              "unchanged_from": BUDGET},
             {"template": "calc_protected", "from": BUDGET}]},
         [*at("A8", "Total\t=SUM(B2:B7)\t=SUM(C2:C7)\n"), *PROTECT]),
]

calc_tasks.append(
    calc("calc-invoice-schedule", "L2",
         "invoices.xlsx is open in LibreOffice Calc. Complete the payment schedule: the header 'Due' in E1 and in "
         "E2 to E5 formulas giving each due date (date plus days); then 'Total' in G1 and in G2 a SUM formula of "
         "the amounts D2:D5, formatted as currency. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc_function", "values": {"E1": "Due", "G1": "Total"},
              "cells": {**{c: {"value": d, "date": True, "uses": [f"B{c[1:]}", f"C{c[1:]}"]} for c, d in DUE.items()},
                        "G2": {"function": "SUM", "value": 5690, "uses": ["D2", "D5"]}}, "from": INVOICES},
             {"template": "calc_number_format", "range": "G2:G2", "format": "currency", "from": INVOICES,
              "keep_cells": False}]},
         [*at("E1", "Due\n" + "".join(f"=B{r}+C{r}\n" for r in range(2, 6))), *at("G1", "Total\n=SUM(D2:D5)\n"),
          *name_box("G2"), K("ctrl", "shift", "4"), W(1)], start=INVOICES_START))

# --- Writer ------------------------------------------------------------------------------------------------------
COMMENT = [K("ctrl", "alt", "c"), W(2)]
# Format > Spacing > Line Spacing: 1.5 (Ctrl+5 applies Heading 5 in this LibreOffice's keys)
SPACING_15 = [K("alt", "o"), W(1), P("down"), W(1), P("right"), W(1), P("down"), P("down"), W(1), P("enter"), W(1)]
URL = "https://intranet.example.com/finance"
BODY = REPORT[1:]


def comment(text):
    """A comment at the cursor, its text, then back to the document (Esc)."""
    return [*COMMENT, T(text), W(1), P("escape"), W(1)]


def hyperlink(url):
    """Insert > Hyperlink (Ctrl+K): the URL field has the focus; Enter presses OK."""
    return [K("ctrl", "k"), WIN("^Hyperlink$"), W(2), T(url), W(1), P("enter"), GONE("^Hyperlink$"), W(1)]


# Format > Columns... (clicked where the Format menu opens it): the number of columns, OK
def columns(n):
    return [K("alt", "o"), W(2), C(244, 359), WIN("^Columns$"), W(2), K("ctrl", "a"), T(str(n)), W(1), P("enter"),
            GONE("^Columns$"), W(1)]


SECOND_END = [K("ctrl", "home"), P("down"), P("end"), W(1)]

writer_tasks = [
    writer("writer-comment", "L1",
           "report.docx is open in LibreOffice Writer. Attach a comment reading 'Check the Q2 figures.' to the "
           "second paragraph ('Spending stayed within the plan ...') and save the file in its current format.",
           "writer_comment", {"anchor": REPORT[1], "text": "Check the Q2 figures.", "keeps": REPORT},
           [*SECOND_END, *comment("Check the Q2 figures.")]),
    writer("writer-line-spacing", "L1",
           "In report.docx, set the line spacing of the two paragraphs below the title to 1.5 lines (the title "
           "keeps single spacing) and save the file.",
           "writer_spacing", {"paragraphs": BODY, "line": 1.5, "not_paragraphs": REPORT[:1], "keeps": REPORT},
           [K("ctrl", "home"), P("down"), K("ctrl", "shift", "end"), W(1), *SPACING_15]),
    writer("writer-hyperlink", "L1",
           f"In report.docx, add a final paragraph holding a hyperlink to {URL} (the link may show the address "
           "itself) and save the file.",
           "writer_hyperlink", {"url": URL, "keeps": REPORT}, [K("ctrl", "end"), P("enter"), W(1), *hyperlink(URL)]),
    writer("writer-two-columns", "L1",
           "In report.docx, lay the page out in two text columns (Format > Columns) and save the file.",
           "writer_page", {"columns": 2, "keeps": REPORT}, [K("ctrl", "home"), *columns(2)]),
    # --- L2
    writer("writer-review-pass", "L2",
           "report.docx is open in LibreOffice Writer. Prepare it for review: set the two paragraphs below the "
           "title to 1.5 line spacing (the title stays single-spaced) and attach the comment 'Confirm the travel "
           "figures with Sales.' to the last paragraph ('Travel fell while ...'). Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_spacing", "paragraphs": BODY, "line": 1.5, "not_paragraphs": REPORT[:1]},
               {"template": "writer_comment", "anchor": REPORT[2], "text": "Confirm the travel figures with Sales.",
                "keeps": REPORT}]},
           [K("ctrl", "home"), P("down"), K("ctrl", "shift", "end"), W(1), *SPACING_15, K("ctrl", "end"), W(1),
            *comment("Confirm the travel figures with Sales.")]),
    writer("writer-sources-link", "L2",
           f"In report.docx, add a final paragraph 'Sources: ' followed by a hyperlink to {URL} (the link may show "
           "the address), and attach the comment 'Link checked.' to that new paragraph. Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_hyperlink", "url": URL, "paragraph": f"Sources: {URL}"},
               {"template": "writer_comment", "anchor": f"Sources: {URL}", "text": "Link checked.",
                "keeps": REPORT}]},
           [K("ctrl", "end"), P("enter"), T("Sources: "), W(1), *hyperlink(URL), P("end"), W(1),
            *comment("Link checked.")]),
    writer("writer-newsletter-layout", "L2",
           f"Turn report.docx into a newsletter page: two text columns, and a final paragraph holding a hyperlink "
           f"to {URL} (the link may show the address). Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_page", "columns": 2},
               {"template": "writer_hyperlink", "url": URL, "keeps": REPORT}]},
           [K("ctrl", "home"), *columns(2), K("ctrl", "end"), P("enter"), W(1), *hyperlink(URL)]),
]

# --- Impress -----------------------------------------------------------------------------------------------------
# deck.odp with the profile that opens Impress full size (make/office.py), and photo.png (320x240) for a picture.
KNOW_IMPRESS = ("LibreOffice Impress: select a slide in the slide pane on the left. Slide > Duplicate Slide puts a "
                "copy right after it. Insert > Table... asks for the columns and rows and puts the table on the "
                "current slide; a click into a cell edits it (Tab moves to the next cell). Insert > Image... "
                "places a picture file on the current slide. A title is edited by selecting its box (Tab) and "
                "pressing Enter; Esc leaves the text. Ctrl+S saves in the file's own format.")
PHOTO = {"src": "fixtures/prosoft/imaging/photo.png", "dest": "/root/work/photo.png"}
IMPRESS_SAVE = [K("ctrl", "s"), W(6)]
# the Slide menu is clicked open (Alt+S opens Slide Show); Duplicate Slide is its second item
DUPLICATE = [C(266, 31), W(2), P("down"), P("down"), W(1), P("enter"), W(2)]
INSERT_IMAGE = [K("alt", "i"), W(1), P("enter"), WIN("^Insert Image$"), W(2), K("ctrl", "a"), T("/root/work/photo.png\n"),
                GONE("^Insert Image$"), W(2)]
FIGURES = [["Item", "Q1", "Q2"], ["Rent", "1200", "1200"]]


def insert_table(cells, first=(420, 398)):
    """Insert > Table... (the fourth item): columns, rows, OK; the new table is selected, centred on the slide,
    without a text cursor (keys typed then went nowhere): a click into its first cell (``first``: centred on a
    slide whose layout has no content box, at the top of the content box of a Title, Content slide), then the
    cells."""
    return [K("alt", "i"), W(1), P("down"), P("down"), P("down"), W(1), P("enter"), WIN("^Insert Table$"), W(2),
            K("ctrl", "a"), T(str(len(cells[0]))), P("tab"), K("ctrl", "a"), T(str(len(cells))), W(1), P("enter"),
            GONE("^Insert Table$"), W(2), C(*first), W(2), T("\t".join(c for row in cells for c in row)), W(1), P("escape"),
            P("escape"), W(1)]


def impress(id, level, instruction, template, truth, demo, photo=False):
    start = impress_start()
    if photo:
        start = {**start, "start_files": [*start["start_files"], PHOTO]}
    return task(id, level, instruction, template, truth, start, [W(3), *demo, *IMPRESS_SAVE], tags=["impress"],
                knowledge=KNOW_IMPRESS, time_limit_s=900)


impress_tasks = [
    impress("impress-duplicate-slide", "L1",
            "deck.odp is open in LibreOffice Impress. Duplicate slide 2 ('Budget') so that its copy follows it, "
            "then save the file.",
            "impress", {"slides": 4, "titles": ["Quarterly Review", "Budget", "Budget", "Next Steps"],
                        "bullets": {"2": BUDGET_BODY, "3": BUDGET_BODY}},
            [*slide(2), *DUPLICATE]),
    impress("impress-insert-table", "L1",
            "deck.odp is open in LibreOffice Impress. On slide 3 ('Next Steps'), insert a table of 3 columns and 2 "
            "rows holding Item, Q1, Q2 / Rent, 1200, 1200, then save the file.",
            "impress", {"slides": 3, "titles": TITLES, "object_text": {"3": [c for row in FIGURES for c in row]}},
            [*slide(3), *insert_table(FIGURES)]),
    impress("impress-insert-image", "L1",
            "deck.odp is open in LibreOffice Impress. Put the picture /root/work/photo.png on slide 1, then save "
            "the file.",
            "impress", {"slides": 3, "titles": TITLES, "picture": {"1": {"png_size": [320, 240]}}},
            [*slide(1), *INSERT_IMAGE], photo=True),
    # --- L2
    impress("impress-budget-next-year", "L2",
            "deck.odp is open in LibreOffice Impress. Prepare next year's budget slide: duplicate slide 2 ('Budget') "
            "and retitle the copy (slide 3) 'Budget 2027', keeping its bullet points. Save the file.",
            "impress", {"slides": 4, "titles": ["Quarterly Review", "Budget", "Budget 2027", "Next Steps"],
                        "bullets": {"2": BUDGET_BODY, "3": BUDGET_BODY}},
            [*slide(2), *DUPLICATE, *slide(3), *edit_box("Budget 2027", replace=True)]),
    impress("impress-figures-slide", "L2",
            "deck.odp is open in LibreOffice Impress. Add a last slide titled 'Figures' and put on it a table of 3 "
            "columns and 2 rows holding Item, Q1, Q2 / Rent, 1200, 1200. Save the file.",
            "impress", {"slides": 4, "titles": [*TITLES, "Figures"],
                        "object_text": {"4": [c for row in FIGURES for c in row]}},
            [*new_slide_after(3, "Figures"), *slide(4), *insert_table(FIGURES, first=(330, 335))]),
    impress("impress-photo-notes", "L2",
            "deck.odp is open in LibreOffice Impress. Put the picture /root/work/photo.png on slide 1 and add the "
            "speaker notes 'Introduce the team photo.' to that slide. Save the file.",
            "impress", {"slides": 3, "titles": TITLES, "picture": {"1": {"png_size": [320, 240]}},
                        "notes": {"1": "Introduce the team photo."}},
            [*slide(1), *INSERT_IMAGE, *slide(1), *NOTES_VIEW, C(820, 500), W(1), P("tab"), P("tab"), W(1),
             P("enter"), W(2), T("Introduce the team photo."), P("escape"), P("escape"), W(1), *NORMAL_VIEW],
            photo=True),
]

if __name__ == "__main__":
    write("office_round3", [*calc_tasks, *writer_tasks, *impress_tasks])
