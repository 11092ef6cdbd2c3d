"""The ProSoft evaluators on hand-made artifacts (no container): right files pass, untouched files fail."""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any


ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pytest_cua.tasks.scoring import ScoreCard, active_card  # noqa: E402
from pytest_cua.tasks.suite import EvalContext  # noqa: E402
from suites.prosoft.templates import FIXTURES, TEMPLATES  # noqa: E402
from suites.prosoft.test_prosoft import CUA_SUITE  # noqa: E402


def _tasks() -> dict[str, Any]:
    CUA_SUITE.bind(ROOT / "suites" / "prosoft" / "test_prosoft.py")
    loaded = CUA_SUITE.load(None)
    assert not loaded.errors
    return {t.id: t for t in loaded.tasks}


def evaluate(task_id: str, artifacts: dict[str, Path]) -> ScoreCard:
    task = _tasks()[task_id]
    card = ScoreCard(task_id=task.id, template=task.template)
    with active_card(card):
        TEMPLATES[task.template].evaluate(EvalContext(task=task, env=None, card=card, artifacts=artifacts))  # type: ignore[arg-type]
    card.check_complete()
    return card


def test_levels_and_counts() -> None:
    from collections import Counter

    tasks = _tasks().values()
    levels = Counter(t.level for t in tasks)
    assert levels["L1"] >= 8 and levels["L2"] >= 8 and levels["L3"] >= 4
    for task in tasks:
        assert task.demonstration_actions, f"{task.id} has no demonstration"
        assert task.extra.get("artifacts"), f"{task.id} copies no artifact out"
        for item in task.extra.get("start_files", []):
            assert (ROOT / item["src"]).is_file(), f"{task.id}: start file {item['src']} missing"


def test_calc_untouched_workbook_fails_and_edited_passes(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    untouched = tmp_path / "budget.xlsx"
    shutil.copyfile(FIXTURES / "budget.xlsx", untouched)
    card = evaluate("calc-total-row", {"workbook": untouched})
    assert not card.success and card.score < 1

    wb = load_workbook(untouched)
    ws = wb.active
    ws["A8"], ws["B8"], ws["C8"] = "Total", "=SUM(B2:B7)", "=SUM(C2:C7)"
    wb.save(untouched)
    # openpyxl writes no cached values: check the formula milestones only
    card = evaluate("calc-total-row", {"workbook": untouched})
    by_name = {r.name: r for r in card.results}
    assert by_name["workbook B8 formula"].passed and by_name["workbook C8 formula"].passed
    assert by_name["workbook A8 = Total"].passed
    assert by_name["workbook other cells unchanged"].passed


def test_calc_missing_artifact_is_a_failed_milestone_not_a_crash() -> None:
    card = evaluate("calc-set-cell", {})
    assert card.score == 0 and "was not produced" in card.results[0].detail


def _docx(path: Path, paragraphs: list[tuple[str, bool]]) -> Path:
    shutil.copyfile(FIXTURES / "report.docx", path)
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = "".join(f"<w:p><w:r>{'<w:rPr><w:b/></w:rPr>' if bold else ''}<w:t>{text}</w:t></w:r></w:p>"
                   for text, bold in paragraphs)
    with zipfile.ZipFile(FIXTURES / "report.docx") as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "word/document.xml":
                data = f'<?xml version="1.0"?><w:document {ns}><w:body>{body}</w:body></w:document>'.encode()
            dst.writestr(item, data)
    return path


def test_writer_checks(tmp_path: Path) -> None:
    original = [("Quarterly Report", False), ("Spending stayed within the plan for the first two quarters.", False),
                ("Travel fell while training grew, as agreed in January.", False)]
    assert not evaluate("writer-next-steps", {"document": _docx(tmp_path / "a.docx", original)}).success
    done = [("Quarterly Report", True), *original[1:], ("Next steps", False),
            ("Review the travel policy by March.", False)]
    assert evaluate("writer-next-steps", {"document": _docx(tmp_path / "b.docx", done)}).success


def test_r_outputs_and_pipeline(tmp_path: Path) -> None:
    totals = tmp_path / "totals.csv"
    totals.write_text('"region","total"\n"East",249.5\n"North",615.75\n"South",390\n"West",265.75\n')
    assert evaluate("r-region-totals", {"totals": totals}).success
    wrong = tmp_path / "wrong.csv"
    wrong.write_text('"region","total"\n"North",1\n')
    assert not evaluate("r-region-totals", {"totals": wrong}).success
    stats = tmp_path / "stats.txt"
    stats.write_text("152.1\n135.25\n310\n")
    assert evaluate("r-summary-stats", {"stats": stats}).success
    mean = tmp_path / "mean.txt"
    mean.write_text("152.1\n")
    doc = _docx(tmp_path / "c.docx", [("Quarterly Report", False),
                                       ("Spending stayed within the plan for the first two quarters.", False),
                                       ("Travel fell while training grew, as agreed in January.", False),
                                       ("Average sale: 152.1", False)])
    card = evaluate("pipe-r-mean-to-writer", {"mean": mean, "document": doc})
    assert card.success and len(card.results) == 3
    half = evaluate("pipe-r-mean-to-writer", {"mean": mean})
    assert 0 < half.score < 1


def test_png_ink(tmp_path: Path) -> None:
    from PIL import Image, ImageDraw

    blank = tmp_path / "blank.png"
    Image.new("RGB", (640, 480), "white").save(blank)
    assert not evaluate("r-bar-plot", {"plot": blank}).success
    chart = tmp_path / "chart.png"
    image = Image.new("RGB", (640, 480), "white")
    ImageDraw.Draw(image).rectangle((100, 100, 300, 460), fill="steelblue")
    image.save(chart)
    assert evaluate("r-bar-plot", {"plot": chart}).success
