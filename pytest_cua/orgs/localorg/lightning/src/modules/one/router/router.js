// Client-side navigation between Lightning URLs, as Lightning Experience moves between its pages: the document,
// the global header and the navigation bar stay; a link to a /lightning/ page, a form posted to one (a record
// dialog's Save), our components' navigate() and post(), and Back / Forward fetch the next page from the server
// and put its content in place of the current page's <main>, with the header's and the bar's new props (the
// current tab, the app), the page's title and address, its components mounted (their entry scripts loaded when
// new) and focus on the new page. While the page is fetched <main> is aria-busy with an SLDS spinner over it, and
// <html data-one-ready> is taken away until the new page is ready.
// An answer that is not a Lightning page of this shell (a logout, a file, a Classic page's content alone) and a
// failure of the network are left to the browser's own navigation, as is anything clicked with a modifier key or
// into another window. A Classic Setup page's Lightning address is a page of the shell (the Setup app around its
// frame).
import { markReady, mountAll, mounted } from 'one/mount';

const LIGHTNING = '/lightning/';
const SHELL = ['one-global-header', 'one-app-nav'];
const SPINNER = '<div class="slds-spinner_container one-navigating"><div role="status" class="slds-spinner'
    + ' slds-spinner_medium slds-spinner_brand"><span class="slds-assistive-text">Loading</span>'
    + '<div class="slds-spinner__dot-a"></div><div class="slds-spinner__dot-b"></div></div></div>';

let installed = false;
let shown = '';  // the path and query of the page on show
let current = null;  // the navigation under way: {abort}
const loadedScripts = new Set();

function here(url) {
    return url.pathname + url.search;
}

/** A URL this shell shows itself: same origin, under /lightning/, or the root (the org's Home, where a login lands,
 * the same page as /lightning/page/home). */
function ours(url) {
    return url.origin === window.location.origin && (url.pathname.startsWith(LIGHTNING) || url.pathname === '/');
}

function scriptsOf(doc) {
    return Array.from(doc.querySelectorAll('script[type="module"][src]'), (s) => new URL(s.getAttribute('src'),
        window.location.href).href);
}

function busy(on) {
    const main = document.getElementById('main');
    if (!main) return;
    const spinner = main.querySelector(':scope > .one-navigating');
    if (on) {
        main.setAttribute('aria-busy', 'true');
        if (!spinner) main.insertAdjacentHTML('afterbegin', SPINNER);
        delete document.documentElement.dataset.oneReady;
    } else {
        main.removeAttribute('aria-busy');
        if (spinner) spinner.remove();
    }
}

/** The ordinary way: the browser loads `url` (a GET). */
function leave(url) {
    window.location.assign(url);
}

/** Load the ES module script at `src` (an entry script: it mounts its component's placeholders as it runs). */
function loadScript(src) {
    return new Promise((resolve) => {
        const script = document.createElement('script');
        script.type = 'module';
        script.src = src;
        script.addEventListener('load', resolve, { once: true });
        script.addEventListener('error', resolve, { once: true });  // its placeholders are then reported unmounted
        document.body.appendChild(script);
    });
}

/** Run the inline scripts of freshly placed content (scripts put in place by the DOM do not run). */
function runInlineScripts(root) {
    for (const old of Array.from(root.querySelectorAll('script:not([src])'))) {
        const script = document.createElement('script');
        for (const { name, value } of Array.from(old.attributes)) script.setAttribute(name, value);
        script.textContent = old.textContent;
        old.replaceWith(script);
    }
}

function focusPage(main) {
    const modal = main.querySelector('[role=dialog][aria-modal=true]');
    const target = main.querySelector('[autofocus]') || (modal && modal.querySelector('input:not([type=hidden]), '
        + 'select, textarea, button')) || main;
    if (target === main && !main.hasAttribute('tabindex')) main.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
}

/** Put the fetched page `doc` (answered for `url`) in place of the current one; false when it is not a page of
 * this shell (the caller then loads it the ordinary way). */
async function show(doc, url, push, focus) {
    const main = doc.getElementById('main');
    const places = SHELL.map((tag) => doc.querySelector(`[data-one="${tag}"]`));
    const shell = SHELL.map((tag) => mounted(tag));
    if (!main || places.some((p) => !p) || shell.some((el) => !el)) return false;
    SHELL.forEach((tag, i) => Object.assign(shell[i], JSON.parse(places[i].dataset.props || '{}')));
    document.title = doc.title;
    const old = document.getElementById('main');
    const fresh = document.importNode(main, true);
    // busy until its components are mounted (a new component's script is still to load)
    fresh.setAttribute('aria-busy', 'true');
    old.replaceWith(fresh);
    if (push) window.history.pushState({ one: true }, '', url);
    else window.history.replaceState({ one: true }, '', url);
    shown = here(new URL(url));
    window.scrollTo(0, 0);
    runInlineScripts(fresh);
    // a component new to this document comes with its entry script (which mounts it); the others are mounted here.
    // The new scripts load together: each mounts only its own component, so their order does not matter (one
    // after another, a New dialog's list view, lookup and picklist scripts took a rendering frame each)
    const freshScripts = scriptsOf(doc).filter((src) => !loadedScripts.has(src));
    freshScripts.forEach((src) => loadedScripts.add(src));
    await Promise.all(freshScripts.map(loadScript));
    mountAll();
    if (focus) focusPage(fresh);
    else {
        // as a page the browser loads: focus on the page's autofocus control if it has one, else on nothing
        const auto = fresh.querySelector('[autofocus]');
        if (auto) auto.focus({ preventScroll: true });
    }
    return true;
}

