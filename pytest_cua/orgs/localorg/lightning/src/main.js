// The embedded org's Lightning shell, on every page: Salesforce's synthetic shadow and LWC engine, the global
// header, the navigation bar and the App Launcher. A page's own components (list view, record home, picklist)
// come in their own entry scripts (src/entries/), which the server adds to the pages that have them; all are ES
// modules, run in page order before DOMContentLoaded, and share one engine (rollup's common chunks).
// When the page's scripts have run, <html data-one-ready="true">; a placeholder no script mounted is an error
// (data-one-error names it).
import '@lwc/synthetic-shadow';
// the utility icons' templates with the shell: its icons render at once, so the navigation bar measures its tabs
// with their icons (the base components load them on first use otherwise)
import 'lightning/iconSvgTemplatesUtility';
import AppLauncher from 'one/appLauncher';
import AppNav from 'one/appNav';
import GlobalHeader from 'one/globalHeader';
import { markReady, mountEach } from 'one/mount';
import { holdFocusInModalDialog } from 'one/dialogFocus';
import { install as installRouter } from 'one/router';

mountEach('one-global-header', GlobalHeader);
mountEach('one-app-nav', AppNav);
mountEach('one-app-launcher', AppLauncher);
holdFocusInModalDialog();

function ready() {
    markReady();
    // from here on, pages are shown without reloading the document, as Lightning Experience shows them
    installRouter();
}

if (document.readyState === 'complete') {
    ready();
} else {
    // module scripts run before DOMContentLoaded: by then every entry script of the page has mounted its own
    document.addEventListener('DOMContentLoaded', ready, { once: true });
}
