"""The paper's tables of a run (``pytest-cua report --tables``): success as mean ± standard error over trials per
level, program, domain and observation setting, Table 2's steps and seconds, tokens and cost, on a made-up
summary whose figures are worked out by hand below; and a suite's own markers (``Suite.markers``) reaching the
records the tables group by, through a real pytest run of the KV suite.

The made-up run: three tasks, three trials each. a (L1, calc), b (L1, gimp), c (L2, a pipeline of r and calc).

    trial   a       b       c
    1       passed  failed  passed
    2       passed  passed  failed
    3       failed  passed  error

L1 per trial: 1/2, 2/2, 1/2 -> mean 2/3; sample variance ((1/6)^2 + (1/3)^2 + (1/6)^2) / 2 = 1/12; standard
error sqrt(1/12 / 3) = 1/6. L2 (c; trial 3 is an error, not scored): 1, 0 -> mean 1/2, variance 1/2, standard
error sqrt(1/2 / 2) = 1/2, n=2. All: 2/3, 2/3, 1/2 -> mean 11/18; variance (1/18^2 + 1/18^2 + (2/18)^2) / 2 =
1/108; standard error sqrt(1/108 / 3) = 1/18. calc at L1 (a): 1, 1, 0 -> mean 2/3, variance 1/3, standard
error 1/3; calc in all (a and c): 1, 1/2, 0 -> mean 1/2, variance 1/4, standard error sqrt(1/12).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.cli import main
from pytest_cua.results.tables import (TablesError, build_tables, demo_steps, load_run, observation_setting,
                                       success)
from pytest_cua.results.tables_markdown import rate_cell, to_markdown

from .conftest import read_summary, task

OUTCOMES = {"a": ("passed", "passed", "failed"), "b": ("failed", "passed", "passed"),
            "c": ("passed", "failed", "error")}
LEVEL = {"a": "L1", "b": "L1", "c": "L2"}
MARKERS = {"a": ["L1", "app_calc", "domain_business"], "b": ["L1", "app_gimp", "domain_design"],
           "c": ["L2", "app_calc", "app_r", "domain_business", "domain_social_sciences"]}


def record(tid: str, trial: int, outcome: str, **extra: Any) -> dict[str, Any]:
    return {"id": tid, "suite": "prosoft", "persona": None, "difficulty": None, "level": LEVEL[tid],
            "template": "t", "markers": MARKERS[tid], "nodeid": f"test_p.py::test_task[{tid}-trial{trial}]",
            "outcome": outcome, "error_kind": "env" if outcome == "error" else None, "score": float(outcome == "passed"),
            "success": outcome == "passed", "steps": 4, "times": {"wall_s": 10.0 * trial}, "tokens_in": 1000,
            "tokens_out": 100, "cost_usd": 0.01, "agent": {"name": "gpt-x"}, "trial": trial, "trials": 3, **extra}


def made_up_run() -> list[dict[str, Any]]:
    return [record(t, n + 1, o) for t, outcomes in OUTCOMES.items() for n, o in enumerate(outcomes)]


def write_summary(path: Path, records: list[dict[str, Any]], run: dict[str, Any] | None = None) -> Path:
    path.write_text(json.dumps({"version": 1, "run": run or {"agent": "gpt-x", "trials": 3}, "tasks": records}))
    return path


def write_demos(folder: Path) -> Path:
    """a: 2 steps (a wait and the done are not steps), b: 3, c: 10."""
    folder.mkdir()
    (folder / "one.json").write_text(json.dumps({"tasks": [
        {"id": "a", "demonstration": {"actions": [{"type": "click", "x": 1, "y": 2}, {"type": "type", "text": "x"},
                                                  {"type": "wait", "seconds": 3}, {"type": "done"}]}},
        {"id": "b", "demonstration": {"actions": [{"type": "press", "key": "a"}] * 2 + [{"type": "hotkey",
                                                                                        "keys": ["ctrl", "s"]}]}}]}))
    (folder / "two.json").write_text(json.dumps([{"id": "c", "demonstration": {
        "actions": [{"type": "type", "text": "x"}] * 10 + [{"type": "wait", "seconds": 1}]}}]))
    return folder


def test_success_is_the_mean_and_standard_error_of_each_trials_rate() -> None:
    tables = build_tables(made_up_run(), {"source": "made up"})
    results = tables["results"]
    assert results["L1"]["trial_rates"] == [0.5, 1.0, 0.5]
    assert results["L1"]["mean"] == pytest.approx(2 / 3, abs=1e-6)
    assert results["L1"]["se"] == pytest.approx(1 / 6, abs=1e-6)
    assert results["L2"]["trial_rates"] == [1.0, 0.0] and results["L2"]["n"] == 2
    assert (results["L2"]["mean"], results["L2"]["se"]) == (0.5, 0.5)
    assert results["all"]["mean"] == pytest.approx(11 / 18, abs=1e-6)
    assert results["all"]["se"] == pytest.approx(1 / 18, abs=1e-6)
    assert {k: results["all"][k] for k in ("tasks", "episodes", "passed", "failed", "errors")} == \
        {"tasks": 3, "episodes": 9, "passed": 5, "failed": 3, "errors": 1}


def test_per_program_and_domain_a_pipeline_counts_in_each_of_its_groups() -> None:
    tables = build_tables(made_up_run(), {"source": "made up"})
    calc = tables["by_program"]["rows"]["calc"]
    assert calc["L1"]["trial_rates"] == [1.0, 1.0, 0.0]
    assert (calc["L1"]["mean"], calc["L1"]["se"]) == (pytest.approx(2 / 3, abs=1e-6), pytest.approx(1 / 3, abs=1e-6))
    assert calc["all"]["trial_rates"] == [1.0, 0.5, 0.0]
    assert calc["all"]["se"] == pytest.approx(math.sqrt(1 / 12), abs=1e-6) and calc["all"]["tasks"] == 2
    assert sorted(tables["by_program"]["rows"]) == ["calc", "gimp", "r"]
    assert tables["by_program"]["rows"]["r"]["L1"]["episodes"] == 0  # c is L2
    domains = tables["by_domain"]["rows"]
    assert sorted(domains) == ["business", "design", "social_sciences"]
    assert domains["business"]["all"]["tasks"] == 2 and domains["design"]["all"]["trial_rates"] == [0.0, 1.0, 1.0]


def test_the_markdown_shows_mean_and_standard_error_in_percent() -> None:
    text = to_markdown(build_tables(made_up_run(), {"source": "made up"}))
    assert "| L1 | 2 | 6 | 4 | 2 | 0 | 0 | 66.7 ± 16.7 | 4.0 |" in text
    assert "| L2 | 1 | 3 | 1 | 1 | 0 | 1 | 50.0 ± 50.0 | 4.0 |" in text
    assert "| **all** | 3 | 9 | 5 | 3 | 0 | 1 | 61.1 ± 5.6 | 4.0 |" in text
    assert "| calc | 2 | 66.7 ± 33.3 | 50.0 ± 50.0 | 50.0 ± 28.9 |" in text
    assert "| r | 1 |  | 50.0 ± 50.0 | 50.0 ± 50.0 |" in text
    assert "mean ± standard error over 3 trials" in text
    assert "| not recorded | 3 |" in text and "do not name their observation setting" in text


def test_one_trial_says_n_1_and_no_scored_episode_a_dash() -> None:
    assert rate_cell(success([record("a", 1, "passed"), record("b", 1, "failed")])) == "50.0 (n=1)"
    assert rate_cell(success([record("c", 1, "error")])) == "-"
    text = to_markdown(build_tables([record("a", 1, "passed")], {"source": "one"}))
    assert "| L1 | 1 | 1 | 1 | 0 | 0 | 0 | 100.0 (n=1) | 4.0 |" in text
    assert "one trial (n=1): no standard error" in text


def test_table_2_steps_from_demonstrations_seconds_from_the_replay_runs_passed_episodes(tmp_path: Path) -> None:
    steps = demo_steps([write_demos(tmp_path / "tasks")])
    assert steps == {"a": 2, "b": 3, "c": 10}
    replay = [record("a", 1, "passed", times={"wall_s": 10.0}), record("b", 1, "passed", times={"wall_s": 20.0}),
              record("b", 2, "failed", times={"wall_s": 100.0}), record("c", 1, "passed", times={"wall_s": 60.0})]
    table = build_tables(made_up_run(), {"source": "x"}, steps=steps, replay=replay)["task_table"]
    assert {lv: (t["tasks"], t["demo_steps"], t["replay_s"]) for lv, t in table.items()} == \
        {"L1": (2, 2.5, 15.0), "L2": (1, 10.0, 60.0), "all": (3, 5.0, 30.0)}
    assert (table["L1"]["paper_steps"], table["L1"]["paper_s"]) == (5.1, 14.8)
    assert (table["L2"]["paper_steps"], table["L2"]["paper_s"]) == (20.4, 83.1)
    text = to_markdown(build_tables(made_up_run(), {"source": "x"}, steps=steps, replay=replay))
    assert "| L1 | 2 | 2.5 | 15.0 | 5.1 | 14.8 |" in text
    assert "| L2 | 1 | 10.0 | 60.0 | 20.4 | 83.1 |" in text


def test_a_replay_run_is_its_own_source_of_seconds() -> None:
    records = [record("a", 1, "passed", agent={"name": "replay"}, times={"wall_s": 12.0})]
    assert build_tables(records, {"source": "r"})["task_table"]["L1"]["replay_s"] == 12.0
    assert build_tables(made_up_run(), {"source": "m"})["task_table"]["L1"]["replay_s"] is None


def test_tokens_and_cost_per_level() -> None:
    usage = build_tables(made_up_run(), {"source": "x"})["usage"]
    assert usage["L1"] == {"episodes": 6, "tokens_in": 6000, "tokens_out": 600, "cost_usd": 0.06,
                           "tokens_per_episode": 1100.0, "cost_per_episode": 0.01}
    assert usage["all"]["tokens_in"] == 9000 and usage["all"]["cost_usd"] == 0.09


def test_observation_setting_is_read_where_the_record_or_run_names_it() -> None:
    base = record("a", 1, "passed")
    assert observation_setting({**base, "observation": ["screenshot", "axtree"]}, {}) == "screenshot+axtree"
    assert observation_setting({**base, "agent": {"name": "m", "observation_setting": "som"}}, {}) == "som"
    model = {"name": "m", "observation": {"setting": "som+screenshot", "kinds": ["som", "screenshot"]}}
    assert observation_setting({**base, "agent": model}, {}) == "som+screenshot"  # a model agent's describe()
    assert observation_setting(base, {"observation": "screenshot"}) == "screenshot"
    assert observation_setting(base, {"observe": "axtree+screenshot"}) == "axtree+screenshot"  # run.json's
    assert observation_setting(base, {}) is None
    records = [{**base, "observation": "som"}, {**record("b", 1, "failed"), "observation": "screenshot"}]
    rows = build_tables(records, {"source": "x"})["by_observation"]["rows"]
    assert {k: v["all"]["mean"] for k, v in rows.items()} == {"som": 1.0, "screenshot": 0.0}


def test_the_command_writes_markdown_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = write_summary(tmp_path / "summary.json", made_up_run())
    demos = write_demos(tmp_path / "tasks")
    md, js = tmp_path / "out" / "t.md", tmp_path / "out" / "t.json"
    assert main(["report", "--tables", str(summary), "--demos", str(demos), "--markdown", str(md),
                 "--json", str(js)]) == 0
    assert "66.7 ± 16.7" in md.read_text()
    assert json.loads(js.read_text())["task_table"]["L1"]["demo_steps"] == 2.5
    assert main(["report", "--tables", str(tmp_path)]) == 0  # the reports folder holding summary.json
    assert "| **all** | 3 | 9 | 5 | 3 | 0 | 1 | 61.1 ± 5.6 | 4.0 |" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--demos", "x"], "--demos: only with --tables RUN"),
    (["--tables", "s.json", "--compare", "a", "b"], "--tables and --compare: one at a time"),
    (["--tables", "s.json", "--html", "x.html"], "--html: only with --compare"),
    (["--tables", "s.json", "-o", "out"], "with --tables use --markdown / --json"),
])
def test_misused_options_are_usage_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report", *args])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_unusable_input_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--tables", str(tmp_path / "none.json")]) == 2
    assert f"{tmp_path / 'none.json'}: no such file" in capsys.readouterr().err
    bad = tmp_path / "tasks"
    bad.mkdir()
    (bad / "t.json").write_text("{nope")
    summary = write_summary(tmp_path / "summary.json", made_up_run())
    assert main(["report", "--tables", str(summary), "--demos", str(bad)]) == 2
    assert f"{bad / 't.json'}: not valid JSON" in capsys.readouterr().err
    with pytest.raises(TablesError, match="no task record"):
        build_tables([], {"source": "empty"})
    (tmp_path / "loose" / "records").mkdir(parents=True)
    with pytest.raises(TablesError, match="not a run folder"):
        load_run(tmp_path / "loose")


SUITE_MARKERS = '''
class Marked(Suite):
    def markers(self, task):
        return ["area_" + task.id[0], "odd name-" + task.id]

CUA_SUITE = Marked("kv", environment=KV, templates={t.name: t for t in TEMPLATES})
'''


def test_a_suites_own_markers_select_tasks_and_reach_the_records_and_tables(pytester: pytest.Pytester,
                                                                           kv_suite: Any) -> None:
    (pytester.path / "test_kv.py").write_text((pytester.path / "test_kv.py").read_text().replace(
        "CUA_SUITE = Suite(", SUITE_MARKERS + "\nUNUSED = Suite(", 1))
    kv_suite("t.json", [task("x1", level="L1"), task("y1", level="L2", keys={"a": "2"})])
    collected = pytester.runpytest("--collect-only", "-q", "--strict-markers", "-m", "area_x")
    assert [ln for ln in collected.outlines if "::" in ln] == ["test_kv.py::test_task[x1]"]
    result = pytester.runpytest("-p", "no:cacheprovider", "--agent", "replay", "--cua-trials", "2")
    result.assert_outcomes(passed=4)
    records = read_summary(pytester)["tasks"]
    assert {r["id"]: r["markers"] for r in records if r["trial"] == 1} == {
        "x1": ["L1", "area_x", "odd_name_x1", "template_set_keys"],
        "y1": ["L2", "area_y", "odd_name_y1", "template_set_keys"]}
    records_run, run = load_run(pytester.path / "reports")
    assert build_tables(records_run, run)["results"]["all"]["trial_rates"] == [1.0, 1.0]
    run_folder = next((pytester.path / "reports" / "runs").iterdir())
    assert len(load_run(run_folder)[0]) == 4  # a run folder's records (no summary needed)
