"""Allure results of a suite run end to end: an inner pytest (pytester) with --alluredir, then the
*-result.json files are read: one step per agent step with its screenshot, milestones with weights, labels,
the instruction as description, the trace of the failed task only, and no secret anywhere."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

SESSION = "00D5g000001QwEr!AR8AQallureSessionSecret_77"

SUITE = '''
from pytest_cua.envs.browser import create
from pytest_cua.tasks.scoring import milestone
from pytest_cua.tasks.suite import Suite, Template


class FillName(Template):
    name = "fill_name"

    def evaluate(self, ctx):
        with milestone("name is set", 0.6):
            value = ctx.env.page.input_value("#name")
            assert value == ctx.truth["name"], f"name is {value!r}"
        with milestone("terms accepted", 0.4):
            assert ctx.env.page.is_checked("#agree"), "the checkbox is not checked"


CUA_SUITE = Suite("web", environment=create, templates={"fill_name": FillName()})


def test_task(cua_result):
    cua_result.check()
'''


def task(tid: str, name: str, actions: list[dict]) -> dict:
    return {"id": tid, "instruction": f"Set the account name to {name} and accept the terms",
            "persona": "sales", "difficulty": "easy", "level": "L1", "template": "fill_name",
            "ground_truth": {"name": name}, "demonstration": {"actions": actions}}


def test_allure_results_of_a_suite_run(pytester: pytest.Pytester, pages_url: str, chromium_available: None) -> None:
    pytester.makepyfile(test_web=SUITE)
    (pytester.path / "tasks").mkdir()
    tasks = [
        task("web-pass", "Globex", [{"type": "fill", "target": "e1", "text": "Globex"},
                                    {"type": "check", "target": "e5"}]),
        task("web-fail", "Initech", [{"type": "fill", "target": "e1", "text": "Wrong"}]),
    ]
    (pytester.path / "tasks" / "web.json").write_text(json.dumps(tasks))
    results = pytester.path / "allure-results"
    from pytest_cua.envs.browser import find_ffmpeg

    video = ["--cua-video"] if find_ffmpeg() else []  # the screencast fallback needs an ffmpeg
    run = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--agent", "replay", f"--alluredir={results}",
        f"--cua-start-url={pages_url}actions.html?sid={SESSION}", "--cua-trace", "retain-on-failure",
        "--cua-observe", "screenshot,axtree", "--cua-viewport", "1024x700", *video, timeout=240)
    run.assert_outcomes(passed=1, failed=1)

    by_name = {}
    for f in results.glob("*-result.json"):
        data = json.loads(f.read_text())
        by_name[data["name"]] = data
    assert set(by_name) == {"test_task[web-pass]", "test_task[web-fail]"}
    passed, failed = by_name["test_task[web-pass]"], by_name["test_task[web-fail]"]
    assert passed["status"] == "passed" and failed["status"] == "failed"

    labels = {(label["name"], label["value"]) for label in passed["labels"]}
    assert {("suite", "web"), ("persona", "sales"), ("difficulty", "easy"), ("level", "L1"),
            ("template", "fill_name"), ("agent", "replay"), ("environment", "browser")} <= labels
    assert passed["description"] == "Set the account name to Globex and accept the terms"
    assert passed["parameters"] == [{"name": "cua_task", "value": "'web-pass'"}]

    steps = passed["steps"]
    names = [s["name"] for s in steps]
    assert names[0] == "step 0: fill(target='e1', text='Globex')"
    assert names[1] == "step 1: check(target='e5')"
    assert names[2].startswith("step 2: done()")
    group = next(s for s in steps if s["name"].startswith("milestones:"))
    assert group["name"] == "milestones: 2 of 2 held, score 1.00 of 1.00" and group["status"] == "passed"
    assert [s["name"] for s in group["steps"]] == ["milestone: name is set (weight 0.6): passed",
                                                   "milestone: terms accepted (weight 0.4): passed"]
    table = next(a for a in passed["attachments"] if a["name"] == "milestones")
    assert table["type"] == "text/html"
    html = (results / table["source"]).read_text()
    assert "<b>score 1.00 of 1.00</b>" in html and "<td>name is set</td><td>0.60</td>" in html
    first = steps[0]
    attachments = {a["name"]: a for a in first["attachments"]}
    assert attachments["screenshot"]["type"] == "image/png"
    assert (results / attachments["screenshot"]["source"]).read_bytes()[:4] == b"\x89PNG"
    assert "reasoning" in attachments and "actions" in attachments and "observation" in attachments
    actions = json.loads((results / attachments["actions"]["source"]).read_text())
    assert actions["actions"] == [{"type": "fill", "target": "e1", "text": "Globex"}]
    assert actions["results"][0]["ok"] is True

    failed_group = next(s for s in failed["steps"] if s["name"].startswith("milestones:"))
    assert failed_group["name"] == "milestones: 0 of 2 held, score 0.00 of 1.00"
    assert failed_group["status"] == "failed"
    failed_names = {s["name"]: s for s in failed_group["steps"]}
    milestone = failed_names["milestone: name is set (weight 0.6): failed"]
    assert milestone["status"] == "failed" and "name is 'Wrong'" in milestone["statusDetails"]["message"]
    trace = [a for a in failed.get("attachments", []) if a["name"] == "playwright-trace.zip"]
    assert len(trace) == 1 and (results / trace[0]["source"]).stat().st_size > 1000
    assert not [a for a in passed.get("attachments", []) if a["name"] == "playwright-trace.zip"]
    if video:
        for data in (passed, failed):
            videos = [a for a in data.get("attachments", []) if a["name"] == "video"]
            assert len(videos) == 1 and videos[0]["type"] == "video/webm"
            assert (results / videos[0]["source"]).read_bytes()[:4] == b"\x1aE\xdf\xa3"  # WebM/Matroska

    # no secret in any Allure result, trajectory or artifact (the start URL carried a session id)
    checked = 0
    for root in (results, pytester.path / "reports" / "trajectories", pytester.path / "reports" / "artifacts"):
        for path in root.rglob("*"):
            if path.is_file():
                assert SESSION.encode() not in path.read_bytes(), path
                checked += 1
    assert checked > 10
