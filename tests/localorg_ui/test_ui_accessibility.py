"""Every catalogue page (``pytest_cua.orgs.localorg.ui.page_catalog``) is real for an agent, observed through the product's
own browser environment (``BrowserEnvironment.observe`` with the axtree and set-of-marks kinds, the code agents get
their observations from):

- every visible interactive control (a[href], button, input except hidden, select, textarea, [role=button],
  summary, tabindex >= 0) has a non-empty accessible name in Chromium's accessibility tree, is listed in the axtree
  observation with that id and a name, and gets a mark in the set-of-marks screenshot of some scroll position;
- at 1280x900 and at 900x700 the same controls are listed and each can be clicked by its role and name (a trial
  click: visible, enabled, not covered by anything; nothing depends on a fixed pixel position);
- no positive tabindex, and Tab from the page start reaches the page form's first field and its submit control
  (on a page without a form: the first and the last control of the main content), every stop in document order;
- Enter in a text field submits its form (a record form, a setup form, a wizard step; in the report builder the
  field search, the filter popover and the Save Report dialog): the server answers (the saved record or the
  validation error page);
- Escape closes the App Launcher and every other dialog and menu a page opens, and focus returns to its opener.

The Lightning components keep their insides in shadow roots (synthetic shadow, as Lightning Experience runs
them): every page query here walks the composed tree.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any, Iterator

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui import page_catalog
from pytest_cua.orgs.localorg.ui.setup_frame import classic_segment
from pytest_cua.observations import Observation
from tests.localorg_ui.conftest import logged_in_environment
from tests.localorg_ui.lightning import classic, status

pytestmark = pytest.mark.browser

VIEWPORTS = [(1280, 900), (900, 700)]
PROBE = "data-a11y-probe"
#: every page name of the catalogue (the ids only change paths, never which pages there are)
PAGE_NAMES = [name for name, _ in page_catalog.pages({"permset": "x", "group": "x", "profile": "x", "view": "x", "account": "x", "lead": "x",
                                                      "report": "x", "dashboard": "x"})]


def every_page(offset: int) -> list[Any]:
    """The pages as parameters, CI's half of them (every other page from ``offset``) unmarked and the rest marked
    ``full`` (tests/tiers.py): the two per-page checks take opposite halves, so CI still opens every page of the
    catalogue under one of them, and a full run checks every page under both."""
    return [name if i % 2 == offset else pytest.param(name, marks=pytest.mark.full)
            for i, name in enumerate(PAGE_NAMES)]

#: the pages' Lightning components keep their insides in (synthetic or native) shadow roots, as Lightning
#: Experience does: every query below walks the composed tree (shadow roots in place of their hosts' children,
#: slots' assigned nodes in place of the slots), in document order
DEEP_JS = """
  const composedChildren = (node) => {
    if (node.nodeType === 1 && node.shadowRoot) return Array.from(node.shadowRoot.children);
    if (node.nodeType === 1 && node.tagName === 'SLOT') {
      const assigned = node.assignedElements({flatten: true});
      return assigned.length ? assigned : Array.from(node.children);
    }
    return Array.from(node.children || []);
  };
  const deepAll = (sel, root) => {
    const out = [];
    const visit = (node) => {
      for (const child of composedChildren(node)) {
        if (child.matches(sel)) out.push(child);
        visit(child);
      }
    };
    visit(root || document.documentElement);
    return out;
  };
  const deepActive = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };
  const inShadow = (el) => el.getRootNode() !== document;
  // inside the navigation bar's tab row (which moves the tabs that do not fit under "More")
  const inTabs = (el) => { for (let n = el; n; n = n.parentNode || n.host)
                             if (n.matches && n.matches('nav[aria-label=Global]')) return true;
                           return false; };
