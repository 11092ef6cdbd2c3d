// Lightning's dashboard builder: the header (Dashboard, the dashboard's name; + Component, Properties, Cancel,
// Save), the canvas of component cards (title, the chart of the report's run as the component displays it, the
// report; each card's menu removes it; the chart is the server's, ``<action>/chart``), "+ Component"
// as Salesforce's two dialogs (Select Report: Search Reports... and the reports as radios, Select; Add Component:
// Display As as pressed icon buttons, Title, Add), and the Properties dialog (Name, Description). The dashboard
// is built in the page; Save posts it whole and the server answers with the saved dashboard's page, or this
// builder again with everything kept and the refusal at the top.
import { LightningElement, api, track } from 'lwc';
import { holdBehindDialog } from 'one/dialogFocus';
import { post, navigate } from 'one/navigation';

export default class DashboardBuilder extends LightningElement {
    /** {name, description, components: [{report, vis, title}]}. */
    @api
    get dashboard() {
        return this._dashboard;
    }
    set dashboard(value) {
        const d = value || {};
        this._dashboard = { name: d.name || '', description: d.description || '',
            components: Array.isArray(d.components) ? d.components : [] };
    }
    /** The org's reports: [{id, name, folder}]. */
    @api reports = [];
    /** Display As: [{value (visualizationType), label}]. */
    @api displayAs = [];
    @api errors = {};
    @api action = '';
    @api homeUrl = '';
    @api csrfField = '';
    @api csrf = '';

    @track _dashboard = { name: '', description: '', components: [] };
    /** The open dialog: null | {kind: 'select', query, report} | {kind: 'add', report, vis, title}
     * | {kind: 'properties', name, description}, each with an error. */
    @track dialog = null;
    /** The charts the server drew for the cards, by "report|vis|title": a chart, or null while it is asked for. */
    @track charts = {};

    connectedCallback() {
        this._dashboard.components.forEach((c) => this.loadChart(c));
    }

    renderedCallback() {
        holdBehindDialog(this.template.querySelector('.dashboard-builder__body'), Boolean(this.dialog));
    }

    /** Ask the server for a component's chart (its report run as the component displays it) once. */
    loadChart(component) {
        const key = chartKey(component);
        if (key in this.charts) return;
        this.charts = { ...this.charts, [key]: null };
        const body = new URLSearchParams({ [this.csrfField]: this.csrf, report: component.report,
            vis: component.vis, title: component.title || '' });
        const done = (data) => {
            this.charts = { ...this.charts, [key]: (data && data.chart) || { error: (data && data.error)
                || 'The chart could not be loaded.' } };
        };
        fetch(`${this.action}/chart`, { method: 'POST', body, credentials: 'same-origin',
            headers: { Accept: 'application/json' } })
            .then((response) => response.json())
            .then(done, () => done(null));
    }

    get heading() {
        return this._dashboard.name || 'New Dashboard';
    }

    /** The server's messages for the whole page (shown by one-page-errors). */
    get pageMessages() {
        return (this.errors && this.errors.page) || [];
    }

    get cards() {
        return this._dashboard.components.map((c, index) => {
            const report = (this.reports || []).find((r) => r.id === c.report);
            const vis = (this.displayAs || []).find((v) => v.value === c.vis);
            const title = c.title || (report ? report.name : 'Component');
            const chart = this.charts[chartKey(c)] || null;
            return { key: `component-${index}`, index, title, report: report ? report.name : c.report,
                vis: vis ? vis.label : c.vis, menuLabel: `Show actions for ${title}`,
                chart: chart && !chart.error ? chart : null,
                empty: chart && chart.error ? chart.error : chart ? '' : 'Loading...' };
        });
    }

    get hasCards() {
        return this._dashboard.components.length > 0;
    }

    // ------------------------------------------------------------------------------------------ dialogs

    get isSelect() {
        return Boolean(this.dialog) && this.dialog.kind === 'select';
    }

    get isAdd() {
        return Boolean(this.dialog) && this.dialog.kind === 'add';
    }

    get isProperties() {
        return Boolean(this.dialog) && this.dialog.kind === 'properties';
    }

    get dialogTitle() {
        return { select: 'Select Report', add: 'Add Component', properties: 'Properties' }[this.dialog.kind];
    }

    get dialogAction() {
        return { select: 'Select', add: 'Add', properties: 'Save' }[this.dialog.kind];
    }

    get dialogError() {
        return this.dialog && this.dialog.error;
    }

    get shownReports() {
        const needle = (this.dialog.query || '').trim().toLowerCase();
        return (this.reports || []).filter((r) => !needle || r.name.toLowerCase().includes(needle))
            .map((r) => ({ ...r, checked: r.id === this.dialog.report, inputId: `report-${r.id}` }));
    }

    get noReports() {
        return this.shownReports.length === 0;
    }

    get chosenReport() {
        const report = (this.reports || []).find((r) => r.id === this.dialog.report);
        return report ? report.name : '';
    }

    addComponent() {
        this.dialog = { kind: 'select', query: '', report: '', error: '' };
    }

    openProperties() {
        this.dialog = { kind: 'properties', name: this._dashboard.name, description: this._dashboard.description,
            error: '' };
    }

    handleSearch(event) {
        this.dialog = { ...this.dialog, query: event.target.value };
    }

    handleReport(event) {
        this.dialog = { ...this.dialog, report: event.target.value, error: '' };
    }

    handleVis(event) {
        this.dialog = { ...this.dialog, vis: event.detail.value, error: '' };
    }

    handleText(event) {
        this.dialog = { ...this.dialog, [event.target.dataset.key]: event.target.value, error: '' };
    }

    closeDialog() {
        this.dialog = null;
    }

    confirmDialog() {
        const d = this.dialog;
        if (d.kind === 'select') {
            if (!d.report) {
                this.dialog = { ...d, error: 'Select a report.' };
                return;
            }
            this.dialog = { kind: 'add', report: d.report, vis: 'Column', title: '', error: '' };
        } else if (d.kind === 'add') {
            if (!d.vis) {
                this.dialog = { ...d, error: 'Choose how to display the report.' };
                return;
            }
            const component = { report: d.report, vis: d.vis, title: (d.title || '').trim() };
            this._dashboard = { ...this._dashboard, components: [...this._dashboard.components, component] };
            this.loadChart(component);
            this.dialog = null;
        } else {
            if (!(d.name || '').trim()) {
                this.dialog = { ...d, error: 'Name: Complete this field.' };
                return;
            }
            this._dashboard = { ...this._dashboard, name: d.name.trim(), description: (d.description || '').trim() };
            this.dialog = null;
        }
    }

    handleCardMenu(event) {
        const index = Number(event.currentTarget.dataset.index);
        if (event.detail.value === 'remove') {
            this._dashboard = { ...this._dashboard,
                components: this._dashboard.components.filter((c, i) => i !== index) };
        }
    }

    cancel() {
        navigate(this.homeUrl);
    }

    save() {
        post(this.action, { [this.csrfField]: this.csrf, name: this._dashboard.name,
            description: this._dashboard.description, components: JSON.stringify(this._dashboard.components) });
    }
}

/** A component's chart's key: what the chart depends on. */
function chartKey(component) {
    return `${component.report}|${component.vis}|${component.title || ''}`;
}
