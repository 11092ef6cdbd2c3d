"""Writes tasks/calc_more.json, writer_more.json and impress_more.json: one L1 task per core function of
LibreOffice Calc (sort, AutoFilter, freeze panes, currency format, merge cells, rename a sheet, a chart, find and
replace, delete a row), Writer (page header, bullet list, find and replace, font size, page break, footnote,
table, landscape page, PDF export) and Impress (hide a slide, a transition, a rectangle with text, a text box, a
slide background), each checked from the saved file by ``checks/calc_more.py``, ``writer_more.py`` and
``impress_more.py``; and L2 tasks combining two of them.

    python -m suites.prosoft.make.office_more        # from the repository root

Start files: the first tasks' ``fixtures/prosoft/budget.xlsx`` and ``report.docx``, ``fixtures/prosoft/office/``
``sales.xlsx`` and ``memo.docx`` (regenerate with ``fixtures/prosoft/office/make_more_fixtures.py``) and
``deck.odp`` with its LibreOffice profile (make/office.py).

Demonstrations go through the programs' own interface on the 1280x800 screen. Calc: the Name Box (a click at
(75, 140), then a cell or range and Enter) selects what an operation acts on. Menus open with Alt+letter (Impress:
a click on the Slide menu, whose Alt+S opens Slide Show) and are walked with the arrow keys from their first item
(or upwards from the last: Up from the first item wraps to the bottom); dialogs are awaited by their title
(``WIN``) before typing, and their buttons clicked at the fixed places they open at. Every demonstration starts
with a wait and a click into the document (keys were lost without, see make/office.py) and ends with Ctrl+S
(the profile keeps .xlsx and .docx without asking), then waits on the saved file.

Quirks met (LibreOffice 7.4, GTK 3): Enter in the chart wizard's type list does not press Finish (it is clicked);
a click on the Name Box right after leaving a new chart was once lost under load (the chart comes last in its
task); Ctrl+Alt+F is no footnote shortcut here (it opened File > Open; the menu is used); text typed at once into
a newly drawn Impress rectangle arrived out of order ("Galo"; Enter, a wait, then the text); Ctrl+S with the
focus left in the Impress sidebar's Background list saved nothing (a click on the slide's margin first); the
Calc Find & Replace dialog opens a Search Results window after Replace All, Writer's does not.
"""
import sys
from pathlib import Path

if __package__:
    from .common import CALC_START, GONE, WIN, WRITER_START, C, K, P, T, W, task, write
    from .office import FOCUS_VIEW, TITLES, impress_start, new_slide_after, slide
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import CALC_START, GONE, WIN, WRITER_START, C, K, P, T, W, task, write  # noqa: E402
    from office import FOCUS_VIEW, TITLES, impress_start, new_slide_after, slide  # noqa: E402

SAVE = [K("ctrl", "s"), W(6)]
CLICK_IN = [W(3), C(640, 600), W(1)]  # a click into the sheet before the first key
BUDGET = "budget.xlsx"  # fixtures/prosoft/budget.xlsx
SALES = "office/sales.xlsx"
SALES_START = {"start_files": [{"src": "fixtures/prosoft/office/sales.xlsx", "dest": "/root/work/sales.xlsx"}],
               "start_command": ["soffice", "--norestore", "--calc", "/root/work/sales.xlsx"],
               "window": "sales\\.xlsx", "window_timeout_s": 180,
               "artifacts": {"workbook": "/root/work/sales.xlsx"}}

ROWS = [["Rent", 1200, 1200], ["Salaries", 5400, 5600], ["Travel", 830, 610], ["Software", 420, 480],
        ["Training", 300, 900], ["Marketing", 760, 1040]]
HEADER = ["Item", "Q1", "Q2"]

