"""Browser environment benchmark: the cost of each observation kind per step, and the harness overhead of a
replayed task against the same actions scripted directly in Playwright.

    python benchmarks/browser_bench.py [--steps 30] [--runs 3] [--page auto|org|local] [--viewport 1920x1080]
    python benchmarks/browser_bench.py --quick [--page org|local]   # 3 observations per kind, one run each
    pytest -m benchmark tests/browser

The page is the embedded org's Lightning Account edit page (pytest_cua.orgs.localorg, logged in by frontdoor:
the New/Edit modal, text fields by their ``#f-<Field>`` ids, picklists as Lightning comboboxes) when the org is
available, else a local CRM-like record page (tests/browser/pages/record.html: ~40 fields, related lists, an
activity form), served on 127.0.0.1 (``--page local`` forces it). Both sides do the same things per step: the
harness observes screenshot + axtree and acts on element ids; raw Playwright takes a screenshot and an ARIA
snapshot and acts on CSS selectors (a picklist: click the combobox, then its option, as the harness's
``select_option`` does). Figures are printed, with where each side's time went (observing, acting, the rest of
the loop); nothing is asserted here (the pytest wrapper checks the overhead target: ratio <= 1.2, and
tests/browser/test_benchmark.py runs ``--quick`` on both pages with the ordinary suite so that a crash fails).
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
from typing import Any, Callable, NamedTuple

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


class Step(NamedTuple):
    """One action of the task, as each side addresses it."""

    selector: str
    """CSS selector for the direct script (Playwright's CSS pierces Lightning's shadow roots)"""
    name: str
    """the element's accessible name in the harness's axtree observation"""
    build: Callable[[str], A.Action]
    """the action, given the element's id (the direct script reads only its kind and text)"""


def _combobox(label: str) -> str:
    """The control of a Lightning picklist (``lightning-combobox``): a button with role combobox."""
    return f"button[role=combobox][aria-label='{label}']"


# The org task: edit an account's fields on the Lightning Account form (not saved: every run starts alike).
ORG_STEPS: list[Step] = [
    Step("#f-Phone", "Phone", lambda e: A.Fill(e, "+44 113 555 0199")),
    Step("#f-Fax", "Fax", lambda e: A.Fill(e, "+44 113 555 0198")),
    Step(_combobox("Type"), "Type", lambda e: A.SelectOption(e, "Customer - Channel")),
    Step(_combobox("Rating"), "Rating", lambda e: A.SelectOption(e, "Warm")),
    Step("#f-Website", "Website", lambda e: A.Clear(e)),
    Step("#f-Website", "Website", lambda e: A.Type("https://bench.example", target=e)),
    Step("#f-BillingCity", "Billing City", lambda e: A.Fill(e, "York")),
    Step("#f-Description", "Description", lambda e: A.Fill(e, "Edited by the benchmark")),
    Step("#f-AccountNumber", "Account Number", lambda e: A.Fill(e, "BENCH-001")),
    Step("#f-Site", "Account Site", lambda e: A.Fill(e, "North")),
]

