"""pytest_cua.results.compare: task-by-task comparison of two summaries, the gate, the renderers and the CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_cua import cli
from pytest_cua.results.compare import CompareError, compare, load_summary, render_markdown, render_text
from pytest_cua.results.stats import mcnemar_exact


def rec(tid: str, outcome: str, *, trial: int | None = 1, suite: str = "s", score: float | None = None,
        milestones: list[tuple[str, bool]] | None = None, **fields: Any) -> dict[str, Any]:
    """One episode record as summary.json holds it; ``trial=None`` leaves the field out (old summaries)."""
    record: dict[str, Any] = {
        "id": tid, "nodeid": f"tests/test_{suite}.py::test_task[{tid}]", "suite": suite, "persona": None,
        "difficulty": None, "level": None, "template": "tpl", "outcome": outcome,
        "error_kind": "environment" if outcome == "error" else None,
        "error": "boom" if outcome == "error" else None,
        "score": score if score is not None else (1.0 if outcome == "passed" else 0.0),
        "success": outcome == "passed",
        "milestones": [{"name": n, "weight": 1.0, "passed": p, "detail": ""} for n, p in milestones or []],
        "steps": 3, "cost_usd": 0.01, "tokens_in": 10, "tokens_out": 5, "times": {"wall_s": 1.0},
    }
    if trial is not None:
        record["trial"] = trial
    record.update(fields)
    return record


def summary(records: list[dict[str, Any]], run_id: str = "run", agent: str = "oracle") -> dict[str, Any]:
    trials = max([r.get("trial", 1) for r in records], default=1)
    return {"version": 1, "run": {"id": run_id, "agent": agent, "trials": trials}, "totals": {}, "groups": {},
            "tasks": records}


def runs(base_outcomes: list[str], new_outcomes: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two single-trial runs of tasks t00, t01, ... with the given outcomes."""
    return (summary([rec(f"t{i:02d}", o) for i, o in enumerate(base_outcomes)], "base"),
            summary([rec(f"t{i:02d}", o) for i, o in enumerate(new_outcomes)], "new"))


def every_change() -> tuple[dict[str, Any], dict[str, Any]]:
    base = summary([
        rec("a", "passed"), rec("b", "failed"), rec("c", "passed"), rec("d", "failed"),
        rec("e", "passed", trial=1), rec("e", "failed", trial=2),
        rec("f", "error"), rec("g", "passed"), rec("z", "skipped"),
    ], "base")
    new = summary([
        rec("a", "passed"), rec("b", "failed"), rec("c", "failed"), rec("d", "passed"),
        rec("e", "passed"), rec("f", "passed"), rec("h", "failed"), rec("z", "passed"),
    ], "new")
    return base, new


def test_every_change_value():
    comparison = compare(*every_change(), resamples=200)
    changes = {t.key: t.change for t in comparison.tasks}
    assert changes == {"s/a": "both_pass", "s/b": "both_fail", "s/c": "to_fail", "s/d": "to_pass", "s/e": "flaky",
                       "s/f": "error", "s/g": "only_base", "s/h": "only_new",
                       "s/z": "only_new"}  # skipped episodes are ignored: z ran in the new run only
    assert comparison.counts == {"both_pass": 1, "both_fail": 1, "to_fail": 1, "to_pass": 1, "flaky": 1,
                                 "error": 1, "only_base": 1, "only_new": 2}
    assert [t.key for t in comparison.tasks] == sorted(changes)
    assert comparison.flaky == ["s/e"]
    by_key = {t.key: t for t in comparison.tasks}
    e = by_key["s/e"].base
    assert e is not None and (e.trials, e.passed, e.failed, e.status, e.success) == (2, 1, 1, "flaky", 0.5)
    f = by_key["s/f"].base
    assert f is not None and (f.status, f.errors, f.success, f.score) == ("error", 1, None, None)
    assert by_key["s/g"].new is None and by_key["s/h"].base is None
    # paired: a b c d e (f has no scored trial in the base); e has two trials, so the bootstrap gives p
    assert comparison.overall.tasks == 5
    assert comparison.overall.test == "sign-flip"
    assert comparison.overall.base_success == pytest.approx((1 + 0 + 1 + 0 + 0.5) / 5)
    assert comparison.overall.new_success == pytest.approx((1 + 0 + 0 + 1 + 1) / 5)
    assert (comparison.overall.flips_to_fail, comparison.overall.flips_to_pass) == (1, 1)
    assert comparison.base.trials == 2 and comparison.new.trials == 1
    assert (comparison.base.tasks, comparison.new.tasks) == (7, 8)  # z counts in the new run only
    assert (comparison.base.run_id, comparison.new.agent) == ("base", "oracle")
    # errors count the tasks both runs have: f errored once in the base
    assert (comparison.errors["base"], comparison.errors["new"]) == (1, 0)