KNOW = ("LibreOffice Calc: the Name Box left of the formula bar takes a cell or range (B2:C7) and selects it. "
        "Data > Sort Ascending / Sort Descending sort the table around the cursor by the cursor's column, the "
        "header row staying on top; Data > AutoFilter (Shift+Ctrl+L) adds filter buttons to the header. View > "
        "Freeze Rows and Columns freezes the rows above and the columns left of the cursor. Format > Number "
        "Format > Currency (Shift+Ctrl+4), Percent (Shift+Ctrl+5). Format > Merge and Unmerge Cells > Merge and "
        "Center Cells. A double click on a sheet tab renames the sheet. Insert > Chart... opens the chart "
        "wizard (Finish places the chart). Edit > Find & Replace (Ctrl+H): Replace All. Sheet > Delete Rows "
        "deletes the selected rows. Ctrl+S keeps the .xlsx format without asking.")


def name_box(ref):
    """Select ``ref`` through the Name Box."""
    return [C(75, 140), W(1), T(ref + "\n"), W(1)]


def menu(letter, moves, enter=True):
    """Open the menu Alt+``letter`` and walk it with ``moves`` (key names), then Enter."""
    return [K("alt", letter), W(1), *[P(m) for m in moves], W(1), *([P("enter"), W(1)] if enter else [])]


SORT_DESC = menu("d", ["down", "down"])  # Data > Sort Descending (the third item)
AUTOFILTER = [K("ctrl", "shift", "l"), W(1)]
FREEZE = menu("v", ["up"] * 9)  # View > Freeze Rows and Columns (ninth from the bottom)
CURRENCY = [K("ctrl", "shift", "4"), W(1)]
MERGE_CENTER = menu("o", ["down"] * 8 + ["right"])  # Format > Merge and Unmerge Cells > Merge and Center Cells
DELETE_ROWS = menu("s", ["down"] * 5)  # Sheet > Delete Rows (the sixth item)


def rename_sheet(name, tab=(174, 765)):
    return [C(*tab), W(1), {"type": "double_click", "target": {"x": tab[0], "y": tab[1]}},
            WIN("Rename Sheet"), W(1), K("ctrl", "a"), T(name + "\n"), GONE("Rename Sheet"), W(1)]


def chart(downs):
    """Insert > Chart... on the selection; ``downs`` rows down the chart type list (0 column, 1 bar, 2 pie);
    Finish; then leave the chart (Esc twice) and its selection."""
    return [*menu("i", ["down"]), WIN("^Chart Type$", 60), W(2), *[P("down")] * downs, W(1), C(1054, 595),
            GONE("^Chart Type$", 60), W(3), P("escape"), W(2), P("escape"), W(2), C(640, 650), W(1)]


def replace_all(find, repl):
    """Edit > Find & Replace: find, replace, Replace All, close the results and the dialog."""
    return [K("ctrl", "h"), WIN("Find and Replace"), W(1), T(find), C(664, 310), W(1), T(repl), C(905, 365),
            WIN("Search Results"), W(1), P("escape"), GONE("Search Results"), W(1), P("escape"),
            GONE("Find and Replace"), W(1)]


def calc(id, level, instruction, template, truth, demo, start=CALC_START):
    return task(id, level, instruction, template, truth, start, [*CLICK_IN, *demo, *SAVE], tags=["calc"],
                knowledge=KNOW)


def keep(source):
    return {"from": source}


