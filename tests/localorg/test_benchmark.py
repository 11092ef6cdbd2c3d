"""``pytest -m benchmark tests/localorg``: runs benchmarks/localorg_bench.py and prints its figures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark  # skipped unless -m benchmark (tests/conftest.py)


def test_localorg_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "localorg_bench.py"
    spec = importlib.util.spec_from_file_location("localorg_bench", path)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.main(["--runs", "200", "--queries", "300", "--seconds", "10"])
    with capsys.disabled():
        print()
        for line in capsys.readouterr().out.splitlines()[:-1]:
            print(line)
    assert result["snapshots"]["restore"]["median_ms"] < 50
    assert result["snapshots"]["snapshot"]["median_ms"] < 50
    assert result["https_queries"]["queries"] > 0
