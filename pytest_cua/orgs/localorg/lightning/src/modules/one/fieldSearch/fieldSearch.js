// The report builder's field searches ("Add group...", "Add column...", "Add filter..."): an SLDS combobox whose
// text filters the report type's fields as it is typed; a click on a field or Enter on the highlighted one picks it
// (a `pick` event with the field's name) and empties the box again, as Lightning's report builder does.
import { LightningElement, api, track } from 'lwc';

const SHOWN = 50; // fields listed at most; the text narrows the list

export default class FieldSearch extends LightningElement {
    /** The box's accessible name ("Add group", "Add column", "Add filter"). */
    @api label = '';
    @api placeholder = '';
    /** The fields: [{name, label}]. */
    @api fields = [];
    @api disabled = false;

    @track text = '';
    @track open = false;
    @track active = 0;

    get matches() {
        const needle = this.text.trim().toLowerCase();
        const all = this.fields || [];
        const found = needle ? all.filter((f) => f.label.toLowerCase().includes(needle)) : all;
        return found.slice(0, SHOWN).map((f, index) => ({
            ...f, index, id: `option-${index}`,
            className: `slds-media slds-listbox__option slds-listbox__option_plain slds-media_small${
                index === this.active ? ' slds-has-focus' : ''}`,
        }));
    }

    get hasMatches() {
        return this.matches.length > 0;
    }

    get noMatches() {
        return !this.hasMatches;
    }

    get comboboxClass() {
        return `slds-combobox slds-dropdown-trigger slds-dropdown-trigger_click${this.open ? ' slds-is-open' : ''}`;
    }

    get expandedText() {
        return this.open ? 'true' : 'false';
    }

    get activeId() {
        return this.open && this.hasMatches ? `option-${this.active}` : undefined;
    }

    handleInput(event) {
        this.text = event.target.value;
        this.active = 0;
        this.open = true;
    }

    handleFocus() {
        this.open = true;
    }

    handleBlur() {
        this.open = false;
    }

    handleKeydown(event) {
        const count = this.matches.length;
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            this.open = true;
            if (count) this.active = (this.active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count;
        } else if (event.key === 'Enter') {
            event.preventDefault();
            if (this.open && count) this.pick(this.matches[Math.min(this.active, count - 1)].name);
        } else if (event.key === 'Escape') {
            this.open = false;
        }
    }

    handleOptionMousedown(event) {
        event.preventDefault(); // keep the focus in the box: its blur would close the list before the click
    }

    handleOptionClick(event) {
        const match = this.matches[Number(event.currentTarget.dataset.index)];
        if (match) this.pick(match.name);
    }

    pick(name) {
        this.text = '';
        this.active = 0;
        this.open = false;
        const input = this.template.querySelector('input');
        if (input) input.value = '';
        this.dispatchEvent(new CustomEvent('pick', { detail: { value: name } }));
    }
}
