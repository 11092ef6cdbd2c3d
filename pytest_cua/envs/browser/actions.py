"""How the browser environment carries out each action: ``HANDLERS`` maps an action type to a small handler
``(env, page, action) -> detail or None``; ``dispatch`` picks it. A handler raises ``ActionFailed`` (its message
goes to the agent) or lets a Playwright error through (``BrowserEnvironment.act`` turns it into a failed
result). A target is an element id of the latest observation (resolved to a locator) or a viewport point.

The handlers see the environment only as an ``ActingBrowser``: the active tab and its context, the element
ids of the latest observation and the navigation counters (this module never imports the environment).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from pytest_cua import actions as A
from pytest_cua.actions import Action, Point
from pytest_cua.envs.browser import combobox
from pytest_cua.envs.browser.errors import ActionFailed
from pytest_cua.envs.browser.loading import wait_for_true, wait_until_shown

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

    from pytest_cua.envs.browser.options import BrowserOptions
    from pytest_cua.envs.browser.outline import Resolved

ALLOWED_URL_SCHEMES = ("http://", "https://", "about:blank")
MAX_WAIT_S = 60.0
ENTER_NAVIGATION_WAIT_S = 0.2  # how long Enter waits for a form submission's navigation to start

_KEY_NAMES = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "esc": "Escape", "escape": "Escape", "space": "Space",
    "backspace": "Backspace", "delete": "Delete", "del": "Delete", "insert": "Insert", "home": "Home",
    "end": "End", "pageup": "PageUp", "pgup": "PageUp", "pagedown": "PageDown", "pgdn": "PageDown",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight", "ctrl": "Control",
    "control": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt", "meta": "Meta", "cmd": "Meta",
    "command": "Meta", "win": "Meta", "super": "Meta", "capslock": "CapsLock",
}



class ActingBrowser(Protocol):
    """What the handlers need of the browser environment."""

    options: "BrowserOptions"
    active_tab: int  # index of the active tab in the context (the tab actions switch it)
    navigations: int  # navigation requests seen so far (the page's and its frames')
    commits: int  # navigations committed so far (the page's and its frames')

    @property
    def context(self) -> "BrowserContext": ...

    @property
    def page(self) -> "Page":
        """The active tab."""
        ...

    def resolve(self, element_id: str) -> "Resolved":
        """The frame and locator of an element id of the latest observation; ActionFailed when it is gone."""
        ...

    def adopt_page(self, page: "Page") -> None:
        """Watch a tab the page opened and make it the active tab."""
        ...

    def watch_page(self, page: "Page") -> None:
        """Watch a tab (crashes, dialogs, navigations)."""
        ...


Handler = Callable[[ActingBrowser, "Page", Any], "dict[str, Any] | None"]


def normalize_key(key: str) -> str:
    """Map common key names (``enter``, ``ctrl``, ``pgdn``, ``f5``) to Playwright's key names."""
    k = key.strip()
    low = k.lower()
    if low in _KEY_NAMES:
        return _KEY_NAMES[low]
    if len(low) in (2, 3) and low[0] == "f" and low[1:].isdigit():
        return "F" + low[1:]
    return k


def dispatch(env: ActingBrowser, action: Action) -> dict[str, Any] | None:
    """Carry out ``action`` on the active tab with its handler; terminal actions and ``ask`` are the
    episode's business."""
    page = env.page
    handler = next((HANDLERS[klass] for klass in type(action).__mro__ if klass in HANDLERS), None)
    if handler is not None:
        with held(page, getattr(action, "modifiers", ())):
            return handler(env, page, action)
    if action.terminal or isinstance(action, A.Ask):
        return {"handled_by": "episode"}
    raise ActionFailed(f"the browser environment cannot carry out {action.kind!r}")


# --- helpers ------------------------------------------------------------------------------------------------

@contextmanager
def held(page: "Page", keys: "tuple[str, ...] | list[str]") -> Iterator[None]:
    """Hold ``keys`` down for the duration (a ctrl+click, a shift+scroll, hold_key): pressed in order,
    released in reverse order, also when the action fails."""
    names = [normalize_key(k) for k in keys]
    pressed: list[str] = []
    try:
        for name in names:
            page.keyboard.down(name)
            pressed.append(name)
        yield
    finally:
        for name in reversed(pressed):
            page.keyboard.up(name)