def test_to_dict_schema():
    data = compare(*every_change(), resamples=200).to_dict()
    json.dumps(data)  # JSON-ready
    assert set(data) == {"base", "new", "alpha", "max_drop", "quarantine_flaky", "tasks", "counts", "flaky",
                         "overall", "groups", "errors", "gate"}
    assert set(data["base"]) == {"run_id", "agent", "trials", "tasks", "scoring", "scorings"}
    task = next(t for t in data["tasks"] if t["key"] == "s/c")
    assert set(task) == {"key", "suite", "id", "persona", "difficulty", "level", "template", "base", "new",
                         "change", "milestones_changed"}
    assert set(task["base"]) == {"trials", "passed", "failed", "errors", "success", "score", "status", "cost_usd",
                                 "steps"}
    assert set(data["overall"]) == {"tasks", "base_success", "new_success", "diff", "ci_low", "ci_high", "p_value",
                                    "test", "base_score", "new_score", "score_diff", "score_ci_low",
                                    "score_ci_high", "flips_to_fail", "flips_to_pass"}
    assert set(data["groups"]) == {"suite", "persona", "difficulty", "template", "level"}
    assert set(data["gate"]) == {"ok", "reasons", "line"}
    assert set(data["errors"]) == {"base", "new", "base_episodes", "new_episodes"}


def test_milestones_changed_on_flips_use_the_first_scored_trial():
    base = summary([
        rec("c", "passed", trial=3, milestones=[("opens", False), ("saves", False)]),
        rec("c", "error", trial=1),
        rec("c", "passed", trial=2, milestones=[("opens", True), ("saves", True)]),
    ])
    new = summary([rec("c", "failed", milestones=[("opens", True), ("saves", False), ("closes", False)])])
    (task,) = compare(base, new, resamples=100).to_dict()["tasks"]
    assert task["change"] == "to_fail"
    assert task["milestones_changed"] == [{"name": "saves", "base": True, "new": False},
                                          {"name": "closes", "base": None, "new": False}]


def test_milestones_not_listed_for_tasks_that_did_not_flip():
    base = summary([rec("a", "passed", milestones=[("x", True)])])
    new = summary([rec("a", "passed", milestones=[("x", False)])])  # a passing score under 1 can do that
    assert compare(base, new, resamples=100).tasks[0].milestones_changed == []


def test_single_trials_use_mcnemar_and_a_significant_drop_fails_the_gate():
    base, new = runs(["passed"] * 20, ["passed"] * 10 + ["failed"] * 10)
    comparison = compare(base, new)
    overall = comparison.overall
    assert overall.test == "mcnemar"
    assert overall.p_value == pytest.approx(2 / 2 ** 10)  # 10 flips to fail, 0 to pass: 2 * C(10,0)/2^10
    assert overall.p_value == mcnemar_exact(10, 0)
    assert (overall.base_success, overall.new_success, overall.diff) == (1.0, 0.5, -0.5)
    assert overall.ci_low is not None and overall.ci_high is not None
    assert overall.ci_low <= -0.5 <= overall.ci_high < 0
    assert overall.score_diff == pytest.approx(-0.5)
    assert overall.score_ci_low is not None and overall.score_ci_low < 0
    assert (overall.flips_to_fail, overall.flips_to_pass) == (10, 0)
    gate = comparison.gate
    assert not gate.ok
    assert gate.line.startswith("gate FAILED: success 1.000 -> 0.500 (-0.500, 95% CI ")
    assert "McNemar p=0.002 < 0.05, 10 flips to fail, 0 to pass" in gate.line
    assert gate.line.endswith("; errors 0 -> 0")
    assert len(gate.reasons) == 1 and "more than the allowed 0.000" in gate.reasons[0]


def test_a_significant_drop_within_max_drop_passes():
    base, new = runs(["passed"] * 20, ["passed"] * 10 + ["failed"] * 10)
    gate = compare(base, new, max_drop=0.6, resamples=500).gate
    assert gate.ok
    assert gate.line.startswith("gate passed:")
    assert any("within the allowed 0.600" in r for r in gate.reasons)


