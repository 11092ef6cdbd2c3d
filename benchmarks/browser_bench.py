"""Browser environment benchmark: the cost of each observation kind per step, and the harness overhead of a
replayed task against the same actions scripted directly in Playwright.

    python benchmarks/browser_bench.py [--steps 30] [--viewport 1920x1080]
    pytest -m benchmark tests/browser

The page is a local CRM-like record page (tests/browser/pages/record.html: ~40 fields, related lists, an
activity form; about 150 interactive elements), served on 127.0.0.1. Figures are printed; nothing is asserted
here (the pytest wrapper checks the overhead target: ratio <= 1.2 with screenshot + axtree).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pytest_cua import actions as A  # noqa: E402
from pytest_cua.agents.base import Agent, AgentContext, Turn  # noqa: E402
from pytest_cua.envs.browser import BrowserEnvironment  # noqa: E402
from pytest_cua.envs.browser_options import BrowserOptions, parse_viewport  # noqa: E402
from pytest_cua.episode import Episode  # noqa: E402
from pytest_cua.tasks import Task  # noqa: E402
from pytest_cua.trajectory import TrajectoryRecorder, actions_from_trajectory  # noqa: E402

PAGES = ROOT / "tests" / "browser" / "pages"
KINDS = ("screenshot", "axtree", "dom", "som")
TARGET_RATIO = 1.2


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve_pages() -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(PAGES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/record.html"


# The task: what a person does on the record page. (css selector for the direct script, element name for
# the harness, action builder)
STEPS: list[tuple[str, str, Callable[[str], A.Action]]] = [
    ("#subj", "Subject", lambda e: A.Fill(e, "Call back about renewal")),
    ("#status", "Status", lambda e: A.SelectOption(e, "In Progress")),
    ("#reminder", "Reminder", lambda e: A.Check(e)),
    ("textarea[aria-label=Comments]", "Comments", lambda e: A.Fill(e, "Customer asked for a quote")),
    ("#saveact", "Save", lambda e: A.Click(e)),
    ("button[aria-label='Edit Billing City']", "Edit Billing City", lambda e: A.Click(e)),
    ("#subj", "Subject", lambda e: A.Clear(e)),
    ("#subj", "Subject", lambda e: A.Type("Follow-up", target=e)),
    ("button[aria-label='Edit Phone']", "Edit Phone", lambda e: A.Click(e)),
    ("#reminder", "Reminder", lambda e: A.Uncheck(e)),
]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_observations(env: BrowserEnvironment, steps: int) -> dict[str, float]:
    """Median ms of one observation per kind alone, and of screenshot+axtree together."""
    out: dict[str, float] = {}
    combos: list[tuple[str, frozenset[str]]] = [(k, frozenset({k})) for k in KINDS]
    combos.append(("screenshot+axtree", frozenset({"screenshot", "axtree"})))
    combos.append(("all four", frozenset(KINDS)))
    for label, kinds in combos:
        env.observe(kinds)  # warm up
        samples = []
        for _ in range(steps):
            t0 = time.perf_counter()
            env.observe(kinds)
            samples.append(time.perf_counter() - t0)
        out[label] = median_ms(samples)
    return out


class ScriptAgent(Agent):
    """Plays one action per step (the replay agent's behaviour), then done."""

    name = "bench-replay"

    def __init__(self, actions: list[A.Action]) -> None:
        super().__init__()
        self.actions = actions

    def start(self, task: Task, context: AgentContext) -> None:
        self.queue = list(self.actions)

    def step(self, observation: Any) -> Turn:
        return Turn([self.queue.pop(0) if self.queue else A.Done()])


def run_harness(env: BrowserEnvironment, actions: list[A.Action], kinds: frozenset[str],
                directory: Path | None) -> tuple[float, Any]:
    """One episode through the real loop (observe -> agent -> act, trajectory written); wall seconds."""
    task = Task(id="bench-record", suite="bench", instruction="log a call on the record page")
    env.restore(env.snapshot())
    env.begin_task(task)
    recorder = TrajectoryRecorder(directory)
    context = AgentContext(env=env, observation_kinds=kinds)
    t0 = time.perf_counter()
    result = Episode(task, env, ScriptAgent(actions), context=context, recorder=recorder, max_steps=50).run()
    recorder.finish({"episode": result.to_dict()})
    elapsed = time.perf_counter() - t0
    env.end_task(task, failed=False)
    if result.failed_actions:
        raise RuntimeError(f"benchmark task had {result.failed_actions} failed action(s)")
    return elapsed, result


def run_direct(env: BrowserEnvironment, url: str, observe: bool) -> float:
    """The same actions scripted directly in Playwright with CSS selectors; with ``observe`` each step also
    takes what a hand-written agent loop would need: a screenshot and Playwright's ARIA snapshot."""
    env.new_context(url=url)
    page = env.page
    t0 = time.perf_counter()
    for i, (selector, _name, build) in enumerate(STEPS + [("", "", lambda e: A.Done())]):
        if observe:
            page.screenshot(type="png")
            page.locator("body").aria_snapshot()
        action = build("x")
        if isinstance(action, A.Done):
            break
        loc = page.locator(selector).first
        if isinstance(action, A.Fill):
            loc.fill(action.text)
        elif isinstance(action, A.SelectOption):
            loc.select_option(action.option)
        elif isinstance(action, A.Check):
            loc.check()
        elif isinstance(action, A.Uncheck):
            loc.uncheck()
        elif isinstance(action, A.Click):
            loc.click()
        elif isinstance(action, A.Clear):
            loc.clear()
        elif isinstance(action, A.Type):
            loc.press_sequentially(action.text)
    return time.perf_counter() - t0


def harness_actions(env: BrowserEnvironment) -> list[A.Action]:
    env.new_context()
    obs = env.observe(frozenset({"axtree"}))
    ids = {el.name: el.id for el in obs.elements.values()}
    return [build(ids[name]) for _sel, name, build in STEPS]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="observations per kind (median taken)")
    parser.add_argument("--viewport", default="1920x1080")
    args = parser.parse_args(argv)
    server, url = serve_pages()
    env = BrowserEnvironment(BrowserOptions(viewport=parse_viewport(args.viewport)), start_url=url)
    figures: dict[str, Any] = {}
    try:
        env.start()
        env.new_context()
        n = len(env.observe(frozenset({"axtree"})).elements)
        print(f"page: local CRM-like record page ({n} interactive elements), viewport {args.viewport}, "
              f"Chromium {env.browser.version}")
        obs = bench_observations(env, args.steps)
        figures["observation_ms"] = obs
        print(f"observation cost per step (median of {args.steps}):")
        for label, ms in obs.items():
            print(f"  {label:<18} {ms:8.1f} ms")

        kinds = frozenset({"screenshot", "axtree"})
        actions = harness_actions(env)
        with tempfile.TemporaryDirectory() as tmp:
            # record the task once (this is also the warm-up), then replay the recorded trajectory
            run_harness(env, actions, kinds, Path(tmp) / "recorded")
            replayed = actions_from_trajectory(Path(tmp) / "recorded")
            run_direct(env, url, observe=True)  # warm-up of the direct path
            direct_obs = run_direct(env, url, observe=True)
            direct_bare = run_direct(env, url, observe=False)
            harness, result = run_harness(env, replayed, kinds, Path(tmp) / "replayed")
        ratio = harness / direct_obs
        figures.update({"harness_s": harness, "direct_observed_s": direct_obs, "direct_bare_s": direct_bare,
                        "ratio": ratio, "steps": result.steps, "actions": len(replayed)})
        print(f"replayed task ({len(replayed)} actions, {result.steps} steps, observe screenshot+axtree, "
              f"trajectory written):")
        print(f"  harness (replay through the episode loop) {harness * 1000:8.0f} ms")
        print(f"  direct Playwright, screenshot + aria snapshot per step {direct_obs * 1000:8.0f} ms")
        print(f"  direct Playwright, actions only           {direct_bare * 1000:8.0f} ms")
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(f"  overhead ratio harness / direct (same observations): {ratio:.2f} ({verdict} target <= "
              f"{TARGET_RATIO})")
        print(f"  harness / actions-only direct: {harness / direct_bare:.2f} (the cost of observing at all)")
    finally:
        env.close()
        server.shutdown()
    return figures


if __name__ == "__main__":
    main()
