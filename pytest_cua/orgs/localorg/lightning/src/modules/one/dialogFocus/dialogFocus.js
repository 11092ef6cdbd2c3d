// Focus in a server-rendered modal dialog (New / Edit: <section role="dialog" aria-modal="true">), as Lightning's
// modals hold it: Tab and Shift+Tab stay inside the dialog, from its last control (Save) round to its first
// (Cancel and close) and back, and a Tab from outside it (the page behind is inert) lands on its first control.

const CONTROLS = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea, [tabindex]';

function ends(dialog) {
    const all = Array.from(dialog.querySelectorAll(CONTROLS))
        .filter((el) => el.getAttribute('tabindex') !== '-1' && el.getClientRects().length > 0);
    return [all[0], all[all.length - 1]];
}

/** Hold Tab focus inside the page's open modal dialog, whenever it has one (the page may change without a
 * reload: the dialog is looked up at each Tab). */
export function holdFocusInModalDialog() {
    document.addEventListener('keydown', (event) => {
        if (event.key !== 'Tab') return;
        const dialog = document.querySelector('[role=dialog][aria-modal=true]');
        if (!dialog) return;
        const [first, last] = ends(dialog);
        if (!first) return;
        const active = document.activeElement;
        let next = null;
        if (!active || !dialog.contains(active)) next = event.shiftKey ? last : first;
        else if (!event.shiftKey && active === last) next = first;
        else if (event.shiftKey && active === first) next = last;
        if (next) {
            event.preventDefault();
            next.focus();
        }
    }, true);
}

/** A component's own modal dialog (the builders' Save Report, Select Report, ...): while it is `open`, the part of
 * the component behind it (`behind`) is inert and hidden from assistive technology, as behind every modal dialog. */
export function holdBehindDialog(behind, open) {
    if (!behind) return;
    behind.toggleAttribute('inert', open);
    if (open) behind.setAttribute('aria-hidden', 'true');
    else behind.removeAttribute('aria-hidden');
}
