"""The evaluators of the third office group (checks/office_round3.py) without docker, on the ground truths of the
generated tasks (suites/prosoft/tasks/office_round3.json).

For every kind: the right result (and an equivalent one) passes every milestone; near misses fail the milestone
that names them: the right operation with a wrong parameter (another function giving the same number, a wrong
range, a name for the wrong cells, the comment on the wrong paragraph, double spacing, a link to another
address), a typed result instead of a formula, the file saved elsewhere (the artifact missing), an unsaved change
(the start file itself) and a file of the wrong type under the expected name, which fail, never raise.

Workbooks are written with openpyxl from the start files, with the values Calc caches for formulas; documents
are minimal .docx packages with the parts LibreOffice writes (comments.xml, the hyperlink relationship, pStyle
and spacing).
"""

from __future__ import annotations

import datetime
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest

from .evaluation import TaskFile

ROOT = Path(__file__).resolve().parents[2]
REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]
URL = "https://intranet.example.com/finance"
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
GROUP = TaskFile(ROOT / "suites/prosoft/tasks/office_round3.json")
TASKS = GROUP.tasks
run_task, fails, start_file, artifact_name = GROUP.run_task, GROUP.fails, GROUP.start_file, GROUP.artifact_name


# --- every task ---------------------------------------------------------------------------------------------------

def test_task_file_counts() -> None:
    levels = [(t["level"], t["apps"][0]) for t in TASKS.values()]
    assert levels.count(("L1", "calc")) >= 4 and levels.count(("L2", "calc")) >= 2
    assert levels.count(("L1", "writer")) >= 3 and levels.count(("L2", "writer")) >= 2
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

def workbook(tmp_path: Path, task_id: str, edit: Callable[[Any], None], cached: Mapping[str, Any] = (),
             name: str = "out.xlsx") -> Path:
    """The start workbook edited by ``edit``, with ``cached`` as the values Calc saved for formula cells (a
    datetime as its serial number, as Calc saves a date)."""
    from lxml import etree
    from openpyxl import load_workbook

    wb = load_workbook(start_file(task_id))
    edit(wb.worksheets[0])
    path = tmp_path / name
    wb.save(path)
    cached = dict(cached)
    if not cached:
        return path
    ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    root = etree.fromstring(members["xl/worksheets/sheet1.xml"])
    for c in root.iter(f"{ns}c"):
        if c.get("r") in cached:
            value = cached[c.get("r")]
            v = c.find(f"{ns}v")
            if v is None:
                v = etree.SubElement(c, f"{ns}v")
            if isinstance(value, datetime.datetime):
                c.attrib.pop("t", None)
                v.text = str((value - datetime.datetime(1899, 12, 30)).days)
            elif isinstance(value, str):
                c.set("t", "str")
                v.text = value
            else:
                c.attrib.pop("t", None)
                v.text = repr(value)
    members["xl/worksheets/sheet1.xml"] = etree.tostring(root, xml_declaration=True, encoding="UTF-8",
                                                         standalone=True)
    with zipfile.ZipFile(path, "w") as z:
        for member, data in members.items():
            z.writestr(member, data)
    return path


def put(cells: Mapping[str, Any]) -> Callable[[Any], None]:
    def edit(ws: Any) -> None:
        for ref, value in cells.items():
            ws[ref] = value
    return edit


def test_countif(tmp_path: Path) -> None:
    task = "calc-countif-widgets"

    def saved(formula: Any, value: Any) -> Path:
        return workbook(tmp_path, task, put({"F3": formula}), {"F3": value} if str(formula).startswith("=") else {})
    assert fails(task, {"workbook": saved('=COUNTIF(B3:B10,"Widget")', 5)}) == []
    assert fails(task, {"workbook": saved("=COUNTIF(B3:B10,B3)", 5)}) == []  # the criterion from a cell
    assert fails(task, {"workbook": saved('=_xlfn.COUNTIFS(B3:B10,"Widget")', 5)}) != []  # another function
    assert fails(task, {"workbook": saved('=COUNTIF(B3:B9,"Widget")', 4)}) == ["workbook F3 COUNTIF formula = 5"]
    assert fails(task, {"workbook": saved('=COUNTIF(B3:B10,"Gadget")', 3)}) == ["workbook F3 COUNTIF formula = 5"]
    assert fails(task, {"workbook": saved(5, None)}) == ["workbook F3 COUNTIF formula = 5"]  # the typed count
    assert fails(task, {"workbook": saved('=SUMPRODUCT((B3:B10="Widget")*1)', 5)}) == [
        "workbook F3 COUNTIF formula = 5"]
    assert fails(task, {"workbook": saved('=COUNTIF(B3:B10,"Widget")', "5")}) == [
        "workbook F3 COUNTIF formula = 5"]  # text, not a number
    # a cell of the data changed on the way
    broken = workbook(tmp_path, task, put({"F3": '=COUNTIF(B3:B10,"Widget")', "C3": "12"}), {"F3": 5}, "b.xlsx")
    assert fails(task, {"workbook": broken}) == ["workbook cells kept"]


