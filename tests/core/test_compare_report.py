"""The HTML comparison report (``pytest-cua report --compare BASE NEW --html FILE``)."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
from pathlib import Path
from typing import Any, Sequence

import pytest
from PIL import Image

from pytest_cua.cli import main
from pytest_cua.results.compare import plots
from pytest_cua.results.compare.command import write_report
from pytest_cua.results.compare.html import render_html
from pytest_cua.results.compare.plots import task_cost_success, task_steps, template_success

PNG = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')
HOSTILE = "<script>alert(1)</script>"


def record(task_id: str, outcome: str, *, suite: str = "demo", template: str | None = "tpl-a", trial: int = 1,
           persona: str | None = "admin", difficulty: str | None = "easy", level: str | None = None,
           steps: int = 4, cost: float = 0.0, score: float | None = None,
           milestones: Sequence[tuple[str, bool]] = (), error: str | None = None) -> dict[str, Any]:
    """A task record as pytest-cua writes it in summary.json (the fields the comparison reads)."""
    return {
        "id": task_id, "nodeid": f"suites/{suite}.py::{task_id}[{trial}]", "suite": suite, "persona": persona,
        "difficulty": difficulty, "level": level, "template": template, "trial": trial, "outcome": outcome,
        "error_kind": "env" if outcome == "error" else None, "error": error,
        "score": score if score is not None else (1.0 if outcome == "passed" else 0.0),
        "success": outcome == "passed",
        "milestones": [{"name": n, "weight": 1.0, "passed": p, "detail": None} for n, p in milestones],
        "steps": steps, "cost_usd": cost, "tokens_in": 10, "tokens_out": 5,
    }


def summary(records: list[dict[str, Any]], *, run_id: str, agent: str = "oracle", trials: int = 1) -> dict[str, Any]:
    scored = [r for r in records if r["outcome"] in ("passed", "failed")]
    return {"version": 1,
            "run": {"id": run_id, "agent": agent, "wall_s": 12.5, "trials": trials},
            "totals": {"tasks": len(records), "cost_usd": sum(r["cost_usd"] for r in records),
                       "success_rate": sum(r["outcome"] == "passed" for r in scored) / len(scored) if scored else None},
            "groups": {}, "tasks": records}


def _side(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A comparison SIDE from one task's records (the schema of pytest_cua.results.compare)."""
    if not records:
        return None
    scored = [r for r in records if r["outcome"] in ("passed", "failed")]
    passed = sum(r["outcome"] == "passed" for r in scored)
    status = ("error" if not scored else "pass" if passed == len(scored) else "fail" if not passed else "flaky")
    return {"trials": len(records), "passed": passed, "failed": len(scored) - passed,
            "errors": sum(r["outcome"] == "error" for r in records),
            "success": passed / len(scored) if scored else None,
            "score": sum(r["score"] for r in scored) / len(scored) if scored else None,
            "status": status, "cost_usd": sum(r["cost_usd"] for r in records),
            "steps": sum(r["steps"] for r in records) / len(records)}


