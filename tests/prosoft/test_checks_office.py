"""The office evaluators (Impress decks and PDFs, .docx styles, sheet names, SVG text) without docker: a correct
artifact passes every milestone, each kind of wrong artifact fails the milestone that names it, a missing
artifact fails (never errors).

Decks are built with the start-file generator (fixtures/prosoft/office/make_fixtures.py) from other slide lists,
so they have the same structure as the start files; PDFs are written here the way LibreOffice writes them
(Flate-compressed content streams showing glyph codes, a ToUnicode map per font). The ground truths are those
of the generated tasks (suites/prosoft/tasks/impress.json and office_more.json).
"""

from __future__ import annotations

import importlib.util
import io
import json
import zipfile
import zlib
from pathlib import Path
from typing import Any, Mapping

import pytest

from suites.prosoft.checks.impress import pdf_pages, read_deck
from suites.prosoft.templates import KINDS

from .evaluation import milestones

ROOT = Path(__file__).resolve().parents[2]
OFFICE = ROOT / "fixtures" / "prosoft" / "office"
TASKS = {t["id"]: t for name in ("impress", "office_more")
         for t in json.loads((ROOT / f"suites/prosoft/tasks/{name}.json").read_text())["tasks"]}
TITLES = ["Quarterly Review", "Budget", "Next Steps"]
BUDGET = ["Rent stayed flat", "Salaries grew by 4%", "Travel fell by a quarter"]
NEXT = ["Review the travel policy", "Plan the training budget"]
START = [("Quarterly Review", ["Finance team, January 2026"]), ("Budget", BUDGET), ("Next Steps", NEXT)]


def run(kind: str, truth: Mapping[str, Any], artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth, artifacts)