# The local task: what a person does on the record page.
LOCAL_STEPS: list[Step] = [
    Step("#subj", "Subject", lambda e: A.Fill(e, "Call back about renewal")),
    Step("#status", "Status", lambda e: A.SelectOption(e, "In Progress")),
    Step("#reminder", "Reminder", lambda e: A.Check(e)),
    Step("textarea[aria-label=Comments]", "Comments", lambda e: A.Fill(e, "Customer asked for a quote")),
    Step("#saveact", "Save", lambda e: A.Click(e)),
    Step("button[aria-label='Edit Billing City']", "Edit Billing City", lambda e: A.Click(e)),
    Step("#subj", "Subject", lambda e: A.Clear(e)),
    Step("#subj", "Subject", lambda e: A.Type("Follow-up", target=e)),
    Step("button[aria-label='Edit Phone']", "Edit Phone", lambda e: A.Click(e)),
    Step("#reminder", "Reminder", lambda e: A.Uncheck(e)),
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


class Timing(NamedTuple):
    """One run of the task: wall seconds, and the part spent observing and acting (the rest is the loop's own
    work: for the harness the agent call, the trajectory and the step bookkeeping; for the direct script
    nothing but Python)."""

    total_s: float
    observe_s: float
    act_s: float

    @property
    def rest_s(self) -> float:
        return self.total_s - self.observe_s - self.act_s


def run_harness(env: BrowserEnvironment, url: str, actions: list[A.Action], kinds: frozenset[str],
                directory: Path | None) -> tuple[Timing, Any]:
    """One episode through the real loop (observe -> agent -> act, trajectory written); its timing, read from
    the recorded steps (``env_s`` covers the observation and the actions, each action's ``duration_s``)."""
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
        failures = [f"step {step.index}: {r.error}" for step in recorder.steps for r in step.results if not r.ok]
        raise RuntimeError(f"benchmark task had {result.failed_actions} failed action(s): {'; '.join(failures)}")
    env_s = sum(step.env_s for step in recorder.steps)
    act_s = sum(r.duration_s for step in recorder.steps for r in step.results)
    return Timing(elapsed, env_s - act_s, act_s), result


def _choose_in_combobox(page: Any, loc: Any, option: str) -> None:
    """A Lightning picklist by hand: open it, click the option (its listbox renders only while open)."""
    loc.click()
    page.locator(f"[role=listbox] [role=option][data-value='{option}']").click()


def run_direct(env: BrowserEnvironment, url: str, steps: list[Step], observe: bool | str) -> Timing:
    """The same actions scripted directly in Playwright with CSS selectors; with ``observe`` each step also
    takes what a hand-written agent loop would need: a screenshot and Playwright's ARIA snapshot. With
    ``observe="capture"`` each step takes only the screenshot, by the harness's own capture (CDP's
    ``Page.captureScreenshot``, optimized for speed): the floor of any loop that sends a screenshot per step."""
    env.new_context(url=url)
    page = env.page
    cdp = env.context.new_cdp_session(page) if observe == "capture" else None
    observe_s = act_s = 0.0
    t0 = time.perf_counter()
    for i in range(len(steps) + 1):  # the last observation is the one the harness's agent answers Done to
        if cdp is not None:
            t = time.perf_counter()
            cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
            observe_s += time.perf_counter() - t
        elif observe:
            t = time.perf_counter()
            page.screenshot(type="png")
            page.locator("body").aria_snapshot()
            observe_s += time.perf_counter() - t
        if i == len(steps):
            break
        step = steps[i]
        action = step.build("x")
        t = time.perf_counter()
        loc = page.locator(step.selector).first
        if isinstance(action, A.Fill):
            loc.fill(action.text)
        elif isinstance(action, A.SelectOption):
            if "[role=combobox]" in step.selector:  # the script knows its page: a Lightning picklist
                _choose_in_combobox(page, loc, action.option)
            else:
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
        else:
            raise TypeError(f"run_direct has no Playwright form of {type(action).__name__} (step {i})")
        act_s += time.perf_counter() - t
    return Timing(time.perf_counter() - t0, observe_s, act_s)


def harness_actions(env: BrowserEnvironment, url: str, steps: list[Step]) -> list[A.Action]:
    """The task's actions on the element ids of the page's axtree observation (the first element of each name);
    a clear error naming the missing names and those the page has."""
    env.new_context(url=url)
    obs = env.observe(frozenset({"axtree"}))
    ids: dict[str, str] = {}
    for el in obs.elements.values():
        ids.setdefault(el.name, el.id)
    missing = sorted({step.name for step in steps if step.name not in ids})
    if missing:
        raise RuntimeError(f"{url}: no element named {', '.join(map(repr, missing))} in the axtree observation; "
                           f"the page has: {', '.join(map(repr, ids))}")
    return [step.build(ids[step.name]) for step in steps]


def _median_timing(runs: list[Timing]) -> Timing:
    """The run of median total time (its parts kept together, so they add up)."""
    ordered = sorted(runs, key=lambda t: t.total_s)
    return ordered[(len(ordered) - 1) // 2] if len(ordered) % 2 else Timing(
        *(statistics.median(getattr(t, f) for t in ordered) for f in Timing._fields))


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
    parser.add_argument("--quick", action="store_true",
                        help="a short run that still gives every figure: --steps 3 and one run each (what "
                             "tests/browser/test_benchmark.py runs with the ordinary suite)")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.runs = 3, 1
    if args.steps < 1 or args.runs < 1:
        parser.error(f"--steps and --runs take a count of at least 1 (got --steps {args.steps}, --runs {args.runs})")
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
            harness_runs: list[Timing] = []
            direct_runs: list[Timing] = []
            bare_runs: list[Timing] = []
            floor_runs: list[Timing] = []
            for n in range(args.runs):  # interleaved, so a burst of load hits both sides alike
                direct_runs.append(run_direct(env, url, target.steps, observe=True))
                bare_runs.append(run_direct(env, url, target.steps, observe=False))
                floor_runs.append(run_direct(env, url, target.steps, observe="capture"))
                timing, result = run_harness(env, url, replayed, kinds, Path(tmp) / f"replayed-{n}")
                harness_runs.append(timing)
        harness, direct_obs, direct_bare, floor = (_median_timing(runs) for runs in (harness_runs, direct_runs,
                                                                                      bare_runs, floor_runs))
        ratio = harness.total_s / direct_obs.total_s
        floor_ratio = floor.total_s / direct_obs.total_s
        figures.update({"harness_s": harness.total_s, "direct_observed_s": direct_obs.total_s,
                        "direct_bare_s": direct_bare.total_s, "floor_s": floor.total_s, "ratio": ratio,
                        "floor_ratio": floor_ratio, "steps": result.steps,
                        "actions": len(replayed), "runs": args.runs,
                        "split_ms": {side: {"observe": t.observe_s * 1000, "act": t.act_s * 1000,
                                            "rest": t.rest_s * 1000}
                                     for side, t in (("harness", harness), ("direct", direct_obs))}})
        runs = f"median of {args.runs} runs" if args.runs > 1 else "one run"
        print(f"replayed task ({len(replayed)} actions, {result.steps} steps, observe screenshot+axtree, "
              f"trajectory written; {runs} each):")
        print(f"  harness (replay through the episode loop)              {harness.total_s * 1000:8.0f} ms")
        print(f"  direct Playwright, screenshot + aria snapshot per step {direct_obs.total_s * 1000:8.0f} ms")
        print(f"  direct Playwright, actions only                        {direct_bare.total_s * 1000:8.0f} ms")
        print(f"  direct Playwright, the harness's screenshot capture only {floor.total_s * 1000:6.0f} ms")
        print("  where the time went (ms)      observe      act     rest")
        for side, t in (("harness", harness), ("direct, observing", direct_obs), ("direct, capture only", floor)):
            print(f"    {side:<24} {t.observe_s * 1000:9.0f} {t.act_s * 1000:8.0f} {t.rest_s * 1000:8.0f}")
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(f"  overhead ratio harness / direct (same observations): {ratio:.2f} ({verdict} target <= "
              f"{TARGET_RATIO})")
        print(f"  harness / actions-only direct: {harness.total_s / direct_bare.total_s:.2f} "
              f"(the cost of observing at all)")
        print(f"  floor / direct (same observations): {floor_ratio:.2f} (a screenshot per step by the harness's "
              f"capture and the bare actions, no tree: no harness that sends a screenshot goes below it)")
    finally:
        env.close()
        target.stop()
    return figures


if __name__ == "__main__":
    main()