def _timeout_ms(env: ActingBrowser) -> float:
    return env.options.action_timeout_s * 1000


def check_point(env: ActingBrowser, p: Point) -> None:
    """A point must lie in the viewport."""
    w, h = env.options.viewport
    if not (0 <= p.x < w and 0 <= p.y < h):
        raise ActionFailed(f"point ({p.x:g}, {p.y:g}) is outside the {w}x{h} viewport")


def point_of(env: ActingBrowser, target: A.Target) -> tuple[float, float]:
    """The viewport point of a target: the point itself, or the centre of the element (scrolled into view)."""
    if isinstance(target, Point):
        check_point(env, target)
        return target.x, target.y
    res = env.resolve(target)
    res.locator.scroll_into_view_if_needed(timeout=_timeout_ms(env))
    box = res.locator.bounding_box()
    if box is None:
        raise ActionFailed(f"element {target!r} is not visible")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def check_url(url: str) -> None:
    if not url.startswith(ALLOWED_URL_SCHEMES):
        raise ActionFailed(f"goto: only http(s) URLs are allowed, got {url[:100]!r}")


def navigation_mark(env: ActingBrowser) -> tuple[int, int]:
    """The navigations started and documents committed so far: taken before an action (await_navigation_start)."""
    return env.navigations, env.commits


def await_navigation_start(env: ActingBrowser, page: "Page", before: tuple[int, int]) -> None:
    """Enter (or a click at a point) may submit a form, and its navigation starts a moment after the key press or
    click returns: wait up to ENTER_NAVIGATION_WAIT_S for it to start, so that ``settle`` waits for the new page,
    not the old. ``before`` is the ``navigation_mark`` taken before the action: a navigation that started and
    committed while it ran (a link in a frame, answered at once) is not waited for again."""
    (navigations, commits), waited = before, 0.0
    while env.navigations == navigations and waited < ENTER_NAVIGATION_WAIT_S:
        page.wait_for_timeout(25)  # lets Playwright deliver the request event
        waited += 0.025
    if env.navigations == navigations:
        return
    waited = 0.0  # it started: wait for the new document to commit (the old one still counts as loaded)
    while env.commits == commits and waited < env.options.navigation_timeout_s:
        page.wait_for_timeout(25)
        waited += 0.025


def settle(env: ActingBrowser, page: "Page") -> None:
    """After a click or key press: if it started a navigation, let the new page be shown (``loading``)."""
    wait_until_shown(page, env.options.navigation_timeout_s * 1000)


def _click_point(page: "Page", p: Point, button: str = "left") -> None:
    page.mouse.click(p.x, p.y, button=button)  # type: ignore[arg-type]


# --- pointer ------------------------------------------------------------------------------------------------

def click(env: ActingBrowser, page: "Page", action: A.Click | A.DoubleClick | A.TripleClick | A.RightClick) -> None:
    button = "right" if isinstance(action, A.RightClick) else getattr(action, "button", "left")
    double = isinstance(action, A.DoubleClick)
    triple = isinstance(action, A.TripleClick)
    if isinstance(action.target, Point):
        check_point(env, action.target)
        before = navigation_mark(env)
        if double:
            page.mouse.dblclick(action.target.x, action.target.y)
        elif triple:
            page.mouse.click(action.target.x, action.target.y, click_count=3)
        else:
            _click_point(page, action.target, button)
        # a click at a point (a pixel agent's Save) may submit a form: unlike a locator click it does
        # not wait for that navigation, and observing a page mid-commit can block its screenshot
        await_navigation_start(env, page, before)
    else:
        resolved = env.resolve(action.target)
        loc = resolved.locator
        opens_tab, navigates = _click_kind(loc)
        if not (double or triple) and button == "left" and opens_tab:
            # the new tab arrives a moment after the click returns: wait for it, so the next observation
            # shows it (and it is the active tab) instead of racing its creation
            with env.context.expect_page(timeout=env.options.navigation_timeout_s * 1000) as opened:
                loc.click(timeout=_timeout_ms(env))
            env.adopt_page(opened.value)
            settle(env, opened.value)
            return
        # Playwright's click does not wait for a navigation it starts in a frame (a link or a button of a
        # Classic Setup page): such a click waits for it to start as a click at a point does
        in_frame_link = resolved.frame is not page.main_frame and navigates
        before = navigation_mark(env)
        if double:
            loc.dblclick(timeout=_timeout_ms(env))
        elif triple:
            loc.click(click_count=3, timeout=_timeout_ms(env))
        else:
            loc.click(button=button, timeout=_timeout_ms(env))  # type: ignore[arg-type]
        if in_frame_link:
            await_navigation_start(env, page, before)
    settle(env, page)


