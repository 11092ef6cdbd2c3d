"""A suite's other scorings (``Suite.scorings``): every task scored both ways, the record carrying both,
``--cua-scoring`` choosing the one that decides the outcome, the summary, the table and the gate, and a
state on which the other scoring's evaluator would crash marked so."""

from __future__ import annotations

import json

import pytest

from .conftest import KV_SUITE, read_summary, records_by_id, task

TEMPLATE = '''
from pytest_cua.tasks.suite import Scoring
from pytest_cua.tasks.scoring import ScoringCrash, current_scoring

class Cased(Template):
    """The key's value, in any letter case (the suite's own "lenient" scoring) or exactly ("strict": the
    reference evaluator's rule, which also raises on a key it cannot read)."""
    name = "cased"
    def evaluate(self, ctx):
        strict = current_scoring() == "strict"
        if strict and ctx.env.data.get("bad") is not None:
            raise ScoringCrash("KeyError: the reference evaluator reads a field the store lacks")
        with milestone("a is set", 0.5):
            assert ctx.env.data.get("a") is not None, "a is not set"
        with milestone("a is the value", 0.5):
            got, want = ctx.env.data.get("a") or "", ctx.truth["value"]
            assert got == want if strict else got.lower() == want.lower(), f"a is {got!r}"

CUA_SUITE = Suite("kv", environment=KV, templates={"cased": Cased(), "set_keys": SetKeys()},
                  scorings={"strict": Scoring("the reference rules", digits=2, crash_score=-1.0)},
                  own_scoring="lenient")
'''


def _suite_text() -> str:
    head, _, tail = KV_SUITE.partition("CUA_SUITE = Suite(")
    tail = tail[tail.index("\n\ndef test_task"):]
    return head + TEMPLATE + tail


def _cased(tid: str, typed: str, value: str = "Acme", **extra: str) -> dict:
    data = task(tid, {"a": typed, **extra})
    data.update({"template": "cased", "ground_truth": {"value": value}})
    return data


@pytest.fixture
def scored_suite(pytester: pytest.Pytester):
    pytester.makepyfile(test_kv=_suite_text())
    (pytester.path / "tasks").mkdir()
    for t in (_cased("same", "Acme"), _cased("lower", "acme"), _cased("crash", "Acme", bad="1")):
        (pytester.path / "tasks" / f"{t['id']}.json").write_text(json.dumps(t))
    return pytester


def test_every_record_carries_both_scores_and_the_own_one_decides(scored_suite: pytest.Pytester) -> None:
    result = scored_suite.runpytest("--agent", "replay", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    records = records_by_id(scored_suite)
    assert {k: records["lower"][k] for k in ("score", "scoring", "score_strict", "strict_crash")} == \
        {"score": 1.0, "scoring": "lenient", "score_strict": 0.5, "strict_crash": None}
    assert [m["passed"] for m in records["lower"]["milestones_strict"]] == [True, False]
    assert records["same"]["score_strict"] == 1.0 and "milestones_strict" not in records["same"]
    assert records["crash"]["score_strict"] == -1.0
    assert records["crash"]["strict_crash"].startswith("KeyError: the reference evaluator reads")
    strict = read_summary(scored_suite)["totals"]["scorings"]["strict"]
    assert strict["mean_score"] == pytest.approx((1.0 + 0.5 + 0.0) / 3, abs=1e-4)  # a crash counts as 0
    assert strict["crashes"] == 1 and {d["id"] for d in strict["differ"]} == {"lower", "crash"}
    result.stdout.fnmatch_lines(["score_strict (the table: lenient): mean 0.500, success 33.3%; 2 task(s) score "
                                 "otherwise: crash 1.00 vs -1.00 (crash), lower 1.00 vs 0.50; its evaluator would "
                                 "crash on 1"])


def test_the_other_scoring_decides_with_cua_scoring(scored_suite: pytest.Pytester) -> None:
    result = scored_suite.runpytest("--agent", "replay", "--cua-scoring", "strict", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*task crash scored -1.00 by scoring 'strict'*",
                                 "*scoring 'strict': its evaluator would crash on this end state (KeyError*",
                                 "*task lower scored 0.50 by scoring 'strict'*"])
    records = records_by_id(scored_suite)
    lower, crash = records["lower"], records["crash"]
    assert (lower["outcome"], lower["score"], lower["scoring"], lower["score_lenient"]) == ("failed", 0.5, "strict", 1.0)
    assert [m["passed"] for m in lower["milestones"]] == [True, False]  # the deciding scoring's table
    assert [m["passed"] for m in lower["milestones_lenient"]] == [True, True]
    assert (crash["outcome"], crash["score"], crash["score_strict"]) == ("failed", 0.0, -1.0)
    totals = read_summary(scored_suite)["totals"]
    assert totals["mean_score"] == pytest.approx(0.5) and totals["scorings"]["lenient"]["mean_score"] == 1.0


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_an_unknown_scoring_is_one_error_naming_the_suites_scorings_before_any_task(
        scored_suite: pytest.Pytester, workers: list[str]) -> None:
    result = scored_suite.runpytest("--agent", "replay", "--cua-scoring", "exact", "-p", "no:cacheprovider",
                                    *workers)
    assert result.ret not in (0, 5)
    out = result.stdout.str()
    assert out.count("ERROR collecting test_kv.py") == 1, out
    assert "--cua-scoring 'exact': suite 'kv' scores by 'lenient' or 'strict' (suite 'kv': none of its 3 collected " \
        "task(s) ran)" in out
    assert "passed" not in result.parseoutcomes() and "INTERNALERROR" not in out


