"""Per-task reset benchmark of the salesforce environment: the rollback the pool runs after every task, until the
next task's landing page is ready for the agent.

    python benchmarks/reset_bench.py [--runs 30] [--think 0.5] [--no-touch] [--modes preboot,load] [--busy 2]

Starts the embedded org and Chromium as the SCUBA suite does (``pytest_cua.envs.salesforce.PROVIDER.create``),
one environment per mode, and times ``runs`` rollbacks of each, interleaved (``restore`` + ``residue``, what
``EnvironmentPool.release`` measures as ``times.reset_s``) and, from the same start, the time until the landing
page is ready: its ready signal (``<html data-one-ready>``, its components mounted) with nothing busy, where the
agent's first observation can be taken. Modes: ``preboot`` (the default: the spare context boots the landing page
while the task runs and the rollback hands it over after one in-place navigation) and ``load`` (the landing page
loads after the rollback). Between rollbacks runs a small task: ``begin_task``, an observation, the agent's think
time (``--think`` seconds, twice), a page visited and a cookie and localStorage item left behind (not with
``--no-touch``), another observation. ``--busy N`` runs N busy-loop processes meanwhile (2: both cores busy). Then
it times the parts of one fresh context on their own: the new context and tab, the frontdoor login navigation,
and opening the home page with the session already in the context. Figures are printed in ms (median / p90 /
max); nothing is asserted.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pytest_cua.envs.base import EnvContext, roll_back  # noqa: E402
from pytest_cua.envs.salesforce import PROVIDER  # noqa: E402
from pytest_cua.tasks.task import Task  # noqa: E402


def _line(name: str, values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, math.ceil(0.9 * len(ms)) - 1)]
    return (f"{name:<36} n={len(ms):<3} median {statistics.median(ms):7.1f}  p90 {p90:7.1f}  "
            f"max {ms[-1]:7.1f} ms")


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


KINDS = frozenset({"screenshot", "axtree"})


def _task(env: Any, i: int, think_s: float, touch: bool) -> None:
    """A small task: observe, think, (leave a cookie, a localStorage item and another page), observe."""
    env.begin_task(Task(id=f"t{i}", suite="scuba", instruction="x"))
    env.observe(KINDS)
    time.sleep(think_s)
    if touch:
        page = env.browser.page
        page.evaluate("() => { document.cookie = 'task_cookie=1; path=/'; localStorage.setItem('task_item', '1'); }")
        page.goto(env.credentials.instance_url + "/lightning/o/Account/list", wait_until="domcontentloaded")
    env.observe(KINDS)
    time.sleep(think_s)


READY_JS = ("() => document.documentElement.dataset.oneReady === 'true' "
            "&& !document.querySelector('main[aria-busy=\\'true\\']')")


def _hog(stop: Any) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10000))


def _rollbacks(env: Any, snap: Any, i: int, args: argparse.Namespace, out: dict[str, list[float]]) -> None:
    """One task, then one rollback timed: restore, residue, and until the landing page is ready."""
    browser = env.browser
    _task(env, i, args.think, args.touch)
    t0 = time.perf_counter()
    env.restore(snap)
    t1 = time.perf_counter()
    left = env.residue(snap)
    t2 = time.perf_counter()
    if left:
        raise SystemExit(f"residue after rollback {i}: {left}")
    # the page's ready signal (its components mounted, nothing busy): what the agent's first observation shows
    browser.page.wait_for_function(READY_JS, polling=5)
    t3 = time.perf_counter()
    out["rollback"].append(t2 - t0)
    out["restore"].append(t1 - t0)
    out["ready"].append(t3 - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="rollbacks to time per mode (default 30)")
    parser.add_argument("--think", type=float, default=0.5, help="agent think time per step in s (default 0.5)")
    parser.add_argument("--no-touch", dest="touch", action="store_false",
                        help="leave no task state in the browser (no cookie, localStorage, other page)")
    parser.add_argument("--modes", default="preboot,load",
                        help="comma-separated, interleaved run by run: preboot (the spare boots the landing page, "
                             "handed over in place: the default) and load (the landing page loads after the "
                             "rollback)")
    parser.add_argument("--busy", type=int, default=0,
                        help="busy-loop processes beside the benchmark (2: both cores busy)")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - {"preboot", "load"}:
        parser.error(f"--modes {args.modes!r}: expected preboot and/or load")
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=_hog, args=(stop,), daemon=True) for _ in range(args.busy)]
    for hog in hogs:
        hog.start()
    envs: dict[str, Any] = {}
    try:
        for mode in modes:
            reports = Path(tempfile.mkdtemp(prefix="reset-bench-"))
            env = PROVIDER.create(EnvContext(worker_id=f"bench-{mode}", run_id="resetbench", config=None,
                                             reports_dir=reports))
            envs[mode] = env
            if mode == "load":
                env.browser.landing_refresh = None
        snaps = {mode: env.snapshot() for mode, env in envs.items()}
        figures: dict[str, dict[str, list[float]]] = {m: {"rollback": [], "restore": [], "ready": []} for m in modes}
        for mode, env in envs.items():  # warm up (first context, first page load, TLS; the first spare)
            roll_back(env, snaps[mode])
            for i in range(2):
                _task(env, -1 - i, 0, False)
                roll_back(env, snaps[mode])
        for i in range(args.runs):
            for mode in (modes if i % 2 == 0 else modes[::-1]):
                _rollbacks(envs[mode], snaps[mode], i, args, figures[mode])
        load = os.getloadavg()
        first = next(iter(envs.values()))
        print(f"reset benchmark: {args.runs} rollbacks per mode, think {args.think} s, touch={args.touch}, "
              f"{args.busy} busy processes, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
              f"chromium {first.browser.browser.version}")
        for mode, env in envs.items():
            browser = env.browser
            counters = {k: getattr(browser, k) for k in ("logins", "session_reuses", "spares_taken", "spares_booted")}
            print(f"{mode}: " + ", ".join(f"{k} {v}" for k, v in counters.items()))
            print(_line("  rollback (restore + residue)", figures[mode]["rollback"]))
            print(_line("    restore", figures[mode]["restore"]))
            print(_line("  rollback until the page is ready", figures[mode]["ready"]))
        if set(modes) == {"preboot", "load"}:
            ratio = statistics.median(figures["preboot"]["ready"]) / statistics.median(figures["load"]["ready"])
            print(f"ready, preboot / load (medians): {ratio:.2f}")

        # the parts of one fresh context, on their own
        env = first
        browser = env.browser
        pw_browser = browser.browser
        home = env.credentials.instance_url + "/"
        state = browser.context.storage_state()
        contexts, logins, loads, closes = [], [], [], []
        for _ in range(max(5, args.runs // 3)):
            browser.close_contexts()
            t0 = time.perf_counter()
            ctx = pw_browser.new_context(viewport={"width": browser.options.viewport[0],
                                                   "height": browser.options.viewport[1]},
                                         ignore_https_errors=True)
            page = ctx.new_page()
            contexts.append(time.perf_counter() - t0)
            logins.append(_timed(lambda: page.goto(env.frontdoor_url(), wait_until="domcontentloaded")))
            closes.append(_timed(ctx.close))
            ctx = pw_browser.new_context(ignore_https_errors=True, storage_state=state,
                                         viewport={"width": browser.options.viewport[0],
                                                   "height": browser.options.viewport[1]})
            page = ctx.new_page()
            loads.append(_timed(lambda: page.goto(home, wait_until="domcontentloaded")))
            ctx.close()
        browser.new_context()
        print("the parts of a fresh context:")
        print(_line("  new context + tab", contexts))
        print(_line("  frontdoor login + home (dcl)", logins))
        print(_line("  home with session (dcl)", loads))
        print(_line("  context close", closes))
    finally:
        stop.set()
        for env in envs.values():
            env.close()
        for hog in hogs:
            hog.join(timeout=5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
