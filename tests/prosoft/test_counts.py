"""The ProSoft README's program table is the task files' own count (``python3 -m suites.prosoft.counts`` prints
it), every program of the paper has at least 12 L1 and 8 L2 tasks, and every task is counted in some row."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from suites.prosoft import counts
from suites.prosoft.domains import apps_of

README = Path(counts.__file__).resolve().parent / "README.md"


@pytest.fixture(scope="module")
def tasks() -> list:
    return counts.load_tasks()


def test_the_readme_shows_the_table_of_the_task_files(tasks: list) -> None:
    table = counts.table(tasks)
    assert table in README.read_text(encoding="utf-8"), (
        "suites/prosoft/README.md's program table differs from the task files; print the current one with "
        "`python3 -m suites.prosoft.counts` and paste it:\n" + table)


def test_every_program_has_at_least_12_l1_and_8_l2_tasks(tasks: list) -> None:
    assert counts.short_programs(tasks) == []


def test_every_task_is_counted_in_a_row(tasks: list) -> None:
    in_rows = {app for row in counts.ROWS for app in row.apps}
    outside = sorted({t.id for t in tasks if not set(apps_of(t)) & in_rows})
    assert outside == [], f"tasks no row of the table counts (add their app to a row of counts.ROWS): {outside}"


def test_the_table_counts_what_it_says(tmp_path: Path) -> None:
    """Single-program tasks per app and level; a pipeline once per row it touches; the totals over all tasks."""
    import json

    def task(tid: str, level: str, apps: list[str]) -> dict:
        return {"id": tid, "level": level, "apps": apps, "instruction": "i", "template": "pipeline" if level == "L3"
                else "calc_cells", "ground_truth": {"steps": []} if level == "L3" else {}}

    (tmp_path / "t.json").write_text(json.dumps({"tasks": [
        task("a", "L1", ["calc"]), task("b", "L1", ["calc"]), task("c", "L2", ["bkchem"]),
        task("d", "L2", ["avogadro"]), task("e", "L3", ["calc", "r"]), task("f", "L3", ["bkchem", "avogadro"]),
        task("g", "L4", ["gimp"])]}))
    from suites.prosoft.test_prosoft import ProSoftSuite
    from pytest_cua.tasks.task import load_task_file

    loaded = load_task_file(tmp_path / "t.json", suite="prosoft", extension_fields=ProSoftSuite.task_fields)
    apps = counts.per_app(loaded)
    assert apps["calc"] == Counter({"L1": 2, "L3": 1})
    rows = {r.paper: counts.row_counts(r, apps, loaded) for r in counts.ROWS if r.paper != "(extra)"}
    assert rows["Excel"] == {"L1": "2", "L2": "", "L4": "", "L3": "1"}
    assert rows["ChemDraw"] == {"L1": "", "L2": "1 + 1", "L4": "", "L3": "1"}  # the pipeline counted once
    assert rows["Photoshop"]["L4"] == "1"
    assert "| **all** (paper) | | | **2** (252) | **2** (164) | **2** (20) | **1** (20) |" in counts.table(loaded)
