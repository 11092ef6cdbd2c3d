"""What the browser environment runs in its tabs to keep each task's context fresh: the dialog answers every page
gets, the storage read that proves a fresh tab holds nothing of the last task, the in-place navigations of a
handed-over tab, and the console message that starts the background work after a task's first observation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from playwright.sync_api import Page

DIALOG_SCRIPT = """(() => {
  // pytest-cua: alert/confirm/prompt are answered in the page (accept, default text) and recorded, so a
  // click that opens one completes normally; the messages come with the next observation.
  const store = (window.__cuaDialogs = window.__cuaDialogs || []);
  const note = (kind, msg) => { if (store.length < 20) store.push(kind + ": " + String(msg === undefined ? "" : msg).slice(0, 500)); };
  window.alert = (msg) => { note("alert", msg); };
  window.confirm = (msg) => { note("confirm", msg); return true; };
  window.prompt = (msg, def) => { note("prompt", msg); return def === undefined ? "" : String(def); };
})();"""
STORAGE_THEN_OPEN = """url => { const keys = [location.origin, Object.keys(localStorage), Object.keys(sessionStorage)];
  location.replace(url); return keys; }"""
STORAGE_KEYS = """() => { try { return [location.origin, Object.keys(localStorage), Object.keys(sessionStorage)]; }
  catch (e) { return [location.origin, [], []]; } }"""
REPLACE = "url => location.replace(url)"
CUE = "pytest-cua: background work starts now"
"""The console message, after a task's first observation, that starts closing the last task's contexts and
making the spare of a tab that loaded before its listeners were there."""
LANDING_WAIT: Literal["commit"] = "commit"
"""How long opening the landing page with a kept session waits: until the response is committed; the page
renders while the next task starts (the first observation waits for the DOM)."""


def storage_keys(raw: Any) -> tuple[str, list[str], list[str]]:
    """``STORAGE_KEYS``' (or ``STORAGE_THEN_OPEN``'s) answer: the origin, its localStorage and sessionStorage keys."""
    origin, local, session = raw
    return str(origin), [str(k) for k in local], [str(k) for k in session]


def replace_committed(page: "Page", url: str) -> None:
    """Open ``url`` in place of the tab's history entry and wait until its response is committed."""
    with page.expect_navigation(wait_until=LANDING_WAIT):
        page.evaluate(REPLACE, url)