def test_vlookup(tmp_path: Path) -> None:
    task = "calc-vlookup-travel"

    def saved(formula: str, value: Any) -> Path:
        return workbook(tmp_path, task, put({"E2": formula}), {"E2": value})
    assert fails(task, {"workbook": saved('=VLOOKUP("Travel",A2:C7,3,0)', 610)}) == []
    assert fails(task, {"workbook": saved("=VLOOKUP(A4,$A$2:$C$7,3,FALSE())", 610)}) == []
    assert fails(task, {"workbook": saved('=VLOOKUP("Travel",A2:C7,2,0)', 830)}) == ["workbook E2 VLOOKUP formula = 610"]
    assert fails(task, {"workbook": saved("=C4", 610)}) == ["workbook E2 VLOOKUP formula = 610"]  # no lookup
    assert fails(task, {"workbook": saved('=INDEX(C2:C7,MATCH("Travel",A2:A7,0))', 610)}) == [
        "workbook E2 VLOOKUP formula = 610"]
    assert fails(task, {"workbook": saved('="VLOOKUP("&C4', "VLOOKUP(610")}) == [
        "workbook E2 VLOOKUP formula = 610"]  # the name only inside quoted text


def test_if_labels(tmp_path: Path) -> None:
    task = "calc-if-order-size"
    units = [12, 5, 8, 20, 7, 15, 9, 3]
    right = {f"E{r}": f'=IF(C{r}>=10,"Large","Small")' for r in range(3, 11)}
    values = {f"E{r}": "Large" if u >= 10 else "Small" for r, u in zip(range(3, 11), units)}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(right), values)}) == []
    # > instead of >= is only caught where a row has exactly 10 units: none here, so the label of each row decides
    strict = {f"E{r}": f'=IF(C{r}>10,"Large","Small")' for r in range(3, 11)}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(strict), values, "s.xlsx")}) == []
    swapped = {**values, "E4": "Large"}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(right), swapped, "w.xlsx")}) == [
        "workbook E4 IF formula = 'Small'"]
    typed = workbook(tmp_path, task, put({**right, "E10": "Small"}), {k: v for k, v in values.items() if k != "E10"},
                     "t.xlsx")
    assert fails(task, {"workbook": typed}) == ["workbook E10 IF formula = 'Small'"]
    short = workbook(tmp_path, task, put({k: v for k, v in right.items() if k != "E9"}),
                     {k: v for k, v in values.items() if k != "E9"}, "h.xlsx")
    assert fails(task, {"workbook": short}) == ["workbook E9 IF formula = 'Small'"]


def defined(name: str, ref: str) -> Callable[[Any], None]:
    def edit(ws: Any) -> None:
        from openpyxl.workbook.defined_name import DefinedName

        ws.parent.defined_names[name] = DefinedName(name, attr_text=ref)
    return edit


def test_named_range(tmp_path: Path) -> None:
    task = "calc-named-range"

    def saved(name: str, ref: str, file: str) -> Path:
        return workbook(tmp_path, task, defined(name, ref), name=file)
    assert fails(task, {"workbook": saved("Costs", "Budget!$B$2:$C$7", "a.xlsx")}) == []
    assert fails(task, {"workbook": saved("COSTS", "'Budget'!$B$2:$C$7", "b.xlsx")}) == []  # case as Calc treats it
    assert fails(task, {"workbook": saved("Costs", "Budget!$B$2:$C$6", "c.xlsx")}) == ["workbook range 'Costs' = B2:C7"]
    assert fails(task, {"workbook": saved("Cost", "Budget!$B$2:$C$7", "d.xlsx")}) == ["workbook range 'Costs' = B2:C7"]
    assert fails(task, {"workbook": saved("Costs", "Budget!$A$1:$C$7", "e.xlsx")}) == ["workbook range 'Costs' = B2:C7"]


