"""The browser benchmark as tests.

``test_browser_benchmark`` (``pytest -m benchmark tests/browser -s``) prints the full figures and checks the
overhead target; it is skipped unless ``-m benchmark`` is given.

``test_browser_benchmark_quick`` runs with the ordinary suite: ``benchmarks/browser_bench.py --quick`` once per
page kind (the local record page; the embedded org's Lightning Account form), so that a benchmark that crashes,
or that prints no figures, is a failing test. Its figures are not judged (the machine is shared); only that
every one of them was produced and printed. About 15-60 s per page.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _browser_bench() -> Any:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import browser_bench
    finally:
        sys.path.pop(0)
    return browser_bench


@pytest.mark.benchmark
def test_browser_benchmark(chromium_available: None) -> None:  # skipped unless -m benchmark (tests/conftest.py)
    browser_bench = _browser_bench()
    figures = browser_bench.main(["--steps", "30", "--runs", "3"])  # median: robust to load bursts
    assert set(figures["observation_ms"]) >= {"screenshot", "axtree", "dom", "som", "screenshot+axtree"}
    assert figures["ratio"] <= browser_bench.TARGET_RATIO, figures


@pytest.mark.browser
@pytest.mark.parametrize("page", [pytest.param("local", marks=pytest.mark.full), "org"])
def test_browser_benchmark_quick(page: str, chromium_available: None, capsys: pytest.CaptureFixture[str]) -> None:
    browser_bench = _browser_bench()
    if page == "org":
        pytest.importorskip("simple_salesforce", reason="the embedded org's client (the localorg extra)")
    figures = browser_bench.main(["--quick", "--page", page])  # a crash here fails the test

    printed = capsys.readouterr().out
    expected_page = "embedded org" if page == "org" else "local"
    assert expected_page in figures["page"], figures["page"]
    observed = figures["observation_ms"]
    assert set(observed) == {"screenshot", "axtree", "dom", "som", "screenshot+axtree", "all four"}, observed
    numbers = [*observed.values(), figures["harness_s"], figures["direct_observed_s"], figures["direct_bare_s"],
               figures["ratio"]]
    assert all(math.isfinite(n) and n > 0 for n in numbers), figures
    steps = browser_bench.ORG_STEPS if page == "org" else browser_bench.LOCAL_STEPS
    assert figures["actions"] == len(steps) + 1, figures  # every step replayed, and Done
    for side in ("harness", "direct"):
        assert figures["split_ms"][side]["observe"] > 0 and figures["split_ms"][side]["act"] > 0, figures
    for line in ("observation cost per step", "screenshot+axtree", "harness (replay through the episode loop)",
                 "overhead ratio harness / direct", "where the time went"):
        assert line in printed, f"browser_bench printed no {line!r}:\n{printed}"
