"""The per-task browser reset of the salesforce environment: a fresh context per task that starts from the
login's storage state (one frontdoor login per environment), made in the background while the task runs
(``spare``), a frontdoor login again when the session stopped working, and a residue check that names any
cookie, storage item or tab left."""

from __future__ import annotations

import time

import pytest

from pytest_cua.envs.base import EnvContext, roll_back
from pytest_cua.envs.salesforce import create
from pytest_cua.redaction import REDACTED, redact
from pytest_cua.tasks.task import Task

STORAGE = "() => [localStorage.length, sessionStorage.length]"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def env(tmp_path_factory, chromium_available):
    environment = create(EnvContext(worker_id="gw7", run_id="resettest", config=None,
                                    reports_dir=tmp_path_factory.mktemp("reports")))
    yield environment
    environment.close()


def _session_cookie(env) -> dict:
    (sid,) = [c for c in env.browser.context.cookies() if c["name"] == "sid"]
    return sid


def _task(env, name: str) -> None:
    env.begin_task(Task(id=name, suite="crm", instruction="x"))
    env.observe(frozenset({"axtree"}))  # the task's first observation: the next context is made meanwhile


def _spare_ready(env, within_s: float = 30.0, booted: bool = True) -> None:
    """Let Playwright deliver the tab's load events (the spare is built from their listener) until the spare is
    made: on a loaded machine the task's one observation may end before it is."""
    browser = env.browser
    deadline = time.monotonic() + within_s
    while browser._spare is not None and browser._spare.state in ("wanted", "building") \
            and time.monotonic() < deadline:
        browser.page.wait_for_timeout(50)
    assert browser._spare is not None and browser._spare.state == "ready", \
        f"no spare ready after {within_s:g} s: {getattr(browser._spare, 'state', None)}"
    spare = browser._spare
    if booted and spare.booted and spare.page is not None:  # its landing page is on its way: let it load
        spare.page.wait_for_url(lambda u: u != "about:blank", wait_until="domcontentloaded")
        spare.page.wait_for_function("document.documentElement.dataset.oneReady === 'true'")


def test_a_fresh_context_after_restore_keeps_only_the_login_session(env):
    snap = env.snapshot()
    roll_back(env, snap)
    _task(env, "warm")  # the context of a frontdoor login has no spare (it had no session to start one from)
    roll_back(env, snap)
    browser = env.browser
    logins, sid = browser.logins, _session_cookie(env)["value"]
    assert redact(f"cookie {sid}") == f"cookie {REDACTED}"  # the kept session id is a registered secret
    _task(env, "dirty")
    page = browser.page
    page.evaluate("() => { document.cookie = 'task_cookie=1; path=/'; localStorage.setItem('task_item', 'x');"
                  " sessionStorage.setItem('task_tab', 'y'); }")
    browser.context.add_cookies([{"name": "task_http", "value": "z", "url": env.credentials.instance_url,
                                  "httpOnly": True}])
    task_context = browser.context
    spares = browser.spares_taken
    roll_back(env, snap)  # restore + residue: raises on anything left
    assert browser.spares_taken == spares + 1  # the context made while the task ran
    assert browser.context is not task_context
    # closed, or closing after the next first observation (test_the_last_tasks_context_closes_after_...)
    assert task_context not in browser.browser.contexts or task_context in browser._closing.contexts
    assert [c["name"] for c in browser.context.cookies()] == ["sid"]
    assert _session_cookie(env)["value"] == sid  # the same session, without another frontdoor login
    assert browser.logins == logins
    browser.page.wait_for_load_state("domcontentloaded")
    assert browser.page.evaluate(STORAGE) == [0, 0]
    assert browser.page.url.rstrip("/") == env.credentials.instance_url
    assert "Home" in browser.page.title()
    # the residue check proves it: a cookie or a storage item the login did not set is named
    browser.context.add_cookies([{"name": "stray", "value": "1", "url": env.credentials.instance_url}])
    left = env.residue(snap)
    assert any("cookies left: stray" in line for line in left), left
    roll_back(env, snap)


