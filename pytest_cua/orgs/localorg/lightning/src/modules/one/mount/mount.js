// Mounting our components where a server-rendered page asks for them: <div data-one="one-list-view"
// data-props='{...}'></div> becomes the component, its JSON props assigned. Every tag mounted once is
// remembered, so that a page shown later without a reload (one/router) has its placeholders mounted too.
import { createElement } from 'lwc';

const registry = new Map();  // tag -> component class

/** Replace every placeholder of `tag` in the document by a `ctor` element with the placeholder's props. */
export function mountEach(tag, ctor) {
    registry.set(tag, ctor);
    for (const place of Array.from(document.querySelectorAll(`[data-one="${tag}"]`))) {
        const props = JSON.parse(place.dataset.props || '{}');
        const element = createElement(tag, { is: ctor });
        Object.assign(element, props);
        place.replaceWith(element);
    }
}

/** Mount the placeholders of every tag mounted before (a page put in place by the router). */
export function mountAll() {
    for (const [tag, ctor] of registry) mountEach(tag, ctor);
}

/** The document's mounted `tag` element (the shell's header, its navigation bar), or null. */
export function mounted(tag) {
    return registry.has(tag) ? document.querySelector(tag) : null;
}

/** <html data-one-ready="true"> once the page's scripts have mounted it; a placeholder no script mounted is an
 * error (data-one-error names it). */
export function markReady() {
    const root = document.documentElement;
    const left = Array.from(document.querySelectorAll('[data-one]'), (place) => place.dataset.one);
    if (left.length) {
        root.dataset.oneError = `no script mounted: ${[...new Set(left)].join(', ')}`;
        console.error(`one: ${root.dataset.oneError}`);
    } else {
        delete root.dataset.oneError;
    }
    root.dataset.oneReady = 'true';
}
