"""The embedded org's Lightning shell, as an agent meets it through the product's browser environment: the global
header and the navigation bar are Salesforce's base components on the LWC engine with synthetic shadow (built by
scripts/build_lightning.sh), their insides in shadow roots. The observation reaches into them and into same-origin
frames with ids that stay the same between steps, and actions on those ids work. The assets are served at
/assets/ as Salesforce serves SLDS, and an installation without them says which command builds them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pytest_cua import actions as A
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.observations import Observation
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui import assets

pytestmark = pytest.mark.browser


def ids_by(obs: Observation, role: str, name: str) -> list[str]:
    return [e.id for e in obs.elements.values() if e.role == role and e.name == name]


def one(obs: Observation, role: str, name: str, frame: str = "") -> str:
    found = [i for i in ids_by(obs, role, name) if obs.elements[i].frame == frame]
    assert len(found) == 1, f"{role} {name!r} in frame {frame!r}: {found}\n{obs.axtree}"
    return found[0]


def outline_line(outline: str, element_id: str) -> str:
    """The outline's line of an element (``[e12] link "Home" [current=page]``), or ""."""
    return next((line for line in outline.splitlines() if line.strip().startswith(f"[{element_id}]")), "")


def test_the_shell_is_built_from_components_in_shadow_roots(env: BrowserEnvironment, base: str, org: Org) -> None:
    assert env.act(A.GoTo(f"{base}/lightning/o/Account/list")).ok
    page = env.page
    # the controls live inside the components' shadow roots: the light DOM does not see them ...
    assert page.evaluate("document.querySelectorAll('button[title=\"App Launcher\"]').length") == 0
    assert page.evaluate("document.querySelector('one-app-nav').shadowRoot !== null")
    # ... the observation does, with the names Lightning gives them
    obs = env.observe(frozenset({"axtree", "dom"}))
    for role, name in (("button", "App Launcher"), ("searchbox", "Search"), ("button", "Setup"),
                       ("button", "View profile"), ("button", "Notifications"), ("link", "Accounts"),
                       ("button", "Accounts List"), ("link", "Reports"), ("button", "More Show more navigation items")):
        one(obs, role, name)
    assert 'navigation "Global"' in (obs.axtree or "")
    assert 'text "Sales"' in (obs.axtree or "")  # the app's name beside the waffle
    # the stylesheet and the components' script come from the build, versioned by its stamp and its hash
    stamp = assets.build_stamp()
    assert page.evaluate("document.querySelector('link[rel=stylesheet]').getAttribute('href')") == \
        f"{assets.STYLESHEET}?v={stamp}"
    # the shell's entry script, then the list view's (the page has a one-list-view); nothing left unmounted
    scripts = page.evaluate("[...document.querySelectorAll('script[type=module]')].map(s => s.getAttribute('src'))")
    assert scripts == assets.script_urls('<div data-one="one-list-view">')
    # (a name is the entry's, then "-" and its content's 8-character hash, which may hold "-" itself)
    assert [re.sub(r"-[\w-]{8}\.js$", "", s.split("/")[-1]) for s in scripts] == ["one", "one-list-view"]
    assert page.evaluate("document.documentElement.dataset.oneError") is None
    assert page.evaluate("document.documentElement.dataset.oneReady") == "true"


def test_ids_inside_components_are_stable_and_act(env: BrowserEnvironment, base: str, org: Org) -> None:
    assert env.act(A.GoTo(f"{base}/lightning/page/home")).ok
    first = env.observe(frozenset({"axtree"}))
    waffle = one(first, "button", "App Launcher")
    assert one(env.observe(frozenset({"axtree"})), "button", "App Launcher") == waffle
    assert env.act(A.Click(waffle)).ok
    opened = env.observe(frozenset({"axtree"}))
    assert one(opened, "button", "App Launcher") == waffle  # the same id after the component re-rendered
    assert opened.elements[waffle].attributes.get("expanded") == "true"
    search = one(opened, "searchbox", "Search apps and items...")
    assert opened.elements[search].attributes.get("focused") == "true"  # focus moved into the panel
    assert env.act(A.Fill(search, "price")).ok
    found = env.observe(frozenset({"axtree"}))
    # the panel's link comes first (the home page lists the objects too, further down)
    assert env.act(A.Click(ids_by(found, "link", "Price Books")[0])).ok
    env.page.wait_for_url("**/lightning/o/Pricebook2/list")
    listed = env.observe(frozenset({"axtree"}))
    assert listed.elements[one(listed, "button", "App Launcher")].attributes.get("expanded") == "false"