def run_task(task_id: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
    task = TASKS[task_id]
    steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [
        {**task["ground_truth"], "template": task["template"]}]
    out: dict[str, str | None] = {}
    for step in steps:
        out.update(run(step["template"], step, artifacts))
    return out


def failed(result: Mapping[str, str | None]) -> list[str]:
    return sorted(label for label, message in result.items() if message is not None)


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("office_fixtures", OFFICE / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def deck(tmp_path: Path, slides: list[tuple[str, list[str]]], fmt: str = "odp", notes: Mapping[int, str] = (),
         extra: Mapping[int, str] = (), files: Mapping[str, bytes] = ()) -> Path:
    """A deck with these (title, body) slides; ``notes``/``extra`` (ODF only): per slide number, speaker notes
    text and extra frames (XML) on the page; ``files``: more package members (pictures, embedded objects)."""
    gen = _generator()
    gen.SLIDES, gen.HERE = slides, tmp_path
    (gen.odp if fmt == "odp" else gen.pptx)()
    path = tmp_path / f"deck.{fmt}"
    if fmt == "odp" and (notes or extra or files):
        with zipfile.ZipFile(path) as z:
            members = {n: z.read(n) for n in z.namelist()}
        content = members["content.xml"].decode()
        pages = content.split("</draw:page>")
        for number, text in dict(notes).items():
            pages[number - 1] += ('<presentation:notes><draw:frame presentation:class="notes"><draw:text-box>'
                                  f"<text:p>{text}</text:p></draw:text-box></draw:frame></presentation:notes>")
        for number, xml in dict(extra).items():
            pages[number - 1] += xml
        members["content.xml"] = "</draw:page>".join(pages).encode()
        members.update(dict(files))
        with zipfile.ZipFile(path, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
    return path


def png(width: int, height: int) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (70, 130, 180)).save(buf, "PNG")
    return buf.getvalue()


def picture_frame(href: str) -> str:
    return (f'<draw:frame svg:x="2cm" svg:y="4cm" svg:width="10cm" svg:height="7cm"><draw:image xlink:href="{href}"/>'
            "</draw:frame>")


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A PDF like LibreOffice's: one subset font with a ToUnicode map, text shown as hex glyph codes."""
    chars = sorted({c for page in pages for c in page})
    code = {c: i + 1 for i, c in enumerate(chars)}
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> "
            f"endcodespacerange {len(chars)} beginbfchar\n"
            + "\n".join(f"<{code[c]:02X}> <{ord(c):04X}>" for c in chars)
            + "\nendbfchar endcmap CMapName currentdict /CMap defineresource pop end end").encode()
    objects: dict[int, bytes] = {}

    def stream(data: bytes) -> bytes:
        packed = zlib.compress(data)
        return b"<</Length %d/Filter/FlateDecode>>\nstream\n" % len(packed) + packed + b"\nendstream"

    objects[3] = stream(cmap)
    objects[4] = b"<</Type/Font/Subtype/TrueType/BaseFont/AAAAAA+LiberationSans/ToUnicode 3 0 R>>"
    objects[5] = b"<</Font<</F1 4 0 R>>>>"
    kids = []
    for i, page in enumerate(pages):
        content, page_obj = 10 + 2 * i, 11 + 2 * i
        words = page.split(" ")
        shown = b" ".join(b"BT /F1 18 Tf 50 %d Td <%s> Tj ET" % (500 - 20 * j, "".join(
            f"{code[c]:02X}" for c in w).encode()) for j, w in enumerate(words))
        objects[content] = stream(shown)
        objects[page_obj] = b"<</Type/Page/Parent 2 0 R/Resources 5 0 R/MediaBox[0 0 792 445]/Contents %d 0 R>>" % (
            content)
        kids.append(b"%d 0 R" % page_obj)
    objects[2] = b"<</Type/Pages/Kids[" + b" ".join(kids) + b"]/Count %d>>" % len(pages)
    objects[1] = b"<</Type/Catalog/Pages 2 0 R>>"
    out = bytearray(b"%PDF-1.6\n")
    for number in sorted(objects):
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    out += b"trailer\n<</Root 1 0 R>>\n%%EOF\n"
    path.write_bytes(bytes(out))
    return path


# --- the readers ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["odp", "pptx"])
def test_start_decks_read_as_three_titled_slides(fmt: str) -> None:
    found = read_deck(OFFICE / f"deck.{fmt}")
    assert found.format == fmt
    assert [s.title for s in found.slides] == TITLES
    assert [s.body for s in found.slides] == [["Finance team, January 2026"], BUDGET, NEXT]


def test_pdf_reader_decodes_glyph_codes_per_page(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "x.pdf", ["Quarterly Review", "Budget 4%"])
    assert [p.replace(" ", "") for p in pdf_pages(path)] == ["QuarterlyReview", "Budget4%"]


# --- Impress tasks -------------------------------------------------------------------------------------------------

def test_untouched_decks_fail_every_impress_task() -> None:
    """What noop leaves: the start deck, and no PDF or other program's output."""
    for task_id, task in TASKS.items():
        if "impress" not in task["apps"]:
            continue
        fmt = "pptx" if task["artifacts"]["deck"].endswith(".pptx") else "odp"
        result = run_task(task_id, {"deck": OFFICE / f"deck.{fmt}"})
        assert failed(result), f"{task_id}: the start deck passes every milestone"


def test_add_slide(tmp_path: Path) -> None:
    good = deck(tmp_path, [*START, ("Questions", [])])
    assert failed(run_task("impress-add-slide", {"deck": good})) == []
    wrong = deck(tmp_path, [*START, ("Question", [])])
    assert failed(run_task("impress-add-slide", {"deck": wrong})) == ["deck slide titles in order"]
    assert len(failed(run_task("impress-add-slide", {}))) == 2  # not saved: both milestones fail


def test_rename_title_keeps_the_bullets(tmp_path: Path) -> None:
    good = deck(tmp_path, [START[0], ("Budget 2026", BUDGET), START[2]])
    assert failed(run_task("impress-rename-title", {"deck": good})) == []
    lost = deck(tmp_path, [START[0], ("Budget 2026", BUDGET[:2]), START[2]])
    assert failed(run_task("impress-rename-title", {"deck": lost})) == ["deck slide 2 body text"]


def test_delete_and_move(tmp_path: Path) -> None:
    assert failed(run_task("impress-delete-slide", {"deck": deck(tmp_path, [START[0], START[2]])})) == []
    assert failed(run_task("impress-delete-slide", {"deck": deck(tmp_path, [START[0], START[1]])})) == [
        "deck slide titles in order"]
    moved = deck(tmp_path, [START[0], START[2], START[1]])
    assert failed(run_task("impress-move-slide", {"deck": moved})) == []
    copied = deck(tmp_path, [START[0], START[2], START[1], START[2]])
    assert failed(run_task("impress-move-slide", {"deck": copied})) == ["deck has 3 slides", "deck slide titles in order"]


def test_speaker_notes(tmp_path: Path) -> None:
    good = deck(tmp_path, START, notes={1: "Welcome the finance team."})
    assert failed(run_task("impress-speaker-notes", {"deck": good})) == []
    wrong_slide = deck(tmp_path, START, notes={2: "Welcome the finance team."})
    assert failed(run_task("impress-speaker-notes", {"deck": wrong_slide})) == ["deck slide 1 speaker notes"]


def test_export_pdf(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "deck.pdf", [" ".join([t, *b]) for t, b in START])
    assert failed(run_task("impress-export-pdf", {"pdf": good})) == []
    short = make_pdf(tmp_path / "short.pdf", [" ".join([t, *b]) for t, b in START[:2]])
    assert failed(run_task("impress-export-pdf", {"pdf": short})) == ["pdf has 3 pages", "pdf page 3 text"]
    not_pdf = tmp_path / "deck.txt"
    not_pdf.write_text("Quarterly Review")
    assert len(failed(run_task("impress-export-pdf", {"pdf": not_pdf}))) == 4
    assert len(failed(run_task("impress-export-pdf", {}))) == 4


def test_pptx_must_stay_pptx(tmp_path: Path) -> None:
    slides = [START[0], START[1], ("Next Steps for Q2", NEXT)]
    assert failed(run_task("impress-pptx-rename-title", {"deck": deck(tmp_path, slides, fmt="pptx")})) == []
    odp = deck(tmp_path, slides)
    assert failed(run_task("impress-pptx-rename-title", {"deck": odp})) == ["deck saved as pptx"]


def test_bullets_slide(tmp_path: Path) -> None:
    good = deck(tmp_path, [START[0], START[1], ("Risks", ["Travel costs", "Hiring delays"]), START[2]])
    assert failed(run_task("impress-risks-slide", {"deck": good})) == []
    one_line = deck(tmp_path, [START[0], START[1], ("Risks", ["Travel costs Hiring delays"]), START[2]])
    assert failed(run_task("impress-risks-slide", {"deck": one_line})) == ["deck slide 3 body text"]


def test_notes_and_pdf_pipeline(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "deck.pdf", [t for t, _ in START])
    good = deck(tmp_path, START, notes={2: "Stress the travel savings."})
    assert failed(run_task("impress-notes-and-pdf", {"deck": good, "pdf": pdf})) == []
    assert failed(run_task("impress-notes-and-pdf", {"deck": good})) == ["pdf has 3 pages", "pdf page 2 text"]


def test_picture_slides(tmp_path: Path) -> None:
    slides = [*START, ("Sales by region", [])]
    good = deck(tmp_path, slides, extra={4: picture_frame("Pictures/chart.png")},
                files={"Pictures/chart.png": png(640, 480)})
    truth = TASKS["pipe-r-impress-chart"]["ground_truth"]["steps"][1]
    assert failed(run("impress", truth, {"deck": good})) == []
    small = deck(tmp_path, slides, extra={4: picture_frame("Pictures/chart.png")},
                 files={"Pictures/chart.png": png(320, 240)})
    assert failed(run("impress", truth, {"deck": small})) == ["deck slide 4 picture"]
    none = deck(tmp_path, slides)
    assert failed(run("impress", truth, {"deck": none})) == ["deck slide 4 picture"]

    svg_truth = TASKS["pipe-inkscape-impress-figure"]["ground_truth"]["steps"][1]
    drawing = (ROOT / "fixtures/prosoft/drawing.svg").read_bytes()
    layout = [*START, ("Layout", [])]
    with_dot = deck(tmp_path, layout, extra={4: picture_frame("Pictures/d.svg")}, files={"Pictures/d.svg": drawing})
    assert failed(run("impress", svg_truth, {"deck": with_dot})) == ["deck slide 4 picture"]
    from lxml import etree

    root = etree.fromstring(drawing)
    root.remove(root.find("{http://www.w3.org/2000/svg}circle"))
    without = deck(tmp_path, layout, extra={4: picture_frame("Pictures/d.svg")},
                   files={"Pictures/d.svg": etree.tostring(root)})
    assert failed(run("impress", svg_truth, {"deck": without})) == []


def test_table_slide(tmp_path: Path) -> None:
    truth = TASKS["pipe-calc-impress-table"]["ground_truth"]["steps"][1]
    rows = [("Item", "Q1", "Q2"), ("Salaries", "5400", "5600"), ("Total", "8910", "9830")]
    cells = "".join("<table:table-row>" + "".join(f"<table:table-cell><text:p>{v}</text:p></table:table-cell>"
                                                  for v in row) + "</table:table-row>" for row in rows)
    table = ('<draw:frame svg:x="2cm" svg:y="4cm" svg:width="10cm" svg:height="7cm" '
             'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><table:table>'
             f"{cells}</table:table></draw:frame>")
    slides = [*START, ("Budget table", [])]
    assert failed(run("impress", truth, {"deck": deck(tmp_path, slides, extra={4: table})})) == []
    stale = table.replace("8910", "8900")
    assert failed(run("impress", truth, {"deck": deck(tmp_path, slides, extra={4: stale})})) == [
        "deck slide 4 table or object"]


def test_not_a_deck_fails(tmp_path: Path) -> None:
    junk = tmp_path / "deck.odp"
    junk.write_text("not a zip")
    result = run_task("impress-add-slide", {"deck": junk})
    assert all("not a presentation" in (m or "") for m in result.values()) and result


# --- Writer, Calc, SVG kinds ---------------------------------------------------------------------------------------

def docx(tmp_path: Path, paragraphs: list[tuple[str, str, str]]) -> Path:
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = ""
    for text, style, jc in paragraphs:
        ppr = (f'<w:pStyle w:val="{style}"/>' if style else "") + (f'<w:jc w:val="{jc}"/>' if jc else "")
        body += f"<w:p><w:pPr>{ppr}</w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"
    path = tmp_path / "report.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("word/document.xml", f"<w:document {ns}><w:body>{body}</w:body></w:document>")
    return path


REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]


