"""The parity test's own parts: the deviations table it reads and the ground-truth changes it makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from .end_states import changed
from .known import KNOWN, DeviationsTableError, read_known

TABLE = """# Deviations

## create_report: a reason

Text.

## Parity: the end states where SCUBA's score differs

| task | end state | SCUBA fails | section |
|---|---|---|---|
{rows}
"""


def _write(tmp_path: Path, rows: str) -> Path:
    path = tmp_path / "DEVIATIONS.md"
    path.write_text(TABLE.format(rows=rows), encoding="utf-8")
    return path


def test_the_table_of_the_suite_reads_and_names_sections_it_has() -> None:
    assert KNOWN, "DEVIATIONS.md lists end states"
    assert all(k.state in ("noop", "oracle", "partial") for k in KNOWN.values())


def test_a_row_is_read(tmp_path: Path) -> None:
    known = read_known(_write(tmp_path, "| admin_001_002 | oracle | yes | create_report: a reason |"))
    entry = known[("admin_001_002", "oracle")]
    assert entry.scuba_fails and entry.section == "create_report: a reason"


@pytest.mark.parametrize(("row", "message"), [
    ("| admin_001_002 | oracle | no | no such section |", "DEVIATIONS.md:11: no section '## no such section'"),
    ("| admin_001_002 | later | no | create_report: a reason |", "end state 'later' is not one of"),
    ("| admin_001_002 | oracle | maybe | create_report: a reason |", "'SCUBA fails' is yes or no, not 'maybe'"),
    ("| admin_001_002 | oracle | no |", "a row has 4 cells"),
    ("| a | oracle | no | create_report: a reason |\n| a | oracle | no | create_report: a reason |",
     "DEVIATIONS.md:12: a [oracle] is listed twice"),
])
def test_a_bad_row_is_an_error_naming_the_line(tmp_path: Path, row: str, message: str) -> None:
    with pytest.raises(DeviationsTableError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_known(_write(tmp_path, row))


def test_changes_of_a_ground_truth_value_least_disruptive_first() -> None:
    assert list(changed(True)) == [False]
    assert list(changed(10)) == [11]
    assert list(changed("Web")) == ["Web Changed"]
    assert list(changed("a, b, c")) == ["a, b", "a, b, c Changed"]
    assert list(changed(["x", "y"])) == [["x"], ["x", "y Changed"]]
    assert list(changed({"a": 1, "b": "v"})) == [{"a": 1}, {"a": 1, "b": "v Changed"}]
    assert list(changed("")) == [] and list(changed(None)) == [] and list(changed([])) == []
