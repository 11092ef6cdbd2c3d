"""What the parity tests share: the release they read, how each side scores an end state, and how a row of
the comparison is judged.

Every end state is scored three ways: SCUBA's own evaluator (``ScubaEvaluation``, unchanged, from the
checkout), our template with the corrections DEVIATIONS.md lists (``ours``, the record's ``score``), and our
template under the SCUBA suite's ``scuba`` scoring (``exact``, the record's ``score_scuba``: SCUBA's rules as they
are, its crashes included). ``exact`` must agree with SCUBA on every end state (the same score to 2 decimals and
the same completion; a crash where SCUBA's evaluation fails); ``ours`` must agree too, unless DEVIATIONS.md's
parity table lists the task and end state (``known.py``), and a listed end state that agrees is stale.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.tasks.scoring import ScoreCard, ScoringCrash, record_answer
from pytest_cua.tasks.task import Task
from pytest_cua.testing.scuba_parity import ScubaResult
from suites.scuba import release

from ..org_harness import TEMPLATES, evaluate
from ..release_root import release_root
from .known import KNOWN

ROOT = release_root()  # $PYTEST_CUA_SCUBA_ROOT, else <repository>/../shared/scuba/release
REPORTS = Path(os.environ.get("PYTEST_CUA_PARITY_REPORTS") or Path(__file__).resolve().parents[3] / "reports" / "parity")
EXACT = "scuba"  # the SCUBA suite's other scoring (suites/scuba/test_scuba.py)


def _records() -> list[dict[str, Any]]:
    path = ROOT / release.ZERO_SHOT_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


RECORDS = {r["task_id"]: r for r in _records()}


def first_of_each_template() -> dict[str, str]:
    """template name -> its first release task."""
    firsts: dict[str, str] = {}
    for tid, r in RECORDS.items():
        firsts.setdefault(r["query_template_name"], tid)
    return firsts


def others_of(task_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(task id, ground truth) of the other release tasks of the task's template, in task order."""
    template = RECORDS[task_id]["query_template_name"]
    return [(tid, dict(r.get("ground_truth_dict") or {})) for tid, r in RECORDS.items()
            if tid != task_id and r["query_template_name"] == template]


def our_card(env: SalesforceEnvironment, task: Task, answer: str | None, scoring: str | None = None) -> ScoreCard:
    """Our score card: the template's evaluator, or for a question without a template module the plugin's
    answer rule (``record_answer``, as ``pytest_cua.fixtures`` scores it)."""
    if task.template in TEMPLATES:
        return evaluate(env, task, answer=answer, scoring=scoring)
    card = ScoreCard(task.id, task.template, scoring=scoring)
    record_answer(card, answer, str(task.ground_truth["answer"]))
    return card


def ours(card: ScoreCard) -> dict[str, Any]:
    return {"score": round(card.score, 2), "complete": card.score == 1, "milestones": [
        {"milestone": r.name, "is_success": r.passed, "weight": r.weight} for r in card.results]}


def exact(env: SalesforceEnvironment, task: Task, answer: str | None) -> dict[str, Any]:
    """Our score under SCUBA's rules exactly: rounded to 2 decimals, complete at a rounded 1 (SCUBA's
    ``ScoreCard``), or where SCUBA's evaluator would crash, that reason (and SCUBA's -1)."""
    try:
        card = our_card(env, task, answer, scoring=EXACT)
    except ScoringCrash as exc:
        return {"score": -1.0, "complete": False, "crash": str(exc), "milestones": []}
    score = round(card.score, 2)
    return {"score": score, "complete": score == 1, "crash": None, "table": card.table(), "milestones": [
        {"milestone": r.name, "is_success": r.passed, "weight": r.weight} for r in card.results]}


def theirs(result: ScubaResult) -> dict[str, Any]:
    return {"score": result.score, "complete": result.score == 1, "milestones": result.milestones,
            "failures": result.failures, "seconds": round(result.seconds, 1)}


def scuba_failed(row: dict[str, Any]) -> bool:
    return row["scuba"]["failures"] is not None or not row["scuba"]["milestones"]


def judge(task_id: str, state: str, row: dict[str, Any]) -> list[str]:
    """The problems of one compared end state (empty: as it must be). ``row`` has ``ours``, ``exact``,
    ``scuba`` and ``tables``; it gains ``agree`` and ``exact_agree``."""
    problems: list[str] = []
    known = KNOWN.get((task_id, state))
    made = f" ({row['made']})" if row.get("made") else ""
    if scuba_failed(row):
        row["agree"] = False
        row["exact_agree"] = row["exact"]["crash"] is not None
        if not row["exact_agree"]:
            problems.append(f"{task_id} [{state}]{made}: SCUBA's evaluation failed ({row['scuba']['failures']}) "
                            f"but the exact scoring gives {row['exact']['score']:.2f}, not a crash")
        if known is None or not known.scuba_fails:
            problems.append(f"{task_id} [{state}]{made}: SCUBA's evaluation failed: {row['scuba']['failures']} "
                            "(not listed in DEVIATIONS.md with 'SCUBA fails')")
        return problems
    row["agree"] = (row["ours"]["score"] == row["scuba"]["score"]
                    and row["ours"]["complete"] == row["scuba"]["complete"])
    row["exact_agree"] = (row["exact"]["crash"] is None and row["exact"]["score"] == row["scuba"]["score"]
                          and row["exact"]["complete"] == row["scuba"]["complete"])
    if not row["exact_agree"]:
        said = row["exact"]["crash"] or f"{row['exact']['score']:.2f}"
        problems.append(f"{task_id} [{state}]{made}: exact scoring {said} vs SCUBA {row['scuba']['score']:.2f}"
                        f"\n{row['tables']}\nexact:\n{row['exact'].get('table', '')}")
    if row["agree"] and known is not None:
        problems.append(f"{task_id} [{state}]: listed in DEVIATIONS.md ({known.section}) but both score "
                        f"{row['ours']['score']:.2f}: the entry is stale")
    elif not row["agree"] and known is None:
        problems.append(f"{task_id} [{state}]{made}: ours {row['ours']['score']:.2f} vs SCUBA "
                        f"{row['scuba']['score']:.2f}\n{row['tables']}")
    return problems


def write_report(name: str, data: dict[str, Any]) -> None:
    path = REPORTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")


def write_summary(name: str, text: str) -> None:
    """``<name>-<xdist worker>.md`` in the reports folder (nothing when ``text`` is empty)."""
    if text:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        REPORTS.mkdir(parents=True, exist_ok=True)
        (REPORTS / f"{name}-{worker}.md").write_text(text, encoding="utf-8")
