// A lookup field of a record form, as Lightning shows it (the SLDS lookup blueprint): a type-ahead search of the
// records the field may point at (GET searchUrl?q=...: the server's matches, names starting with the text
// first), listed with their object's icon and a detail line ("Account • San Francisco"), then, as Lightning's
// lookup ends its list, the "New Account" action (lightning-base-combobox's inline option with utility:add): it
// opens the New Account dialog over the form (the object's name and required fields, posted to its own New
// form; the record made becomes the pill). The chosen record shows as a pill whose remove button is "Clear
// Selection" (lightning-base-combobox's label; Backspace or Delete on the pill removes it too). The form posts
// the chosen record's id through a hidden input of the field's name; text typed without choosing is posted as
// typed (the server takes a name only one record has). While a search runs the input is aria-busy, so that
// whoever observes the page can wait for it.
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

    /** The "New <Object>" action ({label, objectLabel, iconName, url, csrfField, fields}) or null. */
    @api newRecord = null;

    _selection = null;
    _text = '';
    results = [];
    searched = '';
    open = false;
    busy = false;
    active = -1;
    sequence = 0;
    creating = false;
    saving = false;
    createError = '';
    createErrors = [];

    get formElementClass() {
        return `slds-form-element${this.error ? ' slds-has-error' : ''}`;
    }
    get listShown() {
        return this.open && (this.results.length > 0 || this.noResults);
    }
    get comboboxClass() {
        const open = this.listShown;
        return `slds-combobox slds-dropdown-trigger slds-dropdown-trigger_click${open ? ' slds-is-open' : ''}`;
    }
    get expandedText() {
        return this.listShown ? 'true' : 'false';
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
    /** The options the arrow keys go through: the records, then "New <Object>". */
    get optionCount() {
        return this.results.length + (this.newRecord ? 1 : 0);
    }
    /** Whether "New <Object>" is the active option (the arrow keys went past the records). */
    get newActive() {
        return Boolean(this.newRecord) && this.active === this.results.length;
    }
    get activeId() {
        if (this.newActive) return 'new-record';
        const option = this.results[this.active];
        return option ? option.id : null;
    }
    get newOptionClass() {
        return `slds-media slds-media_center slds-media_small slds-listbox__option slds-listbox__option_plain${
            this.newActive ? ' slds-has-focus' : ''}`;
    }
    get newSelectedText() {
        return this.newActive ? 'true' : 'false';
    }
    get newFields() {
        return ((this.newRecord && this.newRecord.fields) || []).map((f) => ({
            ...f,
            id: `new-${f.name}`,
            isPicklist: f.type === 'picklist',
            isTextarea: f.type === 'textarea',
            inputType: f.type === 'date' ? 'date' : f.type === 'email' ? 'email' : 'text',
            options: (f.options || []).map((value) => ({ value, label: value })),
        }));
    }
    get newTitle() {
        return this.newRecord ? this.newRecord.label : '';
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
        const count = this.listShown || this.results.length ? this.optionCount : 0;
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

    handleNewClick() {
        this.openCreate();
    }

    // --- "New <Object>": Lightning opens the object's New dialog over the form --------------------------------

    openCreate() {
        this.open = false;
        this.active = -1;
        this.creating = true;
        this.createError = '';
        this.createErrors = [];
        const typed = this._text.trim();
        // eslint-disable-next-line @lwc/lwc/no-async-operation
        Promise.resolve().then(() => {
            const fields = this.template.querySelectorAll('.one-new-record [data-field]');
            // what was typed goes into the name, as Lightning fills it
            const name = this.template.querySelector('.one-new-record [data-name-field]');
            if (name && typed && !name.value) name.value = typed;
            if (fields.length) fields[0].focus();
        });
    }

    closeCreate() {
        this.creating = false;
        this.saving = false;
        // eslint-disable-next-line @lwc/lwc/no-async-operation
        Promise.resolve().then(() => {
            const input = this.template.querySelector('input[role="combobox"]');
            if (input) input.focus();
        });
    }

    handleCreateKeydown(event) {
        if (event.key === 'Escape') {
            event.preventDefault();
            event.stopPropagation();
            this.closeCreate();
        } else if (event.key === 'Enter' && event.target.tagName === 'INPUT') {
            event.preventDefault(); // saves this dialog, not the form under it
            event.stopPropagation();
            this.saveCreate();
        }
    }

    csrfToken() {
        const form = this.template.host.closest('form');
        const field = this.newRecord.csrfField;
        const input = form ? form.querySelector(`input[name="${field}"]`) : null;
        return input ? input.value : '';
    }

    async saveCreate() {
        if (this.saving || !this.newRecord) return;
        const body = new URLSearchParams();
        body.append(this.newRecord.csrfField, this.csrfToken());
        body.append('action', 'save');
        const values = {};
        this.template.querySelectorAll('.one-new-record [data-field]').forEach((el) => {
            values[el.dataset.field] = el.value;
            body.append(el.dataset.field, el.value);
        });
        this.saving = true;
        this.createError = '';
        this.createErrors = [];
        let response = null;
        try {
            response = await fetch(this.newRecord.url, {
                method: 'POST',
                credentials: 'same-origin',
                headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
                body: body.toString(),
            });
        } catch (e) {
            response = null;
        }
        this.saving = false;
        const made = response && response.ok && /\/lightning\/r\/\w+\/(\w{15,18})\/view/.exec(response.url);
        if (made) {
            const id = made[1];
            const named = this.newFields.filter((f) => f.name === 'FirstName' || f.name === 'LastName' || f.nameField);
            const name = values.Name || [values.FirstName, values.LastName].filter(Boolean).join(' ') ||
                (named.length ? values[named[0].name] : id);
            this._selection = { id, name, objectLabel: this.newRecord.objectLabel, iconName: this.newRecord.iconName,
                meta: this.newRecord.objectLabel };
            this._text = '';
            this.results = [];
            this.searched = '';
            this.creating = false;
            // eslint-disable-next-line @lwc/lwc/no-async-operation
            Promise.resolve().then(() => {
                const chosen = this.template.querySelector('button.slds-combobox__input');
                if (chosen) chosen.focus();
            });
            return;
        }
        // the New form again with its errors: its messages, as the dialog shows them
        let messages = [];
        if (response) {
            try {
                const doc = new DOMParser().parseFromString(await response.text(), 'text/html');
                messages = Array.from(doc.querySelectorAll('.errors li')).map((li) => li.textContent.trim())
                    .filter(Boolean);
            } catch (e) {
                messages = [];
            }
        }
        this.createError = 'We hit a snag.';
        this.createErrors = messages.length ? messages : ['Review the errors on this page.'];
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
        if (this.newRecord && index === this.results.length) {
            this.openCreate();
            return;
        }
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
