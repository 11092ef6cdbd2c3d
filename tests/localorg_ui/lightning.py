"""Driving the embedded org's Lightning components from Playwright tests, as a person does: a picklist is a
``lightning-combobox`` (a button with role combobox opening a listbox), not a native select."""

from __future__ import annotations

from typing import Any

from pytest_cua.envs.browser.loading import BUSY_JS


def picklist(page: Any, label: str) -> Any:
    """The combobox of the picklist field labelled ``label``."""
    return page.get_by_role("combobox", name=label, exact=True)


def choose(page: Any, label: str, option: str) -> None:
    """Open the picklist labelled ``label`` and click ``option``."""
    picklist(page, label).click()
    page.get_by_role("listbox", name=label, exact=True).get_by_role("option", name=option, exact=True).click()


def posted_value(page: Any, name: str) -> str:
    """What the form posts for the picklist field ``name`` (its hidden input)."""
    return str(page.locator(f'input[type=hidden][name="{name}"]').input_value())


def form(page: Any) -> Any:
    """The open New / Edit dialog: its fields by label (the page behind it is inert, and its list's column
    headers are labelled too)."""
    return page.get_by_role("dialog")


def classic(url: str) -> str:
    """A Classic Setup page's address opened on its own, without Lightning Setup's frame around it (``isdtp=p1``,
    as on Salesforce): the tests of a Classic page's own behaviour drive it so; test_setup_frame.py drives the
    frame."""
    return url + ("&" if "?" in url else "?") + "isdtp=p1"


def setup_frame(page: Any) -> Any:
    """The Classic page inside Lightning Setup's frame (the Setup app around it stays ``page``'s)."""
    return page.frame_locator("iframe#setup-frame")


def shown(page: Any) -> None:
    """Wait until the client-side navigation under way, if any (a link, a posted form), has shown its page: the
    router marks ``<main>`` busy as the click or key press that starts it is handled."""
    page.wait_for_function(BUSY_JS)


def status(page: Any) -> Any:
    """The page's status messages (the toast, a list's "30 items") once the page an action led to is shown (the
    page being replaced has the router's "Loading" status, and its own)."""
    shown(page)
    return page.get_by_role("status")
