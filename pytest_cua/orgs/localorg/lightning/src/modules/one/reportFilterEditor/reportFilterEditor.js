// The report builder's filter popover: a field filter (Operator, Value, and Relative Date on a date field), Show
// Me (the report's scope), the date range, a cross filter (with or without a related object) or one of a cross
// filter's own filters. Changes go up as `change` ({draft}); Apply and Cancel as `apply` and `cancel`.
import { LightningElement, api } from 'lwc';

const TITLES = { filter: 'Edit Filter', scope: 'Show Me', date: 'Edit Date Filter', cross: 'Cross Filter',
    criterion: 'Edit Filter' };

export default class ReportFilterEditor extends LightningElement {
    /** The popover's draft: {kind, ...}. */
    @api editor = {};
    /** The filtered field {name, label, kind} of a field filter. */
    @api field;
    /** The report type's fields. */
    @api fields = [];
    @api choices = {};
    @api reportLabel = '';

    get title() {
        return TITLES[this.editor.kind] || 'Edit Filter';
    }

    get isFilter() {
        return this.editor.kind === 'filter';
    }

    get isScope() {
        return this.editor.kind === 'scope';
    }

    get isDate() {
        return this.editor.kind === 'date';
    }

    get isCross() {
        return this.editor.kind === 'cross';
    }

    get isCriterion() {
        return this.editor.kind === 'criterion';
    }

    get fieldLabel() {
        return this.field ? this.field.label : '';
    }

    get fieldIsDate() {
        return Boolean(this.field) && (this.field.kind === 'date' || this.field.kind === 'datetime');
    }

    get operators() {
        const all = this.choices.operators || [];
        const kinds = this.choices.kindOperators || {};
        const allowed = this.field && kinds[this.field.kind];
        return allowed ? all.filter((o) => allowed.includes(o.value)) : all;
    }

    get allOperators() {
        return this.choices.operators || [];
    }

    get relativeDates() {
        return [{ value: '', label: '--None--' }, ...(this.choices.relativeDates || [])];
    }

    get dateFields() {
        return (this.fields || []).filter((f) => f.kind === 'date' || f.kind === 'datetime')
            .map((f) => ({ value: f.name, label: f.label }));
    }

    get withOptions() {
        return [{ value: 'with', label: 'with' }, { value: 'without', label: 'without' }];
    }

    get crossObjects() {
        return this.choices.crossObjects || [];
    }

    get scopes() {
        return this.choices.scopes || [];
    }

    get dateRanges() {
        return this.choices.dateRanges || [];
    }

    get hasError() {
        return Boolean(this.editor.error);
    }

    handleChange(event) {
        const key = event.target.dataset.key;
        const value = event.detail && event.detail.value !== undefined ? event.detail.value : event.target.value;
        this.dispatchEvent(new CustomEvent('change', { detail: { draft: { [key]: value } } }));
    }

    handleKeydown(event) {
        if (event.key === 'Enter') {
            event.preventDefault();
            this.handleApply();
        } else if (event.key === 'Escape') {
            this.handleCancel();
        }
    }

    handleApply() {
        this.dispatchEvent(new CustomEvent('apply'));
    }

    handleCancel() {
        this.dispatchEvent(new CustomEvent('cancel'));
    }
}