def test_view_all_lists_every_app_and_item_and_opens_an_app(env: BrowserEnvironment, base: str, org: Org) -> None:
    assert env.act(A.GoTo(f"{base}/lightning/page/home")).ok
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "App Launcher"))).ok
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "View All"))).ok
    obs = env.observe(frozenset({"axtree"}))
    axtree = obs.axtree or ""
    modal = axtree[axtree.index('heading "App Launcher"'):]  # the modal's part of the outline
    for name in ("Sales", "Service", "Marketing", "Accounts", "Price Books", "Setup"):
        assert f'link "{name}"' in modal, name
    assert env.act(A.Click(one(obs, "link", "Service"))).ok
    env.page.wait_for_url("**/lightning/page/home")
    assert 'text "Service"' in (env.observe(frozenset({"axtree"})).axtree or "")


def test_menus_of_the_header_and_the_tabs(env: BrowserEnvironment, base: str, org: Org) -> None:
    assert env.act(A.GoTo(f"{base}/lightning/o/Contact/list")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Click(one(obs, "button", "Contacts List"))).ok
    menu = env.observe(frozenset({"axtree"}))
    assert env.act(A.Click(one(menu, "menuitem", "New Contact"))).ok
    env.page.wait_for_url("**/lightning/o/Contact/new")
    # New Contact is a modal dialog over the contacts' list, which covers the page until it is closed
    obs = env.observe(frozenset({"axtree"}))
    assert 'heading "New Contact" [level=1]' in (obs.axtree or "")
    assert env.act(A.Click(one(obs, "button", "Cancel and close"))).ok
    env.page.wait_for_url("**/lightning/o/Contact/list")
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Click(one(obs, "button", "Setup"))).ok
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "menuitem", "Setup"))).ok
    env.page.wait_for_url("**/lightning/setup/SetupOneHome/home")
    # global search: Enter in the header's box opens the results
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Fill(one(obs, "searchbox", "Search"), "Kestrel")).ok
    assert env.act(A.Press("Enter")).ok
    env.page.wait_for_url("**/lightning/search?q=Kestrel")


