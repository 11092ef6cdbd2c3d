"""Every observation kind, element ids (stable across steps and inside an iframe), tabs and errors."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from pytest_cua import actions as A
from pytest_cua.envs.browser import BrowserEnvironment

pytestmark = pytest.mark.browser

ALL = frozenset({"screenshot", "axtree", "dom", "som"})


def by_name(obs) -> dict[str, str]:
    return {el.name: el.id for el in obs.elements.values()}


def test_all_kinds_together(env: BrowserEnvironment) -> None:
    obs = env.observe(ALL)
    shot = Image.open(io.BytesIO(obs.screenshot))
    som = Image.open(io.BytesIO(obs.som))
    assert shot.format == "PNG" and shot.size == (1280, 800) and som.size == (1280, 800)
    assert shot.tobytes() != som.convert(shot.mode).tobytes()  # boxes were drawn
    assert obs.url.endswith("actions.html") and obs.title == "Actions page"
    assert obs.tabs == [{"index": 0, "url": obs.url, "title": "Actions page", "active": True}]
    assert obs.last_error is None
    e = by_name(obs)
    # the accessibility outline: one line per element with its id, role, name and state
    assert f'[{e["Save"]}] button "Save"' in obs.axtree
    assert f'[{e["Account Name"]}] textbox "Account Name" [value="Acme"]' in obs.axtree
    assert f'[{e["Stage"]}] combobox "Stage" [value="Prospecting", options="Prospecting | Qualification | Closed Won"]' in obs.axtree
    assert f'[{e["I agree"]}] checkbox "I agree" [checked=false]' in obs.axtree
    assert 'heading "Actions test page" [level=1]' in obs.axtree
    assert 'text "Bottom of page"' in obs.axtree
    assert "Hidden button" not in obs.axtree  # display:none is left out
    assert "pw-should-not-show" not in obs.axtree + obs.dom  # password values are masked
    # the flattened DOM uses the same ids
    assert f'[{e["Save"]}] <button>Save</button>' in obs.dom.splitlines()
    assert f'[{e["Go to other page"]}] <a role="link" href="other.html">Go to other page</a>' in obs.dom
    assert set(obs.elements) == {line.split("]")[0][1:] for line in obs.dom.splitlines()}


@pytest.mark.parametrize("kind", ["screenshot", "axtree", "dom", "som"])
def test_each_kind_alone(env: BrowserEnvironment, kind: str) -> None:
    obs = env.observe(frozenset({kind}))
    produced = {k for k in ("screenshot", "axtree", "dom", "som") if getattr(obs, k) is not None}
    assert produced == {kind}
    assert obs.url and obs.title == "Actions page"
    if kind != "screenshot":
        assert len(obs.elements) >= 15


def test_element_boxes_match_the_page(env: BrowserEnvironment) -> None:
    obs = env.observe(frozenset({"axtree"}))
    save = next(el for el in obs.elements.values() if el.name == "Save")
    box = env.page.locator("#save").bounding_box()
    assert save.bbox == pytest.approx((box["x"], box["y"], box["width"], box["height"]), abs=1)
    inner = next(el for el in obs.elements.values() if el.name == "Inner button")
    inner_box = env.page.frame_locator("#frm").locator("#innerbtn").bounding_box()
    assert inner.frame == "f1"
    assert inner.bbox == pytest.approx((inner_box["x"], inner_box["y"], inner_box["width"], inner_box["height"]), abs=1)


def test_ids_are_stable_across_steps_and_changes(env: BrowserEnvironment) -> None:
    first = by_name(env.observe(frozenset({"axtree"})))
    # the page changes: a new element appears before the others, an element goes away
    env.page.evaluate("""() => {
        const b = document.createElement('button'); b.textContent = 'Brand new';
        document.body.insertBefore(b, document.body.firstChild);
        document.getElementById('dbl').remove();
    }""")
    second = by_name(env.observe(frozenset({"axtree"})))
    for name, eid in first.items():
        if name != "Double me":
            assert second[name] == eid, name
    assert "Double me" not in second
    assert second["Brand new"] not in first.values()
    # inside the iframe too, and an id issued in this step still works for an action in it
    assert second["Inner field"] == first["Inner field"]
    assert env.act(A.Fill(second["Inner field"], "x")).ok
    third = by_name(env.observe(frozenset({"dom"})))
    assert third == second


def test_ids_unique_across_frames(env: BrowserEnvironment) -> None:
    obs = env.observe(frozenset({"dom"}))
    ids = [line.split("]")[0] for line in obs.dom.splitlines()]
    assert len(ids) == len(set(ids))
    frames = {el.frame for el in obs.elements.values()}
    assert frames == {"", "f1"}


def test_ids_of_a_replaced_frame_fail_cleanly(env: BrowserEnvironment, pages_url: str) -> None:
    obs = env.observe(frozenset({"axtree"}))
    inner = by_name(obs)["Inner button"]
    env.page.evaluate(f"document.getElementById('frm').src = '{pages_url}other.html'; 0")
    env.page.frame_locator("#frm").locator("#addbtn").wait_for()
    result = env.act(A.Click(inner))
    assert not result.ok and inner in (result.error or "")


def test_the_episode_not_the_environment_reports_the_last_error(env: BrowserEnvironment) -> None:
    """A failed action's error is the result's; the episode puts it in the next observation (see
    tests/browser/test_trajectory.py), the environment does not track it."""
    failed = env.act(A.Click("e4242"))
    assert not failed.ok and "e4242" in (failed.error or "")
    obs = env.observe(frozenset({"axtree"}))
    assert obs.last_error is None and obs.step == 0


def test_record_page_outline(env: BrowserEnvironment, pages_url: str) -> None:
    assert env.act(A.GoTo(pages_url + "record.html")).ok
    obs = env.observe(frozenset({"axtree", "dom"}))
    assert obs.title.startswith("Acme Corporation")
    assert len(obs.elements) > 100
    assert 'text "Billing City"' in obs.axtree
    assert any(el.name == "Edit Billing City" and el.role == "button" for el in obs.elements.values())


def test_open_shadow_dom_and_slots(env: BrowserEnvironment) -> None:
    obs = env.observe(frozenset({"axtree", "dom"}))
    e = by_name(obs)
    assert f'[{e["Shadow button"]}] button "Shadow button"' in obs.axtree
    assert f'[{e["Slotted field"]}] textbox "Slotted field"' in obs.axtree
    assert 'region "Card"' in obs.axtree
    assert env.act(A.Click(e["Shadow button"])).ok
    assert env.act(A.Fill(e["Slotted field"], "through the slot")).ok
    assert env.page.evaluate("window.events") == ["shadow-click"]
    assert env.page.input_value("#slotted") == "through the slot"


def test_cross_site_iframe(env: BrowserEnvironment, pages_url: str) -> None:
    other_site = pages_url.replace("127.0.0.1", "localhost")  # another site: an out-of-process frame
    env.page.set_content(f'<h1>Host</h1><iframe src="{other_site}frame.html" title="Other site" '
                         'width="500" height="200"></iframe>')
    env.page.frame_locator("iframe").locator("#inner").wait_for()
    obs = env.observe(frozenset({"axtree", "som"}))
    e = by_name(obs)
    assert obs.elements[e["Inner field"]].frame == "f1"
    assert 'iframe "Other site"' in obs.axtree
    assert env.act(A.Fill(e["Inner field"], "cross-site")).ok
    assert env.page.frame_locator("iframe").locator("#inner").input_value() == "cross-site"
    # the box is where the field is on screen: a click just inside its corner focuses it
    # (Playwright's own bounding_box of an out-of-process frame's element leaves out the iframe's border)
    box = obs.elements[e["Inner field"]].bbox
    inner = env.page.frame_locator("iframe").locator("#inner")
    env.page.mouse.click(box[0] + 0.6, box[1] + 0.6)
    assert inner.evaluate("el => document.activeElement === el")
