// Lightning's report builder: the header (Report: <type>, the report's name, Add Chart, Save & Run, Save, Close),
// the left panel's Outline tab (Group Rows, Group Columns, Columns, each with its "Add ..." field search) and
// Filters tab (the standard filters Show Me and the date range, "Add filter...", the field filters with their
// numbers, the filter logic, cross filters with their own filters; each edited in a popover with Apply), the
// preview (the chart, and the columns with each column's menu: group by it, summarize it, remove it) and the
// Chart Properties panel. The report being built lives here until Save, which asks for the report's name, unique
// name, description and folder in the Save Report dialog and posts the whole report to the server; an answer with
// errors comes back as this component again, everything kept.
import { LightningElement, api, track } from 'lwc';
import { holdBehindDialog } from 'one/dialogFocus';
import { post, navigate } from 'one/navigation';
import * as edit from './reportState';

export default class ReportBuilder extends LightningElement {
    /** {type, label}: the report type. */
    @api reportType = {};
    /** The report type's fields: [{name, label, kind}]. */
    @api fields = [];
    /** Choices: operators [{value, label, kinds}], relativeDates, dateGroups, scopes, summaries, charts,
     * crossObjects, dateRanges, folders: [{value, label}]. */
    @api choices = {};
    /** The saved report being edited (its Edit), or '' for a new report. */
    @api reportId = '';
    /** Where Save posts, its CSRF field and token, and Close's page. */
    @api action = '';
    @api csrfField = '';
    @api csrf = '';
    @api homeUrl = '';
    /** The server's answer to a save it refused: {page: [message], fields: {name: message}}. */
    @api errors = {};
    /** The report as posted (a refused save) or new: see reportState.js. */
    @api
    get report() {
        return this._report;
    }
    set report(value) {
        this._report = edit.normalized(value, this.fields);
    }

    @track _report = edit.normalized({}, []);
    /** The open popover: {kind: 'filter'|'scope'|'date'|'cross'|'criterion', index, field, ...draft}. */
    @track editor = null;
    @track chartPanel = false;
    /** The Save Report dialog: null, or {run, name, developerName, description, folder, errors}. */
    @track dialog = null;

    /** The preview's records and chart, run by the server as the report changes: {rows: [[label]], total,
     * limited, error, chart}. */
    @track previewData = { rows: [], total: 0, limited: false, error: '', chart: null };
    previewLoading = false;
    _previewKey = '';
    _previewSeq = 0;

    renderedCallback() {
        holdBehindDialog(this.template.querySelector('.report-builder__body'), Boolean(this.dialog));
        this.loadPreview(false);
    }

    /** Ask the server to run the report as built (``<action>/preview``) when it changed since the last answer,
     * or always (Refresh); an older answer arriving late is dropped. */
    loadPreview(force) {
        const report = JSON.stringify(edit.posted(this._report));
        if (!force && report === this._previewKey) return;
        this._previewKey = report;
        const seq = ++this._previewSeq;
        this.previewLoading = true;
        const body = new URLSearchParams({ [this.csrfField]: this.csrf, type: this.reportType.type, report });
        const done = (data) => {
            if (seq !== this._previewSeq) return;
            this.previewLoading = false;
            this.previewData = { rows: data.rows || [], total: data.total || 0, limited: Boolean(data.limited),
                error: data.error || '', chart: data.chart || null };
        };
        fetch(`${this.action}/preview`, { method: 'POST', body, credentials: 'same-origin',
            headers: { Accept: 'application/json' } })
            .then((response) => response.json())
            .then(done, () => done({ error: 'The preview could not be loaded. Refresh to try again.' }));
    }

    connectedCallback() {
        const fieldErrors = (this.errors && this.errors.fields) || {};
        if (fieldErrors.name || fieldErrors.developerName) this.openDialog(this._report.run);
    }

    // ------------------------------------------------------------------------------------------ labels

    /** The left panel's tab: Filters when the filter logic was refused, else Outline. */
    get activeTab() {
        return ((this.errors && this.errors.fields) || {}).logic ? 'filters' : 'outline';
    }

    get typeLabel() {
        return `Report: ${this.reportType.label || ''}`;
    }

    get heading() {
        return this._report.name || `New ${this.reportType.label || ''} Report`;
    }

    /** The server's messages for the whole page (shown by one-page-errors). */
    get pageMessages() {
        return (this.errors && this.errors.page) || [];
    }

    label(name) {
        const found = (this.fields || []).find((f) => f.name === name);
        return found ? found.label : name;
    }

    field(name) {
        return (this.fields || []).find((f) => f.name === name);
    }

    // ------------------------------------------------------------------------------------------ outline

