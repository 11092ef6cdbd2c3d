"""What the agent sees of the browser: the observation of the active tab.

Kinds: ``screenshot`` (CDP's fast capture of the viewport), ``axtree`` (an accessibility outline with a short id
per interactive element, ``[e12] button "Save"``, see ``outline``), ``dom`` (a flattened DOM of those elements)
and ``som`` (the screenshot with numbered boxes, see ``marks``); with the URL, the title, the open tabs and the
messages of dialogs the page opened. Everything that reaches the agent is redacted (hrefs and values can carry
session ids).
"""

from __future__ import annotations

import base64
import time
from typing import Any

from pytest_cua.envs.base import EnvironmentCrash
from pytest_cua.envs.browser.contexts import BrowserContexts
from pytest_cua.envs.browser.errors import short_error
from pytest_cua.envs.browser.loading import wait_until_shown
from pytest_cua.envs.browser.marks import draw_marks_kept
from pytest_cua.envs.browser.outline import render_dom
from pytest_cua.observations import Observation
from pytest_cua.redaction import redact

PAGE_STATE = "() => [document.title, (window.__cuaDialogs || []).splice(0)]"


class BrowserObservation(BrowserContexts):
    """The browser with its current context, observed."""

    def observe(self, kinds: frozenset[str] | None = None) -> Observation:
        """Produce the asked observation kinds (default: the ``--cua-observe`` ones)."""
        self._check_alive()
        kinds = self.options.observe if kinds is None else kinds
        try:
            obs = self._observe(kinds)
        except EnvironmentCrash:
            raise
        except Exception as exc:  # noqa: BLE001
            self._raise_if_crashed(exc)
            # the page navigated while it was observed: once more after it settles
            try:
                self.page.wait_for_load_state("domcontentloaded", timeout=self.options.action_timeout_s * 1000)
                obs = self._observe(kinds)
            except Exception as exc2:  # noqa: BLE001
                self._raise_if_crashed(exc2)
                obs = Observation(url=redact(self._safe_url()))
                obs.extra["observe_error"] = short_error(exc2)
                return obs
        self.after_first_observation()  # closing the last context, making the next: while the agent thinks
        return obs

    def _observe(self, kinds: frozenset[str], _retry: bool = False) -> Observation:
        self._ensure_screencasts()
        page = self.page
        for _ in range(2):
            wait_until_shown(page, self.options.action_timeout_s * 1000)
            if self.page is page:
                break
            page = self.page  # a tab opened by the last action became the active one meanwhile
        obs = Observation(url=redact(page.url))
        timings: dict[str, float] = {}
        if kinds & {"axtree", "dom", "som"}:
            t0 = time.perf_counter()
            elements, lines = self.outline.collect(page)
            obs.elements = elements
            obs.extra["scroll"] = dict(self.outline.page_scroll)
            timings["collect_ms"] = (time.perf_counter() - t0) * 1000
            # secrets never reach the agent either: hrefs and values can carry session ids
            if "axtree" in kinds:
                obs.axtree = redact("\n".join(lines))
            if "dom" in kinds:
                obs.dom = redact(render_dom(elements))
        if kinds & {"screenshot", "som"}:
            t0 = time.perf_counter()
            png = self.screenshot()
            timings["screenshot_ms"] = (time.perf_counter() - t0) * 1000
            if "screenshot" in kinds:
                obs.screenshot = png
            if "som" in kinds:
                t0 = time.perf_counter()
                # the pixels decoded to draw on stay with the bytes for the model agent (marks.draw_marks_kept)
                obs.som = draw_marks_kept(png, obs.elements, keep_screenshot="screenshot" in kinds)
                timings["som_ms"] = (time.perf_counter() - t0) * 1000
        try:
            title, dialogs = page.evaluate(PAGE_STATE)  # one round trip for the title and dialog messages
            self._dialogs.extend(redact(str(m)) for m in dialogs)
        except Exception:  # noqa: BLE001 - navigating
            title = page.title()
        obs.title = redact(title)
        obs.tabs = self.tabs(active_title=title)
        if self._dialogs:
            obs.extra["dialogs"] = list(self._dialogs)
            self._dialogs.clear()
        obs.extra["timings_ms"] = {k: round(v, 1) for k, v in timings.items()}
        if self.page is not page and not _retry:
            # a tab opened by the last action became active while this one was observed: observe that one
            return self._observe(kinds, _retry=True)
        return obs

    def screenshot(self) -> bytes:
        """A PNG of the active tab's viewport (CDP's fast capture: about half the time of page.screenshot)."""
        page = self.page
        try:
            cdp = getattr(page, "_cua_cdp", None)
            if cdp is None:
                cdp = self.context.new_cdp_session(page)
                page._cua_cdp = cdp  # type: ignore[attr-defined]
            data = cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
            return base64.b64decode(data["data"])
        except Exception:  # noqa: BLE001 - fall back to Playwright's own capture
            return page.screenshot(type="png", timeout=self.options.navigation_timeout_s * 1000)

    def tabs(self, active_title: str | None = None) -> list[dict[str, Any]]:
        """The open tabs: index, url, title and which one is active."""
        out = []
        for i, p in enumerate(self.context.pages):
            try:
                title = active_title if (i == self.active_tab and active_title is not None) else p.title()
            except Exception:  # noqa: BLE001 - navigating
                title = ""
            out.append({"index": i, "url": redact(p.url), "title": redact(title), "active": i == self.active_tab})
        return out

    def _safe_url(self) -> str:
        try:
            return self.page.url
        except Exception:  # noqa: BLE001
            return ""
