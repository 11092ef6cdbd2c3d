// One section of a record's Details (SLDS expandable section): its title toggles it; the fields in two columns,
// each read-only with its label, its value (a link for a lookup, a multi-line compound address) and, where the
// field can be edited, the inline-edit pencil ("Edit Account Name") that opens the record's edit form.
import { LightningElement, api } from 'lwc';
import { navigate } from 'one/navigation';

export default class DetailSection extends LightningElement {
    /** {key, label, fields: [{key, label, text, link, stamp, editLabel, editUrl}]} */
    @api section;

    open = true;

    get sectionClass() {
        return `slds-section${this.open ? ' slds-is-open' : ''}`;
    }

    get expanded() {
        return this.open ? 'true' : 'false';
    }

    get rows() {
        const fields = this.section.fields;
        const out = [];
        for (let i = 0; i < fields.length; i += 2) {
            out.push({ key: `${i}`, fields: fields.slice(i, i + 2) });
        }
        return out;
    }

    toggle() {
        this.open = !this.open;
    }

    edit(event) {
        navigate(event.currentTarget.dataset.url);
    }
}