@pytest.mark.parametrize("spare", [True, False])
def test_storage_in_the_fresh_context_is_named_by_the_residue_check(env, spare):
    """With a spare, storage is read on its warm-up page (the org's origin) before the home page opens; a
    spare that had an item (a bug: state shared between contexts) is caught. Without one, on the home page."""
    snap = env.snapshot()
    browser = env.browser
    browser.spare_contexts = spare
    try:
        roll_back(env, snap)
        _task(env, "storage")
        if spare:
            _spare_ready(env)  # a busy machine may not have started making it yet ("wanted"): wait for it
            made = browser._spare
            assert made is not None and made.page is not None
            made.page.evaluate("() => { localStorage.setItem('stray_item', '1'); "
                               "sessionStorage.setItem('stray_tab', '1'); }")
            env.restore(snap)
        else:
            env.restore(snap)
            browser.page.wait_for_load_state("domcontentloaded")
            browser.page.evaluate("() => { localStorage.setItem('stray_item', '1'); "
                                  "sessionStorage.setItem('stray_tab', '1'); }")
        left = env.residue(snap)
        assert any("localStorage left: stray_item" in line for line in left), left
        assert any("sessionStorage left: stray_tab" in line for line in left), left
    finally:
        browser.spare_contexts = True
    roll_back(env, snap)
    assert env.residue(snap) == []


@pytest.mark.parametrize("how", ["expired", "logged out", "logged out before the spare booted"])
def test_a_session_that_stopped_working_falls_back_to_a_frontdoor_login(env, how):
    snap = env.snapshot()
    roll_back(env, snap)
    browser = env.browser
    logins, old = browser.logins, _session_cookie(env)["value"]
    _task(env, "session")
    if how == "expired":
        env.server.tokens.expire_all()
    else:  # the task logs out: the org revokes the session
        browser.page.goto(env.credentials.instance_url + "/secur/logout.jsp")
        assert "/login" in browser.page.url
        if how == "logged out before the spare booted":  # its landing page answered with the login page
            _spare_ready(env, booted=False)
            made = browser._spare
            made.page.wait_for_url(lambda u: u != "about:blank", wait_until="domcontentloaded")
            made.page.goto(env.credentials.instance_url + "/")
            assert "/login" in made.page.url
    roll_back(env, snap)
    assert browser.logins == logins + 1
    new = _session_cookie(env)["value"]
    assert new != old and env.server.tokens.check(new, "session")
    assert browser.page.url.rstrip("/") == env.credentials.instance_url
    assert redact(new) == REDACTED
    roll_back(env, snap)  # and the new session is the one kept
    assert browser.logins == logins + 1 and _session_cookie(env)["value"] == new


def test_the_warm_up_page_of_a_spare_leaves_no_history(env):
    """The spare's tab opens the landing page by replacing its warm-up page: Back goes where it goes in a
    context opened without a spare (the tab's first blank page), never to the warm-up page."""
    from pytest_cua.actions import Back

    snap = env.snapshot()
    roll_back(env, snap)
    _task(env, "history-0")  # (after a frontdoor login there is no spare yet)
    roll_back(env, snap)
    _task(env, "history-1")
    _spare_ready(env)
    spares = env.browser.spares_taken
    roll_back(env, snap)
    assert env.browser.spares_taken == spares + 1
    env.begin_task(Task(id="history-2", suite="crm", instruction="x"))
    assert env.browser.page.evaluate("history.length") == 2  # as without a spare: the blank page, the landing
    env.act(Back())
    assert env.browser.page.url == "about:blank"
    roll_back(env, snap)


def _accounts_shown(page) -> str:
    return page.locator("main li", has_text="Accounts").first.inner_text()


