"""The embedded org's UI before and after a change, in one run: per page of the UI's catalogue
(``pytest_cua.orgs.localorg.ui.page_catalog``) the page load time, the interactive elements an agent's
observation lists and the accessibility-tree nodes Chromium exposes (both of the page and of the frames in it: a
Setup frame's Classic page), a screenshot of each side and both side by
side; then the replay time per task on a sample of SCUBA tasks, and the browser reset per task.

    python benchmarks/ui_figures.py [--before REV] [--out reports/ui-figures] [--loads 5] [--replay N] [--resets 10]
                                    [--pages N] [--remove-worktree]

"before" is REV (default HEAD~1) checked out in a git worktree (under /tmp, kept for the next run unless
``--remove-worktree``, which removes one this run made), "after" is this working tree. Each
side's org runs in its own process from its own tree (``_serve`` below) on 127.0.0.1; Chromium, the observation
code (this tree's ``dom_script.js``) and the measuring are the same for both. Page load time: the navigation's
``loadEventEnd`` (every script has run; the Lightning components mount before ``load``), median of ``--loads``
loads; client-side navigation (a side whose shell has the router, ``window.oneNavigate``): from Home to the page
in the same document until it is shown (its Classic page too, in Setup's frame), median of ``--loads``. Replay time: ``pytest suites/scuba --agent replay`` on the first ``--replay`` own tasks in each tree, one
worker, the per-test total times of its JUnit report (the episode runs in the task's fixtures). Reset: each tree's ``benchmarks/reset_bench.py``.
``--pages N`` measures the first N pages of the catalogue only (a quick run; default all of them).
Prints one table and writes ``figures.json`` and the screenshots under ``--out``; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]
VIEWPORT: Any = {"width": 1280, "height": 900}  # a Playwright ViewportSize

#: run in each tree's own interpreter: serve its org with the catalogue's records, print where, wait for stdin
_SERVE = """
import json, sys, tempfile
from pathlib import Path
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.orgs.localorg.ui.page_catalog import pages, prepare
server = OrgServer(Path(tempfile.mkdtemp(prefix="cua-ui-figures-")), host="127.0.0.1", port=0)
server.start()
ids = prepare(server)
print(json.dumps({"url": server.url, "token": server.access_token(), "pages": pages(ids)}), flush=True)
sys.stdin.read()
server.stop()
"""


def family(path: str) -> str:
    """The page family of a catalogue path, as the fidelity catalogue names them."""
    if path.startswith("/lightning/setup/"):
        return "setup"
    if "/listview" in path or path.endswith("/list"):
        return "object home"
    if path.startswith("/lightning/o/Report"):
        return "reports"
    if path.startswith("/lightning/o/Dashboard"):
        return "dashboards"
    if path.endswith("/new") or path.endswith("/edit") or path.endswith("/convert"):
        return "create and edit"
    if path.startswith("/lightning/r/"):
        return "record home"
    return "other"


def worktree(rev: str) -> tuple[Path, bool]:
    """The worktree of ``rev`` under /tmp, and whether this call made it."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    path = Path(tempfile.gettempdir()) / f"cua-ui-before-{sha}"
    made = not (path / "pytest_cua").is_dir()
    if made:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), sha], check=True,
                       capture_output=True)
    if (path / "scripts" / "build_lightning.sh").is_file():  # its own Lightning build (cached per machine)
        subprocess.run(["bash", "scripts/build_lightning.sh"], cwd=path, check=True, capture_output=True)
    return path, made


def tree_env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONPATH"] = str(tree)
    return env


