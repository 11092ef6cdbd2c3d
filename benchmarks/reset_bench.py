"""Per-task reset benchmark of the salesforce environment: the rollback the pool runs after every task.

    python benchmarks/reset_bench.py [--runs 30] [--think 0.5] [--no-touch]

Starts the embedded org and Chromium as the SCUBA suite does (``pytest_cua.envs.salesforce.PROVIDER.create``)
and times ``runs`` rollbacks (``roll_back``: ``restore`` + ``residue``, what ``EnvironmentPool.release``
measures as ``times.reset_s``), and apart from it the time until the landing page's DOM is ready (restore
waits for the landing page's response only; the next task's first observation waits for the rest). Between rollbacks runs a small task: ``begin_task``, an observation, the
agent's think time (``--think`` seconds, twice), a page visited and a cookie and localStorage item left behind
(not with ``--no-touch``), another observation. Then it times the parts of one fresh context on their own:
the new context and tab, the frontdoor login navigation, and opening the home page with the session already
in the context. Figures are printed in ms (median / mean / max); nothing is asserted.
"""

from __future__ import annotations

import argparse
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
    ms = [v * 1000 for v in values]
    return (f"{name:<34} n={len(ms):<3} median {statistics.median(ms):7.1f}  mean {statistics.fmean(ms):7.1f}  "
            f"max {max(ms):7.1f} ms")


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="rollbacks to time (default 30)")
    parser.add_argument("--think", type=float, default=0.5, help="agent think time per step in s (default 0.5)")
    parser.add_argument("--no-touch", dest="touch", action="store_false",
                        help="leave no task state in the browser (no cookie, localStorage, other page)")
    args = parser.parse_args(argv)
    reports = Path(tempfile.mkdtemp(prefix="reset-bench-"))
    env = PROVIDER.create(EnvContext(worker_id="bench", run_id="resetbench", config=None, reports_dir=reports))
    try:
        browser = env.browser
        assert browser is not None
        snap = env.snapshot()
        roll_back(env, snap)  # warm up (first context, first page load, TLS)
        _task(env, -1, args.think, args.touch)
        rollbacks: list[float] = []
        restores: list[float] = []
        ready: list[float] = []
        for i in range(args.runs):
            if i:
                _task(env, i, args.think, args.touch)
            t0 = time.perf_counter()
            env.restore(snap)
            t1 = time.perf_counter()
            left = env.residue(snap)
            t2 = time.perf_counter()
            if left:
                raise SystemExit(f"residue after rollback {i}: {left}")
            rollbacks.append(t2 - t0)
            restores.append(t1 - t0)
            browser.page.wait_for_load_state("domcontentloaded")  # what the next task's first observation waits for
            ready.append(time.perf_counter() - t0)

        # the parts of one fresh context, on their own
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
        load = os.getloadavg()
        print(f"reset benchmark: {args.runs} rollbacks, think {args.think} s, touch={args.touch}, load average "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, chromium {pw_browser.version}")
        counters = {k: getattr(browser, k) for k in ("logins", "session_reuses", "spares_taken") if hasattr(browser, k)}
        if counters:
            print("  " + ", ".join(f"{k} {v}" for k, v in counters.items()))
        print(_line("rollback (restore + residue)", rollbacks))
        print(_line("  restore", restores))
        print(_line("rollback + landing page DOM ready", ready))
        print(_line("new context + tab", contexts))
        print(_line("frontdoor login + home (dcl)", logins))
        print(_line("home with session (dcl)", loads))
        print(_line("context close", closes))
    finally:
        env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
