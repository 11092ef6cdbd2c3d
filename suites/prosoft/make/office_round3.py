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
    from .common import CALC_START, GONE, WIN, WRITER_START, K, P, T, W, task, write
    from .office_more import CLICK_IN, REPORT, SALES, SALES_START, SAVE, name_box
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import CALC_START, GONE, WIN, WRITER_START, K, P, T, W, task, write  # noqa: E402
    from office_more import CLICK_IN, REPORT, SALES, SALES_START, SAVE, name_box  # noqa: E402

BUDGET = "budget.xlsx"
# fixtures/prosoft/office/sales.xlsx rows 3..10: region, product, units, price
SALES_ROWS = [("Nth", "Widget", 12), ("Sth", "Gadget", 5), ("Nth", "Gadget", 8), ("East", "Widget", 20),
              ("West", "Widget", 7), ("Nth", "Widget", 15), ("Sth", "Widget", 9), ("East", "Gadget", 3)]

KNOW_CALC = ("LibreOffice Calc: =COUNTIF(range; criterion) counts the cells of range matching the criterion; "
             "=SUMIF(range; criterion; sum_range) adds the sum_range cells whose range cell matches; "
             "=VLOOKUP(value; table; column; 0) finds value in the first column of table and returns the given "
             "column of that row (0: exact match); =IF(test; then; else). Arguments are separated by ';' (or ','). "
             "The Name Box left of the formula bar goes to a cell or range; typing a new name into it while a "
             "range is selected defines a named range (Sheet > Named Ranges and Expressions > Define, Ctrl+F3, "
             "does too), and a formula may use the name instead of the range. Ctrl+S keeps the .xlsx format.")
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
]

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
]

if __name__ == "__main__":
    write("office_round3", [*calc_tasks, *writer_tasks])
