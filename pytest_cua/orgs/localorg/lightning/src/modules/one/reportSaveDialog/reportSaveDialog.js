// The report builder's Save Report dialog: Report Name, Report Unique Name (made from the name until it is typed),
// Report Description and Folder; Save checks the name and unique name as Salesforce does ("Complete this
// field.") and sends `save` ({name, developerName, description, folder}); Cancel and Close send `cancel`.
import { LightningElement, api, track } from 'lwc';

function uniqueName(name) {
    const base = (name || '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
    if (!base) return '';
    return /^[A-Za-z]/.test(base) ? base : `X${base}`;
}

export default class ReportSaveDialog extends LightningElement {
    /** {run, name, developerName, description, folder, errors: {name, developerName}}. */
    @api
    get dialog() {
        return this._dialog;
    }
    set dialog(value) {
        this._dialog = value || {};
        this.values = { name: this._dialog.name || '', developerName: this._dialog.developerName || '',
            description: this._dialog.description || '', folder: this._dialog.folder || 'private' };
        this.errors = { ...(this._dialog.errors || {}) };
        this.typedUnique = Boolean(this.values.developerName);
    }
    /** The folders: [{value, label}]. */
    @api folders = [];

    _dialog = {};
    @track values = {};
    @track errors = {};
    typedUnique = false;

    get nameError() {
        return this.errors.name || '';
    }

    get uniqueError() {
        return this.errors.developerName || '';
    }

    get heading() {
        return 'Save Report';
    }

    renderedCallback() {
        if (this.focused) return;
        const input = this.template.querySelector('lightning-input');
        if (input) {
            input.focus();
            this.focused = true;
        }
    }

    handleName(event) {
        this.values = { ...this.values, name: event.target.value };
        if (!this.typedUnique) this.values = { ...this.values, developerName: uniqueName(this.values.name) };
        this.errors = { ...this.errors, name: '' };
    }

    handleUnique(event) {
        this.typedUnique = true;
        this.values = { ...this.values, developerName: event.target.value };
        this.errors = { ...this.errors, developerName: '' };
    }

    handleDescription(event) {
        this.values = { ...this.values, description: event.target.value };
    }

    handleFolder(event) {
        this.values = { ...this.values, folder: event.detail.value };
    }

    handleKeydown(event) {
        if (event.key === 'Enter' && event.target.tagName === 'LIGHTNING-INPUT') {
            // Enter in the name or unique name saves, as a form's Enter does
            event.preventDefault();
            this.save();
        }
    }

    cancel() {
        this.dispatchEvent(new CustomEvent('cancel'));
    }

    save() {
        const errors = {};
        if (!this.values.name.trim()) errors.name = 'Complete this field.';
        if (!this.values.developerName.trim()) errors.developerName = 'Complete this field.';
        this.errors = errors;
        if (Object.keys(errors).length) return;
        this.dispatchEvent(new CustomEvent('save', { detail: { ...this.values, name: this.values.name.trim(),
            developerName: this.values.developerName.trim() } }));
    }
}
