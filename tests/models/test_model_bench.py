"""The model-agent benchmark as a test: ``pytest -m benchmark tests/models -s`` prints the figures.

It runs ``benchmarks/model_bench.py --quick``: the harness time per model step for both styles (2 SCUBA tasks
each, fake answering at once) and tasks per minute at ``-n 1`` and ``-n 2`` with a fake that thinks 3 s (4
tasks); a few minutes in all. Skipped unless ``-m benchmark`` is given. The figures are printed; what is
checked is that every inner run passed its tasks and produced them, and that two workers beat one clearly
(ideal: twice the rate), which holds with wide margins even on a loaded machine.

The other tests run with the rest of the suite, in a second or two: the benchmark's own code (its task lists,
the per-step figures read from a trajectory written by the real recorder, the image microbenchmark), so that a
benchmark that crashes is a failing test before anyone runs it.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_cua.actions import ActionResult, Click
from pytest_cua.envs.base import ProvisioningError
from pytest_cua.envs.browser import find_chromium
from pytest_cua.episode.trajectory import StepRecord, TrajectoryRecorder
from pytest_cua.observations import Observation

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
def test_model_benchmark() -> None:  # skipped unless -m benchmark (tests/conftest.py)
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


# --- the benchmark's own code, without Chromium (runs with the suite) -----------------------------------------

def test_the_task_lists_name_scuba_tasks() -> None:
    bench = _model_bench()
    known = {task["id"] for path in (ROOT / "suites" / "scuba" / "tasks").glob("*.json")
             for task in json.loads(path.read_text(encoding="utf-8"))}  # a task file is a list of tasks
    lists = (bench.HARNESS_TASKS, bench.QUICK_HARNESS_TASKS, bench.THROUGHPUT_TASKS, bench.QUICK_THROUGHPUT_TASKS)
    for ids in lists:
        assert ids and len(set(ids)) == len(ids) and set(ids) <= known, sorted(set(ids) - known)
    assert set(bench.QUICK_HARNESS_TASKS) <= set(bench.HARNESS_TASKS)
    assert set(bench.QUICK_THROUGHPUT_TASKS) <= set(bench.THROUGHPUT_TASKS)


def test_harness_figures_from_a_recorded_trajectory(tmp_path: Path) -> None:
    """Three steps written by the real recorder, timed in place as the inner-run plugin writes them: the
    harness is the step's wall time less the environment and the model call; the first step is left out."""
    bench = _model_bench()
    recorder = TrajectoryRecorder(tmp_path / "trajectories" / "create_lead_1")
    t0 = 1_000_000.0
    for index in range(3):  # steps of 1 s: 0.7 s environment (0.2 s of it acting), 0.25 s model, 50 ms harness
        result = ActionResult(Click("e1"), duration_s=0.2)
        recorder.record_step(StepRecord(actions=[Click("e1")], extra={"model": {"latency_s": 0.25}}, index=index,
                                        observation=Observation(step=index), results=[result], agent_s=0.27,
                                        env_s=0.7, started_at=t0 + index))
    summary = {"tasks": [{"id": "create_lead_1", "outcome": "passed", "trajectory": str(recorder.directory / "x"),
                          "times": {"wall_s": 3.0}}]}
    split = tmp_path / "split"
    split.mkdir()
    parts = {"turn_for": 0.012, "prepare_image": 0.010, "request_build": 0.001, "model_call": 0.24, "parse": 0.002,
             "actions_for": 0.001, "agent_step": 0.26, "record": 0.004, "image_cache_hits": 1}
    # the image's stages: step 1 decoded its screenshot, step 2 was scaled from the environment's pixels
    stages = [{"image_decode": 0.004, "image_scale": 0.004, "image_encode": 0.001},
              {"image_decode": 0.004, "image_scale": 0.004, "image_encode": 0.001},
              {"image_scale": 0.004, "image_encode": 0.001, "env_pixels": 1}]
    (split / "split-1.jsonl").write_text("".join(
        json.dumps({"task": "create_lead_1", "step": i, "recorded_at": t0 + i + 1.0, **parts, **stages[i]}) + "\n"
        for i in range(3)), encoding="utf-8")
    run = bench.InnerRun(tmp_path, 4.0, 0, "3 passed", "load average 1", "load average 1", summary)

    figures = bench.harness_figures(run, split)

    assert figures["steps"] == 2 and figures["passed"] == 1 and not figures["problems"]
    assert figures["harness_ms"]["median"] == pytest.approx(50.0, abs=0.01)
    assert figures["act_ms"]["median"] == pytest.approx(200.0)
    assert figures["strict_ms"]["median"] == pytest.approx(60.0, abs=0.01)  # the SDK call alone is the model
    assert figures["split_ms"]["prepare_image"]["median"] == pytest.approx(10.0)
    assert sum(v["mean"] for v in figures["split_ms"].values()) == pytest.approx(60.0, abs=0.01)
    assert figures["image_cache_hits"] == 2
    assert figures["env_pixels"] == 1
    assert figures["image_ms"]["image_decode"]["median"] == pytest.approx(2.0)  # a stage not run took 0 ms
    assert figures["image_ms"]["image_scale"]["median"] == pytest.approx(4.0)
    bench.print_harness("browser", figures)


def test_the_image_microbenchmark_on_a_screenshot() -> None:
    bench = _model_bench()
    image = Image.new("RGB", (1920, 1080), "white")
    ImageDraw.Draw(image).rectangle([1500, 900, 1620, 940], fill=(1, 118, 211))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    figures = bench.bench_image(buffer.getvalue(), "computer", rounds=1)
    assert figures["size"] == (1024, 576) and figures["sent"] == "image/jpeg"
    assert "prepare_image, the same screenshot again (cache hit)" in figures["ms"]
    assert "prepare_image on pixels the environment kept (no decode)" in figures["ms"]
    assert all(v["median"] >= 0 for v in figures["ms"].values())
    bench.print_image(Path("step_000.png"), figures)