calc_tasks = [
    calc("calc-sort-q2-descending", "L1",
         "In budget.xlsx (open in LibreOffice Calc), sort the cost rows (A2:C7) by the Q2 column, largest first, "
         "keeping each row together and the header in row 1. Save the file in its current format.",
         "calc_sort", {"range": "A2:C7", "by": "C", "descending": True, "header_row": "A1:C1", **keep(BUDGET)},
         [*name_box("C2"), *SORT_DESC]),
    calc("calc-autofilter", "L1",
         "In budget.xlsx, turn on the AutoFilter for the table A1:C7 (filter buttons in the header row), then "
         "save the file.",
         "calc_autofilter", {"ref": "A1:C7", **keep(BUDGET)}, [*name_box("A1"), *AUTOFILTER]),
    calc("calc-freeze-header", "L1",
         "In budget.xlsx, freeze the header row (row 1) so that it stays visible when scrolling, then save the "
         "file.",
         "calc_freeze", {"top_left": "A2", **keep(BUDGET)}, [*name_box("A2"), *FREEZE]),
    calc("calc-currency-format", "L1",
         "In budget.xlsx, format the costs B2:C7 as currency (e.g. $1,200.00), leaving their values as they are, "
         "then save the file.",
         "calc_number_format", {"range": "B2:C7", "format": "currency", **keep(BUDGET)},
         [*name_box("B2:C7"), *CURRENCY]),
    calc("calc-merge-title", "L1",
         "sales.xlsx is open in LibreOffice Calc. Merge the cells A1:D1 of the title 'Sales 2026' into one cell, "
         "centred, then save the file in its current format.",
         "calc_merge", {"merged": ["A1:D1"], "centered": ["A1"], **keep(SALES)},
         [*name_box("A1:D1"), *MERGE_CENTER], start=SALES_START),
    calc("calc-rename-sheet", "L1",
         "In budget.xlsx, rename the sheet 'Budget' to 'Costs 2026', then save the file.",
         "xlsx_sheets", {"sheet_names": ["Costs 2026"]}, rename_sheet("Costs 2026")),
    calc("calc-pie-chart", "L1",
         "In budget.xlsx, insert a pie chart of the Q1 costs (B2:B7) by item (A2:A7) on the sheet, then save the "
         "file in its current format.",
         "calc_chart", {"chart": "pie", "values": ["B2:B7"], "categories": "A2:A7", **keep(BUDGET)},
         [*name_box("A1:B7"), *chart(2)]),
    calc("calc-replace-region", "L1",
         "sales.xlsx is open in LibreOffice Calc. Replace every region code 'Nth' with 'North' (Find & Replace), "
         "then save the file.",
         "calc_replace", {"find": "Nth", "replace": "North", **keep(SALES)}, replace_all("Nth", "North"),
         start=SALES_START),
    calc("calc-delete-row", "L1",
         "In budget.xlsx, delete the whole row of the item 'Travel' (row 4), so that the rows below move up, then "
         "save the file.",
         "calc_rows", {"range": "A1:C6", "rows": [HEADER, *[r for r in ROWS if r[0] != "Travel"]], "blank": "A7:C7"},
         [*name_box("A4"), *DELETE_ROWS]),
    # --- L2: two functions in one task
    calc("calc-sort-and-freeze", "L2",
         "In budget.xlsx, sort the cost rows (A2:C7) by Q1, largest first (rows kept together, header in row 1), "
         "and freeze the header row so that it stays visible when scrolling. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc_sort", "range": "A2:C7", "by": "B", "descending": True, "header_row": "A1:C1",
              **keep(BUDGET)},
             {"template": "calc_freeze", "top_left": "A2", "keep_cells": False, **keep(BUDGET)}]},
         [*name_box("B2"), *SORT_DESC, *name_box("A2"), *FREEZE]),
    calc("calc-total-currency", "L2",
         "In budget.xlsx, add 'Total' in A8 with formulas summing Q1 in B8 and Q2 in C8, and format B2:C8 as "
         "currency. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc", "values": {"A8": "Total", "B8": 8910, "C8": 9830},
              "formulas": {"B8": "SUM(B2:B7)", "C8": "SUM(C2:C7)"}, "formula_match": "equivalent",
              "unchanged_from": "budget.xlsx"},
             {"template": "calc_number_format", "range": "B2:C8", "format": "currency", "keep_cells": False,
              **keep(BUDGET)}]},
         [*name_box("A8"), T("Total\t=SUM(B2:B7)\t=SUM(C2:C7)\n"), W(1), *name_box("B2:C8"), *CURRENCY]),
    calc("calc-delete-and-rename", "L2",
         "In budget.xlsx, delete the row of the item 'Travel' (row 4; the rows below move up) and rename the "
         "sheet 'Budget' to 'Costs'. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc_rows", "range": "A1:C6", "rows": [HEADER, *[r for r in ROWS if r[0] != "Travel"]],
              "blank": "A7:C7"},
             {"template": "xlsx_sheets", "sheet_names": ["Costs"]}]},
         [*name_box("A4"), *DELETE_ROWS, *rename_sheet("Costs")]),
    calc("calc-chart-and-filter", "L2",
         "In budget.xlsx, insert a column chart of both quarters (Q1 in B2:B7 and Q2 in C2:C7, by item) and "
         "turn on the AutoFilter for the table A1:C7. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc_chart", "chart": "column", "values": ["B2:B7", "C2:C7"], "categories": "A2:A7",
              **keep(BUDGET)},
             {"template": "calc_autofilter", "ref": "A1:C7", "keep_cells": False, **keep(BUDGET)}]},
         # the chart last: a click on the Name Box right after leaving a new chart was once lost under load
         [*name_box("A1"), *AUTOFILTER, *name_box("A1:C7"), *chart(0)]),
    calc("calc-merge-and-replace", "L2",
         "sales.xlsx is open in LibreOffice Calc. Merge A1:D1 (the title 'Sales 2026') into one centred cell, "
         "and replace every region code 'Nth' with 'North'. Save the file.",
         "pipeline", {"steps": [
             {"template": "calc_merge", "merged": ["A1:D1"], "centered": ["A1"], "keep_cells": False,
              **keep(SALES)},
             {"template": "calc_replace", "find": "Nth", "replace": "North", **keep(SALES)}]},
         [*name_box("A1:D1"), *MERGE_CENTER, *replace_all("Nth", "North")], start=SALES_START),
]


