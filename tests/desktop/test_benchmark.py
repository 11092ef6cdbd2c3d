"""Restore times of the Docker environment (``pytest -m benchmark tests/desktop -s`` prints them)."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

pytestmark = [pytest.mark.benchmark, pytest.mark.docker]


def test_restore_times(base_image: str, capsys: pytest.CaptureFixture[str]) -> None:
    from docker_bench import restores

    times = restores(base_image, 20, True, lambda line: None, task_seconds=4.0)
    lines = []
    for name in ("restore", "roll_back", "spare_start"):
        values = times[name]
        lines.append(f"{name:12} median {statistics.median(values) * 1000:8.1f} ms   "
                     f"slowest {max(values) * 1000:8.1f} ms   (n={len(values)})")
    with capsys.disabled():
        print("\ndocker restore benchmark (warm spare, 4 s per task):\n  " + "\n  ".join(lines))
    assert statistics.median(times["roll_back"]) < 3.0, lines
