// A picklist field of a record form, as Lightning shows it: a lightning-combobox ("--None--" first unless the
// field is required), posted with the server-rendered form through a hidden input of the same name (synthetic
// shadow keeps the input inside the form). A server-side error shows under the combobox, as Salesforce words it.
import { LightningElement, api } from 'lwc';

const NONE = '';

export default class Picklist extends LightningElement {
    @api name = '';
    @api label = '';
    /** The field's values (labels and API values are the same in this org). */
    @api options = [];
    @api value = '';
    @api required = false;
    /** The server's message for this field ("Complete this field."), shown as the combobox's error. */
    @api error = '';

    chosen = null;

    get current() {
        return this.chosen === null ? this.value || NONE : this.chosen;
    }

    get choices() {
        const values = [...this.options];
        if (this.value && !values.includes(this.value)) values.push(this.value);
        const out = values.map((v) => ({ label: v, value: v }));
        return this.required ? out : [{ label: '--None--', value: NONE }, ...out];
    }

    renderedCallback() {
        if (this.error && !this.shownError) {
            const box = this.template.querySelector('lightning-combobox');
            if (box) {
                box.setCustomValidity(this.error);
                box.reportValidity();
                this.shownError = true;
            }
        }
    }

    handleChange(event) {
        this.chosen = event.detail.value;
        const box = this.template.querySelector('lightning-combobox');
        if (box && this.error) {
            box.setCustomValidity('');
            box.reportValidity();
        }
    }
}