"""

#: mark every visible interactive control (in document order) and describe it
CONTROLS_JS = """(attr) => {""" + DEEP_JS + """
  const SEL = 'a[href], button, input:not([type=hidden]), select, textarea, [role=button], summary, [tabindex]';
  const NATIVE = 'a[href], button, input, select, textarea, [role=button], summary';
  deepAll('[' + attr + ']').forEach((el) => el.removeAttribute(attr));
  // an open modal dialog (New / Edit) is the page for a person: what it covers is inert, as are hidden parts
  const modal = deepAll('[aria-modal=true]').find((d) => d.checkVisibility());
  const within = (el, box) => { for (let n = el; n; n = n.parentNode || n.host) { if (n === box) return true; } return false; };
  const hidden = (el) => { for (let n = el; n; n = n.parentNode || n.host) {
    if (n.nodeType === 1 && (n.hasAttribute('inert') || n.getAttribute('aria-hidden') === 'true')) return true; }
    return false; };
  const out = [];
  for (const el of deepAll(SEL)) {
    if ((modal && !within(el, modal)) || hidden(el)) continue;
    const ti = el.getAttribute('tabindex');
    if (!el.matches(NATIVE) && (ti === null || parseInt(ti, 10) < 0)) continue;
    if (!el.checkVisibility({checkVisibilityCSS: true}) || el.getClientRects().length === 0) continue;
    el.setAttribute(attr, String(out.length));
    out.push({probe: out.length, tag: el.tagName.toLowerCase(), type: el.getAttribute('type') || '',
              tabindex: ti, cua: el.getAttribute('data-cua-id') || '', tabs: inTabs(el),
              html: el.outerHTML.slice(0, 160)});
  }
  return out;
}"""


#: scroll an open modal dialog's content to y (-1: just say how far it scrolls; 0 without a modal)
MODAL_SCROLL_JS = """(y) => {
  const box = document.querySelector('[aria-modal=true] .slds-modal__content');
  if (!box) return 0;
  if (y >= 0) box.scrollTop = y;
  return Math.max(0, box.scrollHeight - box.clientHeight);
}"""


HIT_JS = """(attr) => {""" + DEEP_JS + """
  const out = [];
  for (const el of deepAll('[' + attr + ']')) {
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getClientRects()[0];
    // SLDS's skip links ("Skip to Navigation") are assistive text, clipped to one pixel until focused: reached
    // by Tab, not by a pointer (the Tab test covers them)
    if (r.width <= 1 && r.height <= 1) continue;
    // a disabled control takes no click (SLDS gives it no pointer events; Playwright waits until it is enabled)
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') continue;
    // the element at that point as the page's own tree has it (shadow roots entered)
    let hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    while (hit && hit.shadowRoot && hit.shadowRoot.elementFromPoint) {
      const inner = hit.shadowRoot.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    // contained across shadow boundaries (a button's icon is another component's shadow content)
    const within = (node, box) => { for (let n = node; n; n = n.parentNode || n.host) if (n === box) return true;
                                    return false; };
    const ok = hit && (within(hit, el) || (el.labels && Array.from(el.labels).some((l) => within(hit, l))));
    if (!ok) out.push([parseInt(el.getAttribute(attr), 10), hit ? hit.outerHTML.slice(0, 100) : 'nothing']);
  }
  window.scrollTo(0, 0);
  return out;
}"""


@pytest.fixture(scope="module")
def ids(ui_server: OrgServer) -> dict[str, str]:
    """The records the catalogue pages need (made once, before any test's snapshot)."""
    return page_catalog.prepare(ui_server)


@pytest.fixture(scope="module")
def paths(ids: dict[str, str]) -> dict[str, str]:
    # a Classic Setup page is checked on its own (isdtp=p1): in Lightning Setup it is inside a frame, and these
    # checks read the page's document (test_setup_frame.py drives the frame)
    return {name: classic(path) if classic_segment(path) else path for name, path in page_catalog.pages(ids)}


@pytest.fixture(scope="module")
def env(ui_server: OrgServer, ids: dict[str, str], tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[BrowserEnvironment]:
    """The product's browser environment, logged in to the module's org by frontdoor (at ``VIEWPORTS[0]``)."""
    environment = logged_in_environment(ui_server, tmp_path_factory.mktemp("a11y"))
    environment.page.set_default_timeout(5000)
    yield environment
    environment.close()


def open_page(env: BrowserEnvironment, url: str, viewport: tuple[int, int] = VIEWPORTS[0]) -> Any:
    page = env.page
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    response = page.goto(url)
    assert response is not None and response.status < 400, f"{url} answered {response and response.status}"
    return page


def accessible_names(page: Any) -> dict[int, tuple[str, str]]:
    """Chromium's own accessibility tree: probe number -> (role, computed accessible name)."""
    cdp = page.context.new_cdp_session(page)
    try:
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        backend: dict[int, int] = {}
        stack = [doc["root"]]
        while stack:
            node = stack.pop()
            attrs = node.get("attributes") or []
            for k, v in zip(attrs[::2], attrs[1::2]):
                if k == PROBE:
                    backend[node["backendNodeId"]] = int(v)
            stack.extend(node.get("children") or [])
            stack.extend(node.get("shadowRoots") or [])
            if node.get("contentDocument"):
                stack.append(node["contentDocument"])
        out: dict[int, tuple[str, str]] = {}
        for ax in cdp.send("Accessibility.getFullAXTree")["nodes"]:
            probe = backend.get(ax.get("backendDOMNodeId", -1))
            if probe is not None and not ax.get("ignored"):
                out[probe] = (str(ax.get("role", {}).get("value", "")), str(ax.get("name", {}).get("value", "")))
        return out
    finally:
        cdp.detach()


def png_size(png: bytes) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(png)).size


def marked(obs: Observation) -> set[str]:
    """The element ids the set-of-marks screenshot draws a box for (``marks.draw_marks``'s rule)."""
    assert obs.som is not None
    W, H = png_size(obs.som)
    out = set()
    for el in obs.elements.values():
        if el.bbox is None:
            continue
        x, y, w, h = el.bbox
        if w > 0 and h > 0 and x + w >= 0 and y + h >= 0 and x < W and y < H:
            out.add(el.id)
    return out


def observe_all(env: BrowserEnvironment) -> tuple[Observation, set[str], list[dict[str, Any]]]:
    """Observe the page (axtree + set-of-marks) at every scroll position; the first observation, the ids marked
    in any set-of-marks, and the page's visible interactive controls (probe-numbered, document order)."""
    page = env.page
    page.evaluate("window.scrollTo(0, 0)")
    obs = env.observe(frozenset({"axtree", "som"}))
    marks = marked(obs)
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    step = int(page.viewport_size["height"] * 0.8)
    for y in range(step, max(height - step // 4, 0), step):
        page.evaluate(f"window.scrollTo(0, {y})")
        marks |= marked(env.observe(frozenset({"som"})))
    page.evaluate("window.scrollTo(0, 0)")
    # a modal dialog scrolls its own content (New / Edit): through all of it as well
    inner = page.evaluate(MODAL_SCROLL_JS, -1)
    for y in [*range(0, inner, step // 2), inner]:
        page.evaluate(MODAL_SCROLL_JS, y)
        marks |= marked(env.observe(frozenset({"som"})))
    page.evaluate(MODAL_SCROLL_JS, 0)
    controls = page.evaluate(CONTROLS_JS, PROBE)
    return obs, marks, controls


def check_controls(env: BrowserEnvironment) -> list[tuple[str, str]]:
    """The per-page checks at the current viewport; returns the controls outside the navigation bar's tab row as
    (role, name) in document order."""
    page = env.page
    obs, marks, controls = observe_all(env)
    assert controls, "no interactive control found"
    names = accessible_names(page)
    axtree = obs.axtree or ""
    problems = []
    listed: list[tuple[str, str]] = []
    for c in controls:
        what = c["html"]
        role, name = names.get(c["probe"], ("", ""))
        if not name.strip():
            problems.append(f"no accessible name: {what}")
        if c["tabindex"] is not None and c["tabindex"].strip().lstrip("+").isdigit() and int(c["tabindex"]) > 0:
            problems.append(f"positive tabindex: {what}")
        el = obs.elements.get(c["cua"]) if c["cua"] else None
        if el is None:
            problems.append(f"not in the observation's elements: {what}")
            continue
        if not el.name.strip():
            problems.append(f"no name in the axtree observation: {what}")
        if f"[{el.id}] {el.role} {json.dumps(el.name, ensure_ascii=False)}" not in axtree:
            problems.append(f"no axtree line [{el.id}] {el.role} {el.name!r}: {what}")
        if el.id not in marks:
            problems.append(f"no set-of-marks box at any scroll position: {what}")
        if not c["tabs"]:
            listed.append((el.role, el.name))
    assert not problems, "\n".join(problems)
    # each control is found by its role and name (Playwright's own role and name computation) ...
    by_key: dict[tuple[str, str], list[int]] = {}
    for c in controls:
        el = obs.elements[c["cua"]]
        by_key.setdefault((el.role, el.name), []).append(c["probe"])
    for (role, name), probes in by_key.items():
        by_role = page.get_by_role(role, name=name, exact=True)  # type: ignore[arg-type]
        if all(controls[p]["tag"] == "summary" for p in probes):
            # a <summary> has no ARIA role (Chromium: DisclosureTriangle; Playwright's get_by_role has none):
            # found by its exact text instead
            by_role = page.locator("summary").filter(has_text=re.compile(f"^\\s*{re.escape(name)}\\s*$"))
        found = by_role.evaluate_all(f"els => els.map(e => e.getAttribute('{PROBE}'))")
        problems += [f"get_by_role({role!r}, name={name!r}) does not find {controls[p]['html']}"
                     for p in probes if str(p) not in found]
    # ... and a click reaches it wherever the layout puts it (Playwright's hit-target rule: scrolled into view,
    # the point at its centre belongs to it, nothing covers it)
    problems += [f"a click does not reach {controls[p]['html']}: covered by {by}"
                 for p, by in page.evaluate(HIT_JS, PROBE)]
    assert not problems, "\n".join(problems)
    return listed


@pytest.mark.parametrize("name", every_page(0))
def test_every_control_is_named_observed_and_clickable_at_two_sizes(name: str, env: BrowserEnvironment,
                                                                    paths: dict[str, str], base: str,
                                                                    org: Org) -> None:
    seen = []
    for viewport in VIEWPORTS:
        open_page(env, base + paths[name], viewport)
        seen.append(check_controls(env))
    # the same controls at both sizes (the navigation bar's tabs aside: Lightning moves the ones that do not fit
    # the window under "More")
    assert seen[0] == seen[1], f"the controls differ between {VIEWPORTS[0]} and {VIEWPORTS[1]}"
    env.page.set_viewport_size({"width": VIEWPORTS[0][0], "height": VIEWPORTS[0][1]})


#: the page's form an agent fills (the first post form in main with a visible field): its first field and its
#: submit control (the primary one after the field, e.g. "Save"); on a page without one, the first and the last
#: control of the main content
FORM_JS = """(attr) => {""" + DEEP_JS + """
  const visible = (el) => el.checkVisibility({checkVisibilityCSS: true}) && el.getClientRects().length > 0;
  for (const form of document.querySelectorAll('main form')) {
    if ((form.getAttribute('method') || '').toLowerCase() !== 'post') continue;
    const els = Array.from(form.elements).filter((el) => visible(el) && !el.disabled);
    const field = els.find((el) => ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)
                                   && !['submit', 'button', 'reset', 'image', 'hidden'].includes((el.type || '').toLowerCase()));
    const after = els.slice(els.indexOf(field) + 1)
      .filter((el) => (el.tagName === 'BUTTON' || el.tagName === 'INPUT') && el.type === 'submit');
    const submit = after.find((el) => el.matches('.brand, .slds-button_brand')) || after[0];  // the primary one: Save
    if (field && submit) return [parseInt(field.getAttribute(attr), 10), parseInt(submit.getAttribute(attr), 10)];
  }
  // a page without such a form: the first and the last control of its main content
  // (tab stops only: a grid's cells take focus by the arrow keys, the grid is one stop, as ARIA's grid pattern says;
  // a disabled control is no stop, e.g. the report builder's Add Chart before the rows are grouped)
  const inMain = deepAll('[' + attr + ']', document.querySelector('main'))
    .filter((el) => el.getAttribute('tabindex') !== '-1' && !el.disabled);
  return inMain.length ? [parseInt(inMain[0].getAttribute(attr), 10),
                          parseInt(inMain[inMain.length - 1].getAttribute(attr), 10)] : null;
}"""
ACTIVE_JS = ("() => {" + DEEP_JS + "const a = deepActive(); "
             f"return a && a !== document.body ? (a.getAttribute('{PROBE}') ?? a.outerHTML.slice(0, 160)) : null; }}")


@pytest.mark.parametrize("name", every_page(1))
def test_tab_reaches_the_form_in_document_order(name: str, env: BrowserEnvironment, paths: dict[str, str],
                                                base: str, org: Org) -> None:
    page = open_page(env, base + paths[name])
    controls = page.evaluate(CONTROLS_JS, PROBE)
    positive = [c["html"] for c in controls if (c["tabindex"] or "").strip().lstrip("+").isdigit()
                and int(c["tabindex"]) > 0]
    assert not positive, f"positive tabindex: {positive}"
    target = page.evaluate(FORM_JS, PROBE)
    assert target is not None, "no control in the main content"
    first_field, submit = target
    page.evaluate("() => {" + DEEP_JS + "const a = deepActive(); if (a) a.blur(); window.scrollTo(0, 0); }")
    stops: list[int] = []
    for _ in range(len(controls) + 5):
        page.keyboard.press("Tab")
        active = page.evaluate(ACTIVE_JS)
        assert active is not None, f"Tab left the page after {len(stops)} stops"
        assert str(active).isdigit(), f"Tab stopped on an element that is not a visible named control: {active}"
        probe = int(active)
        if stops and probe <= stops[-1]:
            break  # wrapped around
        stops.append(probe)
        if submit in stops and first_field in stops:
            break
    assert first_field in stops, (f"Tab never reached the form's first field {controls[first_field]['html']}; "
                                  f"stops: {[controls[s]['html'][:60] for s in stops]}")
    assert submit in stops, f"Tab never reached the submit control {controls[submit]['html']}"
    assert stops.index(first_field) <= stops.index(submit)


# --- Enter submits -----------------------------------------------------------------------------------------

def test_enter_in_a_record_form_saves_the_record(env: BrowserEnvironment, base: str, sf: Any, org: Org) -> None:
    page = open_page(env, f"{base}/lightning/o/Account/new")
    dialog = page.get_by_role("dialog", name="New Account")
    name = dialog.get_by_label(org.schema.get("Account").field("Name").label, exact=True)  # type: ignore[union-attr]
    name.fill("Enter Key Cycles")
    name.press("Enter")
    expect(status(page)).to_contain_text('Account "Enter Key Cycles" was created.')
    assert sf.query("SELECT Id FROM Account WHERE Name = 'Enter Key Cycles'")["totalSize"] == 1


def test_enter_in_a_setup_form_posts_it(env: BrowserEnvironment, base: str, sf: Any, org: Org) -> None:
    page = open_page(env, classic(f"{base}/lightning/setup/ObjectManager/new"))
    page.get_by_label("Label", exact=True).fill("Keyboard Bird")
    page.get_by_label("Label", exact=True).press("Enter")  # the plural label is missing: the server says so
    expect(page.get_by_role("heading", name="Review the errors on this page.")).to_be_visible()
    expect(page.get_by_label("Label", exact=True)).to_have_value("Keyboard Bird")
    assert not [o for o in sf.describe()["sobjects"] if o["name"] == "Keyboard_Bird__c"]


def test_enter_in_a_wizard_step_goes_to_the_next_step(env: BrowserEnvironment, base: str, org: Org) -> None:
    page = open_page(env, classic(f"{base}/lightning/setup/ObjectManager/MyBike__c/FieldsAndRelationships/new"))
    page.get_by_label("Text", exact=True).check()
    page.get_by_role("button", name="Next", exact=True).first.click()
    label = page.get_by_label("Field Label")
    label.fill("Wheel Size")
    label.press("Enter")
    expect(page.locator("#wizard-step")).to_contain_text("Establish field-level security")


def test_enter_in_the_report_builder_picks_applies_and_saves(env: BrowserEnvironment, base: str, sf: Any,
                                                              org: Org) -> None:
    page = open_page(env, f"{base}/lightning/o/Report/builder?type=Opportunity")
    page.get_by_role("tab", name="Filters").click()
    search = page.get_by_role("combobox", name="Add filter", exact=True)
    search.fill("stag")
    search.press("Enter")  # picks the highlighted field: its filter's popover opens
    value = page.get_by_role("dialog", name="Edit Filter").get_by_label("Value", exact=True)
    value.fill("Prospecting")
    value.press("Enter")  # applies the filter, does not save
    expect(page.get_by_role("button", name="Remove filter 1: Stage")).to_be_visible()
    assert sf.query("SELECT Id FROM Report WHERE Name = 'Keyboard Pipeline'")["totalSize"] == 0
    page.get_by_role("button", name="Save", exact=True).first.click()
    name = page.get_by_role("dialog", name="Save Report").get_by_label("Report Name")
    name.fill("Keyboard Pipeline")
    name.press("Enter")  # saves
    expect(page).to_have_url(re.compile(r"/lightning/o/Report/\w+/view$"))
    rows = sf.query("SELECT Id FROM Report WHERE Name = 'Keyboard Pipeline'")["records"]
    assert len(rows) == 1
    described = sf.restful(f"analytics/reports/{rows[0]['Id']}/describe")
    filters = described["reportMetadata"]["reportFilters"]
    assert [f["value"] for f in filters] == ["Prospecting"]


# --- Escape closes dialogs and menus -----------------------------------------------------------------------

OPENERS_JS = """() => {""" + DEEP_JS + """
  const visible = (el) => el.checkVisibility({checkVisibilityCSS: true}) && el.getClientRects().length > 0;
  deepAll('[data-opener]').forEach((el) => el.removeAttribute('data-opener'));
  // under an open modal dialog (New / Edit), its own openers only: it covers the rest of the page
  const modal = document.querySelector('[aria-modal=true]');
  const inModal = (el) => { for (let n = el; n; n = n.parentNode || n.host) { if (n === modal) return true; } return false; };
  return deepAll('button[aria-haspopup], [role=button][aria-haspopup]').filter(visible)
    .filter((b) => !modal || inModal(b)).map((b, i) => {
    b.setAttribute('data-opener', String(i));
    return {n: i, component: inShadow(b), id: b.id || null, controls: b.getAttribute('aria-controls'),
            name: (b.getAttribute('title') || b.getAttribute('aria-label') || b.textContent).trim()};
  });
}"""
#: the page's own (server-rendered) dialogs and menus: each is opened by a button that names it
DIALOGS_JS = """() => Array.from(document.querySelectorAll('dialog, [role=menu], [role=dialog], [role=listbox]'))
  .filter((d) => !d.matches('select *, select, [aria-modal=true]'))  // (a New / Edit dialog is a page of its own)
  .map((d) => d.id || d.outerHTML.slice(0, 80))"""
OPEN_POPUPS_JS = """() => {""" + DEEP_JS + """
  // (a component's listbox too: a Lightning combobox opens one; a native select's options are not popups)
  return deepAll('dialog, [role=menu], [role=dialog], [role=listbox]')
    .filter((d) => !d.matches('select, select *, [aria-modal=true]') && (d.getAttribute('role') !== 'listbox' || inShadow(d)))
    .filter((d) => d.checkVisibility({checkVisibilityCSS: true}) && d.getClientRects().length > 0)
    .map((d) => inShadow(d) ? 'component' : (d.id || d.outerHTML.slice(0, 80)));
}"""
FOCUSED_OPENER_JS = "() => {" + DEEP_JS + "const a = deepActive(); return a ? a.getAttribute('data-opener') : null; }"


def settled(page: Any, script: str, want: Any) -> Any:
    """What ``script`` returns once it returns ``want`` (a component renders its popup and moves focus after the
    event that asked for it), or after 20 s what it returns then (the bound only matters when it never does: a
    busy machine may take seconds)."""
    try:
        page.wait_for_function(f"() => JSON.stringify(({script})()) === {json.dumps(json.dumps(want))}",
                               timeout=20000)
    except PlaywrightTimeout:
        pass
    return page.evaluate(script)


def test_escape_closes_every_dialog_and_menu(env: BrowserEnvironment, paths: dict[str, str], base: str,
                                            org: Org) -> None:
    """The page's own popups: an opener with an id names its popup (aria-controls), and every dialog or menu of
    the page has such an opener. The Lightning components' popups (the App Launcher, the header's and the
    navigation bar's menus) live in their shadow roots: the same behaviour, checked without ids, once per
    component opener's name (the global header's are the same components on every page)."""
    closed: set[str] = set()
    for name, path in paths.items():
        page = open_page(env, base + path)
        openers = page.evaluate(OPENERS_JS)
        own = [o for o in openers if not o["component"]]
        assert all(o["id"] for o in own), f"{name}: a popup opener without an id: {own}"
        controlled = {o["controls"] for o in own}
        orphans = [d for d in page.evaluate(DIALOGS_JS) if d not in controlled]
        assert not orphans, f"{name}: dialogs or menus no button opens (aria-haspopup + aria-controls): {orphans}"
        for opener in openers:
            if opener["component"] and opener["name"] in closed:
                continue
            page.evaluate(OPENERS_JS)  # (re)number the openers: a popup may have re-rendered its component
            selector = '[data-opener="%d"]' % opener["n"]
            popup = "component" if opener["component"] else opener["controls"]
            page.click(selector)
            assert settled(page, OPEN_POPUPS_JS, [popup]) == [popup], f"{name}: {opener['name']} did not open {popup}"
            page.keyboard.press("Escape")
            assert settled(page, OPEN_POPUPS_JS, []) == [], f"{name}: Escape left {opener['name']}'s popup open"
            assert settled(page, FOCUSED_OPENER_JS, str(opener["n"])) == str(opener["n"]), \
                f"{name}: focus did not return to {opener['name']} after Escape"
            expanded = page.get_attribute(selector, "aria-expanded")
            if expanded is not None:
                assert expanded == "false", f"{name}: {opener['name']} still says aria-expanded={expanded}"
            closed.add(opener["controls"] if not opener["component"] else opener["name"])
    # by construction: the App Launcher and both Create menus were among them (Setup's is a component's menu)
    assert {"App Launcher", "Setup", "ap-create-menu"} <= closed, closed
    assert any(n.startswith("Create") for n in closed), closed
