"""The evaluators of the last office group (checks/office_last.py) without docker, on the ground truths of the
generated tasks (suites/prosoft/tasks/office_last.json).

For every kind: the right result (and an equivalent one) passes every milestone; near misses fail the milestone
that names them: the right operation with a wrong parameter (another range, operator, value or list; a layout
with one content box, or one that lost the bullets), a formula rule or a list from cells instead, the file saved
elsewhere (the artifact missing), an unsaved change (the start file itself) and a file of the wrong type under the
expected name, which fail, never raise.

Workbooks are written with openpyxl from the start files (its conditional formats and data validations are the
elements LibreOffice writes: ``cfRule type="cellIs"`` with a ``dxfId``, ``dataValidation type="list"`` with an
inline ``"a,b"`` formula); decks are the start deck.odp with slide 2's content box doubled, as LibreOffice saves a
slide switched to Title and 2 Content (a second, empty ``outline`` placeholder).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest

from .evaluation import TaskFile, failed, milestones

ROOT = Path(__file__).resolve().parents[2]
REGIONS = ["Nth", "Sth", "East", "West"]
#: every milestone of a task; of the L4 (``creation``) its constraints: the rubric needs a judge
GROUP = TaskFile(ROOT / "suites/prosoft/tasks/office_last.json",
                 lambda step: {**step, "rubric": []} if step["template"] == "creation" else step)
TASKS = GROUP.tasks
run_task, fails, start_file, artifact_name = GROUP.run_task, GROUP.fails, GROUP.start_file, GROUP.artifact_name


# --- every task ---------------------------------------------------------------------------------------------------

def test_task_file() -> None:
    levels = [(t["level"], t["apps"][0]) for t in TASKS.values()]
    assert levels.count(("L1", "calc")) == 2 and levels.count(("L1", "impress")) == 1
    assert levels.count(("L4", "calc")) == 1
    GROUP.assert_no_two_share_start_files_and_result()


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_untouched_start_file_fails(task_id: str) -> None:
    GROUP.assert_untouched_start_file_fails(task_id)


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_saved_elsewhere_fails_and_never_raises(task_id: str) -> None:
    GROUP.assert_saved_elsewhere_fails(task_id)


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_wrong_file_types_fail(task_id: str, tmp_path: Path) -> None:
    GROUP.assert_wrong_file_types_fail(task_id, tmp_path)


# --- workbooks ----------------------------------------------------------------------------------------------------

def workbook(tmp_path: Path, task_id: str, edit: Callable[[Any], None]) -> Path:
    from openpyxl import load_workbook

    wb = load_workbook(start_file(task_id))
    edit(wb.worksheets[0])
    path = tmp_path / "out.xlsx"
    wb.save(path)
    return path


def condition(ref: str, operator: str, formulas: list[str], styled: bool = True, kind: str = "cellIs"
              ) -> Callable[[Any], None]:
    def edit(ws: Any) -> None:
        from openpyxl.formatting.rule import CellIsRule, FormulaRule
        from openpyxl.styles import Font

        font = Font(bold=True) if styled else None
        rule = (CellIsRule(operator=operator, formula=formulas, font=font) if kind == "cellIs"
                else FormulaRule(formula=formulas, font=font))
        ws.conditional_formatting.add(ref, rule)
    return edit


HIGH = "calc-highlight-high-costs"
CF = "workbook conditional format on B2:B7: value greaterThan 1000"


def test_conditional_format_passes(tmp_path: Path) -> None:
    assert fails(HIGH, {"workbook": workbook(tmp_path, HIGH, condition("B2:B7", "greaterThan", ["1000"]))}) == []
    # equivalent: absolute references, the value as Calc may write it
    path = workbook(tmp_path, HIGH, condition("$B$2:$B$7", "greaterThan", ["1000.0"]))
    assert fails(HIGH, {"workbook": path}) == []


@pytest.mark.parametrize("edit, message", [
    (condition("B2:C7", "greaterThan", ["1000"]), "no conditional format on B2:B7"),
    (condition("B3:B7", "greaterThan", ["1000"]), "no conditional format on B2:B7"),
    (condition("B2:B7", "greaterThanOrEqual", ["1000"]), "expected cell value greaterThan 1000"),
    (condition("B2:B7", "lessThan", ["1000"]), "expected cell value greaterThan 1000"),
    (condition("B2:B7", "greaterThan", ["100"]), "expected cell value greaterThan 1000"),
    (condition("B2:B7", "greaterThan", ["B2>1000"], kind="expression"), "expected cell value greaterThan 1000"),
    (condition("B2:B7", "greaterThan", ["1000"], styled=False), "applies no style"),
    (lambda ws: None, "has no conditional format"),
])
def test_conditional_format_near_misses(tmp_path: Path, edit: Callable[[Any], None], message: str) -> None:
    out = run_task(HIGH, {"workbook": workbook(tmp_path, HIGH, edit)})
    assert failed(out) == [CF], out
    assert message in (out[CF] or ""), out[CF]


def test_conditional_format_with_changed_cells_fails(tmp_path: Path) -> None:
    def edit(ws: Any) -> None:
        condition("B2:B7", "greaterThan", ["1000"])(ws)
        ws["B2"] = 999
    assert fails(HIGH, {"workbook": workbook(tmp_path, HIGH, edit)}) == ["workbook cells kept"]


def validity(ref: str, formula: str, kind: str = "list") -> Callable[[Any], None]:
    def edit(ws: Any) -> None:
        from openpyxl.worksheet.datavalidation import DataValidation

        dv = DataValidation(type=kind, formula1=formula, allow_blank=True)
        dv.add(ref)
        ws.add_data_validation(dv)
    return edit


LIST = "calc-region-list"
DV = "workbook validity list on A3:A10"


def test_validity_list_passes(tmp_path: Path) -> None:
    assert fails(LIST, {"workbook": workbook(tmp_path, LIST, validity("A3:A10", '"Nth,Sth,East,West"'))}) == []
    assert fails(LIST, {"workbook": workbook(tmp_path, LIST, validity("$A$3:$A$10", '"Nth, Sth, East, West"'))}) == []


@pytest.mark.parametrize("edit, message", [
    (validity("A2:A10", '"Nth,Sth,East,West"'), "no validity rule on A3:A10"),
    (validity("B3:B10", '"Nth,Sth,East,West"'), "no validity rule on A3:A10"),
    (validity("A3:A10", '"Nth,Sth,East"'), "expected a list of Nth, Sth, East, West"),
    (validity("A3:A10", '"West,East,Sth,Nth"'), "expected a list of Nth, Sth, East, West"),
    (validity("A3:A10", "$F$1:$F$4"), "expected a list of Nth, Sth, East, West"),
    (validity("A3:A10", "4", kind="textLength"), "expected a list of Nth, Sth, East, West"),
    (lambda ws: None, "has no validity rule"),
])
def test_validity_near_misses(tmp_path: Path, edit: Callable[[Any], None], message: str) -> None:
    out = run_task(LIST, {"workbook": workbook(tmp_path, LIST, edit)})
    assert failed(out) == [DV], out
    assert message in (out[DV] or ""), out[DV]


# --- decks --------------------------------------------------------------------------------------------------------

LAYOUT = "impress-two-content-layout"
LAYOUT_LABEL = "deck slide 2 layout: title and 2 content box(es)"
SECOND_BOX = ('<draw:frame presentation:style-name="pr2" draw:layer="layout" svg:width="12cm" svg:height="9cm" '
              'svg:x="14cm" svg:y="4cm" presentation:class="outline" presentation:placeholder="true">'
              '<draw:text-box/></draw:frame>')


def deck(tmp_path: Path, edit: Callable[[str], str]) -> Path:
    """deck.odp with its content.xml edited (``edit`` on the text)."""
    src = start_file(LAYOUT)
    path = tmp_path / "deck.odp"
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(path, "w") as out:
        for item in z.infolist():
            data = z.read(item.filename)
            if item.filename == "content.xml":
                data = edit(data.decode()).encode()
            out.writestr(item, data)
    return path


def pages(text: str) -> list[str]:
    return re.findall(r"<draw:page\b.*?</draw:page>", text, flags=re.S)


def on_slide(number: int, change: Callable[[str], str]) -> Callable[[str], str]:
    def edit(text: str) -> str:
        page = pages(text)[number - 1]
        return text.replace(page, change(page))
    return edit


def add_box(page: str) -> str:
    return page.replace("</draw:page>", SECOND_BOX + "</draw:page>", 1)


def test_two_content_layout_passes(tmp_path: Path) -> None:
    assert fails(LAYOUT, {"deck": deck(tmp_path, on_slide(2, add_box))}) == []


def test_two_content_layout_as_pptx_passes(tmp_path: Path) -> None:
    """An equivalent result in the other format: a .pptx whose slide 2 has a title and two body placeholders."""
    ns = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
          'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')

    def shape(kind: str, texts: list[str], idx: int) -> str:
        paras = "".join(f"<a:p><a:r><a:t>{t}</a:t></a:r></a:p>" for t in texts) or "<a:p/>"
        ph = f'<p:ph type="{kind}"/>' if kind == "title" else f'<p:ph idx="{idx}"/>'
        return (f'<p:sp><p:nvSpPr><p:cNvPr id="{idx + 2}" name="s"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr>'
                f"<p:txBody>{paras}</p:txBody></p:sp>")

    slides = [[shape("title", ["Quarterly Review"], 0)],
              [shape("title", ["Budget"], 0), shape("body", ["Rent stayed flat", "Salaries grew by 4%",
                                                              "Travel fell by a quarter"], 1), shape("body", [], 2)],
              [shape("title", ["Next Steps"], 0), shape("body", ["Review the travel policy"], 1)]]
    path = tmp_path / "deck.pptx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("ppt/presentation.xml", f"<p:presentation {ns}/>")
        for n, shapes in enumerate(slides, 1):
            z.writestr(f"ppt/slides/slide{n}.xml", f"<p:sld {ns}><p:cSld><p:spTree>{''.join(shapes)}"
                                                   "</p:spTree></p:cSld></p:sld>")
    out = milestones("impress_layout", {k: v for k, v in TASKS[LAYOUT]["ground_truth"]["steps"][1].items()
                                        if k != "template"}, {"deck": path})
    assert failed(out) == [], out


@pytest.mark.parametrize("edit, message", [
    (on_slide(3, add_box), "slide 2 has 1 content box(es), expected 2"),
    (on_slide(2, lambda p: add_box(add_box(p))), "slide 2 has 3 content box(es), expected 2"),
    (on_slide(2, lambda p: add_box(p).replace("Travel fell by a quarter", "")), "lost ['Travel fell by a quarter']"),
    (lambda t: t, "slide 2 has 1 content box(es), expected 2"),
])
def test_layout_near_misses(tmp_path: Path, edit: Callable[[str], str], message: str) -> None:
    out = run_task(LAYOUT, {"deck": deck(tmp_path, edit)})
    assert failed(out) == [LAYOUT_LABEL], out
    assert message in (out[LAYOUT_LABEL] or ""), out[LAYOUT_LABEL]


# --- the L4 expense tracker's constraints (kind ``creation``, checks/l4.py) -----------------------------------------

TRACKER = "calc-l4-expense-tracker"


def tracker(tmp_path: Path, chart_rows: tuple[int, int] = (2, 6), header: str = "Category", chart: bool = True
            ) -> Path:
    def edit(ws: Any) -> None:
        from openpyxl.chart import BarChart, Reference

        for row in [(header, "Amount"), ("Rent", 950), ("Food", 420), ("Transport", 130), ("Utilities", 160),
                    ("Leisure", 90), ("Total", "=SUM(B2:B6)")]:
            ws.append(row)
        if chart:
            bars = BarChart()
            bars.add_data(Reference(ws, min_col=2, min_row=chart_rows[0], max_row=chart_rows[1]))
            ws.add_chart(bars, "D2")
    return workbook(tmp_path, TRACKER, edit)


def test_tracker_constraints_pass(tmp_path: Path) -> None:
    assert fails(TRACKER, {"workbook": tracker(tmp_path)}) == []


@pytest.mark.parametrize("kwargs, label", [
    ({"chart_rows": (2, 7)}, "workbook has a chart of B2:B6"),  # the total charted with the amounts
    ({"chart": False}, "workbook has a chart of B2:B6"),
    ({"header": "Item"}, "workbook has text 'Category'"),
])
def test_tracker_near_misses(tmp_path: Path, kwargs: dict[str, Any], label: str) -> None:
    assert fails(TRACKER, {"workbook": tracker(tmp_path, **kwargs)}) == [label]