    get fieldChoices() {
        return (this.fields || []).map((f) => ({ name: f.name, label: f.label }));
    }

    /** Group Rows and Group Columns: each a field search and its groups (Group Columns once rows are grouped). */
    get groupSections() {
        return [
            { key: 'down', title: 'Group Rows', disabled: this.rowGroupsFull, groups: this.groups('down') },
            { key: 'across', title: 'Group Columns', disabled: this.columnGroupsDisabled, groups: this.groups('across') },
        ];
    }

    groups(key) {
        const dates = this.choices.dateGroups || [];
        return this._report[key].map((name, index) => {
            const isDate = edit.isDate(this.field(name));
            const current = this._report[`${key}_dates`][name] || 'Day';
            return {
                key: `${key}-${name}`, name, index, label: this.label(name), isDate,
                dateLabel: isDate ? (dates.find((d) => d.value === current) || {}).label : '',
                menuLabel: `Group options for ${this.label(name)}`, removeLabel: `Remove group ${this.label(name)}`,
                dateItems: dates.map((d) => ({ ...d, checked: d.value === current, key: `${name}-${d.value}` })),
            };
        });
    }

    get groupChoices() {
        const grouped = [...this._report.down, ...this._report.across];
        return this.fieldChoices.filter((f) => !grouped.includes(f.name));
    }

    get columnChoices() {
        const taken = [...this._report.down, ...this._report.across, ...this._report.columns];
        return this.fieldChoices.filter((f) => !taken.includes(f.name));
    }

    get rowGroupsFull() {
        return !edit.canGroup(this._report, 'down');
    }

    get columnGroupsDisabled() {
        return !edit.canGroup(this._report, 'across');
    }

    get noColumns() {
        return this._report.columns.length === 0;
    }

    get noRowGroups() {
        return this._report.down.length === 0;
    }

    get detailColumns() {
        return this._report.columns.map((name, index) => ({
            key: name, name, index, label: this.label(name), removeLabel: `Remove column ${this.label(name)}`,
            summaries: this.summariesOf(name).map((s) => s.label).join(', '),
        }));
    }

    get hasColumns() {
        return this._report.columns.length > 0;
    }

    summariesOf(name) {
        return (this.choices.summaries || []).filter((s) => this._report.summaries.includes(`${s.value}!${name}`));
    }

    handleAddGroup(event) {
        this._report = edit.addGroup(this._report, event.currentTarget.dataset.key, event.detail.value);
    }

    handleAddColumn(event) {
        this._report = edit.addColumn(this._report, event.detail.value);
    }

    handleRemoveGroup(event) {
        const { key, index } = event.currentTarget.dataset;
        this._report = edit.removeGroup(this._report, key, Number(index));
    }

    handleGroupMenu(event) {
        const { key, name } = event.currentTarget.dataset;
        const chosen = event.detail.value;
        this._report = chosen === 'remove'
            ? edit.removeGroup(this._report, key, this._report[key].indexOf(name))
            : edit.groupDateBy(this._report, key, name, chosen);
    }

    handleRemoveColumn(event) {
        this._report = edit.removeColumn(this._report, event.currentTarget.dataset.name);
    }

    removeAllColumns() {
        this._report = { ...this._report, columns: [], summaries: [] };
    }

    // ------------------------------------------------------------------------------------------ preview

    get previewColumns() {
        const summable = (name) => edit.isSummable(this.field(name));
        const list = [...this._report.down, ...this._report.columns.filter((c) => !this._report.down.includes(c))];
        return list.map((name) => ({
            key: name, name, label: this.label(name), menuLabel: `Show actions for ${this.label(name)}`,
            grouped: this._report.down.includes(name) || this._report.across.includes(name),
            summable: summable(name),
            summaryItems: (this.choices.summaries || []).map((s) => ({
                key: `${name}-${s.value}`, value: `summary:${s.value}`, label: s.label,
                checked: this._report.summaries.includes(`${s.value}!${name}`),
            })),
            summaryText: this.summariesOf(name).map((s) => s.label).join(', '),
        }));
    }

    get across() {
        return this._report.across.map((name) => this.label(name)).join(', ');
    }

    get format() {
        if (this._report.across.length) return 'Matrix';
        return this._report.down.length ? 'Summary' : 'Tabular';
    }

    handleColumnMenu(event) {
        const name = event.currentTarget.dataset.name;
        const [what, arg] = String(event.detail.value).split(':');
        if (what === 'rows') this._report = edit.addGroup(this._report, 'down', name);
        else if (what === 'columns') this._report = edit.addGroup(this._report, 'across', name);
        else if (what === 'summary') this._report = edit.toggleSummary(this._report, name, arg);
        else if (what === 'remove') this._report = edit.removeColumn(this._report, name);
    }

