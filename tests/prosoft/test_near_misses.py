"""Near misses for every ProSoft evaluator kind, on the host (no container): for one task per kind, the correct
artifact passes every milestone, and each near miss fails exactly the milestones it should and passes the others:

- ``wrong-param``: the right operation with a wrong parameter (another range, the wrong slide, 70 mm not 80);
- ``wrong-place``: the right file saved elsewhere (the artifact is missing where the task asks);
- ``unsaved``: the change made but not saved (the start file unchanged, or an export made before the change);
- ``wrong-type``: a file of another type under the expected name (ODF content as ``.docx``, CSV text as
  ``.xlsx``, an empty file, a PNG renamed ``.svg``): a missed milestone naming the artifact, never an error;
- ``equivalent``: an artifact that does what the instruction asks another way (a formula that sums with ``+``),
  which must pass.

Each case runs the task's real template (``TEMPLATES[task.template].evaluate``, pipelines included) on a score
card; an exception out of the evaluator fails the case. The artifacts are built with the libraries the start
files are made with (openpyxl, zipfile + XML, Pillow, plain text), mostly by the builders of the other tests in
this folder. This file holds the runner and the office kinds; ``test_near_misses_engineering.py`` and
``test_near_misses_imaging.py`` hold the others.
"""

from __future__ import annotations

import functools
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest

from pytest_cua.tasks.scoring import ScoreCard, active_card
from pytest_cua.tasks.suite import EvalContext
from suites.prosoft.templates import KINDS, TEMPLATES

from .test_checks_office import BUDGET, NEXT, START, deck, docx, make_pdf

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft"
ALL = "every milestone"

Build = Callable[[Path], Mapping[str, Path]]


@dataclass
class Case:
    """One artifact set for one task (or, for a kind no task uses, one kind and truth) and what must fail."""

    id: str
    scenario: str  # correct, wrong-param, wrong-place, unsaved, wrong-type, equivalent
    build: Build
    fails: Any  # a set of milestone labels, or ALL (every decided milestone)
    task: str = ""
    kind: str = ""
    truth: Mapping[str, Any] = field(default_factory=dict)
    says: str = ""  # a text every failing milestone's message must hold
    env: Any = None

    @property
    def near_miss(self) -> bool:
        return self.scenario not in ("correct", "equivalent")


@functools.cache
def _tasks() -> dict[str, Any]:
    from suites.prosoft.test_prosoft import CUA_SUITE

    CUA_SUITE.bind(ROOT / "suites" / "prosoft" / "test_prosoft.py")
    return {t.id: t for t in CUA_SUITE.load(None).tasks}


def evaluate(case: Case, artifacts: Mapping[str, Path]) -> list[Any]:
    """The milestone results of the case's task (or kind) on ``artifacts``."""
    if case.task:
        task = _tasks()[case.task]
        card = ScoreCard(task_id=task.id, template=task.template)
        with active_card(card):
            TEMPLATES[task.template].evaluate(EvalContext(task=task, env=case.env, card=card,  # type: ignore[arg-type]
                                                          artifacts=dict(artifacts)))
        return list(card.results)
    from types import SimpleNamespace

    ctx = SimpleNamespace(artifacts=dict(artifacts), env=case.env, task=SimpleNamespace(id="", extra={}))
    results = []
    for label, check in KINDS[case.kind](ctx, case.truth):  # type: ignore[arg-type]
        try:
            check()
            results.append(SimpleNamespace(name=label, passed=True, skipped=False, detail=""))
        except AssertionError as exc:
            results.append(SimpleNamespace(name=label, passed=False, skipped=False, detail=str(exc)))
    return results


def outcome(case: Case, tmp_path: Path) -> tuple[str, str]:
    """("caught" | "missed" | "error", why): caught when exactly the expected milestones failed (the others
    passed or were skipped), whatever their messages say; error when the evaluator raised."""
    artifacts = case.build(tmp_path)
    try:
        results = evaluate(case, artifacts)
    except Exception as exc:  # an evaluator error: the near miss was not scored at all
        return "error", f"the evaluator raised {type(exc).__name__}: {exc}"
    decided = {r.name for r in results if not r.skipped}
    failed = {r.name: r.detail for r in results if not r.passed and not r.skipped}
    expected = decided if case.fails == ALL else set(case.fails)
    if not expected <= decided:
        return "missed", f"no such milestones {sorted(expected - decided)} (have {sorted(decided)})"
    if set(failed) != expected:
        return "missed", f"failed {sorted(failed)}, expected {sorted(expected)}; messages: {failed}"
    wrong = {label: failed[label] for label in expected if case.says not in failed[label]}
    return "caught", (f"messages that do not say {case.says!r}: {wrong}" if wrong else "")