/** Fetch and show the page of `request`; resolves true once it is shown in place, false when it was left to the
 * browser's own navigation (or another navigation took over). */
async function go(request, push, focus = true, fallback = true) {
    if (current) current.abort();
    const control = new AbortController();
    current = control;
    busy(true);
    let response;
    let text;
    try {
        response = await fetch(request.url, { ...request.init, signal: control.signal, credentials: 'same-origin' });
        text = await response.text();
    } catch (error) {
        if (control.signal.aborted) return false;
        // the server could not be reached: the browser's own navigation shows what it shows
        if (fallback) leave(request.url);
        return false;
    }
    if (control.signal.aborted) return false;
    const url = new URL(response.url || request.url);
    const html = (response.headers.get('content-type') || '').startsWith('text/html');
    let done = false;
    if (html && ours(url)) {
        done = await show(new DOMParser().parseFromString(text, 'text/html'), url.href, push, focus);
    }
    if (control.signal.aborted) return false;
    current = null;
    if (!done) {
        if (fallback) leave(url.href);
        return false;
    }
    busy(false);
    markReady();
    return true;
}

/** Show the Lightning page at `url` (a string), fetched; another page is loaded the ordinary way. Resolves true
 * once the page is shown in place (`push: false`: in place of the current history entry; `focus: false`: focus
 * where a page the browser loads has it, not on the new page's content), else false (`fallback: false`: the
 * page stays as it is instead of being left to the browser's own navigation). */
export function navigate(url, { push = true, focus = true, fallback = true } = {}) {
    const target = new URL(url, window.location.href);
    if (!installed || !ours(target)) {
        if (fallback) leave(target.href);
        return Promise.resolve(false);
    }
    return go({ url: target.href, init: { method: 'GET' } }, push, focus, fallback);
}

/** POST `body` (URLSearchParams) to `url` and show the page the server answers with. */
export function postForm(url, body) {
    const target = new URL(url, window.location.href);
    if (!installed || !ours(target)) return false;
    go({ url: target.href, init: { method: 'POST', body } }, true);
    return true;
}

function linkOf(event) {
    for (const node of event.composedPath()) {
        if (node instanceof HTMLAnchorElement && node.hasAttribute('href')) return node;
        if (node === document.body) break;
    }
    return null;
}

function onClick(event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey
        || event.altKey) return;
    const link = linkOf(event);
    if (!link || link.hasAttribute('download')) return;
    // a link that is a control ("#", "javascript:void(0)": a tab, a menu) leads nowhere: its own handler acts
    if (/^\s*(#|javascript:)/i.test(link.getAttribute('href'))) return;
    const target = (link.getAttribute('target') || '').toLowerCase();
    if (target && target !== '_self' && target !== '_top') return;
    const url = new URL(link.href, window.location.href);
    if (!ours(url)) return;
    if (here(url) === shown && url.hash) return;  // an anchor on this page: the browser scrolls to it
    event.preventDefault();
    navigate(url.href);
}

function onSubmit(event) {
    const form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement)) return;
    const submitter = event.submitter || null;
    const target = (submitter && submitter.getAttribute('formtarget')) || form.getAttribute('target') || '';
    if (target && target !== '_self' && target !== '_top') return;
    // the attributes, not the properties: a field named "action" or "method" hides the form's own
    const action = new URL((submitter && submitter.getAttribute('formaction')) || form.getAttribute('action')
        || window.location.href, window.location.href);
    if (!ours(action)) return;
    const method = ((submitter && submitter.getAttribute('formmethod')) || form.getAttribute('method')
        || 'get').toLowerCase();
    const data = new FormData(form, submitter);
    const fields = new URLSearchParams();
    for (const [name, value] of data.entries()) {
        if (typeof value !== 'string') return;  // a file goes the ordinary way (multipart)
        fields.append(name, value);
    }
    event.preventDefault();
    if (method === 'post') {
        go({ url: action.href, init: { method: 'POST', body: fields } }, true);
    } else {
        action.search = fields.toString();
        navigate(action.href);
    }
}

function onPopState() {
    const url = new URL(window.location.href);
    if (here(url) !== shown) go({ url: url.href, init: { method: 'GET' } }, false);
}

/** Navigate client-side from now on, in a top-level Lightning page (not in a Classic page's frame). */
export function install() {
    if (installed || window.top !== window || !SHELL.every((tag) => mounted(tag))) return;
    installed = true;
    shown = here(new URL(window.location.href));
    scriptsOf(document).forEach((src) => loadedScripts.add(src));
    window.history.scrollRestoration = 'manual';
    window.history.replaceState({ one: true }, '', window.location.href);
    document.addEventListener('click', onClick);
    document.addEventListener('submit', onSubmit);
    window.addEventListener('popstate', onPopState);
    window.oneNavigate = navigate;  // a framed Classic page's links to Lightning pages come through here
}
