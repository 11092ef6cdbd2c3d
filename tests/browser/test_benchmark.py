"""The browser benchmark as a test: ``pytest -m benchmark tests/browser -s`` prints the figures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.benchmark
def test_browser_benchmark(request: pytest.FixtureRequest, chromium_available: None) -> None:
    if "benchmark" not in (request.config.option.markexpr or ""):
        pytest.skip("a benchmark: run with -m benchmark")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import browser_bench
    finally:
        sys.path.pop(0)
    figures = browser_bench.main(["--steps", "30", "--runs", "3"])  # median: robust to load bursts
    assert set(figures["observation_ms"]) >= {"screenshot", "axtree", "dom", "som", "screenshot+axtree"}
    assert figures["ratio"] <= browser_bench.TARGET_RATIO, figures
