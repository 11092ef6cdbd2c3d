"""``pytest-cua report``: runs Allure's generate when installed, says how to install it when not."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pytest_cua.cli import main
from pytest_cua.results import cli as report_cli


def results_dir(tmp_path: Path) -> Path:
    results = tmp_path / "reports" / "allure-results"
    results.mkdir(parents=True)
    (results / "abc-result.json").write_text("{}")
    return results


def test_missing_allure_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    results_dir(tmp_path)
    monkeypatch.setattr(report_cli, "find_allure", lambda cwd=None: None)
    assert main(["report"]) == 2
    assert "npm install allure" in capsys.readouterr().err


def test_no_results_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report"]) == 2
    assert "--alluredir" in capsys.readouterr().err


def test_local_allure_is_run_with_generate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    results_dir(tmp_path)
    fake = tmp_path / "node_modules" / ".bin" / "allure"
    fake.parent.mkdir(parents=True)
    log = tmp_path / "args.txt"
    fake.write_text(f'#!/bin/sh\necho "$@" > {log}\nmkdir -p "$4" && touch "$4/index.html"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    assert report_cli.find_allure(tmp_path) == [str(fake)]
    assert main(["report", "-o", "out"]) == 0
    assert log.read_text().split() == ["generate", "reports/allure-results", "-o", "out"]
    assert (tmp_path / "out" / "index.html").exists()
