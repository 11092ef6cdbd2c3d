// The embedded org's Lightning shell: mounts our `one` components where the server's page asks for them.
// A page marks each place with <div data-one="one-global-header" data-props='{...}'></div>; the component
// replaces it, with the JSON props assigned. When every component is mounted, <html data-one-ready="true">.
import '@lwc/synthetic-shadow';
import { createElement } from 'lwc';
import AppLauncher from 'one/appLauncher';
import AppNav from 'one/appNav';
import GlobalHeader from 'one/globalHeader';
import ListView from 'one/listView';
import Picklist from 'one/picklist';
import RecordHome from 'one/recordHome';

const COMPONENTS = {
    'one-app-launcher': AppLauncher,
    'one-app-nav': AppNav,
    'one-global-header': GlobalHeader,
    'one-list-view': ListView,
    'one-picklist': Picklist,
    'one-record-home': RecordHome,
};

function mount(place) {
    const tag = place.dataset.one;
    const ctor = COMPONENTS[tag];
    if (!ctor) {
        throw new Error(`one: no component '${tag}' (known: ${Object.keys(COMPONENTS).join(', ')})`);
    }
    const props = JSON.parse(place.dataset.props || '{}');
    const element = createElement(tag, { is: ctor });
    Object.assign(element, props);
    place.replaceWith(element);
}

function mountAll() {
    for (const place of Array.from(document.querySelectorAll('[data-one]'))) {
        mount(place);
    }
    document.documentElement.dataset.oneReady = 'true';
}

if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', mountAll, { once: true });
} else {
    mountAll();
}