def check_case(case: Case, tmp_path: Path) -> None:
    verdict, why = outcome(case, tmp_path)
    assert verdict == "caught" and not why, f"{case.id}: {verdict}: {why}"


def tally(cases: list[Case]) -> dict[str, int]:
    """Counts over ``cases`` (run in temporary folders): near misses caught, missed, evaluator errors, caught
    with a message lacking its ``says``; and the correct or equivalent artifacts that pass."""
    import tempfile

    counts = {"near misses": 0, "caught": 0, "missed": 0, "error": 0, "caught, message short": 0,
              "correct or equivalent": 0, "correct passing": 0}
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            verdict, why = outcome(case, Path(tmp))
        if case.near_miss:
            counts["near misses"] += 1
            counts[verdict] += 1
            counts["caught, message short"] += verdict == "caught" and bool(why)
        else:
            counts["correct or equivalent"] += 1
            counts["correct passing"] += verdict == "caught" and not why
    return counts


# --- artifact builders -------------------------------------------------------------------------------------------

def workbook(path: Path, cells: Mapping[str, Any], cached: Mapping[str, float] = (), source: Path = FIX / "budget.xlsx",
             bold: tuple[str, ...] = ()) -> Path:
    """``source`` with ``cells`` set (a text starting with '=' is a formula) and, like Calc's files, the value of
    each formula cell in ``cached`` stored next to it (openpyxl itself stores none)."""
    from openpyxl import load_workbook
    from openpyxl.styles import Font

    wb = load_workbook(source)
    ws = wb.worksheets[0]
    for cell, value in cells.items():
        ws[cell] = value
    for cell in bold:
        ws[cell].font = Font(bold=True)
    wb.save(path)
    if cached:
        with zipfile.ZipFile(path) as z:
            members = {n: z.read(n) for n in z.namelist()}
        sheet = members["xl/worksheets/sheet1.xml"].decode()
        for cell, value in dict(cached).items():
            sheet, n = re.subn(rf'(<c r="{cell}"[^>]*><f>[^<]*</f>)<v\s*/?>(</v>)?', rf"\g<1><v>{value}</v>", sheet)
            assert n == 1, f"no formula cell {cell} to cache"
        members["xl/worksheets/sheet1.xml"] = sheet.encode()
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in members.items():
                z.writestr(name, data)
    return path


def copy(source: Path, path: Path) -> Path:
    shutil.copyfile(source, path)
    return path


def text(path: Path, content: str) -> Path:
    path.write_text(content, encoding="utf-8")
    return path


def empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def png_file(path: Path, size: tuple[int, int] = (64, 48), bars: bool = False) -> Path:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    if bars:
        draw = ImageDraw.Draw(image)
        w, h = size
        for i, top in enumerate((0.2, 0.5, 0.35, 0.6)):
            draw.rectangle((int(w * (0.1 + 0.2 * i)), int(h * top), int(w * (0.25 + 0.2 * i)), int(h * 0.95)),
                           fill="steelblue")
    image.save(path, "PNG")
    return path


def ods(path: Path) -> Path:
    """An OpenDocument spreadsheet (what Calc writes when the file type is left at ODF)."""
    ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.3"'
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", f"<office:document-content {ns}><office:body><office:spreadsheet/></office:body>"
                                  "</office:document-content>")
        z.writestr("META-INF/manifest.xml", "<manifest/>")
    return path


BUDGET_CSV = "Item,Q1,Q2\nRent,1200,1200\nSalaries,5400,5600\nTravel,830,610\nSoftware,420,480\n"
REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]
TOTAL_ROW = {"A8": "Total", "B8": "=SUM(B2:B7)", "C8": "=SUM(C2:C7)"}