def test_a_crash_of_the_own_evaluator_under_the_other_scoring_is_an_evaluator_error(
        pytester: pytest.Pytester) -> None:
    """A bug that shows only under the other scoring is still the evaluator's error, naming the scoring."""
    text = _suite_text().replace('raise ScoringCrash("KeyError: the reference evaluator reads a field the store '
                                 'lacks")', '{}["field"]')
    pytester.makepyfile(test_kv=text)
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks" / "t.json").write_text(json.dumps(_cased("crash", "Acme", bad="1")))
    result = pytester.runpytest("--agent", "replay", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*template 'cased' (scoring 'strict') crashed: KeyError: 'field'*"])


def test_the_comparison_shows_the_other_scores_and_warns_on_runs_decided_otherwise(
        scored_suite: pytest.Pytester) -> None:
    from pytest_cua.results.compare.comparison import compare
    from pytest_cua.results.compare.text import render_text

    scored_suite.runpytest("--agent", "replay", "-p", "no:cacheprovider")
    own = read_summary(scored_suite)
    scored_suite.runpytest("--agent", "replay", "--cua-scoring", "strict", "-p", "no:cacheprovider")
    strict = read_summary(scored_suite)
    same = compare(own, own, resamples=50)
    assert (same.base.scoring, same.base.scorings) == ("lenient", {"strict": pytest.approx(0.5)})
    lines = render_text(same)
    assert "score_strict (mean): base 0.500, new 0.500" in lines
    assert not any(line.startswith("warning") for line in lines)
    mixed = render_text(compare(own, strict, resamples=50))
    assert "warning: the runs were decided by different scorings (base lenient, new strict): compare runs made " \
           "with the same --cua-scoring" in mixed


def test_allure_shows_the_other_scores_as_parameters(scored_suite: pytest.Pytester) -> None:
    scored_suite.runpytest("--agent", "replay", "--alluredir", "allure", "-p", "no:cacheprovider")
    params = {}
    for path in (scored_suite.path / "allure").glob("*-result.json"):
        data = json.loads(path.read_text())
        params[data["name"]] = {p["name"]: p for p in data.get("parameters", [])}
    lower = params["test_task[lower]"]
    assert lower["score_strict"]["value"] == "'0.50'" and lower["score_strict"].get("excluded") is True
    assert lower["scored by"]["value"] == "'the suite's own scoring'"  # Allure quotes a value so
    assert params["test_task[crash]"]["score_strict"]["value"].startswith("'-1.00 (crash: KeyError")
