"""Every action of pytest_cua.actions carried out in real Chromium against tests/browser/pages."""

from __future__ import annotations

import pytest

from pytest_cua import actions as A
from pytest_cua.actions import ActionError, Point
from pytest_cua.envs.browser import BrowserEnvironment

from .conftest import events

pytestmark = pytest.mark.browser


def ids(env: BrowserEnvironment) -> dict[str, str]:
    """Observe and map element names to ids."""
    obs = env.observe(frozenset({"axtree"}))
    return {el.name: el.id for el in obs.elements.values()}


def ok(env: BrowserEnvironment, action: A.Action) -> A.ActionResult:
    result = env.act(action)
    assert result.ok, result.error
    return result


def test_click_by_id_and_by_point(env: BrowserEnvironment) -> None:
    e = ids(env)
    ok(env, A.Click(e["Click me"]))
    box = env.observe(frozenset({"axtree"})).elements[e["Click me"]].bbox
    assert box is not None
    ok(env, A.Click(Point(box[0] + box[2] / 2, box[1] + box[3] / 2)))
    assert events(env) == ["click", "click"]


def test_double_right_hover(env: BrowserEnvironment) -> None:
    e = ids(env)
    ok(env, A.DoubleClick(e["Double me"]))
    ok(env, A.RightClick(e["Right me"]))
    ok(env, A.Hover(e["Hover me"]))
    assert events(env) == ["dblclick", "contextmenu", "hover"]
    box = env.observe(frozenset({"axtree"})).elements[e["Click me"]].bbox
    ok(env, A.Move(Point(box[0] + 3, box[1] + 3)))


def test_fill_type_clear_and_submit(env: BrowserEnvironment) -> None:
    e = ids(env)
    ok(env, A.Fill(e["Account Name"], "Globex"))
    ok(env, A.Type("555-1234", target=e["Phone"]))
    ok(env, A.Click(e["Notes"]))
    ok(env, A.Type("typed at focus"))
    assert env.page.input_value("#name") == "Globex"
    assert env.page.input_value("#phone") == "555-1234"
    assert env.page.input_value("#notes") == "typed at focus"
    ok(env, A.Clear(e["Phone"]))
    assert env.page.input_value("#phone") == ""
    ok(env, A.Click(e["Save"]))
    assert events(env) == ["submit:Globex"]


def test_fill_by_point(env: BrowserEnvironment) -> None:
    obs = env.observe(frozenset({"axtree"}))
    box = next(el.bbox for el in obs.elements.values() if el.name == "Account Name")
    ok(env, A.Fill(Point(box[0] + 5, box[1] + 5), "By point"))
    assert env.page.input_value("#name") == "By point"


def test_select_check_uncheck(env: BrowserEnvironment) -> None:
    e = ids(env)
    result = ok(env, A.SelectOption(e["Stage"], "Closed Won"))
    assert env.page.input_value("#stage") == "c"
    assert result.detail["selected"] == ["c"]
    ok(env, A.SelectOption(e["Stage"], "q"))  # by value too
    assert env.page.input_value("#stage") == "q"
    ok(env, A.Check(e["I agree"]))
    assert env.page.is_checked("#agree")
    ok(env, A.Uncheck(e["I agree"]))
    assert not env.page.is_checked("#agree")
    bad = env.act(A.SelectOption(e["Stage"], "No such stage"))
    assert not bad.ok and "select_option" in (bad.error or "")


def test_press_and_hotkey(env: BrowserEnvironment) -> None:
    e = ids(env)
    ok(env, A.Click(e["Account Name"]))
    ok(env, A.Hotkey(("ctrl", "a")))
    ok(env, A.Press("backspace"))
    assert env.page.input_value("#name") == ""
    env.page.evaluate("document.activeElement.blur()")
    ok(env, A.Hotkey(("ctrl", "s")))
    ok(env, A.Press("enter"))
    assert events(env) == ["ctrl+s", "enter"]


def test_scroll_page_and_at_target(env: BrowserEnvironment) -> None:
    ok(env, A.Scroll(dy=600))
    assert env.page.evaluate("window.scrollY") >= 500
    scroll = env.observe(frozenset({"axtree"})).extra["scroll"]
    assert scroll["y"] >= 500 and scroll["page_height"] > 2500
    ok(env, A.Scroll(dy=-600))
    assert env.page.evaluate("window.scrollY") < 100
    e = ids(env)
    ok(env, A.Scroll(dy=300, target=e["Click me"]))
    assert env.page.evaluate("window.scrollY") > 100


def test_drag_by_ids_and_points(env: BrowserEnvironment) -> None:
    e = ids(env)
    ok(env, A.Drag(e["Drag me"], e["Drop here"]))
    assert events(env) == ["drop"]
    obs = env.observe(frozenset({"axtree"}))
    src, dst = obs.elements[e["Drag me"]].bbox, obs.elements[e["Drop here"]].bbox
    ok(env, A.Drag(Point(src[0] + 10, src[1] + 10), Point(dst[0] + 10, dst[1] + 10)))
    assert events(env) == ["drop", "drop"]


