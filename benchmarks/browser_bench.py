"""Browser environment benchmark: the cost of each observation kind per step, and the harness overhead of a
replayed task against the same actions scripted directly in Playwright.

    python benchmarks/browser_bench.py [--steps 30] [--viewport 1920x1080]
    pytest -m benchmark tests/browser

The page is the embedded org's Account edit page (pytest_cua.orgs.localorg, logged in by frontdoor) when the org
is available, else a local CRM-like record page (tests/browser/pages/record.html: ~40 fields, related lists,
an activity form), served on 127.0.0.1 (``--page local`` forces it). Figures are printed; nothing is asserted
here (the pytest wrapper checks the overhead target: ratio <= 1.2 with screenshot + axtree).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import shutil
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
from pytest_cua.envs.browser.options import BrowserOptions, parse_viewport  # noqa: E402
from pytest_cua.episode.loop import Episode  # noqa: E402
from pytest_cua.tasks.task import Task  # noqa: E402
from pytest_cua.episode.trajectory import TrajectoryRecorder, actions_from_trajectory  # noqa: E402

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


Step = tuple[str, str, Callable[[str], A.Action]]
"""(css selector for the direct script, element name for the harness, action builder)"""

# The org task: edit an account's fields and save.
ORG_STEPS: list[Step] = [
    ("#f-Phone", "Phone", lambda e: A.Fill(e, "+44 113 555 0199")),
    ("#f-Fax", "Fax", lambda e: A.Fill(e, "+44 113 555 0198")),
    ("#f-Type", "Type", lambda e: A.SelectOption(e, "Customer - Channel")),
    ("#f-Rating", "Rating", lambda e: A.SelectOption(e, "Warm")),
    ("#f-Website", "Website", lambda e: A.Clear(e)),
    ("#f-Website", "Website", lambda e: A.Type("https://bench.example", target=e)),
    ("#f-BillingCity", "Billing City", lambda e: A.Fill(e, "York")),
    ("#f-Description", "Description", lambda e: A.Fill(e, "Edited by the benchmark")),
    ("#f-AccountNumber", "Account Number", lambda e: A.Fill(e, "BENCH-001")),
    ("#f-Site", "Site", lambda e: A.Fill(e, "North")),
]

# The local task: what a person does on the record page.
LOCAL_STEPS: list[Step] = [
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


def run_harness(env: BrowserEnvironment, url: str, actions: list[A.Action], kinds: frozenset[str],
                directory: Path | None) -> tuple[float, Any]:
    """One episode through the real loop (observe -> agent -> act, trajectory written); wall seconds."""
    task = Task(id="bench-record", suite="bench", instruction="edit the record", extra={"start_url": url})
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


def run_direct(env: BrowserEnvironment, url: str, steps: list[Step], observe: bool) -> float:
    """The same actions scripted directly in Playwright with CSS selectors; with ``observe`` each step also
    takes what a hand-written agent loop would need: a screenshot and Playwright's ARIA snapshot."""
    env.new_context(url=url)
    page = env.page
    t0 = time.perf_counter()
    for i, (selector, _name, build) in enumerate(steps + [("", "", lambda e: A.Done())]):
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


def harness_actions(env: BrowserEnvironment, url: str, steps: list[Step]) -> list[A.Action]:
    env.new_context(url=url)
    obs = env.observe(frozenset({"axtree"}))
    ids: dict[str, str] = {}
    for el in obs.elements.values():
        ids.setdefault(el.name, el.id)
    return [build(ids[name]) for _sel, name, build in steps]


class Target:
    """Where the benchmark runs: the page, the environment that reaches it, the task's steps."""

    def __init__(self, label: str, url: str, steps: list[Step], env: BrowserEnvironment, stop: Callable[[], None]):
        self.label, self.url, self.steps, self.env, self.stop = label, url, steps, env, stop


