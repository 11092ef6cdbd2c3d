"""The comparison report's plots, read as a person reads them: the HTML rendered by Chromium, a screenshot kept
(reports/ under the test's tmp folder), and the figures' own texts checked: a 0 % bar is drawn and labelled,
every bar has its value, a template without data says so, the cost axis starts at 0 and reads "$0" when
every cost is 0, and two equal runs remain two visible series."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_cua.results.compare import plots
from tests.core.test_compare_report import make_comparison, record, render_html, summary

pytest.importorskip("matplotlib")


def _runs() -> tuple[dict, dict]:
    base = summary([record("a1", "failed", template="zero"), record("a2", "failed", template="zero"),
                    record("b1", "passed", template="half"), record("b2", "failed", template="half"),
                    record("c1", "error", template="no-data")], run_id="base")
    new = summary([record("a1", "passed", template="zero"), record("a2", "failed", template="zero"),
                   record("b1", "passed", template="half"), record("b2", "passed", template="half"),
                   record("c1", "passed", template="no-data")], run_id="new")
    return base, new


def _texts(figure) -> list[str]:
    return [t.get_text() for ax in figure.axes for t in ax.texts]


def test_zero_bars_are_drawn_and_every_bar_is_labelled() -> None:
    base, new = _runs()
    figure, caption = plots.template_figure(make_comparison(base, new), base, new)
    texts = _texts(figure)
    assert texts.count("0 %") == 1 and texts.count("50 %") == 2 and texts.count("100 %") == 2, texts
    assert "no data" in texts  # base has no passed or failed episode of no-data
    widths = [patch.get_width() for patch in figure.axes[0].patches]
    assert min(widths) > 0  # the 0 % bar is visible
    assert "missing bar" not in caption and "no data" in caption


def test_cost_axis_starts_at_zero_and_reads_dollars_when_all_cost_nothing() -> None:
    base, new = _runs()
    figure, caption = plots.cost_figure(make_comparison(base, new), base, new)
    ax = figure.axes[0]
    assert ax.get_xlim()[0] == 0 and [t.get_text() for t in ax.get_xticklabels()] == ["$0"]
    assert "Every task cost $0" in caption
    priced_base = summary([record("a", "passed", cost=0.5), record("b", "failed", cost=0.2)], run_id="b")
    priced_new = summary([record("a", "passed", cost=0.3), record("b", "passed", cost=0.1)], run_id="n")
    figure, _ = plots.cost_figure(make_comparison(priced_base, priced_new), priced_base, priced_new)
    low, high = figure.axes[0].get_xlim()
    assert low == 0 and high >= 0.5


def test_equal_runs_remain_two_visible_series() -> None:
    base, _ = _runs()
    same = summary(base["tasks"], run_id="same")
    comparison = make_comparison(base, same)
    scatter = plots.cost_figure(comparison, base, same)[0].axes[0].collections
    assert len(scatter) == 2 and scatter[0].get_paths()[0] != scatter[1].get_paths()[0]  # other markers
    curves = plots.steps_figure(comparison, base, same)[0].axes[0].get_lines()
    assert len(curves) == 2
    assert {c.get_linestyle() for c in curves} == {"--", "-"}
    assert curves[0].get_linewidth() != curves[1].get_linewidth()


def test_the_rendered_report_shows_its_plots_in_chromium(chromium_available: None, tmp_path: Path) -> None:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from pytest_cua.envs.browser.chromium import QUIET_FLAGS, find_chromium

    base, new = _runs()
    page_file = tmp_path / "comparison.html"
    page_file.write_text(render_html(make_comparison(base, new), base, new), encoding="utf-8")
    shot = tmp_path / "reports" / "comparison.png"
    shot.parent.mkdir()
    def render() -> bytes:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=find_chromium(pw), args=[*QUIET_FLAGS, "--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1100, "height": 900})
                page.goto(page_file.as_uri())
                sizes = page.eval_on_selector_all("img", "imgs => imgs.map(i => [i.complete, i.naturalWidth])")
                assert len(sizes) == 3 and all(done and width > 300 for done, width in sizes), sizes
                page.screenshot(path=str(shot), full_page=True)
                first = page.locator("img").first
                first.scroll_into_view_if_needed()
                return bytes(first.screenshot())
            finally:
                browser.close()

    # in a thread of its own: Playwright's sync API refuses to start where another test's instance runs (the
    # UI tests keep one per worker process)
    with ThreadPoolExecutor(max_workers=1) as pool:
        plot_png = pool.submit(render).result(timeout=120)
    assert shot.stat().st_size > 10_000
    image = Image.open(io.BytesIO(plot_png)).convert("RGB")
    colours = {c for _, c in image.getcolors(maxcolors=1 << 20)}
    new_rgb = tuple(int(plots.NEW_COLOUR[i:i + 2], 16) for i in (1, 3, 5))
    assert any(sum(abs(a - b) for a, b in zip(c, new_rgb)) < 30 for c in colours)  # the new run's bars are there
