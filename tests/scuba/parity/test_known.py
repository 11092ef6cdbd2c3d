"""The parity test's own parts: the deviations table it reads and the ground-truth changes it makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from .end_states import changed
from .known import KNOWN, DeviationsTableError, read_known
from .perturb import FAMILIES, near_misses

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
    assert all(k.state in ("noop", "oracle", "partial", "case") or k.state.split(":")[0] in FAMILIES
               for k in KNOWN.values())


def test_a_row_is_read(tmp_path: Path) -> None:
    known = read_known(_write(tmp_path, "| admin_001_002 | oracle | yes | create_report: a reason |"))
    entry = known[("admin_001_002", "oracle")]
    assert entry.scuba_fails and entry.section == "create_report: a reason"


@pytest.mark.parametrize(("row", "message"), [
    ("| admin_001_002 | oracle | no | no such section |", "DEVIATIONS.md:11: no section '## no such section'"),
    ("| admin_001_002 | later | no | create_report: a reason |", "end state 'later' is not one of"),
    ("| admin_001_002 | lower:report_name | no | create_report: a reason |", "nor a near miss"),
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


def test_near_misses_of_a_ground_truth_by_family() -> None:
    truth = {"account_name": "Acme - East", "start_date": "2027-01-04", "amount": 5000, "stages": "A, B"}
    others = [("t2", {"account_name": "Globex", "start_date": "2027-02-01", "amount": 10, "stages": "A, C"})]
    misses = {m.name: m for m in near_misses(truth, others)}
    assert misses["case:account_name"].truths == ({**truth, "account_name": "acme - east"},)
    assert misses["spaces:account_name"].truths[0]["account_name"] == "  Acme - East "
    assert misses["dash:account_name"].truths[0]["account_name"] == "Acme \u2013 East"
    assert misses["date+1:start_date"].truths[0]["start_date"] == "2027-01-05"
    assert misses["date-1:start_date"].truths[0]["start_date"] == "2027-01-03"
    assert misses["date_format:start_date"].truths[0]["start_date"] == "1/4/2027"
    assert misses["number:amount"].truths[0]["amount"] == 5000.0
    assert misses["duplicate"].truths == (truth, truth)
    assert misses["wrong_first:t2"].truths == (others[0][1], truth)
    assert misses["wrong_also:t2"].truths == (truth, others[0][1])
    assert misses["other:account_name"].truths == ({**truth, "account_name": "Globex"},)
    assert misses["again:amount"].truths == (truth, {**truth, "amount": 10})
    assert misses["extra:stages"].truths[0]["stages"] == "A, B, C"
    assert misses["order:stages"].truths[0]["stages"] == "B, A"
    answers = {m.name: m.answer for m in near_misses({"answer": "Acme"}, [], question=True)}
    assert answers["answer:sentence"] == "The answer is Acme." and answers["answer:lower"] == "acme"
    hierarchy = near_misses({"hierarchies": {"A - HQ": ["B - Asia"]}}, [])
    dashed = next(m for m in hierarchy if m.family == "dash").truths[0]
    assert dashed == {"hierarchies": {"A \u2013 HQ": ["B \u2013 Asia"]}}


def test_every_release_template_has_enough_near_misses() -> None:
    """``PYTEST_CUA_PARITY_NEAR=all`` compares at least MIN_PER_TEMPLATE near misses of every release template
    (before the ones the org refuses: the run's summary counts those)."""
    from .harness import RECORDS, first_of_each_template
    from .known import MIN_PER_TEMPLATE
    from .test_near_misses import _task_misses

    if not RECORDS:
        pytest.skip("no SCUBA release")
    few = {t: len(_task_misses(tid)) for t, tid in first_of_each_template().items()
           if len(_task_misses(tid)) < MIN_PER_TEMPLATE}
    assert not few, f"templates with fewer than {MIN_PER_TEMPLATE} near misses: {few}"