def org_target(options: BrowserOptions) -> Target | None:
    """The embedded org's Account edit page, or None when the org cannot start here."""
    try:
        from simple_salesforce import Salesforce

        from pytest_cua.orgs.localorg.server import OrgServer
        from pytest_cua.redaction import register_secret
    except ImportError:
        return None
    data_dir = Path(tempfile.mkdtemp(prefix="pytest-cua-bench-org-"))
    server = OrgServer(data_dir)

    def stop() -> None:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)

    try:
        creds = server.start()
        token = server.access_token()
        register_secret(token)
        sf = Salesforce(instance_url=creds.instance_url, session_id=token, session=creds.requests_session(),
                        version="59.0")
        account = sf.query("SELECT Id FROM Account ORDER BY Name LIMIT 1")["records"][0]["Id"]
    except Exception as exc:  # noqa: BLE001 - fall back to the local page
        print(f"(org not available: {exc}; using the local page)")
        stop()
        return None

    def login() -> str:
        fresh = server.access_token()
        register_secret(fresh)
        return f"{creds.instance_url}/secur/frontdoor.jsp?sid={fresh}"

    url = f"{creds.instance_url}/lightning/r/Account/{account}/edit"
    env = BrowserEnvironment(options, login_url=login, home_url=creds.instance_url, ignore_https_errors=True)
    return Target("the embedded org's Account edit page", url, ORG_STEPS, env, stop)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="observations per kind (median taken)")
    parser.add_argument("--viewport", default="1920x1080")
    parser.add_argument("--page", choices=("auto", "org", "local"), default="auto",
                        help="the embedded org's record page (auto: when available) or the local page")
    parser.add_argument("--runs", type=int, default=1,
                        help="measured runs of each side of the overhead comparison; the median is reported "
                             "(default 1: one run each)")
    args = parser.parse_args(argv)
    options = BrowserOptions(viewport=parse_viewport(args.viewport))
    target = org_target(options) if args.page != "local" else None
    if target is None:
        if args.page == "org":
            raise SystemExit("--page org: the embedded org is not available")
        server, url = serve_pages()
        env = BrowserEnvironment(options, start_url=url)
        target = Target("a local CRM-like record page", url, LOCAL_STEPS, env, server.shutdown)
    env, url = target.env, target.url
    figures: dict[str, Any] = {"page": target.label}
    try:
        env.start()
        env.new_context(url=url)
        n = len(env.observe(frozenset({"axtree"})).elements)
        print(f"page: {target.label} ({n} interactive elements), viewport {args.viewport}, "
              f"Chromium {env.browser.version}")
        obs = bench_observations(env, args.steps)
        figures["observation_ms"] = obs
        print(f"observation cost per step (median of {args.steps}):")
        for label, ms in obs.items():
            print(f"  {label:<18} {ms:8.1f} ms")

        kinds = frozenset({"screenshot", "axtree"})
        actions = harness_actions(env, url, target.steps)
        with tempfile.TemporaryDirectory() as tmp:
            # record the task once (this is also the warm-up), then replay the recorded trajectory
            run_harness(env, url, actions, kinds, Path(tmp) / "recorded")
            replayed = actions_from_trajectory(Path(tmp) / "recorded")
            run_direct(env, url, target.steps, observe=True)  # warm-up of the direct path
            harness_runs, direct_runs, bare_runs = [], [], []
            for n in range(max(1, args.runs)):  # interleaved, so a burst of load hits both sides alike
                direct_runs.append(run_direct(env, url, target.steps, observe=True))
                bare_runs.append(run_direct(env, url, target.steps, observe=False))
                elapsed, result = run_harness(env, url, replayed, kinds, Path(tmp) / f"replayed-{n}")
                harness_runs.append(elapsed)
            harness, direct_obs = statistics.median(harness_runs), statistics.median(direct_runs)
            direct_bare = statistics.median(bare_runs)
        ratio = harness / direct_obs
        figures.update({"harness_s": harness, "direct_observed_s": direct_obs, "direct_bare_s": direct_bare,
                        "ratio": ratio, "steps": result.steps, "actions": len(replayed)})
        runs = f"median of {args.runs} runs" if args.runs > 1 else "one run"
        print(f"replayed task ({len(replayed)} actions, {result.steps} steps, observe screenshot+axtree, "
              f"trajectory written; {runs} each):")
        print(f"  harness (replay through the episode loop)              {harness * 1000:8.0f} ms")
        print(f"  direct Playwright, screenshot + aria snapshot per step {direct_obs * 1000:8.0f} ms")
        print(f"  direct Playwright, actions only                        {direct_bare * 1000:8.0f} ms")
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(f"  overhead ratio harness / direct (same observations): {ratio:.2f} ({verdict} target <= "
              f"{TARGET_RATIO})")
        print(f"  harness / actions-only direct: {harness / direct_bare:.2f} (the cost of observing at all)")
    finally:
        env.close()
        target.stop()
    return figures


if __name__ == "__main__":
    main()
