"""Writes tasks/office_last.json: the last LibreOffice L1 tasks, one core function each that no earlier task of the
program uses (Calc: a conditional format, a validity list; Impress: a slide's layout). Checked by
``checks/office_last.py``.

    python -m suites.prosoft.make.office_last        # from the repository root

Start files (read only): ``fixtures/prosoft/budget.xlsx``, ``office/sales.xlsx`` and ``office/deck.odp`` (with the
profile that opens Impress full size). The demonstrations open each dialog or command through Help > Search
Commands (Shift+Esc: type a menu command's name, Enter runs it), then use the dialog's keys.
"""
import sys
from pathlib import Path

if __package__:
    from .common import CALC_START, GONE, WIN, C, K, P, T, W, task, write
    from .office import BUDGET_BODY, TITLES, impress_start, slide
    from .office_more import CLICK_IN, SALES, SALES_START, SAVE, name_box
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import CALC_START, GONE, WIN, C, K, P, T, W, task, write  # noqa: E402
    from office import BUDGET_BODY, TITLES, impress_start, slide  # noqa: E402
    from office_more import CLICK_IN, SALES, SALES_START, SAVE, name_box  # noqa: E402

BUDGET = "budget.xlsx"
REGIONS = ["Nth", "Sth", "East", "West"]

KNOW_CALC = ("LibreOffice Calc: Format > Conditional > Condition... gives the selected range a cell style where a "
             "condition holds (Cell value is / greater than / a value, Apply Style). Data > Validity... restricts "
             "what may be entered in the selected cells (Allow: List, then the entries one a line). The Name Box "
             "left of the formula bar goes to a cell or range. Help > Search Commands (Shift+Esc) runs a menu "
             "command by its name. Ctrl+S keeps the .xlsx format.")
KNOW_IMPRESS = ("LibreOffice Impress: select a slide in the slide pane on the left. Slide > Layout (or the "
                "sidebar's Properties > Layouts) switches the selected slide to another layout: Title Slide, "
                "Title, Content, Title and 2 Content, ... Help > Search Commands (Shift+Esc) runs a menu command "
                "by its name. Ctrl+S saves in the file's own format.")


def command(name):
    """Help > Search Commands (Shift+Esc): type the command's name (menu labels end in the character …, so no
    dots), Enter runs the first match."""
    return [K("shift", "escape"), W(2), T(name), W(2), P("enter"), W(2)]


def calc(id, instruction, template, truth, demo, start=CALC_START):
    return task(id, "L1", instruction, template, truth, start, [*CLICK_IN, *demo, *SAVE], tags=["calc"],
                knowledge=KNOW_CALC)


# Format (clicked) > Conditional > Condition... (its submenu's first item; Search Commands lists only the
# submenu): the first condition reads Cell value / is equal to with the focus on the first list; Tab to the
# operator list, two down (is greater than), Tab to the value, the default style (Accent) kept, OK clicked (Enter
# in the value field does not press it)
CONDITION = [C(211, 31), W(2), C(246, 385), W(2), C(540, 387), WIN("^Conditional Formatting"), W(2), P("tab"),
             P("down"), P("down"), W(1), P("tab"), T("1000"), W(1), C(948, 702), GONE("^Conditional Formatting"), W(1)]
# Data > Validity...: Allow (the focus, All values) moved seven down to List; four Tabs (past Allow empty cells,
# Show selection list, Sort entries ascending) reach Entries: one a line; OK clicked
VALIDITY = [*command("Validity"), WIN("^Validity$"), W(2), *[P("down")] * 7, W(2), *[P("tab")] * 4, W(1),
            T("\n".join(REGIONS)), W(1), C(826, 631), GONE("^Validity$"), W(1)]

calc_tasks = [
    calc("calc-highlight-high-costs", "budget.xlsx is open in LibreOffice Calc. Give the Q1 costs (B2:B7) a "
         "conditional format: cells whose value is greater than 1000 get a cell style (any style). Save the file "
         "in its current format.",
         "calc_conditional", {"range": "B2:B7", "operator": "greaterThan", "value": 1000, "from": BUDGET},
         [*name_box("B2:B7"), *CONDITION]),
    calc("calc-region-list", "sales.xlsx is open in LibreOffice Calc. Restrict the region cells A3:A10 with a "
         "validity list allowing only Nth, Sth, East and West (in that order). Save the file in its current "
         "format.",
         "calc_validation", {"range": "A3:A10", "values": REGIONS, "from": SALES},
         [*name_box("A3:A10"), *VALIDITY], start=SALES_START),
]