def test_a_drop_that_is_not_significant_passes():
    base, new = runs(["passed"] * 20, ["passed"] * 18 + ["failed"] * 2)
    comparison = compare(base, new, resamples=500)
    assert comparison.overall.p_value == pytest.approx(0.5)  # 2 * C(2,0)/2^2
    assert comparison.gate.ok
    assert "(not significant)" in comparison.gate.line
    assert any("not significant (p=0.500 >= 0.05)" in r for r in comparison.gate.reasons)


def test_the_confidence_level_follows_alpha():
    base, new = runs(["passed"] * 20, ["passed"] * 14 + ["failed"] * 6)
    # McNemar p = 2/64 = 0.031: significant at 0.05, not at 0.01
    assert not compare(base, new, resamples=200).gate.ok
    gate = compare(base, new, alpha=0.01, resamples=200).gate
    assert gate.ok and "99% CI" in gate.line and "p=0.031 >= 0.01" in gate.line


def test_more_errors_fail_the_gate():
    base, new = runs(["passed"] * 5, ["passed"] * 4 + ["error"])
    new["tasks"].append(rec("brand-new", "error"))  # a task only the new run has is not counted
    comparison = compare(base, new, resamples=200)
    assert (comparison.errors["base"], comparison.errors["new"]) == (0, 1)
    assert not comparison.gate.ok
    assert comparison.gate.reasons == ["errors grew: 0 -> 1"]
    assert comparison.gate.line.endswith("; errors 0 -> 1")
    assert comparison.counts["error"] == 1 and comparison.overall.tasks == 4


def test_trials_use_the_exact_sign_flip_test_for_the_p_value():
    base = summary([rec(f"t{i}", "passed", trial=k) for i in range(30) for k in (1, 2, 3)])
    new = summary([rec(f"t{i}", "passed" if i < 15 else "failed", trial=k) for i in range(30) for k in (1, 2, 3)])
    comparison = compare(base, new, resamples=1000)
    assert comparison.overall.test == "sign-flip"
    assert comparison.overall.diff == pytest.approx(-0.5)
    # 15 tasks went 3/3 -> 0/3, 15 stayed: as likely either way under no change, both signs count: 2 / 2^15
    assert comparison.overall.p_value == pytest.approx(2 / 2 ** 15)
    assert comparison.base.trials == 3
    assert not comparison.gate.ok and "sign-flip p<0.001 < 0.05" in comparison.gate.line


def test_one_task_a_trial_worse_is_not_significant():
    """3/3 -> 2/3 on one task of ten: one sign, p = 1 (a bootstrap over tasks would call it significant)."""
    base = summary([rec(f"t{i}", "passed", trial=k) for i in range(10) for k in (1, 2, 3)])
    new = summary([rec(f"t{i}", "failed" if (i, k) == (0, 3) else "passed", trial=k)
                   for i in range(10) for k in (1, 2, 3)])
    comparison = compare(base, new, resamples=1000)
    assert comparison.overall.p_value == 1.0 and comparison.gate.ok
    few = summary([rec(f"t{i}", "failed" if i < 2 else "passed", trial=k) for i in range(10) for k in (1, 2, 3)])
    assert compare(base, few).overall.p_value == pytest.approx(0.5)  # two tasks 3/3 -> 0/3: 2 / 2^2


def flaky_runs() -> tuple[dict[str, Any], dict[str, Any]]:
    """Ten tasks of two trials: eight pass throughout; in the new run two are flaky and one of them errors."""
    base = summary([rec(f"t{i}", "passed", trial=k) for i in range(10) for k in (1, 2)])
    new_records = [rec(f"t{i}", "passed", trial=k) for i in range(8) for k in (1, 2)]
    new_records += [rec("t8", "passed", trial=1), rec("t8", "failed", trial=2),
                    rec("t9", "failed", trial=1), rec("t9", "passed", trial=2), rec("t9", "error", trial=3)]
    return base, summary(new_records)


def test_flaky_tasks_are_detected_across_trials():
    comparison = compare(*flaky_runs(), resamples=500)
    assert comparison.flaky == ["s/t8", "s/t9"]
    assert comparison.counts["flaky"] == 2
    assert comparison.overall.tasks == 10
    assert (comparison.errors["base"], comparison.errors["new"]) == (0, 1)
    assert not comparison.gate.ok