# --- Writer ------------------------------------------------------------------------------------------------------

REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]
MEMO = ["Team Memo", "The Q1 budget was approved in March.",
        "Each team lead reviews the Q1 budget before the meeting.",
        "Questions about the Q1 budget go to the finance office."]  # fixtures/prosoft/office/memo.docx
MEMO_ANNUAL = [p.replace("Q1 budget", "annual budget") for p in MEMO]
MEMO_START = {"start_files": [{"src": "fixtures/prosoft/office/memo.docx", "dest": "/root/work/memo.docx"}],
              "start_command": ["soffice", "--norestore", "--writer", "/root/work/memo.docx"],
              "window": "memo\\.docx", "window_timeout_s": 180,
              "artifacts": {"document": "/root/work/memo.docx"}}
TABLE = [["Item", "Q1", "Q2"], ["Rent", "1200", "1200"], ["Travel", "830", "610"]]

KNOW_WRITER = ("LibreOffice Writer: Ctrl+Home / Ctrl+End go to the start / end of the document, Home / End of the "
               "line. Insert > Header and Footer > Header > Default Page Style adds a page header and puts the "
               "cursor in it. Format > Bullets and Numbering, or Shift+F12 (bullets) and F12 (numbering) on the "
               "selected paragraphs. Edit > Find & Replace (Ctrl+H): Replace All. The font size box of the "
               "Formatting toolbar sets the size of the selected text. Insert > Page Break (Ctrl+Enter) starts a "
               "new page at the cursor. Insert > Footnote and Endnote > Footnote puts a footnote mark at the "
               "cursor and the cursor in the note. Table > Insert Table (Ctrl+F12): columns, rows, Insert; Tab "
               "moves to the next cell. Format > Page Style (Shift+Alt+P) > Page: orientation and margins. File > "
               "Export As > Export Directly as PDF. Ctrl+S keeps the .docx format without asking.")