def test_product_summary(tmp_path: Path) -> None:
    task = "calc-product-summary"
    labels = {"F2": "Product", "G2": "Orders", "H2": "Units", "F3": "Widget", "F4": "Gadget"}
    right = {**labels, "G3": "=COUNTIF(B3:B10,F3)", "H3": "=SUMIF(B3:B10,F3,C3:C10)", "G4": "=COUNTIF(B3:B10,F4)",
             "H4": "=SUMIF(B3:B10,F4,C3:C10)"}
    values = {"G3": 5, "H3": 63, "G4": 3, "H4": 16}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(right), values)}) == []
    # SUMIF over the prices instead of the units
    prices = {**right, "H3": "=SUMIF(B3:B10,F3,D3:D10)"}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(prices), {**values, "H3": 12.5}, "p.xlsx")}) == [
        "workbook H3 SUMIF formula = 63"]
    # COUNTIF where the units were asked for
    counted = {**right, "H4": "=COUNTIF(B3:B10,F4)"}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(counted), {**values, "H4": 16}, "c.xlsx")}) == [
        "workbook H4 SUMIF formula = 16"]
    unlabelled = {k: v for k, v in right.items() if k != "H2"}
    assert fails(task, {"workbook": workbook(tmp_path, task, put(unlabelled), values, "u.xlsx")}) == [
        "workbook H2 = 'Units'"]


def test_named_lookup(tmp_path: Path) -> None:
    task = "calc-named-lookup"

    def edit(ref: str, formula: str) -> Callable[[Any], None]:
        def apply(ws: Any) -> None:
            defined("CostTable", ref)(ws)
            put({"E1": "Travel Q2", "E2": formula})(ws)
        return apply
    right = workbook(tmp_path, task, edit("Budget!$A$2:$C$7", '=VLOOKUP("Travel",CostTable,3,0)'), {"E2": 610})
    assert fails(task, {"workbook": right}) == []
    by_range = workbook(tmp_path, task, edit("Budget!$A$2:$C$7", '=VLOOKUP("Travel",A2:C7,3,0)'), {"E2": 610},
                        "r.xlsx")
    assert fails(task, {"workbook": by_range}) == ["workbook E2 VLOOKUP formula = 610"]
    narrow = workbook(tmp_path, task, edit("Budget!$A$2:$B$7", '=VLOOKUP("Travel",CostTable,2,0)'), {"E2": 830},
                      "n.xlsx")
    assert fails(task, {"workbook": narrow}) == ["workbook E2 VLOOKUP formula = 610",
                                                 "workbook range 'CostTable' = A2:C7"]


# --- documents ----------------------------------------------------------------------------------------------------

def para(text: str, ppr: str = "", inner: str = "") -> str:
    return f"<w:p><w:pPr>{ppr}</w:pPr><w:r><w:t>{text}</w:t></w:r>{inner}</w:p>"


