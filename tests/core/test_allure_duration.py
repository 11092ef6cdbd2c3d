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