def _group(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """A comparison GROUP with plain means (no statistics: the report only shows the figures)."""
    def mean(side: str, key: str) -> float | None:
        values = [t[side][key] for t in tasks if t[side] and t[side][key] is not None]
        return sum(values) / len(values) if values else None

    b, n = mean("base", "success"), mean("new", "success")
    bs, ns = mean("base", "score"), mean("new", "score")
    diff = None if b is None or n is None else n - b
    score_diff = None if bs is None or ns is None else ns - bs
    return {"tasks": len(tasks), "base_success": b, "new_success": n, "diff": diff,
            "ci_low": None if diff is None else diff - 0.1, "ci_high": None if diff is None else diff + 0.1,
            "p_value": 0.01 if diff else 1.0, "test": "mcnemar", "base_score": bs, "new_score": ns,
            "score_diff": score_diff, "score_ci_low": None, "score_ci_high": None,
            "flips_to_fail": sum(t["change"] == "to_fail" for t in tasks),
            "flips_to_pass": sum(t["change"] == "to_pass" for t in tasks)}


def make_comparison(base: dict[str, Any], new: dict[str, Any], *, ok: bool = True) -> dict[str, Any]:
    """A valid comparison dict (the schema of ``Comparison.to_dict()``) built from two summaries by hand."""
    def by_key(s: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for r in s["tasks"]:
            out.setdefault(f"{r['suite']}/{r['id']}", []).append(r)
        return out

    old, now = by_key(base), by_key(new)
    changes = {("pass", "pass"): "both_pass", ("fail", "fail"): "both_fail", ("pass", "fail"): "to_fail",
               ("fail", "pass"): "to_pass"}
    tasks = []
    for key in sorted(set(old) | set(now)):
        b, n = _side(old.get(key, [])), _side(now.get(key, []))
        if n is None:
            change = "only_base"
        elif b is None:
            change = "only_new"
        elif "error" in (b["status"], n["status"]):
            change = "error"
        elif "flaky" in (b["status"], n["status"]):
            change = "flaky"
        else:
            change = changes[(b["status"], n["status"])]
        first = (now.get(key) or old[key])[0]
        milestones = []
        if change in ("to_fail", "to_pass"):
            before = {m["name"]: m["passed"] for m in old[key][0]["milestones"]}
            after = {m["name"]: m["passed"] for m in now[key][0]["milestones"]}
            milestones = [{"name": m, "base": before.get(m), "new": after.get(m)}
                          for m in [*before, *(x for x in after if x not in before)] if before.get(m) != after.get(m)]
        tasks.append({"key": key, "suite": first["suite"], "id": first["id"], "persona": first["persona"],
                      "difficulty": first["difficulty"], "level": first["level"], "template": first["template"],
                      "base": b, "new": n, "change": change, "milestones_changed": milestones})
    paired = [t for t in tasks if t["base"] and t["new"] and t["change"] != "error"]
    groups: dict[str, dict[str, Any]] = {}
    for field in ("suite", "persona", "difficulty", "template", "level"):
        buckets: dict[str, list[dict[str, Any]]] = {}
        for t in paired:
            if t[field] is not None:
                buckets.setdefault(t[field], []).append(t)
        groups[field] = {name: _group(members) for name, members in buckets.items()}

    def info(s: dict[str, Any], keys: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        return {"run_id": s["run"]["id"], "agent": s["run"]["agent"],
                "trials": max((len(v) for v in keys.values()), default=0), "tasks": len(keys)}

    line = "gate: ok" if ok else "gate: FAILED (success rate dropped)"
    return {
        "base": info(base, old), "new": info(new, now), "alpha": 0.05, "max_drop": 0.0, "quarantine_flaky": False,
        "tasks": tasks,
        "counts": {c: sum(t["change"] == c for t in tasks) for c in
                   ("both_pass", "both_fail", "to_fail", "to_pass", "flaky", "error", "only_base", "only_new")},
        "flaky": [t["key"] for t in tasks if t["change"] == "flaky"],
        "overall": _group(paired), "groups": groups,
        "errors": {"base": sum(r["outcome"] == "error" for r in base["tasks"]),
                   "new": sum(r["outcome"] == "error" for r in new["tasks"])},
        "gate": {"ok": ok, "reasons": [] if ok else ["success rate dropped by 50.0 pp (p 0.01)"], "line": line},
    }


def two_runs() -> tuple[dict[str, Any], dict[str, Any]]:
    """A base and a new run with a flip each way, a flaky task, an error and two templates."""
    base = summary([
        record("t1", "passed", milestones=[("saved", True), ("sent", True)], cost=0.02, steps=5),
        record("t2", "failed", template="tpl-b", cost=0.05, steps=12),
        record("t3", "passed", template=None, cost=0.01, steps=3),
        record("t4", "passed", cost=0.03, steps=7),
        record("t5", "passed", template="tpl-b", steps=6),
    ], run_id="run-base", agent="agent-a")
    new = summary([
        record("t1", "failed", milestones=[("saved", True), ("sent", False)], cost=0.04, steps=9),
        record("t2", "passed", template="tpl-b", cost=0.03, steps=8),
        record("t3", "passed", template=None, cost=0.01, steps=3),
        record("t4", "error", error="EnvironmentCrash: the browser went away", steps=2),
        record("t5", "passed", template="tpl-b", trial=1, steps=6),
        record("t5", "failed", template="tpl-b", trial=2, steps=10),
    ], run_id="run-new", agent="agent-b", trials=2)
    return base, new


def images(page: str) -> list[Image.Image]:
    """The embedded PNGs of a report, decoded and verified."""
    found: list[Image.Image] = []
    for data in PNG.findall(page):
        raw = base64.b64decode(data, validate=True)
        assert raw.startswith(b"\x89PNG\r\n\x1a\n")
        image = Image.open(io.BytesIO(raw))
        image.verify()
        found.append(image)
    return found


def test_the_report_has_the_verdict_tables_plots_and_no_external_resource() -> None:
    base, new = two_runs()
    page = render_html(make_comparison(base, new, ok=False), base, new)
    assert page.startswith("<!DOCTYPE html>")
    assert "FAILED" in page and "gate: FAILED (success rate dropped)" in page and 'class="verdict failed"' in page
    assert "success rate dropped by 50.0 pp" in page
    for heading in ("Runs", "Changes", "Overall", "Per suite", "Per persona", "Per difficulty", "Per template",
                    "Flipped tasks", "Flaky tasks", "Errors", "Plots"):
        assert f">{heading}</h" in page, heading
    assert "agent-a" in page and "run-new" in page
    assert "demo/t1" in page and "sent: \u2713 \u2192 \u2717" in page  # the flip and its changed milestone
    assert "EnvironmentCrash: the browser went away" in page
    assert len(images(page)) == 3
    assert "<script" not in page and 'src="http' not in page and "<link" not in page


def test_a_passing_gate_reads_passed() -> None:
    base, _ = two_runs()
    page = render_html(make_comparison(base, base, ok=True), base, base)
    assert 'class="verdict ok"' in page and ">PASSED<" in page and "gate: ok" in page


def test_names_from_the_files_are_escaped() -> None:
    hostile = [record(HOSTILE, "passed", template="$\\frac{a$ <b>", milestones=[("<img src=x onerror=y>", True)],
                      persona='"><svg onload=z>')]
    base = summary(hostile, run_id="<i>base</i>", agent="<b>a</b>")
    failed = [dict(hostile[0], outcome="failed", milestones=[{"name": "<img src=x onerror=y>", "passed": False}])]
    new = summary(failed + [record("x", "error", error="</td><script>evil()</script>")], run_id="n")
    page = render_html(make_comparison(base, new), base, new)
    assert "<script" not in page and "<svg" not in page and "<img src=x" not in page and "<b>a</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=y&gt;" in page
    assert len(images(page)) == 3  # a mathtext-looking template name is drawn as text


def test_zero_costs_are_said_in_the_caption() -> None:
    base = summary([record("a", "passed"), record("b", "failed")], run_id="b")
    new = summary([record("a", "passed"), record("b", "passed")], run_id="n")
    page = render_html(make_comparison(base, new), base, new)
    assert "Every task cost $0 in both runs" in page
    assert len(images(page)) == 3


def test_trials_are_counted_per_episode_and_averaged_per_task() -> None:
    records = [record("a", "passed", trial=1, cost=0.1, steps=2), record("a", "failed", trial=2, cost=0.3, steps=4),
               record("a", "passed", trial=3, cost=0.2, steps=6), record("b", "failed", template=None, steps=1),
               record("c", "skipped", template=None, steps=0)]
    run = summary(records, run_id="r", trials=3)
    assert template_success(run) == {"tpl-a": pytest.approx(2 / 3), "(none)": 0.0}
    points, unscored = task_cost_success(run)
    assert sorted(points) == [(0.0, 0.0), (pytest.approx(0.2), pytest.approx(2 / 3))]
    assert unscored == 1  # c: skipped only
    assert task_steps(run) == [1.0, 4.0]
    other = summary([record("a", "passed"), record("b", "passed", template=None)], run_id="o")
    page = render_html(make_comparison(run, other), run, other)
    assert len(images(page)) == 3 and "flaky" in page


def test_empty_runs_still_render() -> None:
    empty = summary([], run_id="e")
    assert len(images(render_html(make_comparison(empty, empty), empty, empty))) == 3


def test_many_templates_show_those_that_changed_most() -> None:
    base = summary([record(f"t{i}", "passed", template=f"tpl-{i}") for i in range(50)], run_id="b")
    new = summary([record(f"t{i}", "failed" if i < 3 else "passed", template=f"tpl-{i}") for i in range(50)],
                  run_id="n")
    page = render_html(make_comparison(base, new), base, new)
    assert f"Showing the {plots.MAX_TEMPLATE_BARS} of 50 templates" in page


def test_the_hand_built_comparison_has_the_real_schema() -> None:
    compare = pytest.importorskip("pytest_cua.results.compare")
    base, new = two_runs()
    real = compare.compare(base, new).to_dict()
    mine = make_comparison(base, new)
    assert set(real) == set(mine)
    assert set(real["overall"]) == set(mine["overall"])
    real_tasks, my_tasks = {t["key"]: t for t in real["tasks"]}, {t["key"]: t for t in mine["tasks"]}
    assert set(real_tasks) == set(my_tasks)
    for key, task in real_tasks.items():
        assert set(task) == set(my_tasks[key]) and task["change"] == my_tasks[key]["change"], key
        assert set(task["base"] or {}) == set(my_tasks[key]["base"] or {})
    # and the report renders what the real comparison produced
    page = render_html(real, base, new)
    assert len(images(page)) == 3 and "demo/t1" in page


# ---------------------------------------------------------------- the command line


def write_runs(tmp_path: Path, base: dict[str, Any], new: dict[str, Any]) -> tuple[str, str]:
    b, n = tmp_path / "base" / "summary.json", tmp_path / "new" / "summary.json"
    for path, data in ((b, base), (n, new)):
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(data))
    return str(b), str(n)


def test_cli_writes_the_report_and_passes_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pytest_cua.results.compare")
    base, _ = two_runs()
    b, n = write_runs(tmp_path, base, base)
    out = tmp_path / "out" / "deep" / "report.html"
    md = tmp_path / "out" / "comment.md"
    assert main(["report", "--compare", b, n, "--html", str(out), "--markdown", str(md)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'class="verdict ok"' in page and len(images(page)) == 3
    assert md.read_text(encoding="utf-8").strip()
    printed = capsys.readouterr().out
    assert str(out) in printed and str(md) in printed


def test_cli_fails_by_the_gate_on_a_regression(tmp_path: Path) -> None:
    pytest.importorskip("pytest_cua.results.compare")
    base = summary([record(f"t{i}", "passed", cost=0.01 * i) for i in range(10)], run_id="b")
    new = summary([record(f"t{i}", "failed" if i < 7 else "passed", cost=0.02 * i) for i in range(10)],
                  run_id="n")  # 7 flips to fail: McNemar p 0.016
    b, n = write_runs(tmp_path, base, new)
    out = tmp_path / "report.html"
    assert main(["report", "--compare", b, n, "--html", str(out)]) == 1
    page = out.read_text(encoding="utf-8")
    assert 'class="verdict failed"' in page and "FAILED" in page
    # a drop of 0.7 allowed by --max-drop passes
    assert main(["report", "--compare", b, n, "--markdown", str(tmp_path / "c.md"), "--max-drop", "0.8"]) == 0


def test_cli_an_unreadable_summary_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pytest_cua.results.compare")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(summary([record("a", "passed")], run_id="g")))
    assert main(["report", "--compare", str(bad), str(good), "--html", str(tmp_path / "r.html")]) == 2
    assert "bad.json" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("argv", [
    ["report", "--html", "r.html"],
    ["report", "--markdown", "c.md"],
    ["report", "--alpha", "0.1"],
    ["report", "--compare", "only-one.json"],
    ["report", "--compare", "a.json", "b.json"],  # neither --html nor --markdown
    ["report", "--compare", "a.json", "b.json", "c.json", "--html", "r.html"],  # a third path
    ["report", "--compare", "a.json", "b.json", "--html", "r.html", "-o", "out"],
    ["report", "--compare", "a.json", "b.json", "--html", "r.html", "--alpha", "1.5"],
])
def test_cli_usage_errors_exit_2(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert not (tmp_path / "r.html").exists()


def test_without_matplotlib_html_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pytest_cua.results.compare")
    base, new = two_runs()
    b, n = write_runs(tmp_path, base, new)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    assert write_report(b, n, html=tmp_path / "r.html") == 2
    assert "pip install 'pytest-cua[report]'" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
    # the markdown needs no plots
    assert write_report(b, n, markdown=tmp_path / "c.md") in (0, 1)
    assert (tmp_path / "c.md").exists()


def test_the_allure_report_is_unchanged_without_compare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report"]) == 2
    assert "--alluredir reports/allure-results" in capsys.readouterr().err
