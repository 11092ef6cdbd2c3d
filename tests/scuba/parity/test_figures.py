"""The parity figure (``figures.py``): counted from the reports a parity run writes, and named by the READMEs
that quote it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .figures import NoReports, count, main, pytest_outcome

REPO = Path(__file__).resolve().parents[3]
COMMAND = "python3 -m tests.scuba.parity.figures"


def _row(agree: bool, exact_agree: bool = True) -> dict[str, Any]:
    return {"ours": {"score": 1.0}, "exact": {"score": 1.0, "crash": None}, "scuba": {"score": 1.0},
            "agree": agree, "exact_agree": exact_agree}


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _reports(folder: Path) -> Path:
    """Two tasks' noop/oracle/partial (one partial not made, one listed deviation), a case state, four near
    misses (one not made, one where ours disagrees unlisted, one where the exact scoring disagrees)."""
    _write(folder / "admin_001_002.json", {"task_id": "admin_001_002", "template": "create_report",
                                           "noop": _row(True), "oracle": _row(False), "partial": _row(False)})
    _write(folder / "sales_009_001.json", {"task_id": "sales_009_001", "template": "t", "noop": _row(True),
                                           "oracle": _row(True), "partial": {"skipped": "no changed ground truth"}})
    _write(folder / "admin_008_001-case.json", {"task_id": "admin_008_001", "case": _row(True)})
    near = folder / "near"
    _write(near / "sales_002_001-dash-hierarchies.json",
           {"task_id": "sales_002_001", "state": "dash:hierarchies", **_row(False)})
    _write(near / "sales_002_001-case-name.json", {"task_id": "sales_002_001", "state": "case:name", **_row(False)})
    _write(near / "sales_002_001-spaces-name.json",
           {"task_id": "sales_002_001", "state": "spaces:name", **_row(True, exact_agree=False)})
    _write(near / "sales_002_001-other-name.json", {"task_id": "sales_002_001", "state": "other:name",
                                                    "skipped": "ValueError: no such user"})
    (folder / "pytest.log").write_text("not a report")
    (folder / "summary-gw0.md").write_text("# not a report")
    return folder


def test_the_figures_count_every_compared_end_state(tmp_path: Path) -> None:
    figures = count(_reports(tmp_path))
    assert (figures.tasks, figures.states, figures.case, figures.near, figures.total) == (2, 5, 1, 3, 9)
    assert (figures.not_made, figures.no_partial) == (1, 1)
    # ours disagrees on admin_001_002 oracle and partial (listed), dash:hierarchies (listed), case:name (not)
    assert (figures.agree, figures.listed, figures.other, figures.exact_agree) == (5, 3, 1, 8)
    assert figures.line() == ("9 end states (5 noop/oracle/partial of 2 tasks, 1 case, 3 near misses; 1 near misses "
                              "and 1 partial states not made): score_scuba agrees with SCUBA's evaluator on 8, score "
                              "on 5 (3 listed deviations, 1 others)")


def test_a_row_never_judged_or_no_report_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(NoReports, match=re.escape(f"{tmp_path}: no compared end state")):
        count(tmp_path)
    _write(tmp_path / "near" / "x.json", {"task_id": "admin_001_001", "state": "case:name", "ours": {}})
    with pytest.raises(ValueError, match=r"admin_001_001 \[case:name\]: a report row without 'agree'"):
        count(tmp_path)
    (tmp_path / "near" / "x.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"x\.json: not a parity report"):
        count(tmp_path)


def test_the_command_prints_the_figure_of_a_reports_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--count", str(_reports(tmp_path / "run"))]) == 0
    assert capsys.readouterr().out.startswith("9 end states (5 noop/oracle/partial of 2 tasks")
    assert main(["--count", str(tmp_path / "empty")]) == 2
    assert "no compared end state" in capsys.readouterr().err


def test_pytests_closing_counts_are_read() -> None:
    out = "....s.F\n=== short test summary info ===\nFAILED x\n==== 1 failed, 5 passed, 1 skipped in 12.34s ====\n"
    assert pytest_outcome(out) == "1 failed, 5 passed, 1 skipped in 12.34s"
    assert pytest_outcome("ERROR: file or directory not found: x\n") == "ERROR: file or directory not found: x"


@pytest.mark.parametrize("readme", ["README.md", "suites/scuba/README.md"])
def test_a_readme_quoting_the_parity_figure_names_the_command_that_prints_it(readme: str) -> None:
    """Every paragraph quoting a count of end states in the thousands (the full parity run's) names the
    command that computes it from the current code."""
    text = (REPO / readme).read_text(encoding="utf-8")
    quoting = [p for p in re.split(r"\n\s*\n", text) if re.search(r"\b\d,\d{3}\b[^.]*end states|end states[^.]*"
                                                                  r"\b\d,\d{3}\b", p)]
    assert quoting, f"{readme}: no parity figure found (the test's pattern is stale)"
    bare = [p[:200] for p in quoting if COMMAND not in p]
    assert bare == [], f"{readme}: the parity figure is quoted without `{COMMAND}`"
