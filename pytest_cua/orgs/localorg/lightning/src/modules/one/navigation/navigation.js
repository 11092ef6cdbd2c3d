// How our components leave the page: every action of the embedded org is a server round trip, a GET to a page
// or a POST of a small form carrying the session's CSRF token (as a page's own form would post it), shown by
// the client-side router (one/router) without reloading the document.
import { navigate as route, postForm } from 'one/router';

/** Go to `url` (nothing when it is empty). */
export function navigate(url) {
    if (url) route(url);
}

/** POST `fields` ({name: value}) to `url` as a form submission; the server answers with the next page. */
export function post(url, fields) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) body.append(name, value == null ? '' : String(value));
    if (postForm(url, body)) return;
    const form = document.createElement('form');
    form.method = 'post';
    form.action = url;
    form.hidden = true;
    for (const [name, value] of Object.entries(fields)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value == null ? '' : String(value);
        form.appendChild(input);
    }
    document.body.appendChild(form);
    form.submit();
}