HEADER = [*menu("i", ["up"] * 3 + ["right"], enter=False), W(1), P("right"), W(1), P("enter"), W(2)]
FOOTNOTE = [*menu("i", ["up"] * 7 + ["right"], enter=False), W(1), P("enter"), W(2)]
BULLETS = [K("shift", "f12"), W(1)]
PAGE_BREAK = [K("ctrl", "enter"), W(1)]
EXPORT_PDF = [*menu("f", ["up"] * 9 + ["right"], enter=False), W(1), P("down"), P("enter"), W(4)]


def writer_replace(find, repl):
    return [K("ctrl", "h"), WIN("Find and Replace"), W(1), T(find), C(664, 316), W(1), T(repl), C(905, 371),
            W(2), C(933, 638), GONE("Find and Replace"), W(1)]


def font_size(points):
    return [C(515, 101), W(1), K("ctrl", "a"), T(f"{points}\n"), W(1)]


def insert_table(cells):
    rows, cols = len(cells), len(cells[0])
    return [K("ctrl", "f12"), WIN("Insert Table"), W(1), C(510, 254), K("ctrl", "a"), T(str(cols)), C(780, 254),
            K("ctrl", "a"), T(str(rows)), W(1), C(863, 666), GONE("Insert Table"), W(2),
            T("\t".join(c for row in cells for c in row)), W(1)]


LANDSCAPE = [K("shift", "alt", "p"), WIN("^Page Style"), W(2), C(366, 152), W(1), C(348, 347), W(1), C(1002, 707),
             GONE("^Page Style"), W(1)]


def writer(id, level, instruction, template, truth, demo, start=WRITER_START, save=True, **kw):
    return task(id, level, instruction, template, truth, start, [*CLICK_IN, *demo, *(SAVE if save else [])],
                tags=["writer"], knowledge=KNOW_WRITER, **kw)


def export_pdf(path):
    return [*EXPORT_PDF, K("ctrl", "a"), T(path + "\n"), W(6)]


