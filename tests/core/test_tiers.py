"""The run's tiers (tests/conftest.py, tests/tiers.py): ``full`` tests are skipped naming the variable unless
PYTEST_CUA_FULL=1, benchmarks run only under ``-m benchmark``, modules with a slow test run first."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = "from tests.conftest import pytest_configure, pytest_collection_modifyitems  # noqa: F401\n"
INI = """
[pytest]
markers =
    full: full run only
    slow: slow
    benchmark: benchmark
"""


@pytest.fixture
def tiers(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makeini(INI)
    pytester.makepyfile(
        test_a="""
            import pytest
            def test_quick(): pass
            @pytest.mark.full
            def test_whole(): pass
            @pytest.mark.benchmark
            def test_bench(): pass
        """,
        test_b="""
            import pytest
            def test_first_of_b(): pass
            @pytest.mark.slow
            def test_long(): pass
        """)
    return pytester


def test_without_the_variable_full_tests_are_skipped_naming_it(tiers: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_CUA_FULL", raising=False)
    result = tiers.runpytest("-rs")
    result.assert_outcomes(passed=3, skipped=2)
    result.stdout.fnmatch_lines(["*part of the full run: set PYTEST_CUA_FULL=1*",
                                 "*a benchmark: run with -m benchmark*"])


def test_a_full_run_runs_them_and_benchmarks_need_their_marker(tiers: pytest.Pytester,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_CUA_FULL", "1")
    tiers.runpytest().assert_outcomes(passed=4, skipped=1)
    tiers.runpytest("-m", "benchmark").assert_outcomes(passed=1, deselected=4)


def test_a_bad_value_is_a_usage_error_naming_the_variable(tiers: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_CUA_FULL", "all")
    result = tiers.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*PYTEST_CUA_FULL='all': expected 1 (a full run) or 0*"])


def test_modules_with_a_slow_test_run_first_in_their_own_order(tiers: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_CUA_FULL", raising=False)
    result = tiers.runpytest("--collect-only", "-q")
    names = [line for line in result.stdout.lines if "::" in line]
    assert names == ["test_b.py::test_first_of_b", "test_b.py::test_long", "test_a.py::test_quick",
                     "test_a.py::test_whole", "test_a.py::test_bench"]
