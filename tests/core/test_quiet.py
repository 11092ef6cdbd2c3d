"""Quiet when unused: a project that collects no CUA suite runs the same with pytest-cua installed as with
``-p no:cua``: same outcomes and output, its secrets-looking logs and failures left alone, no log record
factory or filter, no terminal section, no option changed (pytest-cua's own are in --help), no files written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

UNRELATED_TESTS = '''
import logging

def test_caplog_keeps_the_message(caplog):
    logging.warning("url password=hunter2")
    assert "hunter2" in caplog.text

def test_logging_is_untouched(caplog):
    assert logging.getLogRecordFactory() is logging.LogRecord
    assert not caplog.handler.filters
    assert not any(h.filters for h in logging.getLogger().handlers)

def test_print_the_other_options(pytestconfig):
    # pytest-cua's own options (listed in --help) aside, every option has the same value with and without it
    ours = {o.dest for g in pytestconfig._parser._groups if g.name == "cua" for o in g.options}
    ours |= {"plugins", "basetemp"}  # -p no:cua itself; a folder per run
    print(sorted((k, repr(v)) for k, v in vars(pytestconfig.option).items() if k not in ours))

def test_failure_text_is_kept(record_property):
    print("stdout password=hunter2")
    logging.getLogger("app").warning("log sid=hunter2sid")
    record_property("url", "https://app/?sid=hunter2sid")
    assert "password=hunter2" == "", "token=hunter2"
'''
# lines that differ between any two runs, or that name the plugins loaded; object addresses
_VOLATILE = re.compile(r"^(platform |rootdir: |configfile: |plugins: |cachedir: )| in \d+\.\d+s")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def stable_lines(text: str) -> list[str]:
    """The output's lines less those that differ between any two runs."""
    return [_ADDRESS.sub(" at 0x?", line) for line in text.splitlines() if not _VOLATILE.search(line)]


def files_below(root: Path) -> set[str]:
    """Every file and folder below ``root`` but bytecode and what pytester's subprocess runs keep there
    (their stdout, stderr and base temporary folders)."""
    names = {p.relative_to(root).as_posix() for p in root.rglob("*") if "__pycache__" not in p.parts}
    return {n for n in names if n not in ("stdout", "stderr") and not n.startswith("runpytest-")}


def test_an_unrelated_project_sees_no_change(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=UNRELATED_TESTS)
    args = ["-p", "no:cacheprovider", "-rA", "--junitxml=junit.xml", "-o", "junit_family=legacy"]

    without = pytester.runpytest_subprocess(*args, "-p", "no:cua")
    junit_without = (pytester.path / "junit.xml").read_text()
    files_without = files_below(pytester.path)
    (pytester.path / "junit.xml").unlink()
    with_plugin = pytester.runpytest_subprocess(*args)
    junit_with = (pytester.path / "junit.xml").read_text()

    for result in (without, with_plugin):
        result.assert_outcomes(passed=3, failed=1)
    assert stable_lines(with_plugin.stdout.str()) == stable_lines(without.stdout.str())
    assert stable_lines(with_plugin.stderr.str()) == stable_lines(without.stderr.str())
    out = with_plugin.stdout.str()
    assert "cua" not in "\n".join(stable_lines(out)).lower()  # no section, no summary line
    assert "password=hunter2" in out and "[REDACTED]" not in out  # the project's own text is left alone
    assert 'value="https://app/?sid=hunter2sid"' in junit_with and "[REDACTED]" not in junit_with
    assert _junit_shape(junit_with) == _junit_shape(junit_without)
    assert files_below(pytester.path) == files_without  # no reports/, no summary.json
    assert not (pytester.path / "reports").exists()


def _junit_shape(xml: str) -> str:
    """The JUnit file without what changes from run to run (times, timestamp, host name)."""
    return _ADDRESS.sub(" at 0x?", re.sub(r'(time|timestamp|hostname)="[^"]*"', r'\1=""', xml))

