"""The evaluators of the second office group (checks/calc_more.py, checks/writer_more.py) without docker, on the
ground truths of the generated tasks (suites/prosoft/tasks/calc_more.json, writer_more.json).

For every kind: the right result passes every milestone; near misses fail the milestone that names them: the
right operation with a wrong parameter (ascending for descending, a split for a freeze, percent for currency,
the wrong range, a partial replacement, the wrong paragraph), the file saved elsewhere (the artifact missing),
an unsaved change (the start file itself) and a file of the wrong type under the expected name (an ODF package
or CSV text as .xlsx, ODF content as .docx), which fail the milestones, never raise.

Workbooks are written with openpyxl from the start files; documents are minimal .docx packages written here
with the parts LibreOffice writes (header, footnotes, numbering, sectPr).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping
from xml.sax.saxutils import escape

import pytest

from .evaluation import failed, task_milestones

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft"
TASKS = {t["id"]: t for name in ("calc_more", "writer_more", "impress_more")
         for t in json.loads((ROOT / f"suites/prosoft/tasks/{name}.json").read_text())["tasks"]}
REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]
MEMO = ["Team Memo", "The Q1 budget was approved in March.",
        "Each team lead reviews the Q1 budget before the meeting.",
        "Questions about the Q1 budget go to the finance office."]


def run_task(task_id: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    return task_milestones(TASKS[task_id], artifacts)


def fails(task_id: str, artifacts: Mapping[str, Path]) -> list[str]:
    return sorted(failed(run_task(task_id, artifacts)))


def start_file(task_id: str) -> Path:
    src = TASKS[task_id]["start_files"][0]["src"]
    return ROOT / src


# --- workbooks --------------------------------------------------------------------------------------------------

def workbook(tmp_path: Path, source: Path, edit: Callable[[Any], None], name: str = "out.xlsx") -> Path:
    from openpyxl import load_workbook

    wb = load_workbook(source)
    edit(wb.worksheets[0])
    path = tmp_path / name
    wb.save(path)
    return path


def set_rows(ws: Any, first_row: int, rows: list[list[Any]]) -> None:
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            ws.cell(first_row + r, c + 1, value)


BUDGET_ROWS = [["Rent", 1200, 1200], ["Salaries", 5400, 5600], ["Travel", 830, 610], ["Software", 420, 480],
               ["Training", 300, 900], ["Marketing", 760, 1040]]


def test_untouched_start_files_fail_every_task() -> None:
    """What noop leaves: the start file unchanged (an unsaved change), and no PDF."""
    for task_id, task in TASKS.items():
        key = {"calc": "workbook", "writer": "document", "impress": "deck"}[task["apps"][0]]
        artifacts = {key: start_file(task_id)}
        assert failed(run_task(task_id, artifacts)), f"{task_id}: the start file passes every milestone"


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_saved_elsewhere_fails_and_never_raises(task_id: str) -> None:
    result = run_task(task_id, {})
    assert result and all(message for message in result.values()), f"{task_id}: {result}"


@pytest.mark.parametrize("task_id", sorted(t for t in TASKS if t.startswith("calc-")))
def test_wrong_file_types_under_the_workbook_name_fail(task_id: str, tmp_path: Path) -> None:
    csv_text = tmp_path / "csv.xlsx"
    csv_text.write_text("Item,Q1,Q2\nRent,1200,1200\n")
    ods = tmp_path / "ods.xlsx"
    with zipfile.ZipFile(ods, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", "<office:document-content/>")
    for wrong in (csv_text, ods):
        result = run_task(task_id, {"workbook": wrong})
        assert all(message for message in result.values()), f"{task_id} with {wrong.name}: {result}"


def test_sort(tmp_path: Path) -> None:
    good = workbook(tmp_path, FIX / "budget.xlsx",
                    lambda ws: set_rows(ws, 2, sorted(BUDGET_ROWS, key=lambda r: -r[2])))
    assert fails("calc-sort-q2-descending", {"workbook": good}) == []
    ascending = workbook(tmp_path, FIX / "budget.xlsx",
                         lambda ws: set_rows(ws, 2, sorted(BUDGET_ROWS, key=lambda r: r[2])), "asc.xlsx")
    assert fails("calc-sort-q2-descending", {"workbook": ascending}) == [
        "workbook A2:C7 sorted by C descending"]
    by_q1 = workbook(tmp_path, FIX / "budget.xlsx",
                     lambda ws: set_rows(ws, 2, sorted(BUDGET_ROWS, key=lambda r: -r[1])), "q1.xlsx")
    assert fails("calc-sort-q2-descending", {"workbook": by_q1}) == ["workbook A2:C7 sorted by C descending"]
    column_only = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: set_rows(
        ws, 2, [[r[0], r[1], q2] for r, q2 in zip(BUDGET_ROWS, sorted((r[2] for r in BUDGET_ROWS), reverse=True))]),
        "col.xlsx")
    assert fails("calc-sort-q2-descending", {"workbook": column_only}) == ["workbook rows of A2:C7 kept whole"]
    header_sorted_in = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: set_rows(
        ws, 1, sorted([["Item", "Q1", "Q2"], *BUDGET_ROWS], key=lambda r: str(r[2]))), "hdr.xlsx")
    assert "workbook header A1:C1 in place" in fails("calc-sort-q2-descending", {"workbook": header_sorted_in})


def test_autofilter_and_freeze(tmp_path: Path) -> None:
    def autofilter(ref: str) -> Callable[[Any], None]:
        return lambda ws: setattr(ws.auto_filter, "ref", ref)
    assert fails("calc-autofilter", {"workbook": workbook(tmp_path, FIX / "budget.xlsx", autofilter("A1:C7"))}) == []
    narrow = workbook(tmp_path, FIX / "budget.xlsx", autofilter("A1:B7"), "n.xlsx")
    assert fails("calc-autofilter", {"workbook": narrow}) == ["workbook AutoFilter on A1:C7"]

    def freeze(cell: str) -> Callable[[Any], None]:
        return lambda ws: setattr(ws, "freeze_panes", cell)
    assert fails("calc-freeze-header", {"workbook": workbook(tmp_path, FIX / "budget.xlsx", freeze("A2"))}) == []
    column = workbook(tmp_path, FIX / "budget.xlsx", freeze("B2"), "b2.xlsx")
    assert fails("calc-freeze-header", {"workbook": column}) == ["workbook frozen at A2"]

    def split(ws: Any) -> None:
        ws.freeze_panes = "A2"
        ws.sheet_view.pane.state = "split"
    assert fails("calc-freeze-header", {"workbook": workbook(tmp_path, FIX / "budget.xlsx", split, "s.xlsx")}) == [
        "workbook frozen at A2"]


def test_number_format(tmp_path: Path) -> None:
    def fmt(code: str, ref: str = "B2:C7") -> Callable[[Any], None]:
        def edit(ws: Any) -> None:
            for row in ws[ref]:
                for c in row:
                    c.number_format = code
        return edit
    good = workbook(tmp_path, FIX / "budget.xlsx", fmt("[$$-409]#,##0.00;[RED]\\-[$$-409]#,##0.00"))
    assert fails("calc-currency-format", {"workbook": good}) == []
    percent = workbook(tmp_path, FIX / "budget.xlsx", fmt("0.00%"), "p.xlsx")
    assert fails("calc-currency-format", {"workbook": percent}) == ["workbook B2:C7 formatted as currency"]
    partial = workbook(tmp_path, FIX / "budget.xlsx", fmt('"$"#,##0.00', "B2:B7"), "b.xlsx")
    assert fails("calc-currency-format", {"workbook": partial}) == ["workbook B2:C7 formatted as currency"]

    def as_text(ws: Any) -> None:
        fmt('"$"#,##0.00')(ws)
        ws["B2"].value = "$1,200.00"
    typed = workbook(tmp_path, FIX / "budget.xlsx", as_text, "t.xlsx")
    assert fails("calc-currency-format", {"workbook": typed}) == ["workbook cells kept"]


def test_merge_and_replace(tmp_path: Path) -> None:
    from openpyxl.styles import Alignment

    sales = FIX / "office" / "sales.xlsx"

    def merge(ref: str, centre: bool = True) -> Callable[[Any], None]:
        def edit(ws: Any) -> None:
            ws.merge_cells(ref)
            if centre:
                ws["A1"].alignment = Alignment(horizontal="center")
        return edit
    assert fails("calc-merge-title", {"workbook": workbook(tmp_path, sales, merge("A1:D1"))}) == []
    short = workbook(tmp_path, sales, merge("A1:C1"), "c.xlsx")
    assert fails("calc-merge-title", {"workbook": short}) == ["workbook A1:D1 merged"]
    left = workbook(tmp_path, sales, merge("A1:D1", centre=False), "l.xlsx")
    assert fails("calc-merge-title", {"workbook": left}) == ["workbook A1 centred"]

    def replace(count: int) -> Callable[[Any], None]:
        def edit(ws: Any) -> None:
            done = 0
            for row in ws.iter_rows():
                for c in row:
                    if c.value == "Nth" and done < count:
                        c.value, done = "North", done + 1
        return edit
    assert fails("calc-replace-region", {"workbook": workbook(tmp_path, sales, replace(9))}) == []
    first_only = workbook(tmp_path, sales, replace(1), "one.xlsx")
    assert fails("calc-replace-region", {"workbook": first_only}) == [
        "workbook 'Nth' replaced by 'North'", "workbook no 'Nth' left"]

    def also_south(ws: Any) -> None:
        replace(9)(ws)
        ws["A4"].value = "South"
    too_much = workbook(tmp_path, sales, also_south, "s.xlsx")
    assert fails("calc-replace-region", {"workbook": too_much}) == ["workbook 'Nth' replaced by 'North'"]
    merged_and_replaced = workbook(tmp_path, sales, lambda ws: (merge("A1:D1")(ws), replace(9)(ws)), "mr.xlsx")
    assert fails("calc-merge-and-replace", {"workbook": merged_and_replaced}) == []


def test_delete_row_and_rename(tmp_path: Path) -> None:
    good = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: ws.delete_rows(4))
    assert fails("calc-delete-row", {"workbook": good}) == []
    wrong_row = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: ws.delete_rows(5), "w.xlsx")
    assert fails("calc-delete-row", {"workbook": wrong_row}) == ["workbook A1:C6 holds the expected rows"]
    cleared = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: [setattr(c, "value", None) for c in ws[4]], "c.xlsx")
    assert fails("calc-delete-row", {"workbook": cleared}) == ["workbook A1:C6 holds the expected rows",
                                                               "workbook A7:C7 empty"]
    both = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: (ws.delete_rows(4), setattr(ws, "title", "Costs")),
                    "b.xlsx")
    assert fails("calc-delete-and-rename", {"workbook": both}) == []
    renamed_wrong = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: (ws.delete_rows(4), setattr(ws, "title", "Cost")),
                             "r.xlsx")
    assert fails("calc-delete-and-rename", {"workbook": renamed_wrong}) == ["workbook sheet names"]


def test_chart(tmp_path: Path) -> None:
    from openpyxl.chart import BarChart, PieChart, Reference

    def chart(kind: str, cols: tuple[int, int]) -> Callable[[Any], None]:
        def edit(ws: Any) -> None:
            made = PieChart() if kind == "pie" else BarChart()
            if kind == "bar":
                made.type = "bar"
            made.add_data(Reference(ws, min_col=cols[0], max_col=cols[1], min_row=1, max_row=7), titles_from_data=True)
            made.set_categories(Reference(ws, min_col=1, min_row=2, max_row=7))
            ws.add_chart(made, "E2")
        return edit
    good = workbook(tmp_path, FIX / "budget.xlsx", chart("pie", (2, 2)))
    assert fails("calc-pie-chart", {"workbook": good}) == []
    q2 = workbook(tmp_path, FIX / "budget.xlsx", chart("pie", (3, 3)), "q2.xlsx")
    assert fails("calc-pie-chart", {"workbook": q2}) == ["workbook chart of B2:B7"]
    bars = workbook(tmp_path, FIX / "budget.xlsx", chart("bar", (2, 2)), "bar.xlsx")
    assert fails("calc-pie-chart", {"workbook": bars}) == ["workbook a pie chart"]

    def columns_and_filter(ws: Any) -> None:
        chart("column", (2, 3))(ws)
        ws.auto_filter.ref = "A1:C7"
    both = workbook(tmp_path, FIX / "budget.xlsx", columns_and_filter, "both.xlsx")
    assert fails("calc-chart-and-filter", {"workbook": both}) == []
    one_series = workbook(tmp_path, FIX / "budget.xlsx", lambda ws: (chart("column", (2, 2))(ws), setattr(
        ws.auto_filter, "ref", "A1:C7")), "one.xlsx")
    assert fails("calc-chart-and-filter", {"workbook": one_series}) == ["workbook chart of B2:B7, C2:C7"]


def test_total_and_currency(tmp_path: Path) -> None:
    def edit(formula_c: str, code: str) -> Callable[[Any], None]:
        def apply(ws: Any) -> None:
            ws["A8"], ws["B8"], ws["C8"] = "Total", "=SUM(B2:B7)", formula_c
            for row in ws["B2:C8"]:
                for c in row:
                    c.number_format = code
        return apply
    # openpyxl saves no cached values: the calc kind reads them, so give the saved values as LibreOffice would
    good = workbook(tmp_path, FIX / "budget.xlsx", edit("=SUM(C2:C7)", '"$"#,##0.00'))
    result = run_task("calc-total-currency", {"workbook": good})
    assert not [k for k, v in result.items() if v and "formatted" in k]
    plain = workbook(tmp_path, FIX / "budget.xlsx", edit("=SUM(C2:C7)", "0.00"), "p.xlsx")
    assert "workbook B2:C8 formatted as currency" in fails("calc-total-currency", {"workbook": plain})


# --- documents --------------------------------------------------------------------------------------------------

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' \
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def para(text: str, ppr: str = "", before: str = "", after: str = "") -> str:
    return (f"<w:p><w:pPr>{ppr}</w:pPr>{before}<w:r><w:rPr>{after}</w:rPr><w:t>{escape(text)}</w:t></w:r></w:p>")


def docx(tmp_path: Path, body: str, name: str = "out.docx", header: str | None = None,
         footnotes: Mapping[int, str] = (), numbering: str = "", sect: str = "", styles: str = "") -> Path:
    """A .docx with this body XML (paragraphs), a default header, footnotes by id, numbering and page settings."""
    rels = []
    files: dict[str, str] = {}
    refs = ""
    if header is not None:
        rels.append('<Relationship Id="rIdH" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                    'relationships/header" Target="header1.xml"/>')
        files["word/header1.xml"] = f"<w:hdr {W}>{para(header)}</w:hdr>"
        refs = '<w:headerReference w:type="default" r:id="rIdH"/>'
    if footnotes:
        files["word/footnotes.xml"] = (f'<w:footnotes {W}><w:footnote w:id="0" w:type="separator"><w:p/></w:footnote>'
                                       + "".join(f'<w:footnote w:id="{i}">{para(t)}</w:footnote>'
                                                 for i, t in dict(footnotes).items()) + "</w:footnotes>")
    if numbering:
        files["word/numbering.xml"] = f"<w:numbering {W}>{numbering}</w:numbering>"
    if styles:
        files["word/styles.xml"] = f"<w:styles {W}>{styles}</w:styles>"
    files["word/document.xml"] = (f"<w:document {W}><w:body>{body}<w:sectPr>{refs}{sect}</w:sectPr></w:body>"
                                  "</w:document>")
    files["word/_rels/document.xml.rels"] = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                                             f'relationships">{"".join(rels)}</Relationships>')
    files["[Content_Types].xml"] = ('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                                    '<Default Extension="xml" ContentType="application/xml"/></Types>')
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for member, text in files.items():
            z.writestr(member, text)
    return path


def plain(texts: list[str]) -> str:
    return "".join(para(t) for t in texts)


NUMBERING = ('<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>'
             '<w:abstractNum w:abstractNumId="2"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>'
             '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>'
             '<w:num w:numId="2"><w:abstractNumId w:val="2"/></w:num>')


def listed(texts: list[str], num_id: int) -> str:
    return "".join(para(t, f'<w:numPr><w:ilvl w:val="0"/><w:numId w:val="{num_id}"/></w:numPr>') for t in texts)


@pytest.mark.parametrize("task_id", sorted(t for t in TASKS if t.startswith("writer-")))
def test_wrong_file_types_under_the_document_name_fail(task_id: str, tmp_path: Path) -> None:
    odt = tmp_path / "odt.docx"
    with zipfile.ZipFile(odt, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", "<office:document-content/>")
    text = tmp_path / "text.docx"
    text.write_text("\n".join(REPORT))
    for wrong in (odt, text):
        result = run_task(task_id, {"document": wrong, "pdf": wrong})
        assert all(message for message in result.values()), f"{task_id} with {wrong.name}: {result}"


def test_header(tmp_path: Path) -> None:
    good = docx(tmp_path, plain(REPORT), header="Finance Department")
    assert fails("writer-page-header", {"document": good}) == []
    wrong = docx(tmp_path, plain(REPORT), "w.docx", header="Finance Dept")
    assert fails("writer-page-header", {"document": wrong}) == ["document header 'Finance Department'"]
    in_body = docx(tmp_path, plain(["Finance Department", *REPORT]), "b.docx")
    assert fails("writer-page-header", {"document": in_body}) == ["document header 'Finance Department'"]


def test_bullets(tmp_path: Path) -> None:
    good = docx(tmp_path, plain(MEMO[:1]) + listed(MEMO[1:], 1), numbering=NUMBERING)
    assert fails("writer-bullet-list", {"document": good}) == []
    numbered = docx(tmp_path, plain(MEMO[:1]) + listed(MEMO[1:], 2), "n.docx", numbering=NUMBERING)
    assert fails("writer-bullet-list", {"document": numbered}) == ["document bullet list items"]
    all_listed = docx(tmp_path, listed(MEMO, 1), "a.docx", numbering=NUMBERING)
    assert fails("writer-bullet-list", {"document": all_listed}) == ["document other paragraphs not listed"]
    two = docx(tmp_path, plain(MEMO[:2]) + listed(MEMO[2:], 1), "t.docx", numbering=NUMBERING)
    assert fails("writer-bullet-list", {"document": two}) == ["document bullet list items"]


def test_replace(tmp_path: Path) -> None:
    annual = [p.replace("Q1 budget", "annual budget") for p in MEMO]
    assert fails("writer-replace-all", {"document": docx(tmp_path, plain(annual))}) == []
    first = docx(tmp_path, plain([MEMO[0], annual[1], *MEMO[2:]]), "f.docx")
    assert fails("writer-replace-all", {"document": first}) == [
        "document 'Q1 budget' replaced by 'annual budget'", "document no 'Q1 budget' left"]
    wrong = docx(tmp_path, plain([p.replace("Q1 budget", "yearly budget") for p in MEMO]), "w.docx")
    assert fails("writer-replace-all", {"document": wrong}) == ["document 'Q1 budget' replaced by 'annual budget'"]
    both = docx(tmp_path, plain(annual[:1]) + listed(annual[1:], 1), "b.docx", numbering=NUMBERING)
    assert fails("writer-memo-replace-bullets", {"document": both}) == []


def test_font_size(tmp_path: Path) -> None:
    def sized(half_points: int) -> str:
        return para(REPORT[0], after=f'<w:sz w:val="{half_points}"/>') + plain(REPORT[1:])
    assert fails("writer-title-size", {"document": docx(tmp_path, sized(40))}) == []
    assert fails("writer-title-size", {"document": docx(tmp_path, sized(36), "18.docx")}) == [
        "document 'Quarterly Report' size 20"]
    styled = docx(tmp_path, para(REPORT[0], '<w:pStyle w:val="Big"/>') + plain(REPORT[1:]), "s.docx",
                  styles='<w:style w:styleId="Big"><w:rPr><w:sz w:val="40"/></w:rPr></w:style>')
    assert fails("writer-title-size", {"document": styled}) == []
    wrong_line = docx(tmp_path, para(REPORT[0]) + para(REPORT[1], after='<w:sz w:val="40"/>') + plain(REPORT[2:]),
                      "w.docx")
    assert fails("writer-title-size", {"document": wrong_line}) == ["document 'Quarterly Report' size 20"]


def test_page_break(tmp_path: Path) -> None:
    brk = '<w:r><w:br w:type="page"/></w:r>'
    good = docx(tmp_path, plain(REPORT[:2]) + para(REPORT[2], before=brk))
    assert fails("writer-page-break", {"document": good}) == []
    before_attr = docx(tmp_path, plain(REPORT[:2]) + para(REPORT[2], "<w:pageBreakBefore/>"), "a.docx")
    assert fails("writer-page-break", {"document": before_attr}) == []
    line_break = docx(tmp_path, plain(REPORT[:2]) + para(REPORT[2], before="<w:r><w:br/></w:r>"), "l.docx")
    assert fails("writer-page-break", {"document": line_break}) == ["document page break before 'Travel fell while training gre'"]
    one_early = docx(tmp_path, plain(REPORT[:1]) + para(REPORT[1], before=brk) + plain(REPORT[2:]), "e.docx")
    assert fails("writer-page-break", {"document": one_early}) == [
        "document no other page breaks", "document page break before 'Travel fell while training gre'"]


def test_footnote(tmp_path: Path) -> None:
    def noted(anchor: int, text: str, name: str) -> Path:
        body = "".join(para(t) if i != anchor else para(t).replace(
            "</w:p>", '<w:r><w:footnoteReference w:id="2"/></w:r></w:p>') for i, t in enumerate(REPORT))
        return docx(tmp_path, body, name, footnotes={2: text})
    assert fails("writer-footnote", {"document": noted(1, "Source: the general ledger.", "g.docx")}) == []
    wrong_place = noted(2, "Source: the general ledger.", "p.docx")
    assert fails("writer-footnote", {"document": wrong_place}) == ["document footnote on 'Spending stayed within the pla'"]
    wrong_text = noted(1, "Source: the ledger.", "t.docx")
    assert fails("writer-footnote", {"document": wrong_text}) == ["document footnote on 'Spending stayed within the pla'"]
    typed_in = docx(tmp_path, plain(REPORT[:1]) + para(REPORT[1] + " Source: the general ledger.") + plain(REPORT[2:]),
                    "i.docx")
    assert sorted(fails("writer-footnote", {"document": typed_in})) == [
        "document footnote on 'Spending stayed within the pla'", "document keeps the other paragraphs"]


def table_xml(rows: list[list[str]]) -> str:
    return "<w:tbl>" + "".join("<w:tr>" + "".join(f"<w:tc>{para(c)}</w:tc>" for c in row) + "</w:tr>"
                               for row in rows) + "</w:tbl>"


def test_table_and_page(tmp_path: Path) -> None:
    cells = [["Item", "Q1", "Q2"], ["Rent", "1200", "1200"], ["Travel", "830", "610"]]
    assert fails("writer-insert-table", {"document": docx(tmp_path, plain(REPORT) + table_xml(cells))}) == []
    swapped = [cells[0], cells[2], cells[1]]
    assert fails("writer-insert-table", {"document": docx(tmp_path, plain(REPORT) + table_xml(swapped), "s.docx")}) == [
        "document a 3x3 table"]
    as_text = docx(tmp_path, plain(REPORT + ["Item Q1 Q2", "Rent 1200 1200", "Travel 830 610"]), "t.docx")
    assert fails("writer-insert-table", {"document": as_text}) == ["document a 3x3 table"]
    landscape = '<w:pgSz w:w="15840" w:h="12240" w:orient="landscape"/>'
    portrait = '<w:pgSz w:w="12240" w:h="15840"/>'
    assert fails("writer-landscape", {"document": docx(tmp_path, plain(REPORT), "l.docx", sect=landscape)}) == []
    assert fails("writer-landscape", {"document": docx(tmp_path, plain(REPORT), "p.docx", sect=portrait)}) == [
        "document page landscape"]
    both = docx(tmp_path, plain(REPORT) + table_xml(cells), "b.docx", sect=landscape)
    assert fails("writer-landscape-table", {"document": both}) == []


def test_export_pdf(tmp_path: Path) -> None:
    from .test_checks_office import make_pdf

    good = make_pdf(tmp_path / "report.pdf", [" ".join(REPORT)])
    assert fails("writer-export-pdf", {"pdf": good}) == []
    two_pages = make_pdf(tmp_path / "two.pdf", [" ".join(REPORT[:2]), REPORT[2]])
    assert fails("writer-export-pdf", {"pdf": two_pages}) == ["pdf has 1 pages", "pdf page 1 text"]
    assert fails("writer-export-pdf", {"pdf": FIX / "report.docx"}) == ["pdf has 1 pages", "pdf page 1 text"]


# --- presentations ----------------------------------------------------------------------------------------------

TITLES = ["Quarterly Review", "Budget", "Next Steps"]
DECK = FIX / "office" / "deck.odp"
SMIL = 'xmlns:smil="urn:oasis:names:tc:opendocument:xmlns:smil-compatible:1.0" ' \
       'xmlns:anim="urn:oasis:names:tc:opendocument:xmlns:animation:1.0"'
RECT = ('<draw:custom-shape svg:x="4cm" svg:y="9cm" svg:width="5cm" svg:height="3cm"><text:p>{text}</text:p>'
        '<draw:enhanced-geometry draw:type="{kind}"/></draw:custom-shape>')
BOX = '<draw:frame svg:x="20cm" svg:y="13cm" svg:width="2cm" svg:height="1cm"><draw:text-box><text:p>{text}</text:p>' \
      '</draw:text-box></draw:frame>'


def odp(tmp_path: Path, name: str = "deck.odp", props: Mapping[int, str] = (), extra: Mapping[int, str] = (),
        pages: list[int] | None = None) -> Path:
    """The start deck with drawing-page properties (``props``: attributes) and more XML (``extra``) per slide,
    and its slides in the order ``pages`` (1-based numbers of the start deck's slides)."""
    import re

    with zipfile.ZipFile(DECK) as z:
        members = {n: z.read(n) for n in z.namelist()}
    content = members["content.xml"].decode().replace("<office:document-content ", f"<office:document-content {SMIL} ", 1)
    styles = "".join(f'<style:style style:name="dp{n}" style:family="drawing-page"><style:drawing-page-properties '
                     f"{attrs}/></style:style>" for n, attrs in dict(props).items())
    content = content.replace("</office:automatic-styles>", styles + "</office:automatic-styles>")
    head, rest = content.split("<draw:page ", 1)
    body, tail = ("<draw:page " + rest).rsplit("</draw:page>", 1)
    slides = [s + "</draw:page>" for s in body.split("</draw:page>")]
    for n, xml in dict(extra).items():
        slides[n - 1] = slides[n - 1].replace("</draw:page>", xml + "</draw:page>")
    for n in dict(props):
        slides[n - 1] = re.sub(r"^<draw:page ", f'<draw:page draw:style-name="dp{n}" ', slides[n - 1])
    order = pages or list(range(1, len(slides) + 1))
    members["content.xml"] = (head + "".join(slides[n - 1] for n in order) + tail).encode()
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for member, data in members.items():
            z.writestr(member, data)
    return path


HIDDEN = 'presentation:visibility="hidden"'
FADE = 'smil:type="fade" smil:subtype="fadeOverColor"'
BLUE = 'draw:fill="solid" draw:fill-color="#729fcf"'


@pytest.mark.parametrize("task_id", sorted(t for t in TASKS if t.startswith("impress-")))
def test_impress_start_deck_and_wrong_types_fail(task_id: str, tmp_path: Path) -> None:
    assert failed(run_task(task_id, {"deck": DECK})), f"{task_id}: the start deck passes"
    pptx = tmp_path / "deck.odp"
    with zipfile.ZipFile(pptx, "w") as z:
        z.writestr("ppt/presentation.xml", "<p:presentation/>")
    result = run_task(task_id, {"deck": pptx})
    assert all(message for message in result.values()), f"{task_id} with a .pptx: {result}"


def test_hide_slide(tmp_path: Path) -> None:
    assert fails("impress-hide-slide", {"deck": odp(tmp_path, props={2: HIDDEN})}) == []
    assert fails("impress-hide-slide", {"deck": odp(tmp_path, "w.odp", props={3: HIDDEN})}) == [
        "deck hidden slides [2]"]
    deleted = odp(tmp_path, "d.odp", pages=[1, 3])
    assert fails("impress-hide-slide", {"deck": deleted}) == ["deck hidden slides [2]", "deck slides kept"]


def test_transition(tmp_path: Path) -> None:
    assert fails("impress-fade-transition", {"deck": odp(tmp_path, props={1: FADE})}) == []
    wipe = odp(tmp_path, "w.odp", props={1: 'smil:type="barWipe"'})
    assert fails("impress-fade-transition", {"deck": wipe}) == ["deck slide 1 transition fade"]
    all_slides = odp(tmp_path, "a.odp", props={1: FADE, 2: FADE, 3: FADE})
    assert fails("impress-fade-transition", {"deck": all_slides}) == ["deck no other transitions"]


def test_rectangle_and_text_box(tmp_path: Path) -> None:
    good = odp(tmp_path, extra={3: RECT.format(text="Goal", kind="rectangle")})
    assert fails("impress-rectangle", {"deck": good}) == []
    ellipse = odp(tmp_path, "e.odp", extra={3: RECT.format(text="Goal", kind="ellipse")})
    assert fails("impress-rectangle", {"deck": ellipse}) == ["deck a rectangle on slide 3"]
    wrong_slide = odp(tmp_path, "s.odp", extra={1: RECT.format(text="Goal", kind="rectangle")})
    assert fails("impress-rectangle", {"deck": wrong_slide}) == ["deck a rectangle on slide 3"]
    no_text = odp(tmp_path, "n.odp", extra={3: RECT.format(text="", kind="rectangle")})
    assert fails("impress-rectangle", {"deck": no_text}) == ["deck a rectangle on slide 3"]
    assert fails("impress-text-box", {"deck": odp(tmp_path, "b.odp", extra={1: BOX.format(text="Draft")})}) == []
    assert fails("impress-text-box", {"deck": odp(tmp_path, "c.odp", extra={1: BOX.format(text="Drafts")})}) == [
        "deck text box 'Draft' on slide 1"]
    in_title = tmp_path / "t.odp"
    with zipfile.ZipFile(DECK) as src, zipfile.ZipFile(in_title, "w") as dst:
        for member in src.namelist():
            data = src.read(member)
            dst.writestr(member, data.replace(b"Finance team, January 2026", b"Draft") if member == "content.xml"
                         else data)
    assert fails("impress-text-box", {"deck": in_title}) == ["deck text box 'Draft' on slide 1"]


def test_background(tmp_path: Path) -> None:
    assert fails("impress-slide-background", {"deck": odp(tmp_path, props={3: BLUE})}) == []
    other = odp(tmp_path, "o.odp", props={3: 'draw:fill="solid" draw:fill-color="#ff0000"'})
    assert fails("impress-slide-background", {"deck": other}) == ["deck slide 3 background #729fcf"]
    everywhere = odp(tmp_path, "a.odp", props={1: BLUE, 2: BLUE, 3: BLUE})
    assert fails("impress-slide-background", {"deck": everywhere}) == [
        "deck other slides keep the master background"]
    gradient = odp(tmp_path, "g.odp", props={3: 'draw:fill="gradient" draw:fill-color="#729fcf"'})
    assert fails("impress-slide-background", {"deck": gradient}) == ["deck slide 3 background #729fcf"]


def test_impress_pairs(tmp_path: Path) -> None:
    both = odp(tmp_path, props={3: HIDDEN, 1: FADE})
    assert fails("impress-hide-and-fade", {"deck": both}) == []
    assert fails("impress-hide-and-fade", {"deck": odp(tmp_path, "h.odp", props={3: HIDDEN})}) == [
        "deck slide 1 transition fade"]
    draft = odp(tmp_path, "d.odp", props={1: BLUE}, extra={1: BOX.format(text="Draft")})
    assert fails("impress-draft-background", {"deck": draft}) == []
    goal = odp(tmp_path, "g.odp", props={2: HIDDEN}, extra={3: RECT.format(text="Goal", kind="rectangle")})
    assert fails("impress-goal-and-hide", {"deck": goal}) == []


@pytest.mark.parametrize(("code", "kind", "places", "ok"), [
    ("[$$-409]#,##0.00;[RED]\\-[$$-409]#,##0.00", "currency", 2, True),
    ('#,##0.00 "€"', "currency", 2, True),
    ("#,##0.00", "currency", 2, False),
    ("0.00%", "percent", 2, True),
    ('0.00" %"', "percent", 2, False),  # a quoted % is text, not the percent format
    ("#,##0.00", "decimals", 2, True),
    ("#,##0.000", "decimals", 2, False),
    ("General", "decimals", 2, False),
])
def test_number_format_codes(code: str, kind: str, places: int, ok: bool) -> None:
    from suites.prosoft.checks.calc_more import _format_ok

    assert _format_ok(code, kind, places) is ok
