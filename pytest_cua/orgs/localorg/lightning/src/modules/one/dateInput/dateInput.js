// A date field of a record form, as Lightning shows it: lightning-input type="date" (a text box in the user's
// format, M/D/YYYY in en-US, with the calendar button that opens lightning-datepicker's month grid: Previous
// Month / Next Month, the year picker, Today), posted with the server-rendered form through a hidden input of
// the same name holding the ISO date (synthetic shadow keeps the input inside the form). Text the field cannot
// read as a date stays in the box with the base component's message; the server's message for the field
// ("Complete this field.") shows under it.
import { LightningElement, api } from 'lwc';

const ISO = /^\d{4}-\d{2}-\d{2}$/;

export default class DateInput extends LightningElement {
    @api name = '';
    @api label = '';
    /** The field's value: an ISO date, or (after a refused save) the text that was typed. */
    @api value = '';
    @api required = false;
    /** The server's message for this field, shown as the input's error. */
    @api error = '';

    chosen = null;

    /** What the date input shows: the ISO date (it formats it), or nothing for text it cannot read. */
    get shown() {
        const value = this.chosen === null ? this.value || '' : this.chosen;
        return ISO.test(value) ? value : '';
    }

    /** What the form posts: the ISO date chosen or typed, else the text as the server gave it back. */
    get posted() {
        return this.chosen === null ? this.value || '' : this.chosen;
    }

    renderedCallback() {
        const input = this.template.querySelector('lightning-input');
        const hidden = this.template.querySelector('input[type="hidden"]');
        if (hidden && hidden.form && !this.guarded) {
            // text the field cannot read stops the save with the field's message, the text kept (as a
            // Lightning record form does); without this the form would post the date as empty
            this.guarded = true;
            hidden.form.addEventListener('submit', (event) => {
                const box = this.template.querySelector('lightning-input');
                if (box && box.validity && box.validity.badInput) {
                    event.preventDefault();
                    event.stopImmediatePropagation();
                    box.reportValidity();
                    box.focus();
                }
            }, true);
        }
        if (!input || this.shownError) return;
        if (this.error || (this.value && !ISO.test(this.value))) {
            input.setCustomValidity(this.error || 'Your entry does not match the allowed format M/d/yyyy.');
            input.reportValidity();
            this.shownError = true;
        }
    }

    handleChange(event) {
        this.chosen = event.detail.value || '';
        const hidden = this.template.querySelector('input[type="hidden"]');
        if (hidden) hidden.value = this.chosen; // at once: a click on Save right after the change posts it
        const input = this.template.querySelector('lightning-input');
        if (input && this.shownError) {
            input.setCustomValidity('');
            input.reportValidity();
        }
    }
}
