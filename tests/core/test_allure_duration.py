"""Allure shows a task's real duration: the episode runs in fixture setup, and allure-pytest starts a test's
clock at its call, so without pytest-cua's correction a task whose episode took 1.2 s would show as a few
milliseconds. An inner pytest run with --alluredir; its *-result.json files are read."""

from __future__ import annotations

import json

import pytest

from .conftest import records_by_id, task

pytest.importorskip("allure_pytest")


def results_by_name(folder) -> dict:
    out = {}
    for path in folder.glob("*-result.json"):
        data = json.loads(path.read_text())
        out[data["name"]] = data
    return out


def test_the_allure_duration_covers_the_episode(pytester: pytest.Pytester, kv_suite) -> None:
    wait = {"type": "wait", "seconds": 1.2}
    slow = task("slow", {"a": "1"})
    slow["demonstration"]["actions"].insert(0, wait)
    kv_suite("tasks.json", [slow, task("quick", {"b": "2"})])
    folder = pytester.path / "allure-results"
    pytester.runpytest("-p", "no:cacheprovider", "--agent", "replay", f"--alluredir={folder}").assert_outcomes(passed=2)
    records, results = records_by_id(pytester), results_by_name(folder)
    episode_ms = records["slow"]["times"]["wall_s"] * 1000
    assert episode_ms >= 1200
    slow_result = results["test_task[slow]"]
    assert slow_result["stop"] - slow_result["start"] >= episode_ms
    quick_result = results["test_task[quick]"]
    assert quick_result["stop"] - quick_result["start"] < slow_result["stop"] - slow_result["start"]
    # the setup fixtures (where the episode ran) fall inside the test's time span
    assert slow_result["start"] <= slow_result["steps"][0]["start"]


def test_each_agent_step_carries_its_real_start_and_duration(pytester: pytest.Pytester, kv_suite) -> None:
    """The steps are written after the episode; each still shows when it ran and how long: the 1.2 s wait is
    a 1.2 s step, and the steps follow each other in time."""
    slow = task("slow", {"a": "1"})
    slow["demonstration"]["actions"].insert(0, {"type": "wait", "seconds": 1.2})
    kv_suite("tasks.json", [slow])
    folder = pytester.path / "allure-results"
    pytester.runpytest("-p", "no:cacheprovider", "--agent", "replay", f"--alluredir={folder}").assert_outcomes(passed=1)
    result = results_by_name(folder)["test_task[slow]"]
    steps = [s for s in result["steps"] if s["name"].startswith("step ")]
    assert len(steps) >= 2, [s["name"] for s in result["steps"]]
    wait, after = steps[0], steps[1]
    assert "wait" in wait["name"] and 1200 <= wait["stop"] - wait["start"] < 5000, wait
    # in order and inside the test: the next step starts once the wait is over (written together, they would not)
    assert wait["start"] + 1200 <= after["start"] + 5 and result["start"] <= wait["start"]


def test_an_errored_setup_shows_its_duration(pytester: pytest.Pytester, kv_suite) -> None:
    """A task whose setup fails (here the evaluator crashes after a 1 s episode) has no call to set its
    times: its duration still covers the setup."""
    crash = task("crashes", {"a": "1"}, template="crashing")
    crash["demonstration"]["actions"].insert(0, {"type": "wait", "seconds": 1.0})
    kv_suite("tasks.json", [crash])
    folder = pytester.path / "allure-results"
    pytester.runpytest("-p", "no:cacheprovider", "--agent", "replay", f"--alluredir={folder}").assert_outcomes(errors=1)
    result = results_by_name(folder)["test_task[crashes]"]
    assert result["status"] == "broken"
    assert result["stop"] - result["start"] >= records_by_id(pytester)["crashes"]["times"]["wall_s"] * 1000 >= 1000


def test_an_unrelated_test_keeps_allure_pytest_s_times(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain='''
import time, pytest

@pytest.fixture
def slow():
    time.sleep(0.5)

def test_plain(slow):
    pass
''')
    folder = pytester.path / "allure-results"
    pytester.runpytest("-p", "no:cacheprovider", f"--alluredir={folder}").assert_outcomes(passed=1)
    result = results_by_name(folder)["test_plain"]
    assert result["stop"] - result["start"] < 400  # allure-pytest's own call-only span, untouched


def test_private_fixtures_are_not_in_the_set_up_list(pytester: pytest.Pytester, kv_suite) -> None:
    kv_suite("tasks.json", [task("one", {"a": "1"})])
    folder = pytester.path / "allure-results"
    pytester.runpytest("-p", "no:cacheprovider", "--agent", "replay", f"--alluredir={folder}").assert_outcomes(passed=1)
    shown = set()
    for path in folder.glob("*-container.json"):
        data = json.loads(path.read_text())
        shown.update(f["name"] for f in data.get("befores", []) + data.get("afters", []))
    assert {"cua_env", "cua_agent", "cua_episode"} <= shown, shown
    assert not [name for name in shown if name.startswith("_cua_")], shown
