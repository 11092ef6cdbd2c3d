// Lightning's Reports home: the vertical navigation of the report lists (Recent, Created by Me, Private Reports,
// Public Reports, All Reports), the page header (the report icon, "Reports" above the list's name, New Report)
// and the list's reports in a lightning-datatable (Report Name links to the report, Description, Folder, Created
// By, Created On), with "Search <list>..." over them.
import { LightningElement, api, track } from 'lwc';
import { navigate } from 'one/navigation';

const COLUMNS = [
    { label: 'Report Name', fieldName: 'url', type: 'url', initialWidth: 320,
      typeAttributes: { label: { fieldName: 'name' }, target: '_self', tooltip: { fieldName: 'name' } } },
    { label: 'Description', fieldName: 'description', type: 'text' },
    { label: 'Folder', fieldName: 'folder', type: 'text' },
    { label: 'Created By', fieldName: 'createdBy', type: 'text' },
    { label: 'Created On', fieldName: 'createdOn', type: 'text' },
];

export default class ReportList extends LightningElement {
    /** The lists: [{name, label, url}]. */
    @api views = [];
    /** The shown list's name. */
    @api current = '';
    /** Its reports: [{id, name, url, description, folder, createdBy, createdOn}]. */
    @api rows = [];
    @api newUrl = '/lightning/o/Report/new';

    @track query = '';
    columns = COLUMNS;

    get viewLabel() {
        const view = (this.views || []).find((v) => v.name === this.current);
        return view ? view.label : 'Reports';
    }

    get searchLabel() {
        if (this.current === 'recent') return 'Search recent reports...';
        if (this.current === 'created') return 'Search reports created by me...';
        return `Search ${this.viewLabel.toLowerCase()}...`;
    }

    get shown() {
        const needle = this.query.trim().toLowerCase();
        if (!needle) return this.rows || [];
        return (this.rows || []).filter((r) => [r.name, r.description, r.folder, r.createdBy]
            .some((v) => (v || '').toLowerCase().includes(needle)));
    }

    get hasRows() {
        return this.shown.length > 0;
    }

    get status() {
        const n = this.shown.length;
        return `${n} ${n === 1 ? 'item' : 'items'}`;
    }

    handleSearch(event) {
        this.query = event.detail.value || '';
    }

    newReport() {
        navigate(this.newUrl);
    }
}