def test_the_spare_boots_the_landing_page_and_the_rollback_shows_it_as_the_org_is_after_it(env):
    """The spare boots the landing page while the task runs; the rollback hands it over after one in-place
    navigation, which shows the org as the rollback left it (not as it was when the spare booted), with the history,
    focus and ready signal of a page loaded afresh."""
    snap = env.snapshot()
    browser = env.browser
    roll_back(env, snap)
    _task(env, "boot-0")
    roll_back(env, snap)
    before = _accounts_shown(browser.page)
    _task(env, "boot-1")
    _spare_ready(env)
    made = browser._spare
    assert made is not None and made.booted and made.page is not None
    # the task changes what the landing page shows, and the spare's page shows the change (booted again after it)
    env.store.create("Account", {"Name": "Made during the task"})  # (the module's API session may have expired)
    made.page.reload(wait_until="domcontentloaded")
    made.page.wait_for_function("document.documentElement.dataset.oneReady === 'true'")
    assert _accounts_shown(made.page) != before
    made.page.evaluate("() => document.getElementById('main').insertAdjacentHTML('beforeend', '<p id=stale>x</p>')")
    booted, taken = browser.spares_booted, browser.spares_taken
    roll_back(env, snap)
    assert (browser.spares_taken, browser.spares_booted) == (taken + 1, booted + 1)
    page = browser.page
    assert page is made.page
    assert page.evaluate("document.documentElement.dataset.oneReady") == "true"
    assert page.evaluate("!!document.getElementById('stale')") is False
    assert _accounts_shown(page) == before
    assert page.evaluate("[history.length, document.activeElement === document.body]") == [2, True]
    env.begin_task(Task(id="boot-2", suite="crm", instruction="x"))
    obs = env.observe(frozenset({"axtree"}))
    assert "Made during the task" not in (obs.axtree or "")
    roll_back(env, snap)


def test_a_booted_page_that_cannot_refresh_in_place_is_loaded_afresh(env):
    snap = env.snapshot()
    browser = env.browser
    roll_back(env, snap)
    _task(env, "noboot-0")
    roll_back(env, snap)
    refresh = browser.landing_refresh
    browser.landing_refresh = "url => Promise.resolve(false)"
    try:
        _task(env, "noboot-1")
        _spare_ready(env)
        assert browser._spare is not None and browser._spare.booted
        browser._spare.page.evaluate(
            "() => document.getElementById('main').insertAdjacentHTML('beforeend', '<p id=stale>x</p>')")
        booted, taken = browser.spares_booted, browser.spares_taken
        roll_back(env, snap)
        assert (browser.spares_taken, browser.spares_booted) == (taken + 1, booted)
        page = browser.page
        page.wait_for_function("document.documentElement.dataset.oneReady === 'true'")
        assert page.evaluate("!!document.getElementById('stale')") is False
        assert page.evaluate("history.length") == 2
    finally:
        browser.landing_refresh = refresh
    roll_back(env, snap)


def test_the_last_tasks_context_closes_after_the_next_first_observation(env):
    """With a booted spare handed over, the rollback leaves closing the task's context for after the next task's
    first observation (in the background, while the agent thinks): the residue check counts it as closing, not as
    a stray context, and it is gone once that observation was taken."""
    snap = env.snapshot()
    browser = env.browser
    roll_back(env, snap)
    _task(env, "close-0")
    task_context = browser.context
    task_context.new_page()  # a second tab of the task: closed with its context
    _spare_ready(env)
    roll_back(env, snap)  # restore + residue: raises on anything left
    closer = browser._closing
    assert closer is not None and closer.state == "wanted" and closer.contexts == [task_context]
    assert task_context in browser.browser.contexts  # still open: not on the way to the next page
    _task(env, "close-1")  # its first observation starts the close
    deadline = time.monotonic() + 30
    while closer.state != "done" and time.monotonic() < deadline:
        browser.page.wait_for_timeout(20)
    assert closer.state == "done" and closer.contexts == []
    assert task_context not in browser.browser.contexts
    roll_back(env, snap)


def test_a_close_left_waiting_is_done_by_the_next_rollback(env):
    """No first observation came (or its console message never did): the next rollback closes the contexts before
    it counts, and a context that will not close is a stray one for the residue check."""
    from pytest_cua.envs.browser.spare import BackgroundClose

    browser = env.browser
    snap = env.snapshot()
    roll_back(env, snap)
    extra = browser.browser.new_context()
    browser._closing = BackgroundClose([extra])
    assert env.residue(snap) == []  # handed to the background: not counted
    roll_back(env, snap)  # no observation in between
    assert extra not in browser.browser.contexts
    stuck = browser.browser.new_context()  # not handed to the background: a stray context
    assert env.residue(snap) == ["browser: browser contexts open: 2 (expected 1, the fresh one)"]
    stuck.close()
    roll_back(env, snap)
