// A lookup field of a record form, as Lightning shows it (the SLDS lookup blueprint): a type-ahead search of the
// records the field may point at (GET searchUrl?q=...: the server's matches, names starting with the text
// first), listed with their object's icon and a detail line ("Account • San Francisco"); the chosen record
// shows as a pill with "Remove selected option" (Backspace or Delete on the pill removes it too). The form posts the chosen record's id through a hidden input
// of the field's name; text typed without choosing is posted as typed (the server takes a name only one
// record has). While a search runs the input is aria-busy, so that whoever observes the page can wait for it.
import { LightningElement, api } from 'lwc';

export default class Lookup extends LightningElement {
    @api name = '';
    @api label = '';
    @api placeholder = 'Search...';
    @api searchUrl = '';
    @api required = false;
    /** The server's message for this field, shown under it as Salesforce words it. */
    @api error = '';
    /** The chosen record ({id, name, objectLabel, iconName, meta}) or null. */
    @api
    get selection() {
        return this._selection;
    }
    set selection(value) {
        this._selection = value || null;
    }
    /** Text typed without choosing (a form shown again after an error keeps it). */
    @api
    get text() {
        return this._text;
    }
    set text(value) {
        this._text = value || '';
    }

    _selection = null;
    _text = '';
    results = [];
    searched = '';
    open = false;
    busy = false;
    active = -1;
    sequence = 0;

    get formElementClass() {
        return `slds-form-element${this.error ? ' slds-has-error' : ''}`;
    }
    get comboboxClass() {
        const open = this.open && (this.results.length > 0 || this.noResults);
        return `slds-combobox slds-dropdown-trigger slds-dropdown-trigger_click${open ? ' slds-is-open' : ''}`;
    }
    get expandedText() {
        return this.open && (this.results.length > 0 || this.noResults) ? 'true' : 'false';
    }
    get busyText() {
        return this.busy ? 'true' : 'false';
    }
    get requiredText() {
        return this.required ? 'true' : null;
    }
    get invalidText() {
        return this.error ? 'true' : null;
    }
    get describedBy() {
        return this.error ? 'help' : null;
    }
    get noResults() {
        return !this.busy && this.searched !== '' && this.searched === this._text.trim() && this.results.length === 0;
    }
    get activeId() {
        const option = this.results[this.active];
        return option ? option.id : null;
    }
    get options() {
        return this.results.map((r, index) => ({
            ...r,
            index,
            selectedText: index === this.active ? 'true' : 'false',
            className: `slds-media slds-listbox__option slds-listbox__option_entity slds-listbox__option_has-meta${
                index === this.active ? ' slds-has-focus' : ''}`,
        }));
    }
    get posted() {
        return this._selection ? this._selection.id : this._text;
    }

    handleInput(event) {
        this._text = event.target.value;
        this.active = -1;
        this.search(this._text);
    }

    handleFocus() {
        if (this._text.trim()) {
            this.open = true;
        }
    }

    handleBlur() {
        this.open = false;
        this.active = -1;
    }

    handleKeydown(event) {
        const count = this.results.length;
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            if (!count) return;
            this.open = true;
            const step = event.key === 'ArrowDown' ? 1 : -1;
            this.active = this.active < 0 ? (step > 0 ? 0 : count - 1) : (this.active + step + count) % count;
        } else if (event.key === 'Enter' && this.open && this.active >= 0) {
            event.preventDefault(); // choosing, not submitting the form
            this.choose(this.active);
        } else if (event.key === 'Escape' && this.open) {
            event.preventDefault();
            event.stopPropagation();
            this.open = false;
            this.active = -1;
        }
    }

    handleOptionMousedown(event) {
        event.preventDefault(); // the input keeps the focus until the click chooses
    }

    handleOptionClick(event) {
        this.choose(Number(event.currentTarget.dataset.index));
    }

    handlePillKeydown(event) {
        // as lightning-pill: Backspace or Delete on the chosen record removes it
        if (event.key === 'Backspace' || event.key === 'Delete') {
            event.preventDefault();
            this.handleRemove();
        }
    }

    handleRemove() {
        this._selection = null;
        this._text = '';
        this.results = [];
        this.searched = '';
        // eslint-disable-next-line @lwc/lwc/no-async-operation
        Promise.resolve().then(() => {
            const input = this.template.querySelector('input[role="combobox"]');
            if (input) input.focus();
        });
    }

    choose(index) {
        const option = this.results[index];
        if (!option) return;
        this._selection = option;
        this._text = '';
        this.open = false;
        this.active = -1;
        // eslint-disable-next-line @lwc/lwc/no-async-operation
        Promise.resolve().then(() => {
            const chosen = this.template.querySelector('button.slds-combobox__input');
            if (chosen) chosen.focus();
        });
    }

    async search(text) {
        const query = text.trim();
        const sequence = ++this.sequence;
        if (!query) {
            this.results = [];
            this.searched = '';
            this.busy = false;
            this.open = false;
            return;
        }
        this.busy = true;
        this.open = true;
        let results = [];
        try {
            const response = await fetch(`${this.searchUrl}?q=${encodeURIComponent(query)}`, {
                credentials: 'same-origin',
                headers: { Accept: 'application/json' },
            });
            results = response.ok ? (await response.json()).results || [] : [];
        } catch (e) {
            results = [];
        }
        if (sequence !== this.sequence) return; // a newer search is on its way
        this.results = results;
        this.searched = query;
        this.busy = false;
    }
}