def measure_pages(tree: Path, side: str, out: Path, loads: int, script: str,
                  limit: int | None = None) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    proc = subprocess.Popen([sys.executable, "-c", _SERVE], cwd=tree, env=tree_env(tree), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    info = json.loads(proc.stdout.readline())
    rows = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_context(ignore_https_errors=True, viewport=VIEWPORT).new_page()
            page.goto(f"{info['url']}/secur/frontdoor.jsp?sid={info['token']}&retURL=/lightning/page/home")
            cdp = page.context.new_cdp_session(page)
            (out / side).mkdir(parents=True, exist_ok=True)
            for n, (name, path) in enumerate(info["pages"][:limit], 1):
                times = []
                for _ in range(loads):
                    page.goto(info["url"] + path, wait_until="load")
                    times.append(page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
                navs = client_navigations(page, info["url"], path, loads)
                elements, ax_nodes = counted(page, cdp, script)
                shot = out / side / f"{n:02d}-{name}.png"
                page.screenshot(path=str(shot))
                rows.append({"page": name, "path": path, "family": family(path),
                             "load_ms": round(statistics.median(times), 1),
                             "nav_ms": round(statistics.median(navs), 1) if navs else None,
                             "elements": elements, "ax_nodes": ax_nodes, "screenshot": str(shot)})
            browser.close()
    finally:
        proc.stdin.close()
        proc.wait(30)
    return rows


#: from the page on show, a client-side navigation to ``path`` (the shell's router), timed until the page is shown:
def counted(page: Any, cdp: Any, script: str) -> tuple[int, int]:
    """The interactive elements and the accessibility-tree nodes (not ignored) of the page and of every frame in it
    (a Setup frame's Classic page), as an agent's observation reaches into them."""
    elements = 0
    for frame in page.frames:
        if frame.url in ("", "about:blank"):
            continue
        observed = json.loads(frame.evaluate(script, {"next": elements + 1, "attr": "data-cua-id",
                                                      "frameAttr": "data-cua-frame", "maxText": 200,
                                                      "maxLines": 4000}))
        elements += len(observed["elements"])
    ids, todo = [], [cdp.send("Page.getFrameTree")["frameTree"]]
    while todo:
        node = todo.pop()
        ids.append(node["frame"]["id"])
        todo.extend(node.get("childFrames", []))
    nodes = sum(1 for fid in ids for x in cdp.send("Accessibility.getFullAXTree", {"frameId": fid})["nodes"]
                if not x.get("ignored"))
    return elements, nodes


#: <main> no longer busy, the page ready, and a Setup frame's Classic page ready in its frame
_NAVIGATE = """async (path) => {
  const t0 = performance.now();
  window.oneNavigate(path);
  const shown = () => {
    if (document.documentElement.dataset.oneReady !== 'true' || document.querySelector('main[aria-busy="true"]')) {
      return false;
    }
    const frame = document.querySelector('iframe#setup-frame');
    const inner = frame && frame.contentDocument;
    return !frame || !!(inner && inner.documentElement && inner.documentElement.dataset.oneReady === 'true'
                        && inner.location.href !== 'about:blank');  // (a frame's document may be still empty)
  };
  const done = await new Promise((resolve) => {
    const limit = t0 + 10000;  // a page not shown in 10 s is reported as such, not waited for
    const check = () => shown() ? resolve(true) : performance.now() > limit ? resolve(false) : setTimeout(check, 5);
    check();
  });
  return done ? performance.now() - t0 : null;
}"""


def client_navigations(page: Any, url: str, path: str, times: int) -> list[float]:
    """``times`` client-side navigations from Home to ``path`` (ms each), or [] when the side has no router; the
    page is left loaded at ``path`` (observed and shot as loaded)."""
    out: list[float] = []
    for _ in range(times):
        page.goto(url + "/lightning/page/home", wait_until="load")
        if not page.evaluate("typeof window.oneNavigate === 'function'"):
            break
        took = page.evaluate(_NAVIGATE, path)
        if took is None:
            print(f"  {path}: not shown within 10 s of a client-side navigation", flush=True)
            out = []
            break
        out.append(took)
    page.goto(url + path, wait_until="load")
    return out


def paired(before: list[dict[str, Any]], after: list[dict[str, Any]]
           ) -> list[tuple[dict[str, Any] | None, dict[str, Any] | None]]:
    """The two sides' rows of each page by its catalogue name, in the after side's order (then pages only the
    before side has): a page one side does not have is None there."""
    by_name = {r["page"]: r for r in before}
    out: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = [(by_name.get(a["page"]), a) for a in after]
    names = {a["page"] for a in after}
    return out + [(b, None) for b in before if b["page"] not in names]


def side_by_side(before: list[dict[str, Any]], after: list[dict[str, Any]], out: Path) -> None:
    from PIL import Image, ImageDraw

    (out / "side-by-side").mkdir(parents=True, exist_ok=True)
    for b, a in paired(before, after):
        if b is None or a is None:
            continue
        left, right = Image.open(b["screenshot"]), Image.open(a["screenshot"])
        both = Image.new("RGB", (left.width + right.width + 10, max(left.height, right.height) + 30), "white")
        both.paste(left, (0, 30))
        both.paste(right, (left.width + 10, 30))
        draw = ImageDraw.Draw(both)
        draw.text((8, 8), f"before: {b['page']}", fill="black")
        draw.text((left.width + 18, 8), f"after: {a['page']}", fill="black")
        both.save(out / "side-by-side" / Path(a["screenshot"]).name)


def replay_times(tree: Path, count: int, out: Path, side: str) -> dict[str, float]:
    """Per-task times (set-up, episode, teardown: JUnit's total) of the replay agent on the first ``count`` own
    SCUBA tasks (one worker)."""
    listed = subprocess.run([sys.executable, "-m", "pytest", "suites/scuba", "-m", "scuba_own", "--collect-only",
                             "-q", "-p", "no:cacheprovider"], cwd=tree, env=tree_env(tree), capture_output=True,
                            text=True, timeout=600)
    ids = [line.split("[", 1)[1].rstrip("]") for line in listed.stdout.splitlines() if "[" in line][:count]
    junit = out / f"replay-{side}.xml"
    subprocess.run([sys.executable, "-m", "pytest", "suites/scuba", "--agent", "replay", "-p", "no:cacheprovider",
                    "-q", "-k", " or ".join(ids), f"--junitxml={junit}"],
                   cwd=tree, env=tree_env(tree), capture_output=True, text=True, timeout=3600)
    times = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is None and case.find("error") is None and case.find("skipped") is None:
            times[case.get("name", "")] = float(case.get("time", "0"))
    return times


def reset_figures(tree: Path, runs: int) -> str:
    done = subprocess.run([sys.executable, str(tree / "benchmarks" / "reset_bench.py"), "--runs", str(runs)],
                          cwd=tree, env=tree_env(tree), capture_output=True, text=True, timeout=1800)
    return done.stdout.strip() or done.stderr.strip()[-2000:]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="HEAD~1")
    parser.add_argument("--out", default="reports/ui-figures")
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--replay", type=int, default=12, help="own SCUBA tasks to replay on each side (0: none)")
    parser.add_argument("--resets", type=int, default=10, help="rollbacks timed by reset_bench.py (0: none)")
    parser.add_argument("--pages", type=int, default=None, metavar="N",
                        help="only the first N pages of the catalogue (default: every page)")
    parser.add_argument("--remove-worktree", action="store_true",
                        help="remove the before side's worktree at the end when this run made it")
    args = parser.parse_args(argv)
    if args.loads < 1 or (args.pages is not None and args.pages < 1):
        parser.error("--loads and --pages take 1 or more")
    before_tree, made = worktree(args.before)
    try:
        return measure(args, before_tree)
    finally:
        if made and args.remove_worktree:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)], check=False)


