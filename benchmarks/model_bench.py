"""Model-agent benchmark (requirement 9 of the model-agents issue): the harness time per model step besides
the observation, the action and the model call; and tasks per minute with a slow fake model at several xdist
worker counts.

    python benchmarks/model_bench.py [--quick] [--delay 3] [--workers 1,2,4,8] [--part all|harness|throughput]
    pytest -m benchmark tests/models -s

Both parts are inner pytest runs of SCUBA tasks in real Chromium on the embedded org, with the model played by
the demonstration-following fake vendor server of ``tests/models/fake_model_plugin.py`` (in the process of
each xdist worker, reached over loopback through the vendor SDK).

1. Harness: ``--agent gpt-5.5`` (browser style, Responses function calls) and ``--agent computer-use-preview``
   (computer style, pixel coordinates) against a fake that answers at once. Per step, from the trajectory's
   steps.jsonl: harness = step wall time - ``env_s`` (the observation and the ``act`` calls, which contain
   every ``ActionResult.duration_s``) - ``extra.model.latency_s`` (the model call). The step wall time is the
   time from one step's ``started_at`` to the next's (the last: to the end of its recording). This module is
   also an inner-run plugin (``-p model_bench --model-bench-split DIR``) that times the agent's parts in place,
   on the same steps: image scaling/encoding, the rest of the user turn, request building, the SDK call,
   response parsing, action parsing, trajectory recording; what is left is the episode loop itself (and how
   many steps found their image in the style's cache, and how many were scaled from the pixels the environment
   kept, not decoded: the browser's set-of-marks). Then the image pipeline alone on a 1920x1080 screenshot
   from the run: ``prepare_image`` decoding the PNG and on the environment's kept pixels (the OpenAI vendor:
   box filter, JPEG q85), a cache hit, and its stages (decode, box resize, JPEG encode) beside the choices of
   before (bilinear, LANCZOS, PNG).
2. Throughput: a fixed list of short SCUBA tasks (``--agent gpt-5.5``) with a fake that thinks ``--delay`` seconds
   before each answer, at ``-n`` 1, 2, 4, 8 (each worker has its own Chromium, embedded org and fake). Tasks
   per minute over the run's wall time and over the span of the episodes (startup excluded), beside the ideal
   (n x the single-worker rate), and per task the model wait against everything else.

Figures are printed, with the load average (the machine is shared); nothing is asserted here. An inner run
still going long after it should have ended is sent SIGABRT, so that its output (kept in ``--keep DIR``) ends
with every thread's traceback.

The harness tasks are ones the fake passes in both styles; ``--quick`` takes a record page and a list
(create_lead_1, qa_service_knowledge_1), more steps than two Setup tasks. Every inner run uses the tree it is
started from (``ROOT``): to measure an older commit, run this file from a copy of that commit's tree, with its
``PYTHONPATH`` and the built Lightning assets (``pytest_cua/orgs/localorg/lightning/dist/``, not in git)
copied in; without them the org's pages have no components and the fake stops at step 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPLIT_OPTION = "--model-bench-split"
TARGET_MS = 20.0  # issue 42: a model step's harness time (the model excluded)
TIME_LIMIT_S = 180  # per task: a stuck agent call is that task's time_limit, not a stuck benchmark

# style label -> (--fake-model, --agent)
STYLES: dict[str, tuple[str, str]] = {
    "browser": ("browser", "gpt-5.5"),
    "computer": ("openai-computer", "computer-use-preview"),
}
# tasks both styles pass with the fake (the fake's computer policy has no select_option; create_public_group
# fails in the computer style: the fake looks for an option "Users" that Lightning's Setup shows as a link)
HARNESS_TASKS = ["freeze_user_1", "freeze_user_2", "deactivate_user_1", "deactivate_user_2",
                 "qa_service_knowledge_1", "qa_service_knowledge_2", "create_lead_1", "create_lead_2"]
# a record page and a list: 14 model steps in the browser style, 24 in the computer style
QUICK_HARNESS_TASKS = ["create_lead_1", "qa_service_knowledge_1"]
# 16 short tasks of 5 templates, 5-7 model steps each (about 95 steps) in the browser style
THROUGHPUT_TASKS = ["freeze_user_1", "freeze_user_2", "freeze_user_3", "freeze_user_4",
                    "qa_service_knowledge_1", "qa_service_knowledge_2", "qa_service_knowledge_3",
                    "convert_lead_1", "convert_lead_2", "convert_lead_3",
                    "deactivate_user_1", "deactivate_user_2", "deactivate_user_3",
                    "create_owd_settings_1", "create_owd_settings_2", "create_owd_settings_3"]
QUICK_THROUGHPUT_TASKS = ["freeze_user_1", "freeze_user_2", "qa_service_knowledge_1", "deactivate_user_1"]
WORKERS = (1, 2, 4, 8)
QUICK_WORKERS = (1, 2)


# --- inner pytest runs -----------------------------------------------------------------------------------

def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as text."""
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def nodeids(task_ids: list[str]) -> list[str]:
    """The SCUBA suite's test ids of ``task_ids`` (exact, unlike ``-k``)."""
    return [f"suites/scuba/test_scuba.py::test_task[{t}]" for t in task_ids]


