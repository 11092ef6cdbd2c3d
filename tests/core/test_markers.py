"""``@pytest.mark.cua_env`` is validated by calling a function whose signature is the marker's: a string
scope, a positional argument or an unknown keyword is a collection error naming the test; a good scope
reaches the environment's ``restore``."""

from __future__ import annotations

import json

import pytest

SUITE = '''
import copy, os
import pytest
from pytest_cua.tasks.suite import Suite, Template
from pytest_cua.envs.base import Environment, Snapshot
from pytest_cua.actions import ActionResult
from pytest_cua.observations import Observation

class Scoped(Environment):
    name = "scoped"
    def __init__(self, ctx):
        self.data = {}
    def snapshot(self):
        return Snapshot("scoped", {})
    def restore(self, snapshot, scope=None):
        with open(os.environ["SCOPE_LOG"], "a") as log:
            log.write(repr(scope) + "\\n")
    def residue(self, snapshot):
        return []
    def observe(self, kinds):
        return Observation()
    def act(self, action):
        return ActionResult(action)

class Anything(Template):
    name = "anything"
    objects = ("Account",)
    def evaluate(self, ctx):
        from pytest_cua.tasks.scoring import milestone
        with milestone("ran", 1.0):
            pass

CUA_SUITE = Suite("scoped", environment=Scoped, templates={"anything": Anything()})

MARK

def test_task(cua_result):
    cua_result.check()
'''


def write_suite(pytester: pytest.Pytester, mark: str) -> None:
    pytester.makepyfile(test_scoped=SUITE.replace("MARK", mark))
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks" / "t.json").write_text(json.dumps(
        [{"id": "t1", "instruction": "x", "template": "anything"}]))


@pytest.mark.parametrize("mark, message", [
    ("@pytest.mark.cua_env(scope='Lead')", "not the string 'Lead'"),
    ("@pytest.mark.cua_env(scopes=['Lead'])", "cua_env() got an unexpected keyword argument 'scopes'"),
    ("@pytest.mark.cua_env(['Lead'])", "cua_env() takes 0 positional arguments"),
    ("@pytest.mark.cua_env(scope=[])", "names no object"),
    ("@pytest.mark.cua_env(scope=['Lead', 3])", "got 3"),
    ("@pytest.mark.cua_env(scope={'Lead'})", "got set"),
])
def test_a_misused_marker_is_a_collection_error_naming_the_test(pytester: pytest.Pytester, mark: str,
                                                                message: str) -> None:
    write_suite(pytester, mark)
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error: nothing ran
    text = result.stdout.str()
    assert "test_scoped.py::test_task[t1]: @pytest.mark.cua_env: " in text
    assert message in text
    assert "1 error" in text


def test_a_misused_marker_is_reported_under_xdist_too(pytester: pytest.Pytester) -> None:
    write_suite(pytester, "@pytest.mark.cua_env(scope='Lead')")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "1")
    assert result.ret != 0
    assert "test_task[t1]: @pytest.mark.cua_env: scope must be a list" in result.stdout.str()


@pytest.mark.parametrize("mark, restored", [
    ("@pytest.mark.cua_env(scope=['Lead', 'Contact'])", "('Lead', 'Contact')"),
    ("@pytest.mark.cua_env(scope=('Lead',))", "('Lead',)"),
    ("@pytest.mark.cua_env()", "('Account',)"),  # no scope: the template's objects
    ("", "('Account',)"),
])
def test_the_scope_reaches_the_rollback(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                        mark: str, restored: str) -> None:
    log = pytester.path / "scope.log"
    monkeypatch.setenv("SCOPE_LOG", str(log))
    write_suite(pytester, mark)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert log.read_text().splitlines() == [restored]