impress_tasks = [
    task("impress-two-content-layout", "L1",
         "deck.odp is open in LibreOffice Impress. Switch slide 2 ('Budget') to the layout 'Title and 2 Content', "
         "keeping its title and bullet points, then save the file.",
         "pipeline", {"steps": [
             {"template": "impress", "slides": 3, "titles": TITLES},
             {"template": "impress_layout", "slide": 2, "outlines": 2, "title": "Budget", "body": BUDGET_BODY}]},
         impress_start(), [W(3), *slide(2), *command("Title and 2 Content"), W(2), K("ctrl", "s"), W(6)],
         tags=["impress"], knowledge=KNOW_IMPRESS, time_limit_s=900),
]

# --- L4: an expense tracker with a chart, from an empty workbook (fixtures/prosoft/office_last/make_fixtures.py) ---
EXPENSES = [("Rent", 950), ("Food", 420), ("Transport", 130), ("Utilities", 160), ("Leisure", 90)]
TRACKER_START = {"start_files": [{"src": "fixtures/prosoft/office_last/expenses.xlsx",
                                  "dest": "/root/work/expenses.xlsx"}],
                 "start_command": ["soffice", "--norestore", "--calc", "/root/work/expenses.xlsx"],
                 "window": "expenses\\.xlsx", "window_timeout_s": 180,
                 "artifacts": {"workbook": "/root/work/expenses.xlsx"}}
ROWS = "".join(f"{c}\t{a}\n" for c, a in EXPENSES)
# the chart wizard on the selected A1:B6 (Insert > Chart: F10, i, Down, Enter), Alt+N three times to Chart
# Elements with the focus in the Title field, Finish (Enter), Esc twice back to the sheet (make/l4.py's chart)
CHART = [*name_box("A1:B6"), P("f10"), P("i"), W(1), P("down"), P("enter"), WIN("^Chart Type$|Chart Wizard", 60), W(4),
         K("alt", "n"), W(1), K("alt", "n"), W(1), K("alt", "n"), W(2), T("Monthly Expenses"), W(1), P("enter"), W(3),
         P("escape"), W(1), P("escape"), W(1)]

tracker = task(
    "calc-l4-expense-tracker", "L4",
    "expenses.xlsx (one empty sheet) is open in LibreOffice Calc. Build a small monthly expense tracker: the "
    "headers 'Category' and 'Amount' in A1 and B1, five expense categories of your choice with their amounts in "
    "A2:B6, 'Total' in A7 with a formula adding up the amounts in B7, and a chart of the amounts (B2:B6) by "
    "category with a title, on the same sheet. Make it clear and tidy, then save the workbook in its current "
    "format.",
    "creation",
    {"artifact": "workbook", "format": "xlsx", "render": "soffice",
     "constraints": {"chart": {"series_range": "B2:B6"}, "texts": ["Category", "Amount", "Total"]},
     "rubric": ["A1:B7 is a readable table: a header row, five expense categories with amounts, and a total row.",
                "B7 shows the sum of the five amounts.",
                "The sheet shows a chart of the five amounts labelled by category, with a title.",
                "The tracker looks tidy: the chart does not cover the table, labels are readable."]},
    TRACKER_START,
    [*CLICK_IN, *name_box("A1"), T("Category\tAmount\n" + ROWS + "Total\t=SUM(B2:B6)\n"), W(1), *CHART, *SAVE],
    tags=["calc", "creation"],
    knowledge=["Type into the sheet: Tab moves right, Enter to the next row; =SUM(B2:B6) adds the amounts.",
               "Insert > Chart opens the chart wizard on the selected cells (select A1:B6 first: the first row "
               "and column become labels); its 4th step, Chart Elements, has the Title field; Finish inserts "
               "the chart. Drag the chart beside the table so it covers nothing.",
               "Ctrl+S in an .xlsx file keeps the format (LibreOffice may ask: choose Use Excel 2007-365!)."])

if __name__ == "__main__":
    write("office_last", [*calc_tasks, *impress_tasks, tracker])