def test_setup_is_the_setup_app_with_home_and_object_manager(env: BrowserEnvironment, base: str, org: Org) -> None:
    """On a Setup page the navigation bar is the Setup app's: its name, Home and Object Manager, the page's own
    tab current; the org's object tabs are not there (the App Launcher still is)."""
    for path, current in (("/lightning/setup/SetupOneHome/home", "Home"),
                          ("/lightning/setup/ObjectManager/home", "Object Manager"),
                          ("/lightning/setup/ManageUsers/home", None)):
        assert env.act(A.GoTo(f"{base}{path}")).ok
        obs = env.observe(frozenset({"axtree"}))
        assert 'text "Setup"' in (obs.axtree or "") and 'text "Sales"' not in (obs.axtree or "")
        # the bar's tabs come first in the page (the Setup tree and Setup Home link the same pages again)
        tabs = {name: obs.elements[ids_by(obs, "link", name)[0]] for name in ("Home", "Object Manager")}
        assert all(e.bbox and e.bbox[1] < 90 for e in tabs.values()), tabs
        shown_current = env.page.locator("one-app-nav a[aria-current=page]").all_inner_texts()
        assert [t.strip() for t in shown_current] == ([current] if current else [])
        # the observation says so too: the bar's current tab, and the Setup tree's page selected (its group open);
        # Object Manager has no Setup tree, as on Salesforce
        outline = obs.axtree or ""
        assert [e.name for e in obs.elements.values() if "current=page" in outline_line(outline, e.id)] == (
            [current] if current else [])
        selected = [e.name for e in obs.elements.values()
                    if e.role == "treeitem" and "selected=true" in outline_line(outline, e.id)]
        assert selected == {"Home": ["Setup Home"], "Object Manager": [], None: ["Users"]}[current]
        assert not ids_by(obs, "link", "Accounts") and not ids_by(obs, "button", "Accounts List")
        one(obs, "button", "App Launcher")
    assert env.act(A.Click(ids_by(obs, "link", "Object Manager")[0])).ok
    env.page.wait_for_url("**/lightning/setup/ObjectManager/home")
    # leaving Setup for an object's page brings the app's own bar back (the app last opened; tests before may
    # have opened another than Sales)
    assert env.act(A.GoTo(f"{base}/lightning/o/Account/list")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'text "Setup"' not in (obs.axtree or "") and ids_by(obs, "link", "Accounts")


def test_components_inside_a_same_origin_frame(env: BrowserEnvironment, base: str, org: Org) -> None:
    """A page with both: the shell's shadow roots in the page and in a same-origin frame (as Setup frames
    its Classic pages); every element has its own id, the frame's carry the frame, and actions reach them."""
    assert env.act(A.GoTo(f"{base}/lightning/page/home")).ok
    env.page.evaluate("""(src) => { const f = document.createElement('iframe'); f.src = src; f.title = 'Framed';
        f.style.width = '1200px'; f.style.height = '500px'; document.querySelector('main').prepend(f); }""",
                      f"{base}/lightning/o/Lead/list")
    env.page.frame_locator("iframe[title=Framed]").locator("html[data-one-ready=true]").wait_for()
    obs = env.observe(frozenset({"axtree", "dom"}))
    top = one(obs, "button", "App Launcher")
    frames = {e.frame for e in obs.elements.values()} - {""}
    assert len(frames) == 1, frames
    (frame,) = frames
    inner = one(obs, "button", "App Launcher", frame=frame)
    assert inner != top and len(obs.elements) == len({e.id for e in obs.elements.values()})
    assert one(obs, "link", "Leads", frame=frame)
    assert env.act(A.Click(inner)).ok
    after = env.observe(frozenset({"axtree"}))
    assert after.elements[inner].attributes.get("expanded") == "true"
    assert after.elements[top].attributes.get("expanded") == "false"


def test_assets_are_served_with_their_cache_rules(ui_server: OrgServer) -> None:
    assert ui_server.org_credentials is not None
    session = ui_server.org_credentials.requests_session()
    scripts = assets.script_urls('<div data-one="one-record-home"></div><div data-one="one-picklist"></div>')
    assert len(scripts) == 3  # the shell's, the picklist's, the record home's
    for src in scripts:
        script = session.get(f"{ui_server.url}{src}", timeout=30)
        assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
        assert "immutable" in script.headers["Cache-Control"], src  # its name is its content's hash
        # the chunks it imports are named by hash too, and found where it says
        for chunk in re.findall(r'from\s*"\./([\w-]+\.js)"', script.text):
            answer = session.get(f"{ui_server.url}/assets/one/{chunk}", timeout=30)
            assert answer.status_code == 200 and "immutable" in answer.headers["Cache-Control"], chunk
    sprite = session.get(f"{ui_server.url}/assets/icons/utility-sprite/svg/symbols.svg", timeout=30)
    assert sprite.status_code == 200 and sprite.headers["Content-Type"] == "image/svg+xml"
    assert sprite.headers["Cache-Control"] == "public, max-age=3600"
    for bad in ("/assets/../../store.py", "/assets/%2e%2e/%2e%2e/store.py", "/assets/one/missing.js"):
        assert session.get(f"{ui_server.url}{bad}", timeout=30).status_code == 404, bad


def test_without_a_build_a_page_names_the_command(ui_server: OrgServer, page: object, base: str,
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assets, "DIST", tmp_path / "dist")
    with pytest.raises(assets.AssetsMissing, match="scripts/build_lightning.sh"):
        assets.build_stamp()
    response = page.goto(f"{base}/lightning/page/home")  # type: ignore[attr-defined]
    assert response.status == 503
    assert "scripts/build_lightning.sh" in page.text_content("body")  # type: ignore[attr-defined]


def test_a_picklist_is_a_lightning_combobox_chosen_by_select_option(env: BrowserEnvironment, base: str, sf: Any,
                                                                    org: Org) -> None:
    """A record form's picklist is a lightning-combobox (no native select): ``select_option`` opens it and clicks
    the option, the form posts the choice, a wrong option is an error naming the options, and the server's
    "Complete this field." shows under the combobox with the typed values kept."""
    assert env.act(A.GoTo(f"{base}/lightning/o/Opportunity/new")).ok
    assert env.page.evaluate("document.querySelectorAll('main select').length") == 0
    obs = env.observe(frozenset({"axtree"}))
    stage = one(obs, "combobox", "Stage")
    assert obs.elements[stage].attributes.get("value") == "--None--"
    wrong = env.act(A.SelectOption(stage, "Sleeping"))
    assert not wrong.ok and "no option 'Sleeping'" in (wrong.error or "") and "'Prospecting'" in (wrong.error or "")
    assert env.act(A.Fill(one(env.observe(frozenset({"axtree"})), "textbox", "Opportunity Name"), "Combo Deal")).ok
    # Save without a stage: the server refuses, says so under the combobox, keeps what was typed
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Save"))).ok
    env.page.get_by_text("Complete this field.").first.wait_for()
    again = env.observe(frozenset({"axtree"}))
    assert again.elements[one(again, "textbox", "Opportunity Name")].attributes.get("value") == "Combo Deal"
    chosen = env.act(A.SelectOption(one(again, "combobox", "Stage"), "needs analysis"))  # any letter case
    assert chosen.ok and chosen.detail.get("selected") == ["Needs Analysis"], chosen
    after = env.observe(frozenset({"axtree"}))
    assert after.elements[one(after, "combobox", "Stage")].attributes.get("value") == "Needs Analysis"
    assert env.act(A.Fill(one(after, "textbox", "Close Date"), "1/15/2027")).ok  # the date field's M/D/YYYY
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Save"))).ok
    env.page.wait_for_url("**/lightning/r/Opportunity/*/view")
    rows = sf.query("SELECT StageName, CloseDate FROM Opportunity WHERE Name = 'Combo Deal'")["records"]
    assert [(r["StageName"], r["CloseDate"]) for r in rows] == [("Needs Analysis", "2027-01-15")]


def test_a_date_is_a_lightning_date_input_with_its_datepicker(env: BrowserEnvironment, base: str, sf: Any,
                                                              org: Org) -> None:
    """A record form's date is lightning-input type="date": text it cannot read (an ISO date) stops the save in
    the page with the base component's format message, the text kept and nothing written; the datepicker's month
    grid (Previous Month, Next Month, Today) chooses a date, posted as the ISO date."""
    assert env.act(A.GoTo(f"{base}/lightning/o/Opportunity/new")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Fill(one(obs, "textbox", "Opportunity Name"), "Dated Deal")).ok
    assert env.act(A.SelectOption(one(obs, "combobox", "Stage"), "Prospecting")).ok
    assert env.act(A.Fill(one(env.observe(frozenset({"axtree"})), "textbox", "Close Date"), "2026-12-31")).ok
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Save"))).ok  # refused in the page
    env.page.get_by_text("Your entry does not match the allowed format M/d/yyyy.").first.wait_for()
    assert "/lightning/o/Opportunity/new" in env.page.url
    assert env.page.get_by_role("textbox", name="Close Date").input_value() == "2026-12-31"  # the text kept
    assert sf.query("SELECT Id FROM Opportunity WHERE Name = 'Dated Deal'")["records"] == []
    assert env.act(A.Clear(one(env.observe(frozenset({"axtree"})), "textbox", "Close Date"))).ok
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Select a date for Close Date"))).ok
    grid = env.observe(frozenset({"axtree"}))
    names = {e.name for e in grid.elements.values()}
    assert {"Previous Month", "Next Month", "Today"} <= names, sorted(n for n in names if n)[:40]
    assert env.act(A.Click(one(grid, "button", "Today"))).ok
    shown = env.page.get_by_role("textbox", name="Close Date").input_value()
    month, day, year = (int(x) for x in shown.split("/"))  # M/D/YYYY
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Save"))).ok
    env.page.wait_for_url("**/lightning/r/Opportunity/*/view")
    rows = sf.query("SELECT CloseDate FROM Opportunity WHERE Name = 'Dated Deal'")["records"]
    assert [r["CloseDate"] for r in rows] == [f"{year:04d}-{month:02d}-{day:02d}"]


def test_a_record_home_as_an_agent_meets_it(env: BrowserEnvironment, base: str, sf: Any, org: Org) -> None:
    opp = sf.Opportunity.create({"Name": "Agent Path", "StageName": "Prospecting", "CloseDate": "2026-12-31"})["id"]
    sf.Task.create({"Subject": "Agent task", "WhatId": opp})
    assert env.act(A.GoTo(f"{base}/lightning/r/Opportunity/{opp}/view")).ok
    obs = env.observe(frozenset({"axtree"}))
    axtree = obs.axtree or ""
    assert 'heading "Opportunity Agent Path" [level=1]' in axtree
    # controls inside headings are listed: a related card's title link, a section's toggle
    one(obs, "link", "Tasks (1)")
    one(obs, "tab", "Related")
    assert obs.elements[one(obs, "tab", "Related")].attributes.get("selected") == "true"
    assert env.act(A.Click(one(obs, "option", "Needs Analysis"))).ok
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Mark as Current Stage"))).ok
    env.page.wait_for_function("document.documentElement.dataset.oneReady === 'true'")
    assert sf.Opportunity.get(opp)["StageName"] == "Needs Analysis"
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "tab", "Details"))).ok
    details = env.observe(frozenset({"axtree"}))
    toggle = one(details, "button", "Opportunity Information")
    assert details.elements[toggle].attributes.get("expanded") == "true"
    one(details, "button", "Edit Opportunity Name")
    owner = org.get("User", org.default_user_id)["Name"]
    assert 'text "Opportunity Owner"' in (details.axtree or "") and ids_by(details, "link", owner)