def test_navigation_goto_back_forward(env: BrowserEnvironment, pages_url: str) -> None:
    e = ids(env)
    ok(env, A.Click(e["Go to other page"]))
    assert env.page.url.endswith("other.html")
    ok(env, A.Back())
    assert env.page.url.endswith("actions.html")
    ok(env, A.Forward())
    assert env.page.url.endswith("other.html")
    ok(env, A.GoTo(pages_url + "actions.html"))
    assert env.observe(frozenset({"axtree"})).title == "Actions page"
    bad = env.act(A.GoTo("file:///etc/passwd"))
    assert not bad.ok and "only http(s)" in (bad.error or "")
    env.new_context(url="about:blank")
    nothing = env.act(A.Back())
    assert not nothing.ok and "no previous page" in (nothing.error or "")


def test_tabs_new_switch_close(env: BrowserEnvironment, pages_url: str) -> None:
    ok(env, A.NewTab(pages_url + "other.html"))
    obs = env.observe(frozenset({"axtree"}))
    assert [t["active"] for t in obs.tabs] == [False, True]
    assert obs.title == "Other page"
    ok(env, A.SwitchTab(0))
    assert env.observe(frozenset({"axtree"})).title == "Actions page"
    assert not env.act(A.SwitchTab(5)).ok
    ok(env, A.CloseTab(1))
    assert len(env.context.pages) == 1
    # a link with target=_blank opens a tab that becomes the active one
    e = ids(env)
    ok(env, A.Click(e["Open other in new tab"]))  # the click waits for the tab it opens and its page
    obs = env.observe(frozenset({"axtree"}))
    assert len(obs.tabs) == 2 and obs.tabs[1]["active"] and obs.title == "Other page"
    ok(env, A.CloseTab())
    ok(env, A.CloseTab())  # closing the last tab leaves a blank one
    assert len(env.context.pages) == 1


def test_wait_and_terminal_actions(env: BrowserEnvironment) -> None:
    result = ok(env, A.Wait(0.2))
    assert result.duration_s >= 0.19
    windowed = env.act(A.Wait(1, window="Save"))  # a desktop's window: a tab has none
    assert not windowed.ok and "window" in (windowed.error or "")
    with pytest.raises(ActionError, match="'window'"):
        A.Action.from_dict({"type": "wait", "seconds": 1, "window": ""})
    for action in (A.Done(), A.Answer("42"), A.Fail("no way"), A.Ask("which one?")):
        assert env.act(action).ok


def test_failures_are_results_not_exceptions(env: BrowserEnvironment) -> None:
    e = ids(env)
    missing = env.act(A.Click("e999"))
    assert not missing.ok and "e999" in (missing.error or "")
    outside = env.act(A.Click(Point(5000, 10)))
    assert not outside.ok and "outside" in (outside.error or "")
    env.page.evaluate("document.getElementById('clicker').remove()")
    gone = env.act(A.Click(e["Click me"]))
    assert not gone.ok and "no longer on the page" in (gone.error or "")
    # a hidden element times out quickly (2 s in these tests) and says so
    env.page.evaluate("document.getElementById('save').style.visibility = 'hidden'")
    hidden = env.act(A.Click(e["Save"]))
    assert not hidden.ok and hidden.duration_s < 10  # 2 s timeout; generous for a loaded machine
    assert "timeout" in (hidden.error or "").lower() or "visible" in (hidden.error or "").lower()


def test_inside_iframe(env: BrowserEnvironment) -> None:
    e = ids(env)
    ok(env, A.Fill(e["Inner field"], "in the frame"))
    ok(env, A.Click(e["Inner button"]))
    assert events(env) == ["inner-click"]
    frame = env.page.frame_locator("#frm")
    assert frame.locator("#inner").input_value() == "in the frame"


def test_dialogs_are_accepted_and_reported(env: BrowserEnvironment) -> None:
    env.page.evaluate("document.getElementById('clicker').onclick = () => { alert('Saved!'); log('after'); }; 0")
    e = ids(env)
    ok(env, A.Click(e["Click me"]))
    obs = env.observe(frozenset({"axtree"}))
    assert obs.extra["dialogs"] == ["alert: Saved!"]
    assert events(env) == ["after"]


def test_enter_that_submits_a_form_waits_for_the_new_page(env: BrowserEnvironment, pages_url: str) -> None:
    ok(env, A.GoTo(pages_url + "search.html"))
    e = ids(env)
    ok(env, A.Fill(e["Search this list..."], "acme"))
    ok(env, A.Press("enter"))
    # observed right away, the agent sees the page the search led to, not the form it left
    obs = env.observe(frozenset({"axtree"}))
    assert obs.url.endswith("other.html?q=acme") and "Search this list" not in (obs.axtree or "")