writer_tasks = [
    writer("writer-page-header", "L1",
           "report.docx is open in LibreOffice Writer. Add a page header that reads 'Finance Department' and save "
           "the file in its current format.",
           "writer_header", {"header": "Finance Department", "keeps": REPORT},
           [K("ctrl", "home"), *HEADER, T("Finance Department"), W(1)]),
    writer("writer-bullet-list", "L1",
           "memo.docx is open in LibreOffice Writer. Turn the three paragraphs below the title 'Team Memo' into a "
           "bulleted list (the title stays a normal paragraph) and save the file.",
           "writer_list", {"items": MEMO[1:], "list": "bullet", "not_items": MEMO[:1], "keeps": MEMO},
           [K("ctrl", "home"), P("down"), K("ctrl", "shift", "end"), W(1), *BULLETS], start=MEMO_START),
    writer("writer-replace-all", "L1",
           "memo.docx is open in LibreOffice Writer. Replace every 'Q1 budget' with 'annual budget' (Find & "
           "Replace) and save the file.",
           "writer_replace", {"find": "Q1 budget", "replace": "annual budget", "paragraphs": MEMO_ANNUAL},
           writer_replace("Q1 budget", "annual budget"), start=MEMO_START),
    writer("writer-title-size", "L1",
           "In report.docx (open in LibreOffice Writer), set the font size of the title line 'Quarterly Report' "
           "to 20 pt and save the file.",
           "writer_char", {"text": REPORT[0], "size": 20, "keeps": REPORT},
           [K("ctrl", "home"), K("shift", "end"), W(1), *font_size(20)]),
    writer("writer-page-break", "L1",
           "In report.docx, start the last paragraph ('Travel fell while ...') on a new page by inserting a page "
           "break right before it, and save the file.",
           "writer_page_break", {"before": [REPORT[2]], "not_before": REPORT[1:2], "keeps": REPORT},
           [K("ctrl", "home"), P("down"), P("down"), P("home"), W(1), *PAGE_BREAK]),
    writer("writer-footnote", "L1",
           "In report.docx, add a footnote at the end of the second paragraph ('Spending stayed within the plan "
           "for the first two quarters.') that reads 'Source: the general ledger.' and save the file.",
           "writer_footnote", {"anchor": REPORT[1], "text": "Source: the general ledger.", "keeps": REPORT},
           [K("ctrl", "home"), P("down"), P("end"), W(1), *FOOTNOTE, T("Source: the general ledger."), W(1)]),
    writer("writer-insert-table", "L1",
           "In report.docx, add a table at the end of the document with 3 columns and 3 rows holding: Item, Q1, "
           "Q2 / Rent, 1200, 1200 / Travel, 830, 610. Save the file.",
           "writer_table", {"cells": TABLE, "keeps": REPORT},
           [K("ctrl", "end"), P("enter"), W(1), *insert_table(TABLE)]),
    writer("writer-landscape", "L1",
           "In report.docx, change the page orientation to landscape (Format > Page Style) and save the file.",
           "writer_page", {"orientation": "landscape", "keeps": REPORT}, [K("ctrl", "home"), *LANDSCAPE]),
    writer("writer-export-pdf", "L1",
           "report.docx is open in LibreOffice Writer. Export it as a PDF file /root/work/report.pdf.",
           "writer_pdf", {"pages": 1, "page_text": {"1": REPORT}}, export_pdf("/root/work/report.pdf"),
           save=False, artifacts={"pdf": "/root/work/report.pdf"}),
    # --- L2
    writer("writer-header-and-footnote", "L2",
           "In report.docx, add a page header 'Finance Department' and a footnote at the end of the second "
           "paragraph reading 'Source: the general ledger.' Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_header", "header": "Finance Department", "keeps": REPORT},
               {"template": "writer_footnote", "anchor": REPORT[1], "text": "Source: the general ledger."}]},
           [K("ctrl", "home"), *HEADER, T("Finance Department"), W(1), C(640, 600), W(1), K("ctrl", "home"),
            P("down"), P("end"), W(1), *FOOTNOTE, T("Source: the general ledger."), W(1)]),
    writer("writer-landscape-table", "L2",
           "In report.docx, switch the page to landscape and add at the end of the document a 3x3 table: Item, "
           "Q1, Q2 / Rent, 1200, 1200 / Travel, 830, 610. Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_page", "orientation": "landscape"},
               {"template": "writer_table", "cells": TABLE, "keeps": REPORT}]},
           [K("ctrl", "home"), *LANDSCAPE, K("ctrl", "end"), P("enter"), W(1), *insert_table(TABLE)]),
    writer("writer-memo-replace-bullets", "L2",
           "memo.docx is open in LibreOffice Writer. Replace every 'Q1 budget' with 'annual budget', then turn the "
           "three paragraphs below the title into a bulleted list. Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_replace", "find": "Q1 budget", "replace": "annual budget",
                "paragraphs": MEMO_ANNUAL},
               {"template": "writer_list", "items": MEMO_ANNUAL[1:], "list": "bullet", "not_items": MEMO[:1]}]},
           [*writer_replace("Q1 budget", "annual budget"), K("ctrl", "home"), P("down"), K("ctrl", "shift", "end"),
            W(1), *BULLETS], start=MEMO_START),
    writer("writer-title-and-break", "L2",
           "In report.docx, set the title 'Quarterly Report' to 20 pt and start the last paragraph ('Travel fell "
           "while ...') on a new page. Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_char", "text": REPORT[0], "size": 20},
               {"template": "writer_page_break", "before": [REPORT[2]], "not_before": REPORT[1:2], "keeps": REPORT}]},
           [K("ctrl", "home"), K("shift", "end"), W(1), *font_size(20), K("ctrl", "home"), P("down"), P("down"),
            P("home"), W(1), *PAGE_BREAK]),
    writer("writer-heading-pdf", "L2",
           "In report.docx, give the title 'Quarterly Report' the paragraph style Heading 1 and save the file; "
           "then export the document as a PDF file /root/work/report.pdf.",
           "pipeline", {"steps": [
               {"template": "docx_format", "styles": {"0": "Heading1"}},
               {"template": "writer_pdf", "pages": 1, "page_text": {"1": REPORT}}]},
           [K("ctrl", "home"), K("ctrl", "1"), W(1), *SAVE, *export_pdf("/root/work/report.pdf")], save=False,
           artifacts={"pdf": "/root/work/report.pdf"}),
    writer("writer-memo-header-bullets", "L2",
           "memo.docx is open in LibreOffice Writer. Add a page header 'Finance Office' and turn the three "
           "paragraphs below the title into a bulleted list. Save the file.",
           "pipeline", {"steps": [
               {"template": "writer_header", "header": "Finance Office"},
               {"template": "writer_list", "items": MEMO[1:], "list": "bullet", "not_items": MEMO[:1],
                "keeps": MEMO}]},
           [K("ctrl", "home"), P("down"), K("ctrl", "shift", "end"), W(1), *BULLETS, K("ctrl", "home"), *HEADER,
            T("Finance Office"), W(1)], start=MEMO_START),
]