#: what a click on the element may do: follow a link into another tab (``target=_blank`` or a named window), and
#: start a navigation at all (a link, a button that may submit its form or run a script that does, a click handler)
_CLICK_KIND_JS = """e => {
  const link = e.closest('a[href][target], area[href][target]');
  const target = link ? link.target.toLowerCase() : '';
  return [!!target && !['_self', '_top', '_parent'].includes(target),
          !!e.closest('a[href], area[href], button, input[type=submit], input[type=image], input[type=button], [onclick]')];
}"""


def _click_kind(loc: Any) -> tuple[bool, bool]:
    """(opens another tab, may start a navigation) for a left click on the element: a checkbox or a text field
    starts none, so a click on one in a frame need not wait for it."""
    try:
        tab, navigates = loc.evaluate(_CLICK_KIND_JS, timeout=1000)
    except Exception:  # noqa: BLE001 - not resolvable now: the click itself reports that
        return False, False
    return bool(tab), bool(navigates)


def hover(env: ActingBrowser, page: "Page", action: A.Hover | A.Move) -> None:
    if isinstance(action.target, Point):
        check_point(env, action.target)
        page.mouse.move(action.target.x, action.target.y)
    else:
        env.resolve(action.target).locator.hover(timeout=_timeout_ms(env))
    return None


def mouse_button(env: ActingBrowser, page: "Page", action: A.MouseDown | A.MouseUp) -> None:
    """Press or release a button, at the target when given, else where the pointer is (a move in between
    with the button down is a drag)."""
    if action.target is not None:
        x, y = point_of(env, action.target)
        page.mouse.move(x, y)
    button: Any = action.button
    if isinstance(action, A.MouseDown):
        page.mouse.down(button=button)
    else:
        before = navigation_mark(env)
        page.mouse.up(button=button)
        await_navigation_start(env, page, before)  # a release completes a click
        settle(env, page)
    return None


def scroll(env: ActingBrowser, page: "Page", action: A.Scroll) -> dict[str, Any]:
    if action.target is not None:
        x, y = point_of(env, action.target)
    else:
        w, h = env.options.viewport
        x, y = w / 2, h / 2
    page.mouse.move(x, y)
    page.mouse.wheel(action.dx, action.dy)
    # wheel does not wait for the scroll: wait two animation frames so the next observation shows it
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return {}


def drag(env: ActingBrowser, page: "Page", action: A.Drag) -> None:
    if isinstance(action.source, str) and isinstance(action.destination, str):
        src, dst = env.resolve(action.source), env.resolve(action.destination)
        if src.frame is dst.frame:
            src.locator.drag_to(dst.locator, timeout=_timeout_ms(env))
            return None
    sx, sy = point_of(env, action.source)
    dx, dy = point_of(env, action.destination)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(dx, dy, steps=8)
    page.mouse.up()
    return None


# --- form fields --------------------------------------------------------------------------------------------

def _select_all_and_delete(page: "Page") -> None:
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")


