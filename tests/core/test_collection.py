"""Collection and selection: one test per task, ids, order, markers, -k and -m, broken task files."""

from __future__ import annotations

import pytest

from .conftest import KV_SUITE, task

KV_SUITE_WITH_BAD_TEMPLATE = KV_SUITE.replace("TEMPLATES = (", '''class Half(SetKeys):
    name = "half"
    milestones = {"a": 1.0, "b": 0}

TEMPLATES = (Half(), ''')


def test_one_test_per_task_sorted_by_id(pytester, kv_suite):
    kv_suite("b.json", [task("sales_002"), task("admin_001")])
    kv_suite("a.json", task("service_010"))
    result = pytester.runpytest("--collect-only", "-q")
    lines = [ln for ln in result.outlines if "::" in ln]
    assert lines == ["test_kv.py::test_task[admin_001]", "test_kv.py::test_task[sales_002]",
                     "test_kv.py::test_task[service_010]"]


def test_select_by_markers_and_keyword(pytester, kv_suite):
    kv_suite("t.json", [task("a1", persona="sales", difficulty="hard"),
                        task("a2", persona="sales", difficulty="easy"),
                        task("a3", persona="admin", difficulty="hard", level="L2"),
                        task("a4", persona="service", template="set_keys")])
    def selected(*args):
        res = pytester.runpytest("--collect-only", "-q", "--strict-markers", *args)
        return sorted(ln.split("[")[1].rstrip("]") for ln in res.outlines if "::" in ln)
    assert selected("-m", "sales and hard") == ["a1"]
    assert selected("-m", "hard") == ["a1", "a3"]
    assert selected("-m", "L2") == ["a3"]
    assert selected("-m", "not sales") == ["a3", "a4"]
    assert selected("-m", "template_set_keys") == ["a1", "a2", "a3", "a4"]
    assert selected("-k", "a2 or a4") == ["a2", "a4"]


def test_markers_are_documented(pytester):
    result = pytester.runpytest("--markers")
    text = result.stdout.str()
    for name in ("@pytest.mark.sales", "@pytest.mark.hard", "@pytest.mark.L3", "@pytest.mark.template_NAME"):
        assert name in text


def test_options_have_their_own_group(pytester):
    text = pytester.runpytest("--help").stdout.str()
    assert "computer-use agent benchmarks (pytest-cua):" in text
    assert "--agent=NAME" in text and "--cua-time-limit=SECONDS" in text