def docx(tmp_path: Path, body: str, name: str = "out.docx", comments: Mapping[int, str] = (),
         links: Mapping[str, str] = (), styles: str = "") -> Path:
    """A .docx with this body XML, comments by id and hyperlink relationships (id -> URL)."""
    files = {"word/document.xml": f"<w:document {W} {R}><w:body>{body}<w:sectPr/></w:body></w:document>",
             "[Content_Types].xml": ('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                                     '<Default Extension="xml" ContentType="application/xml"/></Types>')}
    rels = "".join(f'<Relationship Id="{i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                   f'relationships/hyperlink" Target="{url}" TargetMode="External"/>' for i, url in dict(links).items())
    files["word/_rels/document.xml.rels"] = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                                             f'relationships">{rels}</Relationships>')
    if comments:
        files["word/comments.xml"] = (f"<w:comments {W}>" + "".join(
            f'<w:comment w:id="{i}" w:author="A">{para(t)}</w:comment>' for i, t in dict(comments).items())
            + "</w:comments>")
    if styles:
        files["word/styles.xml"] = f"<w:styles {W}>{styles}</w:styles>"
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for member, text in files.items():
            z.writestr(member, text)
    return path


def commented(i: int) -> str:
    """What Writer writes for a comment at a point: an empty range and the reference run."""
    return (f'<w:commentRangeStart w:id="{i}"/><w:commentRangeEnd w:id="{i}"/>'
            f'<w:r><w:commentReference w:id="{i}"/></w:r>')


def report(inner: Mapping[int, str] = (), ppr: Mapping[int, str] = (), extra: str = "") -> str:
    return "".join(para(t, dict(ppr).get(i, ""), dict(inner).get(i, "")) for i, t in enumerate(REPORT)) + extra


def test_comment(tmp_path: Path) -> None:
    task, note = "writer-comment", "Check the Q2 figures."
    ok = docx(tmp_path, report({1: commented(0)}), comments={0: note})
    assert fails(task, {"document": ok}) == []
    label = f"document comment {note!r} on {REPORT[1]!r}"
    wrong_place = docx(tmp_path, report({2: commented(0)}), "p.docx", comments={0: note})
    assert fails(task, {"document": wrong_place}) == [label]
    wrong_text = docx(tmp_path, report({1: commented(0)}), "t.docx", comments={0: "Check the Q1 figures."})
    assert fails(task, {"document": wrong_text}) == [label]
    as_text = docx(tmp_path, report() + para(note), "x.docx")  # typed into the text, not a comment
    assert fails(task, {"document": as_text}) == [label]
    lost = docx(tmp_path, "".join(para(t) for t in REPORT[:2]) + para("", inner=commented(0)), "l.docx",
                comments={0: note})
    assert fails(task, {"document": lost}) == [label, "document keeps the other paragraphs"]


SPACED = '<w:spacing w:line="{}" w:lineRule="auto"/>'


def test_line_spacing(tmp_path: Path) -> None:
    task = "writer-line-spacing"
    ok = docx(tmp_path, report(ppr={1: SPACED.format(360), 2: SPACED.format(360)}))
    assert fails(task, {"document": ok}) == []
    # through a paragraph style of the two paragraphs (Format > Paragraph on the style)
    style = ('<w:style w:type="paragraph" w:styleId="Body"><w:pPr><w:spacing w:line="360" w:lineRule="auto"/>'
             '</w:pPr></w:style>')
    styled = docx(tmp_path, report(ppr={1: '<w:pStyle w:val="Body"/>', 2: '<w:pStyle w:val="Body"/>'}), "s.docx",
                  styles=style)
    assert fails(task, {"document": styled}) == []
    double = docx(tmp_path, report(ppr={1: SPACED.format(480), 2: SPACED.format(480)}), "d.docx")
    assert fails(task, {"document": double}) == ["document line spacing 1.5"]
    one = docx(tmp_path, report(ppr={1: SPACED.format(360)}), "o.docx")
    assert fails(task, {"document": one}) == ["document line spacing 1.5"]
    exact = docx(tmp_path, report(ppr={1: '<w:spacing w:line="360" w:lineRule="exact"/>',
                                       2: SPACED.format(360)}), "e.docx")
    assert fails(task, {"document": exact}) == ["document line spacing 1.5"]
    everything = docx(tmp_path, report(ppr={i: SPACED.format(360) for i in range(3)}), "a.docx")
    assert fails(task, {"document": everything}) == ["document other paragraphs single-spaced"]
    # the document default (docDefaults) counts for paragraphs without their own
    defaults = docx(tmp_path, report(), "f.docx", styles='<w:docDefaults><w:pPrDefault><w:pPr><w:spacing w:line='
                    '"360" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>')
    assert fails(task, {"document": defaults}) == ["document other paragraphs single-spaced"]
    # what Ctrl+5 does in this LibreOffice: Heading 5, no spacing
    heading = docx(tmp_path, report(ppr={1: '<w:pStyle w:val="Heading5"/>', 2: '<w:pStyle w:val="Heading5"/>'}),
                   "h.docx")
    assert fails(task, {"document": heading}) == ["document line spacing 1.5"]


def link(rid: str, text: str) -> str:
    return f'<w:hyperlink r:id="{rid}"><w:r><w:t>{text}</w:t></w:r></w:hyperlink>'


def test_hyperlink(tmp_path: Path) -> None:
    task = "writer-hyperlink"
    label = f"document hyperlink to {URL}"
    ok = docx(tmp_path, report(extra=f"<w:p>{link('rId2', URL)}</w:p>"), links={"rId2": URL})
    assert fails(task, {"document": ok}) == []
    shown = docx(tmp_path, report(extra=f"<w:p>{link('rId2', 'Finance intranet')}</w:p>"), "s.docx",
                 links={"rId2": URL + "/"})
    assert fails(task, {"document": shown}) == []
    field = docx(tmp_path, report(extra=f'<w:p><w:r><w:instrText> HYPERLINK "{URL}" </w:instrText></w:r>'
                                        f"<w:r><w:t>{URL}</w:t></w:r></w:p>"), "f.docx")
    assert fails(task, {"document": field}) == []
    other = docx(tmp_path, report(extra=f"<w:p>{link('rId2', URL)}</w:p>"), "o.docx",
                 links={"rId2": "https://intranet.example.com/hr"})
    assert fails(task, {"document": other}) == [label]
    typed = docx(tmp_path, report(extra=para(URL)), "t.docx")  # the address as plain text
    assert fails(task, {"document": typed}) == [label]


def test_review_pass(tmp_path: Path) -> None:
    task, note = "writer-review-pass", "Confirm the travel figures with Sales."
    spaced = {1: SPACED.format(360), 2: SPACED.format(360)}
    ok = docx(tmp_path, report({2: commented(3)}, spaced), comments={3: note})
    assert fails(task, {"document": ok}) == []
    on_second = docx(tmp_path, report({1: commented(3)}, spaced), "c.docx", comments={3: note})
    assert fails(task, {"document": on_second}) == [f"document comment {note!r} on {REPORT[2]!r}"]
    unspaced = docx(tmp_path, report({2: commented(3)}), "u.docx", comments={3: note})
    assert fails(task, {"document": unspaced}) == ["document line spacing 1.5"]


def test_sources_link(tmp_path: Path) -> None:
    task = "writer-sources-link"
    last = f"<w:p><w:r><w:t xml:space=\"preserve\">Sources: </w:t></w:r>{link('rId5', URL)}{commented(0)}</w:p>"
    ok = docx(tmp_path, report(extra=last), comments={0: "Link checked."}, links={"rId5": URL})
    assert fails(task, {"document": ok}) == []
    elsewhere = (f"<w:p><w:r><w:t xml:space=\"preserve\">Sources: </w:t></w:r>{commented(0)}</w:p>"
                 f"<w:p>{link('rId5', URL)}</w:p>")
    split = docx(tmp_path, report(extra=elsewhere), "s.docx", comments={0: "Link checked."}, links={"rId5": URL})
    assert fails(task, {"document": split}) == [f"document comment 'Link checked.' on 'Sources: {URL}'",
                                                f"document hyperlink to {URL}"]



def test_protect_sheet(tmp_path: Path) -> None:
    def protect(ws: Any) -> None:
        ws.protection.sheet = True
    assert fails("calc-protect-sheet", {"workbook": workbook(tmp_path, "calc-protect-sheet", protect)}) == []

    def protect_with_password(ws: Any) -> None:
        ws.protection.sheet = True
        ws.protection.password = "secret"
    assert fails("calc-protect-sheet", {"workbook": workbook(tmp_path, "calc-protect-sheet", protect_with_password,
                                                             name="p.xlsx")}) == []

    def structure_only(ws: Any) -> None:  # Protect Spreadsheet Structure: the workbook, not the sheet
        from openpyxl.workbook.protection import WorkbookProtection

        ws.parent.security = WorkbookProtection(lockStructure=True)
    assert fails("calc-protect-sheet", {"workbook": workbook(tmp_path, "calc-protect-sheet", structure_only,
                                                             name="s.xlsx")}) == ["workbook sheet protected"]

    def protect_and_edit(ws: Any) -> None:
        protect(ws)
        ws["B4"] = 950
    assert fails("calc-protect-sheet", {"workbook": workbook(tmp_path, "calc-protect-sheet", protect_and_edit,
                                                             name="e.xlsx")}) == ["workbook cells kept"]


def test_locked_totals(tmp_path: Path) -> None:
    task = "calc-locked-totals"

    def edit(protect: bool, b8: str) -> Callable[[Any], None]:
        def apply(ws: Any) -> None:
            put({"A8": "Total", "B8": b8, "C8": "=SUM(C2:C7)"})(ws)
            ws.protection.sheet = protect
        return apply
    ok = workbook(tmp_path, task, edit(True, "=B2+B3+B4+B5+B6+B7"), {"B8": 8910, "C8": 9830})
    assert fails(task, {"workbook": ok}) == []
    open_sheet = workbook(tmp_path, task, edit(False, "=SUM(B2:B7)"), {"B8": 8910, "C8": 9830}, "o.xlsx")
    assert fails(task, {"workbook": open_sheet}) == ["workbook sheet protected"]
    short = workbook(tmp_path, task, edit(True, "=SUM(B2:B6)"), {"B8": 8150, "C8": 9830}, "s.xlsx")
    assert fails(task, {"workbook": short}) == ["workbook B8 = 8910", "workbook B8 formula"]


def columned(n: int) -> str:
    return f'<w:sectPr><w:cols w:num="{n}" w:space="720"/></w:sectPr>'


def with_section(body: str, sect: str) -> str:
    """``body`` whose closing section properties are ``sect`` (docx() adds an empty one after it, ignored)."""
    return body + f"<w:p><w:pPr>{sect}</w:pPr></w:p>"


def test_two_columns(tmp_path: Path) -> None:
    task = "writer-two-columns"

    def saved(sect: str, name: str) -> Path:
        path = docx(tmp_path, report(), name)
        with zipfile.ZipFile(path) as z:
            members = {n: z.read(n) for n in z.namelist()}
        members["word/document.xml"] = members["word/document.xml"].replace(b"<w:sectPr/>", sect.encode())
        with zipfile.ZipFile(path, "w") as z:
            for member, data in members.items():
                z.writestr(member, data)
        return path
    assert fails(task, {"document": saved(columned(2), "a.docx")}) == []
    assert fails(task, {"document": saved(columned(3), "b.docx")}) == ["document 2 columns"]
    assert fails(task, {"document": saved("<w:sectPr/>", "c.docx")}) == ["document 2 columns"]


def test_newsletter_layout(tmp_path: Path) -> None:
    task = "writer-newsletter-layout"
    path = docx(tmp_path, report(extra=f"<w:p>{link('rId2', URL)}</w:p>"), links={"rId2": URL})
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["word/document.xml"] = members["word/document.xml"].replace(b"<w:sectPr/>", columned(2).encode())
    with zipfile.ZipFile(path, "w") as z:
        for member, data in members.items():
            z.writestr(member, data)
    assert fails(task, {"document": path}) == []
    one_column = docx(tmp_path, report(extra=f"<w:p>{link('rId2', URL)}</w:p>"), "o.docx", links={"rId2": URL})
    assert fails(task, {"document": one_column}) == ["document 2 columns"]


# --- presentations ----------------------------------------------------------------------------------------------

TABLE_NS = 'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
PICTURE = '<draw:frame svg:x="2cm" svg:y="4cm" svg:width="8cm" svg:height="6cm"><draw:image xlink:href="{}"/></draw:frame>'
NOTES = ('<presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>{}</text:p>'
         '</draw:text-box></draw:frame></presentation:notes>')


def table_frame(rows: list[list[str]]) -> str:
    cells = "".join("<table:table-row>" + "".join(f"<table:table-cell><text:p>{c}</text:p></table:table-cell>"
                                                  for c in row) + "</table:table-row>" for row in rows)
    return f'<draw:frame svg:x="6cm" svg:y="6cm"><table:table {TABLE_NS}>{cells}</table:table></draw:frame>'


def deck(tmp_path: Path, name: str = "deck.odp", extra: Mapping[int, str] = (), pages: list[int] | None = None,
         retitle: tuple[int, str] | None = None, members: Mapping[str, bytes] = ()) -> Path:
    """The start deck (test_checks_office_more.odp) with more XML per slide, slides reordered or repeated, the
    ``retitle[0]``-th 'Budget' title (1-based) renamed, and more package members."""
    from .test_checks_office_more import odp

    path = odp(tmp_path, name, extra=extra, pages=pages)
    with zipfile.ZipFile(path) as z:
        files = {n: z.read(n) for n in z.namelist()}
    if retitle:
        content = files["content.xml"].decode()
        parts = content.split("<text:p>Budget</text:p>")
        n, title = retitle
        content = "<text:p>Budget</text:p>".join(parts[:n]) + f"<text:p>{title}</text:p>" + \
            "<text:p>Budget</text:p>".join(parts[n:])
        files["content.xml"] = content.encode()
    files.update(dict(members))
    with zipfile.ZipFile(path, "w") as z:
        for member, data in files.items():
            z.writestr(member, data)
    return path


def png(width: int, height: int) -> bytes:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (width, height), "white").save(out, "PNG")
    return out.getvalue()


def test_duplicate_slide(tmp_path: Path) -> None:
    task = "impress-duplicate-slide"
    assert fails(task, {"deck": deck(tmp_path, pages=[1, 2, 2, 3])}) == []
    assert fails(task, {"deck": deck(tmp_path, "a.odp", pages=[1, 2, 3, 2])}) == [
        "deck slide 3 body text", "deck slide titles in order"]
    assert fails(task, {"deck": deck(tmp_path, "b.odp", pages=[1, 1, 2, 3])}) == [
        "deck slide 2 body text", "deck slide titles in order"]
    assert fails(task, {"deck": deck(tmp_path, "c.odp", pages=[1, 2, 2, 2, 3])}) == ["deck has 4 slides",
                                                                                     "deck slide titles in order"]


def test_budget_next_year(tmp_path: Path) -> None:
    task = "impress-budget-next-year"
    assert fails(task, {"deck": deck(tmp_path, pages=[1, 2, 2, 3], retitle=(2, "Budget 2027"))}) == []
    # the original renamed instead of the copy
    assert fails(task, {"deck": deck(tmp_path, "a.odp", pages=[1, 2, 2, 3], retitle=(1, "Budget 2027"))}) == [
        "deck slide titles in order"]
    assert fails(task, {"deck": deck(tmp_path, "b.odp", pages=[1, 2, 2, 3])}) == ["deck slide titles in order"]


FIGURES = [["Item", "Q1", "Q2"], ["Rent", "1200", "1200"]]


def test_insert_table(tmp_path: Path) -> None:
    task = "impress-insert-table"
    assert fails(task, {"deck": deck(tmp_path, extra={3: table_frame(FIGURES)})}) == []
    assert fails(task, {"deck": deck(tmp_path, "a.odp", extra={2: table_frame(FIGURES)})}) == [
        "deck slide 3 table or object"]
    empty = [["", "", ""], ["", "", ""]]  # the table inserted, the cells left empty (typing went elsewhere)
    assert fails(task, {"deck": deck(tmp_path, "b.odp", extra={3: table_frame(empty)})}) == [
        "deck slide 3 table or object"]
    partial = [["Item", "Q1", ""], ["Rent", "1200", "1200"]]  # (the check finds each text in the table)
    assert fails(task, {"deck": deck(tmp_path, "c.odp", extra={3: table_frame(partial)})}) == [
        "deck slide 3 table or object"]


def test_insert_image(tmp_path: Path) -> None:
    task = "impress-insert-image"
    ok = deck(tmp_path, extra={1: PICTURE.format("Pictures/photo.png")}, members={"Pictures/photo.png": png(320, 240)})
    assert fails(task, {"deck": ok}) == []
    other = deck(tmp_path, "a.odp", extra={1: PICTURE.format("Pictures/p.png")}, members={"Pictures/p.png": png(300, 200)})
    assert fails(task, {"deck": other}) == ["deck slide 1 picture"]
    wrong_slide = deck(tmp_path, "b.odp", extra={2: PICTURE.format("Pictures/photo.png")},
                       members={"Pictures/photo.png": png(320, 240)})
    assert fails(task, {"deck": wrong_slide}) == ["deck slide 1 picture"]


def test_photo_notes(tmp_path: Path) -> None:
    task = "impress-photo-notes"
    picture = {"Pictures/photo.png": png(320, 240)}
    ok = deck(tmp_path, extra={1: PICTURE.format("Pictures/photo.png") + NOTES.format("Introduce the team photo.")},
              members=picture)
    assert fails(task, {"deck": ok}) == []
    no_notes = deck(tmp_path, "a.odp", extra={1: PICTURE.format("Pictures/photo.png")}, members=picture)
    assert fails(task, {"deck": no_notes}) == ["deck slide 1 speaker notes"]


def test_figures_slide(tmp_path: Path) -> None:
    task = "impress-figures-slide"
    new = ('<draw:page draw:name="page4"><draw:frame presentation:class="title"><draw:text-box><text:p>Figures'
           '</text:p></draw:text-box></draw:frame>{}</draw:page>')
    ok = deck(tmp_path, extra={3: "</draw:page>" + new.format(table_frame(FIGURES))[:-len("</draw:page>")]})
    assert fails(task, {"deck": ok}) == []
    on_third = deck(tmp_path, "a.odp", extra={3: table_frame(FIGURES) + "</draw:page>" + new.format("")[
        :-len("</draw:page>")]})
    assert fails(task, {"deck": on_third}) == ["deck slide 4 table or object"]


DUE = {"E2": (2026, 3, 31), "E3": (2026, 3, 24), "E4": (2026, 5, 14), "E5": (2026, 4, 19)}
DUE_VALUES = {c: datetime.datetime(*d) for c, d in DUE.items()}


def due_formulas(formula: str = "=B{r}+C{r}") -> dict[str, Any]:
    return {f"E{r}": formula.format(r=r) for r in range(2, 6)}


def dated(cells: Mapping[str, Any], formats: Mapping[str, str] = (), dates: tuple[str, ...] = tuple(DUE)
          ) -> Callable[[Any], None]:
    """Put ``cells``, format ``dates`` as dates (as Calc formats date + days) and ``formats`` as given."""
    def edit(ws: Any) -> None:
        put(cells)(ws)
        for c in dates:
            ws[c].number_format = "YYYY-MM-DD"
        for c, code in dict(formats).items():
            ws[c].number_format = code
    return edit


def test_due_dates(tmp_path: Path) -> None:
    task = "calc-due-dates"
    assert fails(task, {"workbook": workbook(tmp_path, task, dated(due_formulas()), DUE_VALUES)}) == []
    # =C2+B2, and the date's serial number shown unformatted, are the same date
    swapped = workbook(tmp_path, task, dated(due_formulas("=C{r}+B{r}"), dates=()), DUE_VALUES, "s.xlsx")
    assert fails(task, {"workbook": swapped}) == []
    # the terms taken as weeks, a typed date, a formula of the wrong row
    weeks = {**DUE_VALUES, "E3": datetime.datetime(2026, 6, 5)}
    assert fails(task, {"workbook": workbook(tmp_path, task, dated(due_formulas()), weeks, "w.xlsx")}) == [
        "workbook E3 formula = '2026-03-24'"]
    typed = dated({**due_formulas(), "E4": datetime.datetime(2026, 5, 14)})
    assert fails(task, {"workbook": workbook(tmp_path, task, typed, DUE_VALUES, "t.xlsx")}) == [
        "workbook E4 formula = '2026-05-14'"]
    shifted = dated({**due_formulas(), "E5": "=B2+C5"})
    assert fails(task, {"workbook": workbook(tmp_path, task, shifted, {**DUE_VALUES, "E5": datetime.datetime(
        2026, 3, 31)}, "r.xlsx")}) == ["workbook E5 formula = '2026-04-19'"]


def test_invoice_schedule(tmp_path: Path) -> None:
    task = "calc-invoice-schedule"
    full = {**due_formulas(), "E1": "Due", "G1": "Total", "G2": "=SUM(D2:D5)"}
    currency = {"G2": '"$"#,##0.00'}

    def saved(cells: Mapping[str, Any], formats: Mapping[str, str], name: str, total: Any = 5690) -> Path:
        return workbook(tmp_path, task, dated(cells, formats), {**DUE_VALUES, "G2": total}, name)
    assert fails(task, {"workbook": saved(full, currency, "a.xlsx")}) == []
    assert fails(task, {"workbook": saved(full, {"G2": "0.00"}, "b.xlsx")}) == ["workbook G2:G2 formatted as currency"]
    assert fails(task, {"workbook": saved({**full, "G2": "=SUM(D2:D4)"}, currency, "c.xlsx", 4930)}) == [
        "workbook G2 SUM formula = 5690"]
    assert fails(task, {"workbook": saved({**full, "E1": "Due date"}, currency, "d.xlsx")}) == ["workbook E1 = 'Due'"]