def test_writer_tidy_report(tmp_path: Path) -> None:
    rest = [(t, "", "") for t in REPORT[1:]]
    good = docx(tmp_path, [(REPORT[0], "Heading1", "center"), *rest, ("Prepared by the finance team.", "", "")])
    assert failed(run_task("writer-tidy-report", {"document": good})) == []
    left = docx(tmp_path, [(REPORT[0], "Heading 1", ""), *rest, ("Prepared by the finance team.", "", "")])
    assert failed(run_task("writer-tidy-report", {"document": left})) == ["document paragraph 0 centred"]
    plain = docx(tmp_path, [(REPORT[0], "", "center"), *rest])
    assert failed(run_task("writer-tidy-report", {"document": plain})) == [
        "document ends with the new paragraphs", "document paragraph 0 style Heading1"]
    assert len(failed(run_task("writer-tidy-report", {}))) == 4
    start = ROOT / "fixtures/prosoft/report.docx"
    for task_id in ("writer-heading-title", "writer-center-title"):
        assert failed(run_task(task_id, {"document": start})), task_id


def test_sheet_names(tmp_path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    wb.active.title = "Plan 2026"
    wb.save(tmp_path / "b.xlsx")
    assert failed(run("xlsx_sheets", {"sheet_names": ["Plan 2026"]}, {"workbook": tmp_path / "b.xlsx"})) == []
    assert failed(run("xlsx_sheets", {"sheet_names": ["Budget"]}, {"workbook": tmp_path / "b.xlsx"})) == [
        "workbook sheet names"]
    assert failed(run("xlsx_sheets", {"sheet_names": ["Budget"]}, {})) == ["workbook sheet names"]


def test_svg_text(tmp_path: Path) -> None:
    svg = tmp_path / "d.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="2"><tspan>Q1 budget</tspan></text></svg>')
    assert failed(run("svg_text", {"texts": ["Q1 budget"]}, {"drawing": svg})) == []
    assert failed(run("svg_text", {"texts": ["Q2 budget"]}, {"drawing": svg})) == ["drawing text 'Q2 budget'"]


def test_every_office_task_has_a_known_kind_and_start_files() -> None:
    for task_id, task in TASKS.items():
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [{"template": task["template"]}]
        assert all(s["template"] in KINDS for s in steps), task_id
        for item in task.get("start_files", []):
            assert (ROOT / item["src"]).is_file(), f"{task_id}: {item['src']}"
    levels = [t["level"] for t in TASKS.values()]
    assert levels.count("L1") >= 12 and levels.count("L2") >= 8 and levels.count("L3") >= 4
