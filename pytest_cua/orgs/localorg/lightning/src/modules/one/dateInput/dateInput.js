// A date or date/time field of a record form, as Lightning shows it. A date is lightning-input type="date" (a
// text box in the user's format, M/D/YYYY in en-US, with the calendar button that opens lightning-datepicker's
// month grid: Previous Month / Next Month, the year picker, Today); a date/time is lightning-input
// type="datetime" (the field's label over a "Date" box with the same calendar and a "Time" combobox of
// lightning-timepicker, h:mm a), in UTC, the zone the org stores and shows. Either is posted with the
// server-rendered form through a hidden input of the same name holding the ISO value (synthetic shadow keeps
// the input inside the form). Text the field cannot read stays in the box with the base component's message;
// the server's message for the field ("Complete this field.") shows under it.
import { LightningElement, api } from 'lwc';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?/;
const FORMATS = { date: 'M/d/yyyy', datetime: 'M/d/yyyy h:mm a' };

/** A stored or typed value as the base component reads it (ISO), or '' when it is not one. */
function readable(type, value) {
    if (type !== 'datetime') return ISO_DATE.test(value) ? value : '';
    const m = ISO_DATETIME.exec(value);
    return m ? `${m[1]}T${m[2]}${m[3] || ':00'}.000Z` : '';
}

export default class DateInput extends LightningElement {
    @api name = '';
    @api label = '';
    /** date or datetime */
    @api type = 'date';
    /** The field's value: an ISO date, or (after a refused save) the text that was typed. */
    @api value = '';
    @api required = false;
    /** The server's message for this field, shown as the input's error. */
    @api error = '';

    chosen = null;

    /** What the input shows: the ISO value (it formats it), or nothing for text it cannot read. */
    get shown() {
        return readable(this.type, this.chosen === null ? this.value || '' : this.chosen);
    }

    get badInputMessage() {
        return `Your entry does not match the allowed format ${FORMATS[this.type] || FORMATS.date}.`;
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
        if (this.error || (this.value && !readable(this.type, this.value))) {
            input.setCustomValidity(this.error || this.badInputMessage);
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