_SEARCH_SETTLED_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return !(el && el.getAttribute('role') === 'combobox' && el.getAttribute('aria-busy') === 'true');
}"""


def await_search(env: ActingBrowser, page: "Page") -> None:
    """After text went into a search box that fetches as one types (a lookup: role combobox, aria-busy while
    it searches), wait until its results are shown, so that the next observation has them; bounded by the
    action timeout (a slow search is observed as it is)."""
    try:
        wait_for_true(page, _SEARCH_SETTLED_JS, _timeout_ms(env), polling=50)
    except Exception:  # noqa: BLE001 - still busy at the timeout: the page is observed as it is
        pass


def fill(env: ActingBrowser, page: "Page", action: A.Fill) -> None:
    if isinstance(action.target, Point):
        check_point(env, action.target)
        _click_point(page, action.target)
        _select_all_and_delete(page)
        page.keyboard.insert_text(action.text)
    else:
        env.resolve(action.target).locator.fill(action.text, timeout=_timeout_ms(env))
    await_search(env, page)
    return None


def type_text(env: ActingBrowser, page: "Page", action: A.Type) -> None:
    if action.target is None:
        page.keyboard.type(action.text)
    elif isinstance(action.target, Point):
        check_point(env, action.target)
        _click_point(page, action.target)
        page.keyboard.type(action.text)
    else:
        env.resolve(action.target).locator.press_sequentially(action.text, timeout=_timeout_ms(env))
    await_search(env, page)
    return None


def clear(env: ActingBrowser, page: "Page", action: A.Clear) -> None:
    if isinstance(action.target, Point):
        check_point(env, action.target)
        _click_point(page, action.target)
        _select_all_and_delete(page)
    else:
        env.resolve(action.target).locator.clear(timeout=_timeout_ms(env))
    return None


def select_option(env: ActingBrowser, page: "Page", action: A.SelectOption) -> dict[str, Any]:
    """A native ``<select>``: Playwright chooses by value or label. An ARIA combobox (Lightning's picklists):
    opened and its option clicked (``combobox.choose``)."""
    if isinstance(action.target, Point):
        raise ActionFailed("select_option needs an element id of a <select> or a combobox, not a point")
    resolved = env.resolve(action.target)
    kind = resolved.locator.evaluate("e => e.tagName === 'SELECT' ? 'select' : (e.getAttribute('role') || e.tagName)")
    if kind == "select":
        return {"selected": resolved.locator.select_option(action.option, timeout=_timeout_ms(env))}
    if kind == "combobox":
        return {"selected": [combobox.choose(resolved.frame, resolved.locator, action.option, _timeout_ms(env))]}
    raise ActionFailed(f"select_option needs a <select> or a combobox; {action.target} is a {kind.lower()}")


def check(env: ActingBrowser, page: "Page", action: A.Check | A.Uncheck) -> None:
    if isinstance(action.target, Point):
        check_point(env, action.target)
        _click_point(page, action.target)
    else:
        resolved = env.resolve(action.target)
        want = isinstance(action, A.Check)
        loc = resolved.locator
        loc.scroll_into_view_if_needed(timeout=_timeout_ms(env))
        # an SLDS checkbox (Lightning's, a real org's too) hides its input under the drawn box: a person clicks
        # the box's label, so does this when the input itself cannot be clicked
        state = loc.evaluate(_CHECKBOX_JS)
        if state["covered"] and state["label"]:
            if state["checked"] != want:
                resolved.frame.locator("[data-cua-label-of]").click(timeout=_timeout_ms(env))
            loc.evaluate("el => el.labels[0].removeAttribute('data-cua-label-of')")
            if loc.is_checked() != want:
                raise ActionFailed(f"{action.target} did not become {'checked' if want else 'unchecked'}")
        elif want:
            loc.check(timeout=_timeout_ms(env))
        else:
            loc.uncheck(timeout=_timeout_ms(env))
    return None


#: whether a checkbox's own box can be clicked (or something drawn over it, e.g. SLDS's faux checkbox, takes the
#: click), its state, and its first label marked for the click
_CHECKBOX_JS = """el => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const covered = r.width < 4 || r.height < 4 || !hit || !(hit === el || el.contains(hit));
  const label = covered && el.labels && el.labels.length ? el.labels[0] : null;
  if (label) label.setAttribute('data-cua-label-of', '');
  return {covered: covered, checked: !!el.checked, label: !!label};
}"""


# --- keyboard -----------------------------------------------------------------------------------------------

def press(env: ActingBrowser, page: "Page", action: A.Press | A.Hotkey) -> None:
    keys = [action.key] if isinstance(action, A.Press) else list(action.keys)
    before = navigation_mark(env)
    page.keyboard.press("+".join(normalize_key(k) for k in keys))
    if any(normalize_key(k) == "Enter" for k in keys):
        await_navigation_start(env, page, before)
    settle(env, page)
    return None


def hold_key(env: ActingBrowser, page: "Page", action: A.HoldKey) -> None:
    """Hold the keys down for the action's seconds: the duration is the action itself."""
    with held(page, action.keys):
        page.wait_for_timeout(min(float(action.seconds), A.MAX_HOLD_S) * 1000)
    return None