def measure(args: argparse.Namespace, before_tree: Path) -> int:
    out = Path(args.out).resolve()
    script = (ROOT / "pytest_cua" / "envs" / "browser" / "dom_script.js").read_text(encoding="utf-8")
    started = time.monotonic()
    sides = {"before": before_tree, "after": ROOT}
    pages = {side: measure_pages(tree, side, out, args.loads, script, args.pages) for side, tree in sides.items()}
    side_by_side(pages["before"], pages["after"], out)
    print(f"{'page':28} {'family':16} {'load ms':>15} {'nav ms':>15} {'elements':>13} {'ax nodes':>13}")
    for b, a in paired(pages["before"], pages["after"]):
        row = a or b
        assert row is not None
        cell = lambda r, k: r[k] if r is not None else "-"  # noqa: E731 - a page one side lacks
        print(f"{row['page']:28} {row['family']:16} {cell(b, 'load_ms'):>7} {cell(a, 'load_ms'):>7} "
              f"{cell(b, 'nav_ms') or '-':>7} {cell(a, 'nav_ms') or '-':>7} "
              f"{cell(b, 'elements'):>6} {cell(a, 'elements'):>6} {cell(b, 'ax_nodes'):>6} {cell(a, 'ax_nodes'):>6}")
    families: dict[str, dict[str, float]] = {}
    for fam in sorted({r["family"] for r in pages["after"]}):
        of_side = {side: [r for r in pages[side] if r["family"] == fam] for side in ("before", "after")}
        families[fam] = {f"{k}_{side}": statistics.median(r[k] for r in rows)
                         for k in ("load_ms", "elements", "ax_nodes") for side, rows in of_side.items()}
        f = families[fam]
        print(f"family {fam:16} load ms {f['load_ms_before']:.1f} -> {f['load_ms_after']:.1f}; elements "
              f"{f['elements_before']:.0f} -> {f['elements_after']:.0f}; ax nodes {f['ax_nodes_before']:.0f} -> "
              f"{f['ax_nodes_after']:.0f}")
    all_after = [r["load_ms"] for r in pages["after"]]
    print(f"page load, median over every page: before {statistics.median(r['load_ms'] for r in pages['before']):.1f}"
          f" ms, after {statistics.median(all_after):.1f} ms (budget 300 ms)")
    navs = [r["nav_ms"] for r in pages["after"] if r.get("nav_ms") is not None]
    if navs:
        print(f"client-side navigation (after), median over every page: {statistics.median(navs):.1f} ms")
    figures: dict[str, Any] = {"before": args.before, "pages": pages, "families": families}
    if args.replay:
        replays = {side: replay_times(tree, args.replay, out, side) for side, tree in sides.items()}
        common = sorted(set(replays["before"]) & set(replays["after"]))
        if common and statistics.median(replays["before"][t] for t in common) > 0:
            before_s = statistics.median(replays["before"][t] for t in common)
            after_s = statistics.median(replays["after"][t] for t in common)
            print(f"replay per task (median of {len(common)} tasks that passed on both sides): before "
                  f"{before_s:.2f} s, after {after_s:.2f} s, ratio {after_s / before_s:.2f} (budget 1.5)")
        figures["replay"] = replays
    if args.resets:
        figures["reset"] = {side: reset_figures(tree, args.resets) for side, tree in sides.items()}
        for side, text in figures["reset"].items():
            print(f"reset ({side}):\n{text}")
    (out / "figures.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(f"written to {out}/ in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