    refresh() {
        this.loadPreview(true);
    }

    // ------------------------------------------------------------------------------------------ filters

    get scopeLabel() {
        const scope = (this.choices.scopes || []).find((s) => s.value === this._report.scope);
        return scope ? scope.label : this._report.scope;
    }

    get dateFilter() {
        const filter = this._report.dateFilter;
        const range = (this.choices.dateRanges || []).find((r) => r.value === filter.durationValue);
        return { field: this.label(filter.column), range: range ? range.label : filter.durationValue };
    }

    get fieldFilters() {
        const operators = this.choices.operators || [];
        return this._report.filters.map(([column, operator, value], index) => {
            const op = (operators.find((o) => o.value === operator) || {}).label || operator;
            return {
                key: `filter-${index}`, index, number: index + 1, field: this.label(column), operator: op, value,
                editLabel: `Edit filter ${index + 1}: ${this.label(column)} ${op} ${value}`,
                removeLabel: `Remove filter ${index + 1}: ${this.label(column)}`,
            };
        });
    }

    get filtersTabLabel() {
        const count = this._report.filters.length + this._report.cross.length;
        return count ? `Filters (${count})` : 'Filters';
    }

    get logicShown() {
        return this._report.logicShown;
    }

    get logic() {
        return this._report.logic;
    }

    get editorField() {
        return this.editor && this.editor.kind === 'filter' ? this.field(this.editor.column) : undefined;
    }

    get hasFieldFilters() {
        return this._report.filters.length > 0;
    }

    get crossFilters() {
        const objects = this.choices.crossObjects || [];
        const operators = this.choices.operators || [];
        return this._report.cross.map((x, index) => {
            const related = (objects.find((o) => o.value === x.entity) || {}).label || x.entity;
            const title = `${this.reportType.label} ${x.with ? 'with' : 'without'} ${related}`;
            return {
                key: `cross-${index}`, index, title, editLabel: `Edit cross filter: ${title}`,
                removeLabel: `Remove cross filter: ${title}`, addLabel: `Add ${related} Filter`,
                criteria: x.criteria.map(([column, operator, value], j) => ({
                    key: `criterion-${index}-${j}`, index: j, cross: index,
                    text: `${column} ${(operators.find((o) => o.value === operator) || {}).label || operator} ${value}`,
                    removeLabel: `Remove ${related} filter ${j + 1}: ${column}`,
                })),
            };
        });
    }

    get hasCrossFilters() {
        return this._report.cross.length > 0;
    }

    get filterMenuItems() {
        return [
            this._report.logicShown ? { value: 'remove_logic', label: 'Remove Filter Logic' }
                : { value: 'add_logic', label: 'Add Filter Logic' },
            { value: 'add_cross', label: 'Add Cross Filter' },
            { value: 'remove_all', label: 'Remove All Filters' },
        ];
    }

    get logicError() {
        return ((this.errors && this.errors.fields) || {}).logic;
    }

    handleFilterMenu(event) {
        const chosen = event.detail.value;
        if (chosen === 'add_logic') {
            this._report = { ...this._report, logicShown: true,
                logic: this._report.logic || this._report.filters.map((f, i) => i + 1).join(' AND ') };
        } else if (chosen === 'remove_logic') {
            this._report = { ...this._report, logicShown: false, logic: '' };
        } else if (chosen === 'add_cross') {
            this.editor = { kind: 'cross', index: -1, with: 'with', entity: '' };
        } else if (chosen === 'remove_all') {
            this._report = { ...this._report, filters: [], cross: [], logic: '', logicShown: false };
        }
    }

    handleLogic(event) {
        this._report = { ...this._report, logic: event.target.value };
    }

    handleAddFilter(event) {
        this.editor = edit.filterDraft(this.field(event.detail.value), -1);
    }

    handleEditFilter(event) {
        const index = Number(event.currentTarget.dataset.index);
        const [column, operator, value] = this._report.filters[index];
        this.editor = { ...edit.filterDraft(this.field(column), index), operator, ...edit.splitValue(
            this.field(column), value, this.choices.relativeDates || []) };
    }

    handleRemoveFilter(event) {
        this._report = edit.removeFilter(this._report, Number(event.currentTarget.dataset.index));
    }

    handleEditScope() {
        this.editor = { kind: 'scope', scope: this._report.scope };
    }

    handleEditDate() {
        this.editor = { kind: 'date', column: this._report.dateFilter.column,
            durationValue: this._report.dateFilter.durationValue };
    }