# --- Impress -----------------------------------------------------------------------------------------------------
# deck.odp (fixtures/prosoft/office/) with the profile that opens Impress full size, and make/office.py's pieces:
# ``slide(n)`` selects a slide in the slide pane after a click on the grey margin of the edit view.

KNOW_IMPRESS = ("LibreOffice Impress: select a slide in the slide pane on the left. Slide > Hide Slide keeps it "
                "out of the slide show; Slide > Slide Transition opens the transitions in the sidebar (a click "
                "on one applies it to the selected slide). The Rectangle tool of the Drawing toolbar draws a "
                "rectangle by dragging; typing while a shape is selected puts text in it. F2 (or Insert > Text "
                "Box) and a click on the slide start a text box. The sidebar's Properties > Slide > Background "
                "list sets the selected slide's background (Color: a solid colour, 'Light Blue 2' first). "
                "Ctrl+S saves in the file's own format.")
IMPRESS_SAVE = [K("ctrl", "s"), W(6)]
SLIDE_MENU = [C(266, 31), W(1)]  # the Slide menu of the menu bar; its items are clicked where they open
HIDE_SLIDE = [*SLIDE_MENU, C(304, 435), W(1)]
FADE = [*SLIDE_MENU, C(321, 612), W(3), C(1064, 335), W(4)]  # Slide Transition (sidebar), then Fade


def rectangle(text):
    """Draw a rectangle with the Drawing toolbar's tool, then Enter its text edit mode (asynchronous, as a
    placeholder's: text typed at once arrived out of order, 'Galo') and type ``text``."""
    return [*FOCUS_VIEW, C(224, 102), W(1), {"type": "drag", "source": {"x": 300, "y": 500},
                                             "destination": {"x": 450, "y": 600}}, W(1), P("enter"), W(2),
            T(text), W(1), P("escape"), P("escape"), W(1)]
# sidebar Background: None -> Color; then a click on the margin: Ctrl+S with the focus left in the sidebar's list
# saved nothing
LIGHT_BLUE = [C(1107, 262), W(1), P("down"), P("enter"), W(2), *FOCUS_VIEW]


def text_box(text, at=(700, 580)):
    return [*FOCUS_VIEW, K("f2"), W(1), C(*at), W(1), T(text), W(1), P("escape"), P("escape"), W(1)]


def impress(id, level, instruction, template, truth, demo):
    return task(id, level, instruction, template, truth, impress_start(), [W(3), *demo, *IMPRESS_SAVE],
                tags=["impress"], knowledge=KNOW_IMPRESS, time_limit_s=900)