def report_docx(path: Path, paragraphs: list[tuple[str, bool]]) -> Path:
    """report.docx with these (text, bold) paragraphs, as the Writer tests build it."""
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = "".join(f"<w:p><w:r>{'<w:rPr><w:b/></w:rPr>' if bold else ''}<w:t>{t}</w:t></w:r></w:p>"
                   for t, bold in paragraphs)
    with zipfile.ZipFile(FIX / "report.docx") as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "word/document.xml":
                data = f'<?xml version="1.0"?><w:document {ns}><w:body>{body}</w:body></w:document>'.encode()
            dst.writestr(item, data)
    return path


def svg(path: Path, body: str, width: int = 400, height: int = 300) -> Path:
    return text(path, f'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
                      f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">\n{body}\n</svg>\n')


BAR = '<rect id="bar" x="40" y="180" width="300" height="40" fill="#33aa55"/>'
BOX = '<rect id="box" x="40" y="40" width="120" height="80" fill="#3366cc"/>'
REGIONS = {"East": 249.5, "North": 615.75, "South": 390, "West": 265.75}


def region_csv(path: Path, row_names: bool = False, totals: Mapping[str, float] = REGIONS, key: str = "region") -> Path:
    """What R's write.csv writes: quoted names, and with ``row_names`` its unnamed first column 1, 2, 3..."""
    head = ('"",' if row_names else "") + f'"{key}","total"\n'
    rows = "".join((f'"{i + 1}",' if row_names else "") + f'"{k}",{v}\n' for i, (k, v) in enumerate(totals.items()))
    return text(path, head + rows)


# --- the office cases --------------------------------------------------------------------------------------------

W = "workbook"
CALC_TOTAL = {f"{W} A8 = Total", f"{W} B8 = 8910", f"{W} C8 = 9830", f"{W} B8 formula", f"{W} C8 formula"}
NOT_XLSX = "artifact 'workbook' (budget.xlsx) is not an Excel workbook (.xlsx): it is"
D = "document"
NOT_DOCX = "artifact 'document' (report.docx) is not a Word document (.docx): it is"

OFFICE: list[Case] = [
    # calc: Calc's files with cached values, as LibreOffice saves them
    Case("calc/correct", "correct", lambda t: {W: workbook(t / "budget.xlsx", TOTAL_ROW, {"B8": 8910, "C8": 9830})},
         set(), task="calc-total-row"),
    Case("calc/wrong-param: C8 sums C2:C6", "wrong-param",
         lambda t: {W: workbook(t / "budget.xlsx", {**TOTAL_ROW, "C8": "=SUM(C2:C6)"}, {"B8": 8910, "C8": 8790})},
         {f"{W} C8 = 9830", f"{W} C8 formula"}, task="calc-total-row"),
    Case("calc/wrong-place", "wrong-place", lambda t: {}, ALL, task="calc-total-row", says="was not produced"),
    Case("calc/unsaved", "unsaved", lambda t: {W: copy(FIX / "budget.xlsx", t / "budget.xlsx")}, CALC_TOTAL,
         task="calc-total-row"),
    Case("calc/wrong-type: CSV text as .xlsx", "wrong-type", lambda t: {W: text(t / "budget.xlsx", BUDGET_CSV)}, ALL,
         task="calc-total-row", says=f"{NOT_XLSX} text starting 'Item,Q1,Q2'"),
    Case("calc/wrong-type: ODS content as .xlsx", "wrong-type", lambda t: {W: ods(t / "budget.xlsx")}, ALL,
         task="calc-total-row", says=f"{NOT_XLSX} an OpenDocument spreadsheet (.ods)"),
    Case("calc/wrong-type: empty file", "wrong-type", lambda t: {W: empty(t / "budget.xlsx")}, ALL,
         task="calc-total-row", says=f"{NOT_XLSX} an empty file"),
    Case("calc/number typed as text", "wrong-param", lambda t: {W: workbook(t / "budget.xlsx", {"B4": "950"})},
         {f"{W} B4 = 950"}, task="calc-set-cell", says="the text '950'"),
    Case("calc/number as number", "correct", lambda t: {W: workbook(t / "budget.xlsx", {"B4": 950})}, set(),
         task="calc-set-cell"),
    Case("calc/text in an untouched cell", "wrong-param",
         lambda t: {W: workbook(t / "budget.xlsx", {"B4": 950, "C2": "1200"})}, {f"{W} other cells unchanged"},
         task="calc-set-cell"),
    Case("calc/sum as B2+...+B7", "equivalent",
         lambda t: {W: workbook(t / "budget.xlsx", {"B8": "=B2+B3+B4+B5+B6+B7"}, {"B8": 8910})}, set(),
         task="calc-sum-q1"),
    Case("calc/sum as two SUMs", "equivalent",
         lambda t: {W: workbook(t / "budget.xlsx", {"B8": "=SUM(B2:B4)+SUM(B5:B7)"}, {"B8": 8910})}, set(),
         task="calc-sum-q1"),
    Case("calc/sum of B7:B2", "equivalent",
         lambda t: {W: workbook(t / "budget.xlsx", {"B8": "=SUM(B7:B2)"}, {"B8": 8910})}, set(), task="calc-sum-q1"),
    Case("calc/sum of B2:B6", "wrong-param",
         lambda t: {W: workbook(t / "budget.xlsx", {"B8": "=SUM(B2:B6)"}, {"B8": 8150})},
         {f"{W} B8 formula", f"{W} B8 = 8910"}, task="calc-sum-q1"),
    Case("calc/sum typed as a number", "wrong-param", lambda t: {W: workbook(t / "budget.xlsx", {"B8": 8910})},
         {f"{W} B8 formula"}, task="calc-sum-q1", says="not a formula"),
    Case("calc/sum of B1:B7 (the header too)", "wrong-param",
         lambda t: {W: workbook(t / "budget.xlsx", {"B8": "=SUM(B1:B7)"}, {"B8": 8910})},
         {f"{W} B8 formula"}, task="calc-sum-q1", says="refers to"),
    Case("calc/average as SUM/6", "equivalent",
         lambda t: {W: workbook(t / "budget.xlsx", {"C8": "=SUM(C2:C7)/6"}, {"C8": 9830 / 6})}, set(),
         task="calc-average-q2"),
    Case("calc/average of C2:C6", "wrong-param",
         lambda t: {W: workbook(t / "budget.xlsx", {"C8": "=AVERAGE(C2:C6)"}, {"C8": 1758})},
         {f"{W} C8 formula", f"{W} C8 = 1638.3333333333333"}, task="calc-average-q2"),
    Case("calc/growth reversed in D4", "wrong-param",
         lambda t: {W: workbook(t / "budget.xlsx", {"D1": "Growth", **{f"D{r}": f"=C{r}-B{r}" for r in range(2, 8)},
                                                    "D4": "=B4-C4"}, {**{f"D{r}": 0 for r in range(2, 8)},
                                                                      "D5": 60, "D6": 600})},
         {f"{W} D4 formula"}, task="calc-growth-column"),
    Case("calc/share with B8 relative", "equivalent",
         lambda t: {W: workbook(t / "budget.xlsx", {"A8": "Total", "B8": "=SUM(B2:B7)", "D1": "Share",
                                                    **{f"D{r}": f"=B{r}/B8" for r in range(2, 8)}},
                                {"B8": 8910, **{f"D{r}": 0 for r in range(2, 8)}, "D3": 5400 / 8910,
                                 "D6": 300 / 8910})}, set(), task="calc-share-column"),
    # writer
    Case("writer/correct", "correct",
         lambda t: {D: report_docx(t / "report.docx", [(REPORT[0], True), *((p, False) for p in REPORT[1:]),
                                                        ("Next steps", False),
                                                        ("Review the travel policy by March.", False)])},
         set(), task="writer-next-steps"),
    Case("writer/wrong-param: paragraphs swapped", "wrong-param",
         lambda t: {D: report_docx(t / "report.docx", [(REPORT[0], True), *((p, False) for p in REPORT[1:]),
                                                        ("Review the travel policy by March.", False),
                                                        ("Next steps", False)])},
         {f"{D} ends with the new paragraphs"}, task="writer-next-steps"),
    Case("writer/wrong-place", "wrong-place", lambda t: {}, ALL, task="writer-next-steps", says="was not produced"),
    Case("writer/unsaved", "unsaved", lambda t: {D: copy(FIX / "report.docx", t / "report.docx")},
         {f"{D} ends with the new paragraphs", f"{D} paragraph 0 bold"}, task="writer-next-steps"),
    Case("writer/wrong-type: ODT content as .docx", "wrong-type",
         lambda t: {D: copy(FIX / "l4" / "letterhead.odt", t / "report.docx")}, ALL, task="writer-next-steps",
         says=f"{NOT_DOCX} an OpenDocument text (.odt)"),
    Case("writer/wrong-type: empty file", "wrong-type", lambda t: {D: empty(t / "report.docx")}, ALL,
         task="writer-next-steps", says=f"{NOT_DOCX} an empty file"),
    # r_output
    Case("r-csv/correct", "correct", lambda t: {"totals": region_csv(t / "region_totals.csv")}, set(),
         task="r-region-totals"),
    Case("r-csv/wrong-param: totals per product", "wrong-param",
         lambda t: {"totals": region_csv(t / "region_totals.csv", totals={"Widget": 435.25, "Gadget": 1085.75})},
         {"totals output"}, task="r-region-totals"),
    Case("r-csv/row names", "wrong-param", lambda t: {"totals": region_csv(t / "region_totals.csv", row_names=True)},
         {"totals output"}, task="r-region-totals", says="row names"),
    Case("r-csv/row names (product totals)", "wrong-param",
         lambda t: {"totals": region_csv(t / "p.csv", True, {"Gadget": 1085.75, "Widget": 435.25}, "product")},
         {"totals output"}, task="r-product-totals", says="row names"),
    Case("r-csv/row names (monthly)", "wrong-param",
         lambda t: {"monthly": region_csv(t / "m.csv", True, {"2026-01": 1135.25, "2026-02": 385.75}, "month")},
         {"monthly output"}, task="r-monthly-totals", says="row names"),
    Case("r-csv/row names as write.table writes them", "wrong-param",
         lambda t: {"totals": text(t / "r.csv", '"region","total"\n' + "".join(
             f'"{i + 1}","{k}",{v}\n' for i, (k, v) in enumerate(REGIONS.items())))},
         {"totals output"}, task="r-region-totals"),
    Case("r-csv/wrong-place", "wrong-place", lambda t: {}, ALL, task="r-region-totals", says="was not produced"),
    Case("r-csv/unsaved: file opened, never written", "unsaved", lambda t: {"totals": empty(t / "region_totals.csv")},
         ALL, task="r-region-totals", says="is not a text file: it is an empty file"),
    Case("r-number/wrong-param: the median", "wrong-param", lambda t: {"mean": text(t / "mean.txt", "135.25\n")},
         {"mean output"}, task="r-mean-amount"),
    Case("r-number/correct", "correct", lambda t: {"mean": text(t / "mean.txt", "152.1\n")}, set(),
         task="r-mean-amount"),
    Case("r-png/correct", "correct", lambda t: {"plot": png_file(t / "regions.png", (640, 480), bars=True)}, set(),
         task="r-bar-plot"),
    Case("r-png/wrong-param: 320x240", "wrong-param",
         lambda t: {"plot": png_file(t / "regions.png", (320, 240), bars=True)}, {"plot output"}, task="r-bar-plot"),
    Case("r-png/wrong-param: 1280x960", "wrong-param",
         lambda t: {"plot": png_file(t / "regions.png", (1280, 960), bars=True)}, {"plot output"}, task="r-bar-plot"),
    Case("r-png/unsaved: dev.off() never called", "unsaved", lambda t: {"plot": empty(t / "regions.png")}, ALL,
         task="r-bar-plot", says="is not a PNG image: it is an empty file"),
    Case("r-png/wrong-type: a PDF under .png", "wrong-type",
         lambda t: {"plot": text(t / "regions.png", "%PDF-1.4\n%%EOF\n")}, ALL, task="r-bar-plot",
         says="is not a PNG image: it is a PDF document"),
    Case("pipeline r->writer/wrong-place: the CSV saved elsewhere", "wrong-place",
         lambda t: {D: report_docx(t / "report.docx", [*((p, False) for p in REPORT),
                                                        ("North leads with 615.75.", False)])},
         {"totals output"}, task="pipe-r-regions-to-writer"),
    Case("pipeline r->writer/unsaved report", "unsaved",
         lambda t: {"totals": region_csv(t / "r.csv"), D: copy(FIX / "report.docx", t / "report.docx")},
         {f"{D} ends with the new paragraphs"}, task="pipe-r-regions-to-writer"),
    # svg (Inkscape)
    Case("svg/correct", "correct", lambda t: {"drawing": svg(t / "drawing.svg", BAR)}, set(), task="inkscape-keep-bar"),
    Case("svg/wrong-param: the box kept, the bar deleted", "wrong-param",
         lambda t: {"drawing": svg(t / "drawing.svg", BOX)}, {"drawing removed shapes"}, task="inkscape-keep-bar"),
    Case("svg/wrong-place", "wrong-place", lambda t: {}, ALL, task="inkscape-keep-bar"),
    Case("svg/unsaved", "unsaved", lambda t: {"drawing": copy(FIX / "drawing.svg", t / "drawing.svg")}, ALL,
         task="inkscape-keep-bar"),
    Case("svg/wrong-type: a PNG renamed .svg", "wrong-type", lambda t: {"drawing": png_file(t / "drawing.svg")}, ALL,
         task="inkscape-keep-bar", says="artifact 'drawing' (drawing.svg) is not an SVG drawing: it is a PNG image"),
    # impress
    Case("impress/correct", "correct",
         lambda t: {"deck": deck(t, [START[0], ("Budget 2026", BUDGET), START[2]])}, set(),
         task="impress-rename-title"),
    Case("impress/wrong-param: the last slide renamed", "wrong-param",
         lambda t: {"deck": deck(t, [START[0], START[1], ("Budget 2026", NEXT)])}, {"deck slide titles in order"},
         task="impress-rename-title"),
    Case("impress/wrong-place", "wrong-place", lambda t: {}, ALL, task="impress-rename-title"),
    Case("impress/unsaved", "unsaved", lambda t: {"deck": copy(FIX / "office" / "deck.odp", t / "deck.odp")},
         {"deck slide titles in order"}, task="impress-rename-title"),
    Case("impress/wrong-type: ODT content as .odp", "wrong-type",
         lambda t: {"deck": copy(FIX / "l4" / "letterhead.odt", t / "deck.odp")}, ALL, task="impress-rename-title",
         says="is not a presentation (.odp or .pptx): it is an OpenDocument text (.odt)"),
    # impress_pdf
    Case("impress-pdf/correct", "correct",
         lambda t: {"pdf": make_pdf(t / "deck.pdf", [" ".join([s[0], *s[1]]) for s in START])}, set(),
         task="impress-export-pdf"),
    Case("impress-pdf/wrong-param: slides 1-2 only", "wrong-param",
         lambda t: {"pdf": make_pdf(t / "deck.pdf", [" ".join([s[0], *s[1]]) for s in START[:2]])},
         {"pdf has 3 pages", "pdf page 3 text"}, task="impress-export-pdf"),
    Case("impress-pdf/wrong-place", "wrong-place", lambda t: {}, ALL, task="impress-export-pdf"),
    Case("impress-pdf/unsaved: notes added, deck not saved", "unsaved",
         lambda t: {"deck": copy(FIX / "office" / "deck.odp", t / "deck.odp"),
                    "pdf": make_pdf(t / "deck.pdf", [" ".join([s[0], *s[1]]) for s in START])},
         {"deck slide 2 speaker notes"}, task="impress-notes-and-pdf"),
    Case("impress-pdf/wrong-type: the deck saved as deck.pdf", "wrong-type",
         lambda t: {"pdf": copy(FIX / "office" / "deck.odp", t / "deck.pdf")}, ALL, task="impress-export-pdf",
         says="is not a PDF document: it is an OpenDocument presentation (.odp)"),
    # docx_format (with writer's keeps)
    Case("docx-format/correct", "correct",
         lambda t: {D: docx(t, [(REPORT[0], "Heading1", ""), *((p, "", "") for p in REPORT[1:])])}, set(),
         task="writer-heading-title"),
    Case("docx-format/wrong-param: Heading 2", "wrong-param",
         lambda t: {D: docx(t, [(REPORT[0], "Heading2", ""), *((p, "", "") for p in REPORT[1:])])},
         {f"{D} paragraph 0 style Heading1"}, task="writer-heading-title"),
    Case("docx-format/wrong-place", "wrong-place", lambda t: {}, ALL, task="writer-heading-title"),
    Case("docx-format/unsaved", "unsaved", lambda t: {D: copy(FIX / "report.docx", t / "report.docx")},
         {f"{D} paragraph 0 style Heading1"}, task="writer-heading-title"),
    Case("docx-format/wrong-type: CSV text as .docx", "wrong-type", lambda t: {D: text(t / "report.docx", BUDGET_CSV)},
         ALL, task="writer-heading-title", says=NOT_DOCX),
    # xlsx_sheets and svg_text: kinds no task uses yet
    Case("xlsx-sheets/correct", "correct", lambda t: {W: sheets(t / "b.xlsx", ["Budget", "Summary"])}, set(),
         kind="xlsx_sheets", truth={"sheet_names": ["Budget", "Summary"]}),
    Case("xlsx-sheets/wrong-param: misspelt", "wrong-param", lambda t: {W: sheets(t / "b.xlsx", ["Budget", "Sumary"])},
         ALL, kind="xlsx_sheets", truth={"sheet_names": ["Budget", "Summary"]}),
    Case("xlsx-sheets/wrong-place", "wrong-place", lambda t: {}, ALL, kind="xlsx_sheets",
         truth={"sheet_names": ["Budget", "Summary"]}),
    Case("xlsx-sheets/unsaved", "unsaved", lambda t: {W: copy(FIX / "budget.xlsx", t / "b.xlsx")}, ALL,
         kind="xlsx_sheets", truth={"sheet_names": ["Budget", "Summary"]}),
    Case("xlsx-sheets/wrong-type: CSV text", "wrong-type", lambda t: {W: text(t / "budget.xlsx", BUDGET_CSV)}, ALL,
         kind="xlsx_sheets", truth={"sheet_names": ["Budget", "Summary"]}, says=NOT_XLSX),
    Case("svg-text/correct", "correct",
         lambda t: {"drawing": svg(t / "d.svg", BAR + '<text x="40" y="30">Q1 budget</text>')}, set(),
         kind="svg_text", truth={"texts": ["Q1 budget"]}),
    Case("svg-text/wrong-param", "wrong-param",
         lambda t: {"drawing": svg(t / "d.svg", BAR + '<text x="40" y="30">Q2 budget</text>')}, ALL,
         kind="svg_text", truth={"texts": ["Q1 budget"]}),
    Case("svg-text/wrong-place", "wrong-place", lambda t: {}, ALL, kind="svg_text", truth={"texts": ["Q1 budget"]}),
    Case("svg-text/unsaved", "unsaved", lambda t: {"drawing": copy(FIX / "drawing.svg", t / "d.svg")}, ALL,
         kind="svg_text", truth={"texts": ["Q1 budget"]}),
    Case("svg-text/wrong-type: PNG", "wrong-type", lambda t: {"drawing": png_file(t / "d.svg")}, ALL,
         kind="svg_text", truth={"texts": ["Q1 budget"]}, says="is not an SVG drawing: it is a PNG image"),
    # creation (L4): the constraints; the rubric is skipped without a judge
    Case("creation/correct", "correct", lambda t: {"logo": svg(t / "logo.svg", LOGO, 400, 400)}, set(),
         task="inkscape-l4-logo"),
    Case("creation/wrong-param: page 500x500", "wrong-param",
         lambda t: {"logo": svg(t / "logo.svg", LOGO, 500, 500)}, {"logo page size"}, task="inkscape-l4-logo"),
    Case("creation/wrong-place", "wrong-place", lambda t: {}, ALL, task="inkscape-l4-logo"),
    Case("creation/unsaved", "unsaved", lambda t: {"logo": copy(FIX / "l4" / "logo.svg", t / "logo.svg")},
         {"logo has text 'NORTHWIND'", "logo has at least 1 circle|ellipse"}, task="inkscape-l4-logo"),
    Case("creation/wrong-type: PNG renamed .svg", "wrong-type", lambda t: {"logo": png_file(t / "logo.svg")}, ALL,
         task="inkscape-l4-logo", says="is not an SVG drawing: it is a PNG image"),
]

LOGO = ('<circle cx="200" cy="200" r="150" fill="#1b4f72"/>'
        '<text x="200" y="210" text-anchor="middle" fill="#ffffff">NORTHWIND</text>')


def sheets(path: Path, names: list[str]) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    wb.active.title = names[0]
    for name in names[1:]:
        wb.create_sheet(name)
    wb.save(path)
    return path


@pytest.mark.parametrize("case", OFFICE, ids=[c.id for c in OFFICE])
def test_office_near_miss(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path)


# --- the pieces the near misses rest on: the formula reader and the artifact types --------------------------------

def test_formula_reader_computes_without_eval() -> None:
    from suites.prosoft import formulas

    values = {"B2": 1200, "B3": 5400, "B4": 830, "B5": 420, "B6": 300, "B7": 760, "B1": "Q1", "B8": None}

    def value(text: str) -> float:
        return formulas.evaluate(formulas.parse(text, "Budget"), values.get)
    assert value("=SUM(B2:B7)") == value("=B2+B3+B4+B5+B6+B7") == value("=SUM($B$7:B2)") == 8910
    assert value("=sum(Budget!B2:B4) + SUM(B5:B7)") == 8910 and value("=AVERAGE(B1:B7)") == 8910 / 6
    assert value("=-2^2") == 4 and value("=2*3+4") == 10 and value("=50%") == 0.5 and value("=B8+1") == 1
    assert value("=MAX(B2:B7)-MIN(B2:B7)") == 5100 and value("=LARGE(B2:B7,2)") == 1200 and value("=ROUND(2.5)") == 3
    assert formulas.references(formulas.parse("=SUM(B7:B2)/B$8")) == {f"B{r}" for r in range(2, 9)}
    for bad, why in (("=__import__('os').system('x')", "unexpected character"), ("=B1+1", "not a number"),
                     ("=Other!B2", "another sheet"), ("=SUBTOTAL(9,B2:B7)", "not supported"),
                     ("=B2/(B3-B3)", "division by zero"), ("=SUM(B2:B7", "expected )")):
        with pytest.raises(formulas.FormulaError, match=re.escape(why)):
            value(bad)


def test_formula_cells_recurse_and_fall_back_to_calcs_value(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from suites.prosoft import formulas

    path = workbook(tmp_path / "b.xlsx", {"B8": "=SUM(B2:B7)", "C8": "=SUBTOTAL(9,C2:C7)", "D2": "=D3", "D3": "=D2",
                                          "D4": "=B8/2"}, {"B8": 8910, "C8": 9830, "D2": 0, "D3": 0, "D4": 4455})
    sheet = load_workbook(path).worksheets[0]
    cell = formulas.sheet_cells(sheet, {"C8": 9830})
    assert cell("D4") == 4455 and cell("C8") == 9830
    with pytest.raises(formulas.FormulaError, match="circular"):
        cell("D2")


@pytest.mark.parametrize(("make", "what"), [
    (lambda t: text(t / "x", "a,b\n1,2\n"), "text starting 'a,b'"),
    (lambda t: empty(t / "x"), "an empty file (0 bytes)"),
    (lambda t: png_file(t / "x"), "a PNG image"),
    (lambda t: ods(t / "x"), "an OpenDocument spreadsheet (.ods)"),
    (lambda t: copy(FIX / "budget.xlsx", t / "x"), "an Excel workbook (.xlsx)"),
    (lambda t: copy(FIX / "office" / "deck.pptx", t / "x"), "a PowerPoint presentation (.pptx)"),
    (lambda t: copy(FIX / "drawing.svg", t / "x"), "an SVG drawing"),
    (lambda t: text(t / "x", "<?xml version='1.0'?><qgis/>"), "an XML document (root <qgis>)"),
])
def test_artifact_types_are_told_by_content(make: Callable[[Path], Path], what: str, tmp_path: Path) -> None:
    from suites.prosoft.artifacts import identify

    assert identify(make(tmp_path)) == what

if __name__ == "__main__":  # python3 -m tests.prosoft.test_near_misses: the counts over every kind's cases
    from . import test_near_misses_engineering, test_near_misses_imaging

    every = OFFICE + test_near_misses_engineering.CASES + test_near_misses_imaging.CASES
    print(f"{len(every)} cases:", tally(every))
