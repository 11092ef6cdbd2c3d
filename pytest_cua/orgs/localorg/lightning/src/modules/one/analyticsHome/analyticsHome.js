// Lightning's Reports and Dashboards homes: the vertical navigation of the kind's lists (Recent, Created by Me,
// Private Reports, ...), the page header (the kind's icon, "Reports" above the list's name, New Report) and the
// list's items in a lightning-datatable (the name links to the item, Description, Folder, Created By, Created On),
// with "Search <list>..." over them.
import { LightningElement, api, track } from 'lwc';
import { navigate } from 'one/navigation';

export default class AnalyticsHome extends LightningElement {
    /** "Report" or "Dashboard". */
    @api singular = 'Report';
    @api plural = 'Reports';
    @api iconName = 'standard:report';
    /** The lists: [{name, label, url}]. */
    @api views = [];
    /** The shown list's name. */
    @api current = '';
    /** Its items: [{id, name, url, description, folder, createdBy, createdOn}]. */
    @api rows = [];
    @api newUrl = '';

    @track query = '';

    get columns() {
        return [
            { label: `${this.singular} Name`, fieldName: 'url', type: 'url', initialWidth: 320,
              typeAttributes: { label: { fieldName: 'name' }, target: '_self', tooltip: { fieldName: 'name' } } },
            { label: 'Description', fieldName: 'description', type: 'text' },
            { label: 'Folder', fieldName: 'folder', type: 'text' },
            { label: 'Created By', fieldName: 'createdBy', type: 'text' },
            { label: 'Created On', fieldName: 'createdOn', type: 'text' },
        ];
    }

    get newLabel() {
        return `New ${this.singular}`;
    }

    get viewLabel() {
        const view = (this.views || []).find((v) => v.name === this.current);
        return view ? view.label : this.plural;
    }

    get searchLabel() {
        const plural = this.plural.toLowerCase();
        if (this.current === 'recent') return `Search recent ${plural}...`;
        if (this.current === 'created') return `Search ${plural} created by me...`;
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

    newItem() {
        navigate(this.newUrl);
    }
}