impress_tasks = [
    impress("impress-hide-slide", "L1",
            "deck.odp is open in LibreOffice Impress. Hide slide 2 ('Budget') so that it is skipped in the slide "
            "show (do not delete it), then save the file.",
            "impress_hidden", {"hidden": [2], "titles": TITLES}, [*slide(2), *HIDE_SLIDE]),
    impress("impress-fade-transition", "L1",
            "deck.odp is open in LibreOffice Impress. Give slide 1 the slide transition 'Fade' (the other slides "
            "keep none), then save the file.",
            "impress_transition", {"transitions": {"1": "fade"}, "others": "none", "titles": TITLES},
            [*slide(1), *FADE]),
    impress("impress-rectangle", "L1",
            "deck.odp is open in LibreOffice Impress. On slide 3 ('Next Steps'), draw a rectangle below the bullet "
            "points with the text 'Goal' in it, then save the file.",
            "impress_shape", {"slide": 3, "shape": "rectangle", "text": "Goal", "titles": TITLES},
            [*slide(3), *rectangle("Goal")]),
    impress("impress-text-box", "L1",
            "deck.odp is open in LibreOffice Impress. Add a text box reading 'Draft' to slide 1 (a new text box, not "
            "in the title or subtitle), then save the file.",
            "impress_textbox", {"slide": 1, "text": "Draft", "titles": TITLES}, [*slide(1), *text_box("Draft")]),
    impress("impress-slide-background", "L1",
            "deck.odp is open in LibreOffice Impress. Give slide 3 ('Next Steps') a solid background colour, "
            "LibreOffice's 'Light Blue 2' (#729fcf); the other slides keep theirs. Save the file.",
            "impress_background", {"backgrounds": {"3": "#729fcf"}, "titles": TITLES}, [*slide(3), *LIGHT_BLUE]),
    # --- L2
    impress("impress-hide-and-fade", "L2",
            "deck.odp is open in LibreOffice Impress. Hide slide 3 ('Next Steps') from the slide show and give "
            "slide 1 the transition 'Fade' (no other slide gets one). Save the file.",
            "pipeline", {"steps": [
                {"template": "impress_hidden", "hidden": [3], "titles": TITLES},
                {"template": "impress_transition", "transitions": {"1": "fade"}, "others": "none"}]},
            [*slide(3), *HIDE_SLIDE, *slide(1), *FADE]),
    impress("impress-draft-background", "L2",
            "deck.odp is open in LibreOffice Impress. On slide 1, add a text box reading 'Draft' and give the slide "
            "the solid background colour 'Light Blue 2' (#729fcf); the other slides stay as they are. Save the "
            "file.",
            "pipeline", {"steps": [
                {"template": "impress_textbox", "slide": 1, "text": "Draft", "titles": TITLES},
                {"template": "impress_background", "backgrounds": {"1": "#729fcf"}}]},
            [*slide(1), *text_box("Draft"), *slide(1), *LIGHT_BLUE]),
    impress("impress-goal-and-hide", "L2",
            "deck.odp is open in LibreOffice Impress. On slide 3, draw a rectangle below the bullets with the text "
            "'Goal' in it, and hide slide 2 ('Budget') from the slide show. Save the file.",
            "pipeline", {"steps": [
                {"template": "impress_shape", "slide": 3, "shape": "rectangle", "text": "Goal", "titles": TITLES},
                {"template": "impress_hidden", "hidden": [2]}]},
            [*slide(3), *rectangle("Goal"), *slide(2), *HIDE_SLIDE]),
    impress("impress-questions-fade", "L2",
            "deck.odp is open in LibreOffice Impress. Add a last slide titled 'Questions' and give that new slide "
            "the transition 'Fade' (the other slides keep none). Save the file.",
            "pipeline", {"steps": [
                {"template": "impress", "slides": 4, "titles": [*TITLES, "Questions"]},
                {"template": "impress_transition", "transitions": {"4": "fade"}, "others": "none"}]},
            [*new_slide_after(3, "Questions"), *slide(4), *FADE]),
]

if __name__ == "__main__":
    write("calc_more", calc_tasks)
    write("writer_more", writer_tasks)
    write("impress_more", impress_tasks)
