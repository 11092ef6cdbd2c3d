"""How long an action waits for the navigation it may have started (``actions.await_navigation_start``), without
a browser: the counters the environment keeps from the page's ``request`` and ``framenavigated`` events, and a
page whose every 25 ms wait is counted (and may deliver an event)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pytest_cua.envs.browser.actions import ENTER_NAVIGATION_WAIT_S, await_navigation_start, navigation_mark


class Page:
    """Counts ``wait_for_timeout`` calls; ``events`` maps the n-th wait to what the browser delivers during it: the
    navigations started and the documents committed it adds to ``env``'s counters."""

    def __init__(self, env: Any, events: dict[int, tuple[int, int]] | None = None) -> None:
        self.env, self.events, self.waits = env, events or {}, 0

    def wait_for_timeout(self, ms: float) -> None:
        self.waits += 1
        started, committed = self.events.get(self.waits, (0, 0))
        self.env.navigations += started
        self.env.commits += committed


def environment() -> Any:
    return SimpleNamespace(navigations=0, commits=0, options=SimpleNamespace(navigation_timeout_s=30.0))


def test_a_navigation_started_and_committed_during_the_click_is_not_waited_for_again() -> None:
    """A link in Setup's frame answered at once: its request and its commit both arrive while the click runs. The
    wait ends at once (it waited for a commit that had already come, the whole navigation timeout: 30 s a click)."""
    env = environment()
    before = navigation_mark(env)
    env.navigations, env.commits = 1, 1  # the click: the frame's navigation, requested and committed
    page = Page(env)
    await_navigation_start(env, page, before)  # type: ignore[arg-type]
    assert page.waits == 0


def test_a_navigation_started_during_the_click_is_waited_for_until_it_commits() -> None:
    env = environment()
    before = navigation_mark(env)
    env.navigations = 1  # requested during the click; the new document commits during the third wait
    page = Page(env, {3: (0, 1)})
    await_navigation_start(env, page, before)  # type: ignore[arg-type]
    assert page.waits == 3


def test_a_navigation_that_starts_after_the_click_is_waited_for() -> None:
    env = environment()
    before = navigation_mark(env)
    page = Page(env, {2: (1, 0), 5: (0, 1)})  # a form submitted a moment after the key press: request, then commit
    await_navigation_start(env, page, before)  # type: ignore[arg-type]
    assert page.waits == 5


def test_no_navigation_waits_only_the_short_start_window() -> None:
    env = environment()
    page = Page(env)
    await_navigation_start(env, page, navigation_mark(env))  # type: ignore[arg-type]
    assert 0 < page.waits <= round(ENTER_NAVIGATION_WAIT_S / 0.025) + 1
