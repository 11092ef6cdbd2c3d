"""The CI recipe (examples/ci/agent-gate.yml) uses only options that exist: every pytest-cua flag in its
commands is in `pytest --help` or `pytest-cua report --help`, and the workflow is well-formed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

RECIPE = Path(__file__).resolve().parents[1] / "examples" / "ci" / "agent-gate.yml"


def _help(*args: str) -> str:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                          cwd=RECIPE.parents[2]).stdout


def test_the_workflow_is_well_formed() -> None:
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load(RECIPE.read_text())
    steps = workflow["jobs"]["gate"]["steps"]
    runs = " ".join(step.get("run", "") for step in steps)
    assert "--cua-model-replay" in runs and "--cua-baseline" in runs and "report --compare" in runs
    assert "gh run download" in runs and "gh pr comment" in runs
    assert all("uses" in step or "run" in step for step in steps)
    assert workflow["jobs"]["gate"]["timeout-minutes"] <= 90


def test_every_flag_the_recipe_uses_exists() -> None:
    text = RECIPE.read_text()
    pytest_help = _help("-m", "pytest", "--help")
    report_help = _help("-m", "pytest_cua.cli", "report", "--help")
    flags = set(re.findall(r"(?<![\w-])--(?:cua-[a-z-]+|quarantine-flaky|compare|html|markdown)", text))
    assert "--cua-trials" in flags and "--cua-retry-errors" in flags
    missing = sorted(f for f in flags if f not in pytest_help and f not in report_help)
    assert not missing, f"{RECIPE.name} uses options that do not exist: {missing}"