@dataclass
class InnerRun:
    """One inner pytest run: wall time, exit code, output, summary.json and the trajectories."""

    reports: Path
    wall_s: float
    returncode: int
    output: str
    load_before: str
    load_after: str
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def tasks(self) -> list[dict[str, Any]]:
        return list(self.summary.get("tasks", []))

    def passed(self) -> int:
        return sum(1 for t in self.tasks if t.get("outcome") == "passed")

    def steps(self, task: dict[str, Any]) -> list[dict[str, Any]]:
        """The task's steps.jsonl entries, in order."""
        if not task.get("trajectory"):
            return []
        path = Path(task["trajectory"]).with_name("steps.jsonl")
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def problems(self) -> list[str]:
        """Anything that makes the run's figures suspect: failed tasks, protocol violations."""
        found = [f"{t['id']}: {t['outcome']} {t.get('error_kind') or ''}".strip() for t in self.tasks
                 if t.get("outcome") != "passed"]
        if not self.tasks:
            found.append(f"no summary (exit {self.returncode}; output in {self.reports / 'output.txt'}):\n"
                         f"{self.output[-1500:]}")
        if "was aborted" in self.output[-200:]:
            found.append(f"the run hung and was aborted (tracebacks in {self.reports / 'output.txt'})")
        if "protocol violations" in self.output:
            found.append("the fake reported protocol violations")
        return found


def run_inner(reports: Path, task_ids: list[str], style: str, *, workers: int | None = None, delay: float = 0.0,
              split: Path | None = None, timeout_s: float = 900.0) -> InnerRun:
    """The tasks through pytest-cua with the fake model of ``style`` (a key of STYLES). A run still going after
    ``timeout_s`` is sent SIGABRT, so that its output ends with every thread's traceback (faulthandler)."""
    fake, agent = STYLES[style]
    cmd = [sys.executable, "-m", "pytest", *nodeids(task_ids), "-p", "tests.models.fake_model_plugin",
           "--fake-model", fake, "--agent", agent, "--fake-model-delay", str(delay), "-p", "no:cacheprovider",
           "--cua-reports", str(reports), "--cua-time-limit", str(TIME_LIMIT_S), "-q"]
    if workers is not None:
        cmd += ["-n", str(workers)]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}  # the fake's key, never a real one
    if split is not None:
        cmd += ["-p", "model_bench", SPLIT_OPTION, str(split)]
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "benchmarks"), env.get("PYTHONPATH")) if p)
    reports.mkdir(parents=True, exist_ok=True)
    before = load_average()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        output, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        output, _ = proc.communicate()
        output += f"\n(model_bench: the run was still going after {timeout_s:.0f} s and was aborted)"
    run = InnerRun(reports, time.perf_counter() - t0, proc.returncode, output, before, load_average())
    (reports / "output.txt").write_text(output, encoding="utf-8")
    path = reports / "summary.json"
    if path.exists():
        run.summary = json.loads(path.read_text(encoding="utf-8"))
    return run


# --- statistics ------------------------------------------------------------------------------------------

def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]


def spread_ms(values: list[float]) -> dict[str, float]:
    """Median, p90, max and mean of seconds, in ms."""
    if not values:
        return {"median": float("nan"), "p90": float("nan"), "max": float("nan"), "mean": float("nan")}
    return {"median": statistics.median(values) * 1000, "p90": p90(values) * 1000, "max": max(values) * 1000,
            "mean": statistics.fmean(values) * 1000}


# --- part 1: harness time per step -----------------------------------------------------------------------

