"""In a session that runs a CUA suite, no secret reaches a file or the terminal through a report: the failure
text, the captured stdout and log, a ``record_property`` value, caplog, ``--log-file``, JUnit and Allure."""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path

import pytest

from .conftest import KV_SUITE, task

# secrets as the patterns know them (password=..., sid=..., a Bearer token) and one registered value
LEAKY_TESTS = '''
import logging
import sys
from pytest_cua.redaction import register_secret

def test_leaks(record_property):
    register_secret("registered-s3cr3t-value")
    print("stdout: password=hunter2 registered-s3cr3t-value")
    print("stderr: Authorization: Bearer hunter2bearertoken", file=sys.stderr)
    logging.getLogger("kv.leak").warning("log: https://org/secur/frontdoor.jsp?sid=hunter2sid")
    record_property("login_url", "https://org/?sid=hunter2sid")
    assert "registered-s3cr3t-value" == "x", "failure: password=hunter2 sid=hunter2sid"

def test_caplog_sees_no_secret(caplog):
    logging.getLogger("kv.leak").warning("url password=hunter2")
    assert "hunter2" not in caplog.text and "password=[REDACTED]" in caplog.text
'''
SECRETS = ("hunter2", "registered-s3cr3t-value")


def produced_files(root: Path, before: set[Path]) -> list[Path]:
    """The files below ``root`` that the run created (not the suite's sources nor bytecode)."""
    return sorted(p for p in root.rglob("*") if p.is_file() and p not in before and "__pycache__" not in p.parts)


def test_no_secret_in_any_file_or_the_terminal(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_kv=KV_SUITE + LEAKY_TESTS)
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks" / "t.json").write_text(json.dumps([task("r1")]))
    before = {p for p in pytester.path.rglob("*") if p.is_file()}
    args = ["--agent", "oracle", "-rA", "-p", "no:cacheprovider", "--junitxml=junit.xml", "-o", "junit_logging=all",
            "--log-file=run.log", "--log-cli-level=WARNING"]
    with_allure = importlib.util.find_spec("allure_pytest") is not None
    if with_allure:
        args.append("--alluredir=allure-results")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=2, failed=1)

    files = produced_files(pytester.path, before)
    names = {p.relative_to(pytester.path).as_posix() for p in files}
    assert {"junit.xml", "run.log", "reports/summary.json"} <= names
    if with_allure:
        assert any(n.startswith("allure-results/") and n.endswith("-result.json") for n in names)
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="login_url" value="https://org/?sid=[REDACTED]"' in junit  # the property, redacted
    assert "password=[REDACTED]" in junit and "Bearer [REDACTED]" in junit  # failure text and stderr
    assert "frontdoor.jsp?sid=[REDACTED]" in (pytester.path / "run.log").read_text()
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} leaked into {path.relative_to(pytester.path)}"

    out = result.stdout.str()
    assert "FAILED test_kv.py::test_leaks" in out and "[REDACTED]" in out
    for secret in SECRETS:
        assert secret not in out, f"{secret!r} leaked into the terminal output"


def test_the_session_detaches_its_log_filter(pytester: pytest.Pytester) -> None:
    """An in-process CUA session attaches its filter to the handlers it finds and takes it off at its end."""
    from pytest_cua.redaction import LOG_FILTER

    pytester.makepyfile(test_kv=KV_SUITE)
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks" / "t.json").write_text(json.dumps([task("r2")]))
    # the outer session may be a CUA session too (then its own handlers carry the filter until it ends)
    before = {id(h) for h in logging.getLogger().handlers if LOG_FILTER in h.filters}
    pytester.runpytest("--agent", "oracle", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert {id(h) for h in logging.getLogger().handlers if LOG_FILTER in h.filters} == before


def test_a_skip_reason_stays_a_skip(pytester: pytest.Pytester) -> None:
    """A skip's (path, line, reason) keeps its shape when its reason is redacted."""
    pytester.makepyfile(test_kv=KV_SUITE + '''
import pytest

def test_skipped():
    pytest.skip("no org for password=hunter2")
''')
    (pytester.path / "tasks").mkdir()
    (pytester.path / "tasks" / "t.json").write_text(json.dumps([task("r3")]))
    result = pytester.runpytest("--agent", "oracle", "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_kv.py:*: no org for password=[[]REDACTED[]]"])