@pytest.mark.parametrize("content, expected", [
    ("{not json", "tasks/bad.json: is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
    ('[{"id": "x1"}]', "tasks/bad.json: task 'x1': field 'instruction': must be a non-empty string, got None"),
    ('[{"id": "x1", "instruction": "i", "difficulty": "extreme"}]',
     "tasks/bad.json: task 'x1': field 'difficulty': must be one of easy, medium, hard, got 'extreme'"),
    ('[{"id": "has space", "instruction": "i"}]', "tasks/bad.json: task '#0': field 'id': must be a non-empty string"),
    ('[{"id": "x1", "instruction": "i", "limits": {"max_steps": 0}}]',
     "tasks/bad.json: task 'x1': field 'limits.max_steps': must be a whole number >= 1, got 0"),
    ('[{"id": "x1", "instruction": "i", "demonstration": {"actions": [{"type": "teleport"}]}}]',
     "tasks/bad.json: task 'x1': field 'demonstration.actions': actions[0]: unknown action type 'teleport'"),
    ('[{"id": "x1", "instruction": "i", "ground_truth": [1]}]',
     "tasks/bad.json: task 'x1': field 'ground_truth': must be an object, got list"),
    ('[{"id": "x1", "instructon": "i"}]',
     "tasks/bad.json: task 'x1': field 'instructon': unknown field 'instructon' (did you mean 'instruction'?; known: "
     "demonstration, difficulty, ground_truth, id, instruction, knowledge, level, limits, persona, tags, template)"),
    ('[{"id": "x1", "instruction": "i", "demonstration": {"action": []}}]',
     "tasks/bad.json: task 'x1': field 'demonstration.action': unknown field 'action' (did you mean 'actions'?; "
     "known: actions, text)"),
    ('[{"id": "x1", "instruction": "i", "limits": {"max_step": 3}}]',
     "tasks/bad.json: task 'x1': field 'limits.max_step': unknown limit 'max_step' (did you mean 'max_steps'?; "
     "known: max_steps, time_limit_s)"),
    ('[{"id": "x1", "instruction": "i", "template": "declared", "ground_truth": {"keys": {}, "key": 1}}]',
     "tasks/bad.json: task 'x1': field 'ground_truth.key': unknown ground_truth key of template 'declared': 'key' "
     "(did you mean 'keys'?; known: keys)"),
])
def test_broken_task_file_is_a_collection_error_naming_file_task_field(pytester, kv_suite, content, expected):
    kv_suite("good.json", [task("g1"), task("g2")])
    kv_suite("bad.json", content)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    assert expected in result.stdout.str()
    assert "Interrupted: 1 error during collection" in result.stdout.str()
    # nothing is dropped silently: the good file's tasks run when the user asks to go on
    result = pytester.runpytest("--continue-on-collection-errors", "--agent", "oracle")
    result.assert_outcomes(passed=2, errors=1)


def test_a_suite_declares_its_own_task_fields(pytester, kv_suite, monkeypatch):
    kv_suite("t.json", [task("f1", apps=["calc"]), task("f2")])
    result = pytester.runpytest("--collect-only", "-q")
    assert "tasks/t.json: task 'f1': field 'apps': unknown field 'apps' (known: demonstration," in result.stdout.str()
    monkeypatch.setenv("KV_TASK_FIELDS", "apps")
    result = pytester.runpytest("--collect-only", "-q", "-m", "app_calc")  # a declared field is kept in extra
    assert [ln for ln in result.outlines if "::" in ln] == ["test_kv.py::test_task[f1]"]


def test_bad_template_weights_are_one_error_naming_the_template(pytester, kv_suite):
    pytester.makepyfile(test_kv=KV_SUITE_WITH_BAD_TEMPLATE)
    kv_suite("a.json", [task("w1", template="half"), task("ok1")])
    kv_suite("b.json", [task("w2", template="half"), task("w3", template="half")])
    result = pytester.runpytest("--continue-on-collection-errors", "--agent", "oracle", "-p", "no:randomly")
    out = result.stdout.str()
    expected = ("test_kv.py: field 'milestones': template 'half' (class Half): milestone 'b': weight must be a "
                "number in (0, 1], got 0; its 3 task(s) are not collected: w1, w2, w3")
    assert out.count(expected) == 1, out
    assert "tasks/a.json" not in out and "tasks/b.json" not in out  # blamed on the template, not a task file
    result.assert_outcomes(passed=1, errors=1)


def test_duplicate_ids_name_both_places(pytester, kv_suite):
    kv_suite("one.json", [task("dup1"), task("ok1")])
    kv_suite("two.json", [task("dup1")])
    result = pytester.runpytest("--continue-on-collection-errors", "--agent", "oracle")
    out = result.stdout.str()
    assert "task 'dup1': field 'id': duplicate task id (first defined at tasks/one.json#0, again at tasks/two.json#0)" in out
    result.assert_outcomes(passed=1, errors=1)


def test_a_task_naming_no_template_is_a_collection_error_of_its_file(pytester, kv_suite):
    """A misspelt template is not skipped at run time (exit 0, 'no evaluator yet'): its file fails to collect,
    the error names the file, the task, the field and the template meant; the other files still run."""
    kv_suite("bad.json", [task("n1", template="set_kyes"), task("n2")])
    kv_suite("good.json", [task("g1")])
    result = pytester.runpytest("--continue-on-collection-errors", "--agent", "oracle", "-p", "no:randomly")
    out = result.stdout.str()
    assert "tasks/bad.json: task 'n1': field 'template': unknown template of suite 'kv': 'set_kyes' (did you mean " \
           "'set_keys'?; known: arranged, bad_weights, crash_outside, crashing, declared, required, set_keys)" in out
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_question_may_name_a_template_the_suite_lacks(pytester, kv_suite):
    kv_suite("q.json", [{"id": "q1", "instruction": "What is stored?", "template": "qa_unknown",
                         "ground_truth": {"answer": "nothing"}}])
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


@pytest.mark.parametrize("truth, message", [
    ({"note": "x"}, "field 'ground_truth': template 'required' needs ground_truth key(s) 'keys' (its keys: keys, note)"),
    ({"keys": {"a": "1"}, "nte": "x"}, "field 'ground_truth.nte': unknown ground_truth key of template 'required': "
                                       "'nte' (did you mean 'note'?; known: keys, note)"),
], ids=["missing", "misspelt"])
def test_a_ground_truth_key_missing_or_unknown_is_a_collection_error(pytester, kv_suite, truth, message):
    kv_suite("t.json", [task("r1", template="required", ground_truth=truth)])
    kv_suite("ok.json", [task("r2", template="required", ground_truth={"keys": {"a": "1"}})])
    result = pytester.runpytest("--continue-on-collection-errors", "--agent", "oracle")
    out = result.stdout.str()
    assert f"tasks/t.json: task 'r1': {message}" in out, out
    result.assert_outcomes(passed=1, errors=1)


def test_unknown_agent_is_a_usage_error_listing_known_ones(pytester, kv_suite):
    kv_suite("t.json", [task("a1")])
    result = pytester.runpytest("--agent", "gpt-17")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--agent: unknown agent 'gpt-17'; known agents: agent-s, anthropic, gemini, noop, openai, openai-compatible, oracle, osworld, replay, scuba" in result.stderr.str()


def test_same_collection_on_every_worker(pytester, kv_suite):
    kv_suite("t.json", [task(f"t{i:02d}") for i in range(12)])
    result = pytester.runpytest_subprocess("-n", "2", "--agent", "oracle", "-p", "no:randomly")
    result.assert_outcomes(passed=12)


def test_pytest_timeout_is_a_backstop_past_the_task_limit(pytester, kv_suite):
    kv_suite("t.json", [task("l1", limits={"time_limit_s": 100}), task("l2")])
    pytester.makeconftest('''
def pytest_collection_modifyitems(items):
    for item in items:
        print("TIMEOUT", item.name, item.get_closest_marker("timeout").args[0])
''')
    out = pytester.runpytest("--collect-only", "-q", "-s").stdout.str()
    assert "TIMEOUT test_task[l1] 410.0" in out  # 100 s * 1.1 + 300 s
    assert "TIMEOUT test_task[l2] 6240.0" in out  # the default 90 minutes
    out = pytester.runpytest("--collect-only", "-q", "-s", "--cua-time-limit", "10").stdout.str()
    assert "TIMEOUT test_task[l1] 311.0" in out


def test_a_module_that_imports_a_suite_does_not_claim_it(pytester: pytest.Pytester) -> None:
    """A test module that imports a suite's ``CUA_SUITE`` (to test its evaluators, say) without running its tasks
    is not that suite: collecting it neither binds the suite to the importing module's folder nor checks it."""
    import json

    pkg = pytester.path / "kvsuite"
    (pkg / "tasks").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "suite.py").write_text(KV_SUITE)
    (pkg / "tasks" / "t.json").write_text(json.dumps([task("k1"), task("k2")]))
    pytester.makepyfile(test_uses="""
        from kvsuite.suite import CUA_SUITE

        def test_the_suite_loads_its_own_tasks():
            CUA_SUITE.bind(__import__("kvsuite.suite").suite.__file__)
            assert CUA_SUITE.base_dir.name == "kvsuite"
            assert sorted(t.id for t in CUA_SUITE.load(None).tasks) == ["k1", "k2"]
    """)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