def test_a_placeholder_no_script_mounts_is_reported(page: Any, base: str) -> None:
    """A page placing a component that no entry script mounts says so (data-one-error) instead of showing a hole."""
    def add_stray(route: Any) -> None:
        answer = route.fetch()
        body = answer.text().replace("</main>", '<div data-one="one-nowhere"></div></main>')
        route.fulfill(response=answer, body=body)

    page.route("**/lightning/page/home", add_stray)
    try:
        page.goto(f"{base}/lightning/page/home")
        page.wait_for_function("document.documentElement.dataset.oneReady === 'true'")
        assert page.evaluate("document.documentElement.dataset.oneError") == "no script mounted: one-nowhere"
        assert page.evaluate("document.querySelector('one-global-header') !== null")  # the rest is mounted
    finally:
        page.unroute("**/lightning/page/home")


def test_a_datetime_is_a_lightning_datetime_input_with_a_date_and_a_time(env: BrowserEnvironment, base: str,
                                                                        sf: Any, org: Org) -> None:
    """A record form's date/time (an Event's start and end) is lightning-input type="datetime": the field's
    label over a "Date" box (M/D/YYYY, with its datepicker) and a "Time" combobox of the time picker (h:mm a);
    the form posts the ISO value in UTC, the zone the org stores and shows it in; a date the field cannot read
    stops the save in the page, nothing written."""
    assert env.act(A.GoTo(f"{base}/lightning/o/Event/new")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Fill(one(obs, "textbox", "Subject"), "Timed Visit")).ok
    # the event layout's labels: Assigned To, Start, End; ActivityDateTime and the duration are not on it
    start_date, end_date = ids_by(obs, "textbox", "Date")  # Start, End
    start_time, end_time = ids_by(obs, "combobox", "Time")
    assert env.page.get_by_role("group", name="End", exact=True).count() == 1
    assert env.page.get_by_text("Assigned To", exact=True).count() >= 1
    assert env.page.get_by_text("Activity Date Time").count() == 0 and env.page.get_by_text("Owner ID").count() == 0
    start = env.page.get_by_role("group", name="Start", exact=True)
    assert start.get_by_role("textbox", name="Date").count() == 1 and start.get_by_role("combobox", name="Time").count() == 1
    assert env.act(A.Fill(start_date, "2026-12-05")).ok  # an ISO date: not the field's format
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Save"))).ok
    env.page.get_by_text("Your entry does not match the allowed format").first.wait_for()
    assert "/lightning/o/Event/new" in env.page.url
    assert sf.query("SELECT Id FROM Event WHERE Subject = 'Timed Visit'")["records"] == []
    for date_id, time_id, time in ((start_date, start_time, "10:00 AM"), (end_date, end_time, "11:30 AM")):
        assert env.act(A.Clear(date_id)).ok
        assert env.act(A.Fill(date_id, "12/5/2026")).ok
        chosen = env.act(A.SelectOption(time_id, time))
        assert chosen.ok and chosen.detail.get("selected") == [time], chosen
    assert env.act(A.Click(one(env.observe(frozenset({"axtree"})), "button", "Save"))).ok
    env.page.wait_for_url("**/lightning/r/Event/*/view")
    rows = sf.query("SELECT StartDateTime, EndDateTime FROM Event WHERE Subject = 'Timed Visit'")["records"]
    assert [(r["StartDateTime"], r["EndDateTime"]) for r in rows] == [
        ("2026-12-05T10:00:00.000+0000", "2026-12-05T11:30:00.000+0000")]
    env.page.get_by_text("12/5/2026, 10:00 AM").first.wait_for()  # the record shows it as Salesforce does


@pytest.mark.parametrize("path", ["/lightning/o/Account/list", "/lightning/page/home", "/lightning/setup/SetupOneHome/home"])
def test_pages_use_the_whole_width_of_the_window(page: Any, base: str, path: str) -> None:
    """Lightning's content runs across the window with a 12 px (0.75rem) margin, whatever the window's width; no
    band is left blank on the right."""
    page.set_viewport_size({"width": 1440, "height": 900})
    try:
        page.goto(f"{base}{path}")
        page.wait_for_function("document.documentElement.dataset.oneReady === 'true'")
        box = page.evaluate("""() => { const m = document.querySelector('main').getBoundingClientRect();
            return {left: m.left, right: m.right, inner: document.documentElement.clientWidth,
                    padding: getComputedStyle(document.querySelector('main')).paddingRight}; }""")
        assert box["left"] == 0 and box["right"] == box["inner"], box
        assert box["padding"] == "12px", box
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