    handleEditCross(event) {
        const index = Number(event.currentTarget.dataset.index);
        const x = this._report.cross[index];
        this.editor = { kind: 'cross', index, with: x.with ? 'with' : 'without', entity: x.entity };
    }

    handleRemoveCross(event) {
        const index = Number(event.currentTarget.dataset.index);
        this._report = { ...this._report, cross: this._report.cross.filter((x, i) => i !== index) };
    }

    handleAddCriterion(event) {
        this.editor = { kind: 'criterion', cross: Number(event.currentTarget.dataset.index), column: '',
            operator: 'equals', value: '' };
    }

    handleRemoveCriterion(event) {
        const { cross, index } = event.currentTarget.dataset;
        this._report = edit.removeCriterion(this._report, Number(cross), Number(index));
    }

    handleEditorChange(event) {
        this.editor = { ...this.editor, ...event.detail.draft, error: '' };
    }

    handleEditorCancel() {
        this.editor = null;
    }

    handleEditorApply() {
        const { report, error } = edit.apply(this._report, this.editor, this.field(this.editor.column));
        if (error) {
            this.editor = { ...this.editor, error };
            return;
        }
        this._report = report;
        this.editor = null;
    }

    get editorFields() {
        return this.fieldChoices;
    }

    // ------------------------------------------------------------------------------------------ chart

    get chart() {
        return this._report.chart;
    }

    get chartPanelOpen() {
        return this.chartPanel && this.hasChart;
    }

    get chartHeading() {
        return (this._report.chart && this._report.chart.title) || 'Chart';
    }

    get chartText() {
        const group = this._report.down.length ? this.label(this._report.down[0]) : '';
        return `${this.chartTypeLabel} chart: Record Count by ${group}`;
    }

    get previewWidth() {
        return Math.max(1, this.previewColumns.length);
    }

    get previewBusy() {
        return this.previewLoading ? 'true' : 'false';
    }

    /** The preview's rows, keyed for the template. */
    get previewRows() {
        if (!this.previewColumns.length) return [];
        return this.previewData.rows.map((cells, i) => ({
            key: `row-${i}`, cells: cells.map((text, j) => ({ key: `cell-${i}-${j}`, text })),
        }));
    }

    get previewNote() {
        if (!this.previewColumns.length) return 'Add columns to see them here.';
        if (this.previewData.error) return this.previewData.error;
        if (this.previewLoading && !this.previewData.rows.length) return 'Loading...';
        if (!this.previewData.rows.length) return 'No records match the report\'s filters. Check the filters.';
        return this.previewData.limited
            ? 'Previewing a limited number of records. Run the report to see everything.' : '';
    }

    get hasChart() {
        return Boolean(this._report.chart);
    }

    get addChartDisabled() {
        return this.noRowGroups || this.hasChart;
    }

    get chartTypeLabel() {
        const chart = (this.choices.charts || []).find((c) => this._report.chart && c.value === this._report.chart.type);
        return chart ? chart.label : '';
    }

    addChart() {
        this._report = { ...this._report, chart: edit.newChart(this.choices.charts) };
        this.chartPanel = true;
    }

    openChartPanel() {
        this.chartPanel = true;
    }

    closeChartPanel() {
        this.chartPanel = false;
    }

    removeChart() {
        this._report = { ...this._report, chart: null };
        this.chartPanel = false;
    }

    handleChartChange(event) {
        this._report = { ...this._report, chart: { ...this._report.chart, ...event.detail.chart } };
    }

    // ------------------------------------------------------------------------------------------ save

    saveAndRun() {
        this.openDialog(true);
    }

    save() {
        this.openDialog(false);
    }

    close() {
        navigate(this.reportId ? `/lightning/o/Report/${this.reportId}/view` : this.homeUrl);
    }

    openDialog(run) {
        const fieldErrors = (this.errors && this.errors.fields) || {};
        this.dialog = {
            run, name: this._report.name, developerName: this._report.developerName,
            description: this._report.description, folder: this._report.folder,
            errors: { name: fieldErrors.name || '', developerName: fieldErrors.developerName || '' },
        };
    }

    handleDialogCancel() {
        this.dialog = null;
    }

    handleDialogSave(event) {
        const saved = event.detail;
        this._report = { ...this._report, name: saved.name, developerName: saved.developerName,
            description: saved.description, folder: saved.folder, run: this.dialog.run };
        post(this.action, {
            [this.csrfField]: this.csrf, type: this.reportType.type, do: this.dialog.run ? 'save_run' : 'save',
            report: JSON.stringify(edit.posted(this._report)), ...(this.reportId ? { id: this.reportId } : {}),
        });
    }
}