def test_quarantine_leaves_flaky_tasks_out_of_the_gate():
    comparison = compare(*flaky_runs(), quarantine_flaky=True, resamples=500)
    assert comparison.flaky == ["s/t8", "s/t9"]
    assert {t.key for t in comparison.tasks} >= {"s/t8", "s/t9"}  # still listed
    assert comparison.overall.tasks == 8
    assert comparison.overall.diff == 0.0 and comparison.overall.p_value == 1.0
    # errors count over every shared task, quarantined or not: the flaky t9's error is still an error
    assert (comparison.errors["base"], comparison.errors["new"]) == (0, 1)
    assert not comparison.gate.ok and comparison.gate.reasons == ["errors grew: 0/20 -> 1/21 episodes"]
    assert comparison.gate.line.endswith("2 flaky quarantined")
    assert all(g.tasks == 8 for g in comparison.groups["suite"].values())


def test_groups_per_field():
    def task(tid: str, outcome: str, **fields: Any) -> dict[str, Any]:
        return rec(tid, outcome, **fields)

    layout = [("a", "p1", "t1", "easy", "1"), ("b", "p1", "t2", "hard", "2"), ("c", "p2", "t1", None, None),
              ("d", None, "t2", "easy", "1")]
    base = summary([task(t, "passed", persona=p, template=tp, difficulty=d, level=lv) for t, p, tp, d, lv in layout])
    new = summary([task(t, "failed" if t in "ab" else "passed", persona=p, template=tp, difficulty=d, level=lv)
                   for t, p, tp, d, lv in layout])
    groups = compare(base, new, resamples=300).groups
    assert {name: g.tasks for name, g in groups["persona"].items()} == {"p1": 2, "p2": 1}  # d has no persona
    assert {name: g.tasks for name, g in groups["template"].items()} == {"t1": 2, "t2": 2}
    assert {name: g.tasks for name, g in groups["difficulty"].items()} == {"easy": 2, "hard": 1}
    assert {name: g.tasks for name, g in groups["level"].items()} == {"1": 2, "2": 1}
    assert {name: g.tasks for name, g in groups["suite"].items()} == {"s": 4}
    p1 = groups["persona"]["p1"]
    assert (p1.base_success, p1.new_success, p1.flips_to_fail, p1.test) == (1.0, 0.0, 2, "mcnemar")
    assert p1.p_value == pytest.approx(0.5)  # 2 * C(2,0)/2^2


def test_groups_split_by_suite():
    base = summary([rec("x", "passed", suite="alpha"), rec("x", "passed", suite="beta")])
    new = summary([rec("x", "failed", suite="alpha"), rec("x", "passed", suite="beta")])
    comparison = compare(base, new, resamples=200)
    assert [t.key for t in comparison.tasks] == ["alpha/x", "beta/x"]  # the same id in two suites: two tasks
    assert {n: g.diff for n, g in comparison.groups["suite"].items()} == {"alpha": -1.0, "beta": 0.0}


def test_old_summaries_without_a_trial_field():
    base = summary([rec("a", "passed", trial=None), rec("b", "passed", trial=None)])
    new = summary([rec("a", "failed", trial=None), rec("b", "passed", trial=None)])
    comparison = compare(base, new, resamples=200)
    assert comparison.overall.test == "mcnemar"
    assert [t.change for t in comparison.tasks] == ["to_fail", "both_pass"]
    assert comparison.base.trials == 1


def test_compare_is_reproducible():
    base, new = every_change()
    assert compare(base, new, resamples=300).to_dict() == compare(base, new, resamples=300).to_dict()


def test_nothing_paired():
    comparison = compare(summary([rec("a", "passed")]), summary([rec("b", "passed")]), resamples=100)
    assert comparison.overall.tasks == 0 and comparison.overall.diff is None and comparison.overall.p_value is None
    # both runs ran tasks, none in common: no evidence that the release is not worse
    assert not comparison.gate.ok and "no task scored in both runs" in comparison.gate.line
    assert render_text(comparison)[0] == comparison.gate.line
    assert "gate FAILED" in render_markdown(comparison)
    empty = compare(summary([]), summary([rec("b", "passed")]), resamples=100)  # nothing to compare with
    assert empty.gate.ok and "no paired tasks" in empty.gate.line


