// Mounting our components where a server-rendered page asks for them: <div data-one="one-list-view"
// data-props='{...}'></div> becomes the component, its JSON props assigned.
import { createElement } from 'lwc';

/** Replace every placeholder of `tag` in the document by a `ctor` element with the placeholder's props. */
export function mountEach(tag, ctor) {
    for (const place of Array.from(document.querySelectorAll(`[data-one="${tag}"]`))) {
        const props = JSON.parse(place.dataset.props || '{}');
        const element = createElement(tag, { is: ctor });
        Object.assign(element, props);
        place.replaceWith(element);
    }
}