# the in-place split: key -> label; the means add up to the strict harness (see StepTiming.strict_s)
SPLIT_PARTS: dict[str, str] = {
    "prepare_image": "image scaling + encoding (prepare_image)",
    "turn_rest": "rest of the user turn (element list, text, results)",
    "request_build": "request building (append turn, prune, request dict)",
    "parse": "response parsing (adapter._parse)",
    "actions_for": "actions from the reply (style.actions_for)",
    "agent_rest": "rest of agent.step (send's bookkeeping, raw JSON, redaction)",
    "handoff": "agent thread hand-off (agent_s - agent.step)",
    "record": "trajectory recording (images, redaction, steps.jsonl)",
    "loop_rest": "episode loop, the rest",
}
# inside prepare_image (not added to the parts above: they are of its time)
IMAGE_STAGES: dict[str, str] = {
    "image_decode": "decode the screenshot",
    "image_scale": "scale",
    "image_encode": "encode",
}


@dataclass
class StepTiming:
    """One model step's times in seconds, from steps.jsonl and (when timed) the in-place split."""

    task: str
    index: int
    started_at: float
    wall_s: float
    env_s: float
    act_s: float
    latency_s: float
    agent_s: float
    split: dict[str, float] = field(default_factory=dict)

    @property
    def harness_s(self) -> float:
        """Step wall time less the environment (observation + acting) and the recorded model latency."""
        return self.wall_s - self.env_s - self.latency_s

    @property
    def strict_s(self) -> float:
        """The harness with only the SDK call as the model's time (``latency_s`` also covers our parse)."""
        return self.wall_s - self.env_s - self.split.get("model_call", self.latency_s)

    def parts(self) -> dict[str, float]:
        """The strict harness split into SPLIT_PARTS (empty without the in-place split)."""
        s = dict.fromkeys(("turn_for", "prepare_image", "request_build", "model_call", "parse", "actions_for",
                           "record"), 0.0) | self.split
        if "agent_step" not in s:
            return {}
        inside = s["turn_for"] + s["request_build"] + s["model_call"] + s["parse"] + s["actions_for"]
        parts = {"prepare_image": s["prepare_image"], "turn_rest": s["turn_for"] - s["prepare_image"],
                 "request_build": s["request_build"], "parse": s["parse"], "actions_for": s["actions_for"],
                 "agent_rest": s["agent_step"] - inside, "handoff": self.agent_s - s["agent_step"],
                 "record": s["record"]}
        parts["loop_rest"] = self.strict_s - sum(parts.values())
        return parts


def step_timings(run: InnerRun, split: dict[tuple[str, int], dict[str, float]]) -> list[StepTiming]:
    """Every model step of the run's tasks, in the order they ran."""
    out: list[StepTiming] = []
    for task in run.tasks:
        entries = run.steps(task)
        for i, e in enumerate(entries):
            timed = split.get((task["id"], e["index"]), {})
            if i + 1 < len(entries):
                end = entries[i + 1]["started_at"]
            elif "recorded_at" in timed:
                end = timed["recorded_at"]
            else:  # no split: the end of the episode (its wall time also covers agent.start, a few ms)
                end = entries[0]["started_at"] + task["times"]["wall_s"]
            model = (e.get("extra") or {}).get("model") or {}
            out.append(StepTiming(task["id"], e["index"], e["started_at"], end - e["started_at"], e["env_s"],
                                  sum(r.get("duration_s", 0.0) for r in e["results"]),
                                  float(model.get("latency_s", 0.0)), e["agent_s"], timed))
    return sorted(out, key=lambda s: s.started_at)