def test_render_text_shows_the_verdict_and_the_flips():
    base, new = every_change()
    base["tasks"][2]["milestones"] = [{"name": "saves", "weight": 1.0, "passed": True, "detail": ""}]
    new["tasks"][2]["milestones"] = [{"name": "saves", "weight": 1.0, "passed": False, "detail": ""}]
    lines = render_text(compare(base, new, resamples=200))
    text = "\n".join(lines)
    assert lines[0].startswith("gate ")
    assert "s/c: pass -> fail [saves: pass -> fail]" in text
    assert "s/d: fail -> pass" in text
    assert "flaky (1): s/e" in text
    assert "errored (1): s/f" in text
    assert any(line.startswith("overall") for line in lines)
    assert any(line.startswith("suite s") for line in lines)


def test_render_text_shows_the_first_twenty_flips():
    base, new = runs(["passed"] * 25, ["failed"] * 25)
    lines = render_text(compare(base, new, resamples=200))
    assert sum(1 for line in lines if line.endswith(": pass -> fail")) == 20
    assert "  ... 5 more" in lines
    assert lines[0].startswith("gate FAILED")


def test_render_markdown():
    base, new = every_change()
    base["tasks"][2]["milestones"] = [{"name": "saves", "weight": 1.0, "passed": True, "detail": ""}]
    new["tasks"][2]["milestones"] = []
    markdown = render_markdown(compare(base, new, resamples=200))
    assert markdown.startswith("## pytest-cua compare: ")
    assert "gate" in markdown.splitlines()[0]
    assert "| overall |" in markdown and "| suite s |" in markdown
    assert "### By template" in markdown and "| tpl |" in markdown
    assert "<details><summary>Flipped tasks (2)</summary>" in markdown
    assert "- `s/c`: pass → fail" in markdown and "  - saves: pass -&gt; absent" in markdown
    assert "**Flaky tasks** (1): `s/e`" in markdown


def test_render_markdown_of_a_failed_gate():
    base, new = runs(["passed"] * 20, ["failed"] * 20)
    markdown = render_markdown(compare(base, new, resamples=200))
    assert markdown.splitlines()[0] == "## pytest-cua compare: ❌ gate FAILED"


