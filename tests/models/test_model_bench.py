"""The model-agent benchmark as a test: ``pytest -m benchmark tests/models -s`` prints the figures.

It runs ``benchmarks/model_bench.py --quick``: the harness time per model step for both styles (2 SCUBA tasks
each, fake answering at once) and tasks per minute at ``-n 1`` and ``-n 2`` with a fake that thinks 3 s (4
tasks); a few minutes in all. Skipped unless ``-m benchmark`` is given. The figures are printed; what is
checked is that every inner run passed its tasks and produced them, and that two workers beat one clearly
(ideal: twice the rate), which holds with wide margins even on a loaded machine.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.envs.base import ProvisioningError
from pytest_cua.envs.browser import find_chromium

ROOT = Path(__file__).resolve().parents[2]
MIN_SPEEDUP = 1.3  # -n 2 against -n 1 over the episodes' span (ideal 2.0); only a broken scaling misses it


def _model_bench() -> Any:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import model_bench
    finally:
        sys.path.pop(0)
    return model_bench


@pytest.mark.benchmark
@pytest.mark.browser
def test_model_benchmark(request: pytest.FixtureRequest) -> None:
    if "benchmark" not in (request.config.option.markexpr or ""):
        pytest.skip("a benchmark: run with -m benchmark")
    try:
        find_chromium(None)
    except ProvisioningError as exc:
        pytest.skip(str(exc))
    figures = _model_bench().main(["--quick"])

    for style, harness in figures["harness"].items():
        assert not harness["problems"], (style, harness["problems"])
        assert harness["steps"] > 0 and "split_ms" in harness and "image" in harness, (style, harness)
    rows = {row["workers"]: row for row in figures["throughput"]}
    assert sorted(rows) == [1, 2], figures["throughput"]
    for row in rows.values():
        assert not row["problems"] and row["passed"] == row["tasks"], row
    assert rows[2]["span_per_min"] >= MIN_SPEEDUP * rows[1]["span_per_min"], rows