# --- navigation and tabs ------------------------------------------------------------------------------------

def goto(env: ActingBrowser, page: "Page", action: A.GoTo) -> None:
    check_url(action.url)
    page.goto(action.url, wait_until="domcontentloaded")
    return None


def back(env: ActingBrowser, page: "Page", action: A.Back) -> None:
    before = page.url
    if page.go_back(wait_until="domcontentloaded") is None and page.url == before:
        raise ActionFailed("back: there is no previous page in this tab")
    return None


def forward(env: ActingBrowser, page: "Page", action: A.Forward) -> None:
    before = page.url
    if page.go_forward(wait_until="domcontentloaded") is None and page.url == before:
        raise ActionFailed("forward: there is no next page in this tab")
    return None


def new_tab(env: ActingBrowser, page: "Page", action: A.NewTab) -> dict[str, Any]:
    if action.url:
        check_url(action.url)
    new = env.context.new_page()
    env.watch_page(new)
    env.active_tab = env.context.pages.index(new)
    if action.url:
        new.goto(action.url, wait_until="domcontentloaded")
    return {"tab": env.active_tab}


def switch_tab(env: ActingBrowser, page: "Page", action: A.SwitchTab) -> None:
    pages = env.context.pages
    if not 0 <= action.index < len(pages):
        raise ActionFailed(f"switch_tab: no tab {action.index}; open tabs are 0..{len(pages) - 1}")
    env.active_tab = action.index
    pages[action.index].bring_to_front()
    return None


def close_tab(env: ActingBrowser, page: "Page", action: A.CloseTab) -> None:
    pages = env.context.pages
    index = env.active_tab if action.index is None else action.index
    if not 0 <= index < len(pages):
        raise ActionFailed(f"close_tab: no tab {index}; open tabs are 0..{len(pages) - 1}")
    pages[index].close()
    if not env.context.pages:
        blank = env.context.new_page()
        env.watch_page(blank)
    if index < env.active_tab or env.active_tab >= len(env.context.pages):
        env.active_tab = max(0, env.active_tab - 1)
    return None


def wait(env: ActingBrowser, page: "Page", action: A.Wait) -> None:
    if action.condition is not None:
        raise ActionFailed(f"wait: field {action.condition!r} waits on a desktop, not in a browser (wait seconds)")
    seconds = max(0.0, min(float(action.seconds), MAX_WAIT_S))
    page.wait_for_timeout(seconds * 1000)
    return None


HANDLERS: dict[type[Action], Handler] = {
    A.Click: click, A.DoubleClick: click, A.TripleClick: click, A.RightClick: click,
    A.Hover: hover, A.Move: hover, A.MouseDown: mouse_button, A.MouseUp: mouse_button,
    A.Scroll: scroll, A.Drag: drag, A.HoldKey: hold_key,
    A.Fill: fill, A.Type: type_text, A.Clear: clear, A.SelectOption: select_option,
    A.Check: check, A.Uncheck: check,
    A.Press: press, A.Hotkey: press,
    A.GoTo: goto, A.Back: back, A.Forward: forward,
    A.NewTab: new_tab, A.SwitchTab: switch_tab, A.CloseTab: close_tab,
    A.Wait: wait,
}