def read_split(directory: Path) -> dict[tuple[str, int], dict[str, float]]:
    """The in-place split written by the inner-run plugin, by (task id, step index)."""
    found: dict[tuple[str, int], dict[str, float]] = {}
    for path in sorted(directory.glob("split-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            found[(entry.pop("task"), entry.pop("step"))] = entry
    return found


def harness_figures(run: InnerRun, split_dir: Path) -> dict[str, Any]:
    """Per-step harness figures of one style's run (the run's first step, cold, reported apart)."""
    steps = step_timings(run, read_split(split_dir))
    figures: dict[str, Any] = {"tasks": len(run.tasks), "passed": run.passed(), "steps": max(0, len(steps) - 1),
                               "problems": run.problems(), "load": f"{run.load_before} -> {run.load_after}"}
    if len(steps) < 2:
        return figures
    cold, warm = steps[0], steps[1:]
    figures.update({
        "wall_ms": spread_ms([s.wall_s for s in warm]), "env_ms": spread_ms([s.env_s for s in warm]),
        "act_ms": spread_ms([s.act_s for s in warm]), "latency_ms": spread_ms([s.latency_s for s in warm]),
        "harness_ms": spread_ms([s.harness_s for s in warm]),
        "cold_step": {"task": cold.task, "harness_ms": cold.harness_s * 1000, "latency_ms": cold.latency_s * 1000},
    })
    if all(s.split for s in warm):
        figures["model_call_ms"] = spread_ms([s.split.get("model_call", 0.0) for s in warm])
        figures["strict_ms"] = spread_ms([s.strict_s for s in warm])
        figures["split_ms"] = {k: spread_ms([s.parts()[k] for s in warm]) for k in SPLIT_PARTS}
        figures["image_cache_hits"] = int(sum(s.split.get("image_cache_hits", 0) for s in warm))
        figures["env_pixels"] = int(sum(s.split.get("env_pixels", 0) for s in warm))
        if any(key in s.split for s in warm for key in IMAGE_STAGES):  # a tree that times them
            # a stage a step did not run (a cache hit, the environment's pixels: no decode) took 0 ms
            figures["image_ms"] = {k: spread_ms([s.split.get(k, 0.0) for s in warm]) for k in IMAGE_STAGES}
    return figures


def print_harness(style: str, f: dict[str, Any]) -> None:
    fake, agent = STYLES[style]
    print(f"\n{style} style (--agent {agent}, --fake-model {fake}, the fake answers at once): {f['passed']}/"
          f"{f['tasks']} tasks passed, {f['steps']} model steps; {f['load']}")
    for problem in f["problems"]:
        print(f"  ! {problem}")
    if not f["steps"]:
        return
    print(f"  {'ms per step':<50}{'median':>8}{'p90':>8}{'max':>8}{'mean':>8}")
    rows = [("step wall time", "wall_ms"), ("env_s: observation + act calls", "env_ms"),
            ("  of which actions (ActionResult.duration_s)", "act_ms"), ("model call (extra.model.latency_s)",
                                                                         "latency_ms")]
    if "model_call_ms" in f:
        rows.append(("  of which the SDK call (with the fake's work)", "model_call_ms"))
    rows.append(("harness = wall - env_s - latency_s", "harness_ms"))
    if "strict_ms" in f:
        rows.append(("harness incl. parsing = wall - env_s - SDK call", "strict_ms"))
    for label, key in rows:
        v = f[key]
        print(f"  {label:<50}{v['median']:8.1f}{v['p90']:8.1f}{v['max']:8.1f}{v['mean']:8.1f}")
    verdict = "meets" if f["harness_ms"]["median"] < TARGET_MS else "MISSES"
    print(f"  -> harness median {f['harness_ms']['median']:.1f} ms, p90 {f['harness_ms']['p90']:.1f} ms: {verdict} "
          f"the target (< {TARGET_MS:g} ms)")
    cold = f["cold_step"]
    print(f"  (the run's first step, {cold['task']}, is cold and left out: harness {cold['harness_ms']:.0f} ms, "
          f"model call {cold['latency_ms']:.0f} ms)")
    if "split_ms" in f:
        print("  split of the harness incl. parsing, timed in place (means add up):")
        for key, label in SPLIT_PARTS.items():
            v = f["split_ms"][key]
            print(f"    {label:<62}{v['median']:8.1f}{v['p90']:8.1f}{v['max']:8.1f}{v['mean']:8.1f}")
            if key == "prepare_image" and "image_ms" in f:
                for stage, text in IMAGE_STAGES.items():
                    v = f["image_ms"][stage]
                    print(f"      {text:<60}{v['median']:8.1f}{v['p90']:8.1f}{v['max']:8.1f}{v['mean']:8.1f}")
        print(f"  images taken from the style's cache (the screen unchanged): {f.get('image_cache_hits', 0)} "
              f"in {f['steps']} steps")
        print(f"  images scaled from the environment's own pixels, not decoded (the browser's set-of-marks): "
              f"{f.get('env_pixels', 0)} in {f['steps']} steps")


# --- part 1b: the image pipeline on a real screenshot ---------------------------------------------------

def typical_screenshot(run: InnerRun, style: str) -> Path | None:
    """The run's screenshot of median file size that the style sends (set-of-marks for the browser style)."""
    key = "som" if style == "browser" else "screenshot"
    files = [Path(t["trajectory"]).with_name(e[key]) for t in run.tasks for e in run.steps(t) if e.get(key)]
    files = sorted((f for f in files if f.exists()), key=lambda f: f.stat().st_size)
    return files[len(files) // 2] if files else None


def _time_ms(fn: Callable[[], Any], rounds: int) -> dict[str, float]:
    """Median and minimum of ``rounds`` calls of ``fn``, in ms."""
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return {"median": statistics.median(samples) * 1000, "min": min(samples) * 1000}


def bench_image(png: bytes, style: str, rounds: int = 15) -> dict[str, Any]:
    """prepare_image on ``png`` at the style's size for the OpenAI vendor (what the fake runs are sent), a cache
    hit, and its stages (decode, box resize, JPEG encode) with the choices of before beside them (bilinear and
    LANCZOS resizes, PNG at level 1 and Pillow's default)."""
    import io

    from PIL import Image

    from pytest_cua.agents.models import images
    from pytest_cua.agents.models.coords import fit_within
    from pytest_cua.agents.models.styles.computer import DEFAULT_IMAGE

    screen = images.image_size(png)
    # the styles' default image_size options: 1280x800 (browser), the vendor's default (computer)
    box = (1280, 800) if style == "browser" else tuple(int(v) for v in DEFAULT_IMAGE["openai"].split("x"))
    size = fit_within(screen[0], screen[1], *box)
    limits = images.VENDOR_LIMITS["openai"]
    image = Image.open(io.BytesIO(png))
    image.load()
    small = image.resize(size, Image.Resampling.BOX)

    def save(img: Image.Image, fmt: str, **kw: Any) -> int:
        buffer = io.BytesIO()
        img.save(buffer, fmt, **kw)
        return len(buffer.getvalue())

    def decode() -> None:
        Image.open(io.BytesIO(png)).load()

    sent = images.prepare_image(png, size=size, limits=limits)
    stages: dict[str, Callable[[], Any]] = {
        "prepare_image, decoding the PNG (vendor openai)": lambda: images.prepare_image(png, size=size,
                                                                                       limits=limits),
    }
    from pytest_cua import observations

    keep = getattr(observations, "keep_decoded", None)  # absent from a tree of before the kept pixels
    if keep is not None and hasattr(images, "_kept_pixels"):
        kept = bytes(bytearray(png))  # its own bytes object: the pixels are kept for this one
        keep(kept, image)
        stages["prepare_image on pixels the environment kept (no decode)"] = \
            lambda: images.prepare_image(kept, size=size, limits=limits)
    cache_type = getattr(images, "ImageCache", None)  # absent from a tree of before the cache
    if cache_type is not None:
        cache = cache_type()
        images.prepare_image(png, size=size, limits=limits, cache=cache)
        stages["prepare_image, the same screenshot again (cache hit)"] = \
            lambda: images.prepare_image(bytes(png), size=size, limits=limits, cache=cache)
    fast_decode = getattr(observations, "decode_screenshot", None)  # absent from a tree of before libspng
    if fast_decode is not None:
        stages["  decode the screenshot PNG (libspng: decode_screenshot)"] = lambda: fast_decode(png)
    box_bands = getattr(images, "_box", None)  # absent from a tree of before the bands
    if box_bands is not None:
        stages["  resize, BOX in bands of rows on the cores (images._box)"] = lambda: box_bands(image, size)
    stages.update({
        "  decode the screenshot PNG (Pillow)": decode,
        "  resize, BOX (one call)": lambda: image.resize(size, Image.Resampling.BOX),
        "  encode JPEG quality 85": lambda: save(small, "JPEG", quality=85),
        "before: resize, BILINEAR (reducing_gap 2)": lambda: image.resize(size, Image.Resampling.BILINEAR,
                                                                          reducing_gap=2.0),
        "before: encode PNG compress_level=1": lambda: save(small, "PNG", compress_level=1),
        "for comparison: resize, LANCZOS": lambda: image.resize(size, Image.Resampling.LANCZOS),
        "for comparison: encode PNG (Pillow default, level 6)": lambda: save(small, "PNG"),
    })
    return {"screen": screen, "size": size, "bytes": len(png), "sent": sent.media_type, "sent_bytes": len(sent.data),
            "png1_bytes": save(small, "PNG", compress_level=1), "jpeg_bytes": save(small, "JPEG", quality=85),
            "ms": {label: _time_ms(fn, rounds) for label, fn in stages.items()}, "load": load_average()}


def print_image(path: Path, f: dict[str, Any]) -> None:
    print(f"  image pipeline microbenchmark, {path.name} of this run ({f['screen'][0]}x{f['screen'][1]}, "
          f"{f['bytes'] // 1024} KB) -> {f['size'][0]}x{f['size'][1]}; {f['load']}:")
    print(f"    {'ms':<62}{'median':>8}{'min':>8}")
    for label, v in f["ms"].items():
        print(f"    {label:<62}{v['median']:8.1f}{v['min']:8.1f}")
    print(f"    sent: {f['sent']}, {f['sent_bytes'] // 1024} KB (PNG level 1 would be {f['png1_bytes'] // 1024} KB, "
          f"JPEG 85 {f['jpeg_bytes'] // 1024} KB)")


def bench_harness(base: Path, task_ids: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for style in STYLES:
        split = base / f"split-{style}"
        split.mkdir(parents=True)
        run = run_inner(base / f"harness-{style}", task_ids, style, split=split)
        out[style] = harness_figures(run, split) if run.tasks else {"problems": run.problems()}
        if run.tasks:
            print_harness(style, out[style])
            shot = typical_screenshot(run, style)
            if shot is not None:
                out[style]["image"] = bench_image(shot.read_bytes(), style)
                print_image(shot, out[style]["image"])
        else:
            print(f"\n{style} style: the run failed: {run.problems()}")
    return out


# --- part 2: throughput ----------------------------------------------------------------------------------

def task_span(run: InnerRun) -> tuple[float, float]:
    """From the first episode's first step to the end of the last episode (epoch seconds)."""
    starts, ends = [], []
    for task in run.tasks:
        entries = run.steps(task)
        if entries:
            starts.append(entries[0]["started_at"])
            ends.append(entries[0]["started_at"] + task["times"]["wall_s"] + (task["times"].get("eval_s") or 0.0))
    return (min(starts), max(ends)) if starts else (0.0, run.wall_s)


def throughput_figures(run: InnerRun, workers: int) -> dict[str, Any]:
    """Tasks per minute (run wall, episode span) and the per-task mean of model wait and the rest."""
    first, last = task_span(run)
    n = len(run.tasks)
    ran = [(t, run.steps(t)) for t in run.tasks]
    ran = [(t, steps) for t, steps in ran if steps] or [({"times": {"wall_s": 0.0}, "steps": 0}, [])]
    wait = [sum(float(((e.get("extra") or {}).get("model") or {}).get("latency_s", 0.0)) for e in steps)
            for _, steps in ran]
    episode = [t["times"]["wall_s"] for t, _ in ran]
    around = [(t["times"].get("reset_s") or 0.0) + (t["times"].get("eval_s") or 0.0) for t, _ in ran]
    return {"workers": workers, "tasks": n, "passed": run.passed(), "problems": run.problems(),
            "wall_s": run.wall_s, "span_s": last - first, "per_min": n * 60 / run.wall_s,
            "span_per_min": n * 60 / max(last - first, 1e-9), "steps": statistics.fmean(t["steps"] for t, _ in ran),
            "model_wait_s": statistics.fmean(wait), "other_s": statistics.fmean(e - w for e, w in zip(episode, wait)),
            "reset_eval_s": statistics.fmean(around),
            "worker_ids": sorted({str((t.get("environment") or {}).get("worker")) for t in run.tasks}),
            "load": f"{run.load_before} -> {run.load_after}"}


def print_throughput(rows: list[dict[str, Any]], delay: float) -> None:
    one = next((r for r in rows if r["workers"] == 1), rows[0])
    base, base_span = one["per_min"] / one["workers"], one["span_per_min"] / one["workers"]
    print(f"\nthroughput: {rows[0]['tasks']} SCUBA tasks (--agent gpt-5.5), the fake thinks {delay:g} s before each answer")
    print(f"  {'':>15}{'the whole run':^33}{'the episodes':^33}   per task (means)")
    print(f"  {'-n':>3}{'pass':>6}{'wall s':>8}{'tasks/min':>11}{'ideal':>8}{'eff':>6}{'span s':>9}"
          f"{'tasks/min':>11}{'ideal':>8}{'eff':>6}   model wait | the rest | reset+eval   load")
    for r in rows:
        n = r["workers"]
        print(f"  {n:>3}{r['passed']:>3}/{r['tasks']:<2}{r['wall_s']:8.1f}{r['per_min']:11.2f}{n * base:8.2f}"
              f"{r['per_min'] / (n * base):6.0%}{r['span_s']:9.1f}{r['span_per_min']:11.2f}{n * base_span:8.2f}"
              f"{r['span_per_min'] / (n * base_span):6.0%}   {r['model_wait_s']:6.1f} s | {r['other_s']:5.2f} s | "
              f"{r['reset_eval_s']:5.2f} s   {r['load']}")
        share = r["model_wait_s"] / max(r["model_wait_s"] + r["other_s"] + r["reset_eval_s"], 1e-9)
        print(f"      model wait {share:.0%} of a task's time; {len(r['worker_ids'])} worker(s) ran tasks "
              f"({', '.join(r['worker_ids'])}); {r['steps']:.1f} steps per task")
        for problem in r["problems"]:
            print(f"      ! {problem}")
    print("  wall: the whole pytest run (startup of each worker's Chromium and org included); span: first episode "
          "start to last episode end. ideal = n x the single-worker rate. the rest = episode wall - model wait.")


def bench_throughput(base: Path, task_ids: list[str], workers: tuple[int, ...], delay: float) -> list[dict[str, Any]]:
    rows = []
    for n in workers:
        timeout = 300 + len(task_ids) * 8 * (delay + 2.0) / n  # 8 steps per task at most, slowly
        run = run_inner(base / f"throughput-n{n}", task_ids, "browser", workers=n, delay=delay, timeout_s=timeout)
        if not run.tasks:
            print(f"\n-n {n}: the run failed: {run.problems()}")
            continue
        rows.append(throughput_figures(run, n))
        print(f"  -n {n}: {run.passed()}/{len(run.tasks)} passed in {run.wall_s:.1f} s ({run.load_after})", flush=True)
    if rows:
        print_throughput(rows, delay)
    return rows


# --- command line ----------------------------------------------------------------------------------------

def parse_workers(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers: expected numbers like 1,2,4,8, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"--workers: expected numbers >= 1, got {text!r}")
    return values


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer tasks and worker counts (1,2), for the pytest wrapper")
    parser.add_argument("--delay", type=float, default=3.0, help="seconds the throughput fake thinks per answer")
    parser.add_argument("--workers", type=parse_workers, default=None, help="xdist worker counts (default 1,2,4,8)")
    parser.add_argument("--part", choices=("all", "harness", "throughput"), default="all",
                        help="run only the harness (figure 1) or the throughput part (figure 2)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the inner runs' reports in this folder")
    args = parser.parse_args(argv)
    workers = args.workers or (QUICK_WORKERS if args.quick else WORKERS)
    base = Path(tempfile.mkdtemp(prefix="pytest-cua-model-bench-")) if args.keep is None else args.keep
    base.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    figures: dict[str, Any] = {"cpus": os.cpu_count(), "load_start": load_average()}
    print(f"model-agent benchmark: {os.cpu_count()} CPUs, {figures['load_start']}; reports under {base}")
    try:
        if args.part in ("all", "harness"):
            tasks = QUICK_HARNESS_TASKS if args.quick else HARNESS_TASKS
            print(f"harness per model step: {len(tasks)} SCUBA tasks per style, real Chromium, embedded org, "
                  f"viewport 1920x1080")
            figures["harness"] = bench_harness(base, tasks)
        if args.part in ("all", "throughput"):
            tasks = QUICK_THROUGHPUT_TASKS if args.quick else THROUGHPUT_TASKS
            print(f"\nthroughput runs ({len(tasks)} tasks, fake delay {args.delay:g} s, -n "
                  f"{','.join(map(str, workers))}):", flush=True)
            figures["throughput"] = bench_throughput(base, tasks, workers, args.delay)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    figures["load_end"], figures["elapsed_s"] = load_average(), time.perf_counter() - started
    print(f"\nthe benchmark took {figures['elapsed_s'] / 60:.1f} min; {figures['load_end']}")
    return figures


# --- the inner-run plugin: the agent's parts timed in place (-p model_bench --model-bench-split DIR) --------

_STEP: dict[str, float] = {}
_SPLIT: list[dict[str, Any]] = []
_DIR = pytest.StashKey[Path]()


def _timed(fn: Callable[..., Any], key: str, *, first: bool = False) -> Callable[..., Any]:
    """``fn`` adding its time to ``_STEP[key]`` (``first``: a new step begins with this call)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if first:
            _STEP.clear()
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _STEP[key] = _STEP.get(key, 0.0) + time.perf_counter() - t0

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def _counting_hits(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``prepare_image`` adding to ``_STEP["image_cache_hits"]`` the calls its ``cache`` answered."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        cache = kwargs.get("cache")
        before = getattr(cache, "hits", 0)
        try:
            return fn(*args, **kwargs)
        finally:
            _STEP["image_cache_hits"] = _STEP.get("image_cache_hits", 0) + getattr(cache, "hits", 0) - before

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def _counting_found(fn: Callable[..., Any], key: str) -> Callable[..., Any]:
    """``fn`` adding to ``_STEP[key]`` the calls that found something (returned other than None)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        found = fn(*args, **kwargs)
        if found is not None:
            _STEP[key] = _STEP.get(key, 0) + 1
        return found

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(SPLIT_OPTION, default=None, metavar="DIR",
                     help="model_bench: time the model agent's parts per step into DIR/split-<pid>.jsonl")


def pytest_configure(config: pytest.Config) -> None:
    directory = config.getoption(SPLIT_OPTION, None)
    if not directory:
        return
    config.stash[_DIR] = Path(directory)
    from pytest_cua.agents.models import images
    from pytest_cua.episode.trajectory import TrajectoryRecorder

    # the styles import prepare_image at call time: they call these wrappers
    images.prepare_image = _counting_hits(_timed(images.prepare_image, "prepare_image"))
    stages = {"_decoded": "image_decode", "_resize": "image_scale", "_encoded": "image_encode"}
    for name, key in stages.items():  # its stages, where the tree has them (a tree of before has no _encoded)
        if hasattr(images, name):
            setattr(images, name, _timed(getattr(images, name), key))
    if hasattr(images, "_kept_pixels"):  # absent from a tree of before the environment kept its pixels
        images._kept_pixels = _counting_found(images._kept_pixels, "env_pixels")
    record = TrajectoryRecorder.record_step

    def record_step(self: TrajectoryRecorder, step: Any) -> None:
        t0 = time.perf_counter()
        record(self, step)
        _SPLIT.append({"task": self.directory.name if self.directory else "", "step": step.index,
                       "record": time.perf_counter() - t0, "recorded_at": time.time(), **_STEP})

    TrajectoryRecorder.record_step = record_step  # type: ignore[method-assign]


def pytest_unconfigure(config: pytest.Config) -> None:
    directory = config.stash.get(_DIR, None)
    if directory is not None and _SPLIT:
        with open(directory / f"split-{os.getpid()}.jsonl", "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(entry) + "\n" for entry in _SPLIT)


def _time_parts(adapter: Any, style: Any) -> None:
    """Time the parts of one task's conversation (the agent builds a new adapter and style per task)."""
    style.turn_for = _timed(style.turn_for, "turn_for")
    style.actions_for = _timed(style.actions_for, "actions_for")
    for name in ("_append_user", "_prune", "_request"):
        setattr(adapter, name, _timed(getattr(adapter, name), "request_build"))
    adapter._create = _timed(adapter._create, "model_call")
    adapter._parse = _timed(adapter._parse, "parse")


def _instrument(agent: Any) -> None:
    """Time ``agent.step`` and, after each ``start``, the parts of the task's adapter and style."""
    start = agent.start

    def started(*args: Any, **kwargs: Any) -> None:
        start(*args, **kwargs)
        _time_parts(agent.adapter, agent.style)

    agent.start = started
    agent.step = _timed(agent.step, "agent_step", first=True)
    agent._model_bench = True


@pytest.fixture(autouse=True)
def _model_bench_split(request: pytest.FixtureRequest) -> Iterator[None]:
    """Instrument the worker's model agent (once) so that each step's parts are timed."""
    if _DIR not in request.config.stash or "cua_agent" not in request.fixturenames:
        yield
        return
    agent = request.getfixturevalue("cua_agent")
    if hasattr(agent, "adapter") and not getattr(agent, "_model_bench", False):
        _instrument(agent)
    yield


if __name__ == "__main__":
    main()
