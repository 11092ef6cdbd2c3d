"""The rubric judge (``pytest_cua.episode.judge``) and partial scoring, without docker:

- a judge answer is read defensively: JSON as a whole, in a code fence or inside prose, items by id or in
  order, pass/fail as booleans or words; anything else is a ``JudgeError`` naming the judge model;
- a skipped milestone keeps its weight, earns nothing and is never met: the card is partially scored, not
  passed; a failed constraint makes it a plain failure;
- rubric milestones through the model providers against fake vendor servers (OpenAI Responses, chat
  completions, Anthropic Messages): the judge's reasons are the milestones' details, the image is sent, its
  usage and cost are kept per task and charged to the run's cost ledger as ``judge:<task id>``;
- without ``--cua-judge`` (an inner pytest run of a small suite) the task's outcome is ``partial``: shown as
  PARTIAL, never passed, counted apart, with the reason in the record and the terminal.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest
from PIL import Image

from pytest_cua.episode import judge as judge_module
from pytest_cua.episode.judge import NO_JUDGE, Judge, JudgeError, parse_verdicts, rubric_checks
from pytest_cua.tasks.scoring import EvaluatorCrash, MilestoneSkipped, ScoreCard, active_card
from pytest_cua.tasks.suite import EvalContext
from pytest_cua.tasks.task import Task
from pytest_cua.testing.fake_models import FakeModelServer, JudgePolicy

KEY = "sk-test-judge-0123456789"
ITEMS = ["The title is prominent.", "The address is below the name."]


# --- reading answers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '{"items": [{"id": 1, "pass": true, "reason": "big title"}, {"id": 2, "pass": false, "reason": "no address"}]}',
    'Here is my grading:\n```json\n{"items": [{"id": 1, "pass": "pass", "reason": "big title"},'
    ' {"id": 2, "pass": "FAIL", "reason": "no address"}]}\n```',
    'Sure. {"items": [{"id": 2, "verdict": "no", "reason": "no address"}, {"id": "1", "passed": "yes",'
    ' "reason": "big title"}]} Hope this helps.',
    '[{"pass": true, "reason": "big title"}, {"pass": false, "reason": "no address"}]',
    '{"items": {"1": {"pass": true, "reason": "big title"}, "2": {"pass": false, "reason": "no address"}}}',
])
def test_answers_are_read_defensively(text: str) -> None:
    verdicts = parse_verdicts(text, 2, judge="judge-x")
    assert [(v.passed, v.reason) for v in verdicts] == [(True, "big title"), (False, "no address")]


@pytest.mark.parametrize("text, why", [
    ("The title looks great and the address is fine.", "no JSON object"),
    ('{"items": [{"id": 1, "pass": true}]}', "no verdict for rubric item(s) 2"),
    ('{"items": [{"id": 1, "pass": "maybe"}, {"id": 2, "pass": true}]}', "neither pass nor fail"),
    ('{"items": [{"id": 1, "pass": true}, {"id": 1, "pass": false}]}', "judged twice"),
    ('{"items": [{"id": 3, "pass": true}, {"id": 1, "pass": true}]}', "no rubric item 3"),
    ('{"items": "all good"}', "'items' is not a list"),
    ('{"items": [{"id": 1, "pass": 1}, {"id": 2, "pass": true}]}', "neither pass nor fail"),
])
def test_unusable_answer_names_the_judge(text: str, why: str) -> None:
    with pytest.raises(JudgeError) as info:
        parse_verdicts(text, 2, judge="judge-x")
    assert "judge judge-x" in str(info.value) and why in str(info.value)
    assert info.value.error_kind == "evaluator"


# --- partial scoring ----------------------------------------------------------------------------------------

def _card(constraint_holds: bool) -> ScoreCard:
    card = ScoreCard(task_id="t", template="creation")
    with card.milestone("file saved", 0.5):
        assert constraint_holds, "not saved"
    for name in ("rubric: a", "rubric: b"):
        with card.milestone(name, 0.25):
            raise MilestoneSkipped(NO_JUDGE)
    return card


def test_skipped_milestones_keep_their_weight_and_earn_nothing() -> None:
    card = _card(True)
    card.check_complete()  # the weights still sum to 1: nothing vanished
    assert card.score == 0.5 and card.judged_weight == 0.5
    assert card.partially_scored and not card.success
    assert [r.to_dict().get("skipped") for r in card.results] == [None, True, True]
    table = card.table()
    assert "skip" in table and "skipped: no --cua-judge given" in table and "partially scored" in table


def test_a_failed_constraint_is_a_failure_not_partial() -> None:
    card = _card(False)
    assert not card.partially_scored and not card.success and card.score == 0.0


# --- the judge through the providers ------------------------------------------------------------------------

def png(color: tuple[int, int, int] = (20, 40, 200), size: tuple[int, int] = (600, 400)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(name, KEY)


@pytest.fixture
def fake(keys: None) -> Iterator[tuple[FakeModelServer, JudgePolicy]]:
    policy = JudgePolicy(lambda n, text: n == 1, reason="looked at the image")
    with FakeModelServer(policy, api_key=KEY) as server:
        yield server, policy


@pytest.fixture(autouse=True)
def no_judge_left() -> Iterator[None]:
    yield
    judge_module._current = None
    judge_module._usage.clear()


def make_judge(alias: str, server: FakeModelServer, tmp_path: Path | None = None, max_cost: float | None = None) -> Judge:
    url = server.anthropic_base_url if alias.startswith("claude") else server.openai_base_url
    found = Judge.create(alias, base_url=url, worker_id="gw3",
                         ledger_path=tmp_path / "cost.json" if tmp_path else None, max_cost=max_cost)
    judge_module._current = found
    return found


def evaluate(items: list[str], render: Any, task_id: str = "l4-task") -> ScoreCard:
    task = Task(id=task_id, suite="prosoft", instruction="Design a letterhead", template="creation")
    card = ScoreCard(task_id=task_id, template="creation")
    ctx = EvalContext(task=task, env=None, card=card)  # type: ignore[arg-type]
    with active_card(card):
        for label, check in rubric_checks(ctx, items, render, context="a rendering"):
            with card.milestone(label, 1 / len(items)):
                check()
    return card


@pytest.mark.parametrize("alias", ["openai-compatible:judge-vlm", "gpt-5.5", "claude-sonnet-5"])
def test_rubric_judged_through_each_protocol(alias: str, fake: tuple[FakeModelServer, JudgePolicy],
                                             tmp_path: Path) -> None:
    server, policy = fake
    make_judge(alias, server, tmp_path, max_cost=10.0)
    card = evaluate(ITEMS, lambda: png())
    assert [(r.name, r.passed) for r in card.results] == [(f"rubric: {ITEMS[0]}", True),
                                                          (f"rubric: {ITEMS[1]}", False)]
    assert card.results[0].detail == f"judge {alias}: looked at the image: item 1 met"
    assert card.results[1].detail == f"judge {alias}: looked at the image: item 2 not met"
    assert len(server.requests) == 1, "all items are judged in one call"
    request = server.requests[0]
    assert request.last_image is not None and request.image_size() == (600, 400)
    assert "Design a letterhead" in request.text and policy.items == [ITEMS]
    assert not server.violations, server.violations
    used = judge_module.take_usage("l4-task")
    assert used is not None and used["model"] == alias and used["usage"]["tokens_in"] > 0
    assert judge_module.take_usage("l4-task") is None  # taken once, into the task's record
    ledger = json.loads((tmp_path / "cost.json").read_text()) if (tmp_path / "cost.json").exists() else None
    if used["cost_usd"] > 0:  # a priced model (gpt-5.5, claude-sonnet-5): charged to the run's ledger as judge
        assert ledger is not None and list(ledger["tasks"]) == ["judge:l4-task"]
        assert ledger["tasks"]["judge:l4-task"] == pytest.approx(used["cost_usd"], abs=1e-6)
        assert list(ledger["workers"]) == ["gw3"]
    else:
        assert ledger is None


def test_malformed_answer_is_an_evaluator_error_naming_the_judge(keys: None) -> None:
    with FakeModelServer(JudgePolicy(raw="Looks good to me!"), api_key=KEY) as server:
        make_judge("openai-compatible:judge-vlm", server)
        with pytest.raises(EvaluatorCrash) as info:
            evaluate(ITEMS, lambda: png())
    assert "judge openai-compatible:judge-vlm" in str(info.value) and "no JSON object" in str(info.value)
    assert info.value.error_kind == "evaluator"


def test_unreachable_judge_is_an_evaluator_error(keys: None) -> None:
    with FakeModelServer(JudgePolicy(), api_key=KEY) as server:
        found = make_judge("openai-compatible:judge-vlm", server)
        server.fail_next(500, times=50)
        adapter = found._build()
        adapter.client_settings.retry = type(adapter.client_settings.retry)(max_attempts=2, budget_s=1.0, base_s=0.01)
        adapter.client_settings.sleep = lambda s: None
        found._adapter = adapter
        with pytest.raises(EvaluatorCrash) as info:
            evaluate(ITEMS, lambda: png())
    assert "judge openai-compatible:judge-vlm: the call failed" in str(info.value)


def test_without_judge_rubric_is_skipped_and_nothing_rendered() -> None:
    rendered = []
    card = evaluate(ITEMS, lambda: rendered.append(1) or png())
    assert not rendered
    assert all(r.skipped and r.detail == f"skipped: {NO_JUDGE}" for r in card.results)


def test_missing_artifact_fails_every_item_without_calling_the_judge(fake: tuple[FakeModelServer, JudgePolicy]) -> None:
    server, _ = fake
    make_judge("openai-compatible:judge-vlm", server)

    def render() -> bytes:
        raise AssertionError("artifact 'letterhead' was not produced")
    card = evaluate(ITEMS, render)
    assert [r.passed for r in card.results] == [False, False]
    assert all("was not produced" in r.detail for r in card.results) and not server.requests


def test_judge_refused_once_the_cost_cap_is_reached(fake: tuple[FakeModelServer, JudgePolicy], tmp_path: Path) -> None:
    from pytest_cua.agents.models.ledger import CostLedger

    server, _ = fake
    CostLedger(tmp_path / "cost.json", 1.0).add(1.5, task_id="earlier", worker="gw0")
    make_judge("gpt-5.5", server, tmp_path, max_cost=1.0)
    card = evaluate(ITEMS, lambda: png())
    assert card.partially_scored and not server.requests
    assert "cost cap is reached" in card.results[0].detail


def test_unknown_judge_is_a_value_error(keys: None) -> None:
    with pytest.raises(ValueError, match="unknown agent 'no-such-model'"):
        Judge.create("no-such-model")
    with pytest.raises(ValueError, match="not a model"):
        Judge.create("noop")
    with pytest.raises(ValueError, match="--cua-judge-url"):
        Judge.create("openai-compatible:judge-vlm")


# --- the outcome of an inner run -------------------------------------------------------------------------------

RUBRIC_SUITE = '''
from pytest_cua.episode.judge import rubric_checks
from pytest_cua.tasks.scoring import milestone
from pytest_cua.tasks.suite import Suite, Template

class Creation(Template):
    name = "creation"
    def evaluate(self, ctx):
        checks = [("key a set", lambda: None if ctx.env.data.get("a") == "1" else (_ for _ in ()).throw(
            AssertionError("a is not set")))]
        checks += rubric_checks(ctx, ctx.truth["rubric"], lambda: PNG)
        for label, check in checks:
            with milestone(label, 1 / len(checks)):
                check()

import io
from PIL import Image
_buf = io.BytesIO(); Image.new("RGB", (64, 64), (200, 0, 0)).save(_buf, format="PNG"); PNG = _buf.getvalue()
'''


@pytest.fixture
def rubric_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    from tests.core.conftest import KV_SUITE

    source = KV_SUITE.replace("TEMPLATES = (", RUBRIC_SUITE + "\nTEMPLATES = (Creation(), ")
    assert "Creation()" in source
    pytester.makepyfile(test_kv=source)
    (pytester.path / "tasks").mkdir()
    task = {"id": "logo", "instruction": "draw a logo", "template": "creation",
            "ground_truth": {"rubric": ["It is red.", "It is square."]},
            "demonstration": {"actions": [{"type": "fill", "target": "a", "text": "1"}]}}
    (pytester.path / "tasks" / "l4.json").write_text(json.dumps([task]))
    return pytester


# the option's module as a plugin: harmless once pytest_cua.plugin registers the options itself
JUDGE_PLUGIN = ("-p", "pytest_cua.episode.judge")


def test_plugin_registers_the_judge_options(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--cua-judge=MODEL*", "*--cua-judge-url=URL*"])


def _records(pytester: pytest.Pytester) -> dict[str, Any]:
    summary = json.loads((pytester.path / "reports" / "summary.json").read_text())
    return {r["id"]: r for r in summary["tasks"]}


def test_inner_run_without_judge_is_partially_scored(rubric_suite: pytest.Pytester) -> None:
    result = rubric_suite.runpytest_subprocess("--agent", "replay", "-p", "no:cacheprovider", *JUDGE_PLUGIN, "-v")
    result.stdout.fnmatch_lines(["*test_task?logo? PARTIAL*", "*partially scored (not a pass): 1 task(s)*",
                                 "*logo: score 0.33, 2 milestone(s) of weight 0.67 skipped: no --cua-judge given*",
                                 "*1 partial*"])
    assert result.ret != 0, "a partially scored task is not a pass"
    record = _records(rubric_suite)["logo"]
    assert record["outcome"] == "partial" and not record["success"] and record["score"] == pytest.approx(1 / 3)
    assert record["unscored"]["why"] == ["skipped: no --cua-judge given"]
    assert [m.get("skipped", False) for m in record["milestones"]] == [False, True, True]
    assert record["judge"] is None


@pytest.mark.parametrize("verdict, outcome", [(True, "passed"), (False, "failed")])
def test_inner_run_with_fake_judge(rubric_suite: pytest.Pytester, verdict: bool, outcome: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", KEY)
    with FakeModelServer(JudgePolicy(verdict, reason="checked the colour"), api_key=KEY) as server:
        result = rubric_suite.runpytest_subprocess(
            "--agent", "replay", "-p", "no:cacheprovider", *JUDGE_PLUGIN, "--cua-judge", "openai-compatible:judge-vlm",
            "--cua-judge-url", server.openai_base_url)
    record = _records(rubric_suite)["logo"]
    assert record["outcome"] == outcome, result.stdout.str()[-3000:]
    assert record["judge"]["model"] == "openai-compatible:judge-vlm" and record["judge"]["usage"]["requests"] == 1
    details = [m["detail"] for m in record["milestones"][1:]]
    word = "met" if verdict else "not met"
    assert details == [f"judge openai-compatible:judge-vlm: checked the colour: item {i} {word}" for i in (1, 2)]
    if not verdict:
        result.stdout.fnmatch_lines(["*checked the colour: item 1 not met*"])
    assert os.environ.get("OPENAI_COMPATIBLE_API_KEY") == KEY