def write(path, data) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def test_cli_exit_codes_and_files(tmp_path, capsys):
    same_base, same_new = runs(["passed"] * 10, ["passed"] * 10)
    base_file = write(tmp_path / "base.json", same_base)
    assert cli.main(["compare", base_file, write(tmp_path / "same.json", same_new)]) == 0
    assert capsys.readouterr().out.startswith("gate passed")

    worse_base, worse_new = runs(["passed"] * 10, ["failed"] * 10)
    md, js = tmp_path / "out" / "compare.md", tmp_path / "out" / "compare.json"
    code = cli.main(["compare", write(tmp_path / "b.json", worse_base), write(tmp_path / "w.json", worse_new),
                     "--markdown", str(md), "--json", str(js)])
    assert code == 1
    assert capsys.readouterr().out.startswith("gate FAILED")
    assert md.read_text().startswith("## pytest-cua compare: ❌ gate FAILED")
    data = json.loads(js.read_text())
    assert data["gate"]["ok"] is False and data["counts"]["to_fail"] == 10

    assert cli.main(["compare", str(tmp_path / "b.json"), str(tmp_path / "w.json"), "--max-drop", "1"]) == 0
    capsys.readouterr()

    missing = tmp_path / "nope.json"
    assert cli.main(["compare", base_file, str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "no such file" in err


def test_cli_accepts_a_reports_folder(tmp_path, capsys):
    base, new = runs(["passed"], ["passed"])
    (tmp_path / "reports").mkdir()
    write(tmp_path / "reports" / "summary.json", new)
    assert cli.main(["compare", write(tmp_path / "base.json", base), str(tmp_path / "reports")]) == 0


def test_cli_rejects_a_bad_alpha(tmp_path):
    with pytest.raises(SystemExit) as exc:
        cli.main(["compare", "a.json", "b.json", "--alpha", "0"])
    assert exc.value.code == 2


def test_load_summary_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(CompareError, match="no such file") as exc:
        load_summary(missing)
    assert str(missing) in str(exc.value)
    assert isinstance(exc.value, ValueError)

    other = tmp_path / "package.json"
    other.write_text('{"name": "not a summary"}')
    with pytest.raises(CompareError, match="not a pytest-cua summary") as exc:
        load_summary(other)
    assert str(other) in str(exc.value) and '"tasks"' in str(exc.value)

    broken = tmp_path / "broken.json"
    broken.write_text('{"tasks": [')
    with pytest.raises(CompareError, match="not valid JSON") as exc:
        load_summary(broken)
    assert str(broken) in str(exc.value)

    odd = tmp_path / "odd.json"
    odd.write_text('{"tasks": [{"id": "a"}]}')
    with pytest.raises(CompareError, match=r"tasks\[0\]"):
        load_summary(odd)

    good = tmp_path / "good.json"
    good.write_text(json.dumps(summary([rec("a", "passed")])))
    assert load_summary(good)["tasks"][0]["id"] == "a"


def test_cli_reports_a_non_summary(tmp_path, capsys):
    other = write(tmp_path / "other.json", [1, 2, 3])
    good = write(tmp_path / "good.json", summary([rec("a", "passed")]))
    assert cli.main(["compare", other, good]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pytest-cua compare: ") and other in err and "not a pytest-cua summary" in err


def test_compare_rejects_bad_parameters():
    base, new = runs(["passed"], ["passed"])
    with pytest.raises(ValueError, match="alpha"):
        compare(base, new, alpha=0)
    with pytest.raises(ValueError, match="max_drop"):
        compare(base, new, max_drop=-0.1)


def test_render_text_shortens_long_task_lists():
    base = summary([rec(f"t{i:02d}", "passed", trial=k) for i in range(30) for k in (1, 2)])
    new = summary([rec(f"t{i:02d}", "passed" if k == 1 else "failed", trial=k) for i in range(30) for k in (1, 2)])
    (line,) = [line for line in render_text(compare(base, new, resamples=100)) if line.startswith("flaky")]
    assert line.startswith("flaky (30): s/t00, s/t01") and line.endswith("s/t19 ... 10 more")


def test_errors_are_judged_by_share_when_the_runs_had_different_trials() -> None:
    """1 error in 10 episodes against 2 in 30: fewer errors per episode, so the errors did not grow."""
    def records(trials: int, errors: int) -> list[dict]:
        out = []
        for i in range(10):
            for t in range(1, trials + 1):
                outcome = "error" if len(out) < errors else "passed"
                out.append({"id": f"t{i}", "suite": "s", "trial": t, "outcome": outcome, "score": 1.0,
                            "error_kind": "agent" if outcome == "error" else None, "milestones": [], "steps": 1,
                            "cost_usd": 0.0})
        return out

    base = {"run": {"id": "b"}, "tasks": records(1, 1)}
    new = {"run": {"id": "n"}, "tasks": records(3, 2)}
    comparison = compare(base, new)
    assert comparison.errors == {"base": 1, "new": 2, "base_episodes": 10, "new_episodes": 30}
    assert comparison.gate.ok, comparison.gate.line
    assert "errors 1/10 -> 2/30 episodes" in comparison.gate.line
    worse = compare(base, {"run": {"id": "n"}, "tasks": records(3, 4)})  # 4 in 30 > 1 in 10
    assert not worse.gate.ok and "errors grew: 1/10 -> 4/30 episodes" in worse.gate.reasons


@pytest.mark.parametrize("field, value, message", [
    ("outcome", "PASSED", "tasks[0].outcome is 'PASSED', not one of passed, failed, partial, error, skipped"),
    ("score", "high", "tasks[0].score is 'high', not a finite number"),
    ("score", float("nan"), "tasks[0].score is nan, not a finite number"),
    ("cost_usd", "$0.10", "tasks[0].cost_usd is '$0.10', not a finite number"),
    ("trial", "2", "tasks[0].trial is '2', not a whole number from 1"),
])
def test_bad_values_are_errors_naming_the_file_and_field(tmp_path, field, value, message):
    record = rec("a", "passed")
    record[field] = value
    path = tmp_path / "s.json"
    path.write_text(json.dumps(summary([record])))
    with pytest.raises(CompareError) as info:
        load_summary(path)
    assert str(info.value) == f"{path}: {message}"
    assert cli.main(["compare", str(path), str(path)]) == 2


def test_the_same_task_and_trial_twice_is_an_error(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(summary([rec("a", "passed"), rec("a", "failed")])))
    with pytest.raises(CompareError, match=r"tasks\[1\]: task s/a trial 1 is also tasks\[0\]"):
        load_summary(path)


def test_markdown_renders_no_html_from_a_summary():
    base, new = every_change()
    new["tasks"][2]["milestones"] = [{"name": "<img src=http://x/y.png>", "passed": False}]
    base["tasks"][2]["milestones"] = [{"name": "<img src=http://x/y.png>", "passed": True}]
    markdown = render_markdown(compare(base, new, resamples=100))
    assert "<img" not in markdown and "&lt;img src=http://x/y.png&gt;" in markdown
