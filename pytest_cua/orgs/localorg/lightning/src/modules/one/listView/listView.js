// An object's home (a list view), as Lightning Experience shows it: the page header with the object's icon, the
// list view's name and the list view picker ("Select a List View: Accounts"), the actions (New, ...), the status
// line, "Search this list..." (Enter searches), List View Controls, Refresh and Charts, and the records in a
// lightning-datatable with sortable columns, row selection and a row action menu (Edit, Delete). The server
// pages, sorts and searches: sorting, searching and the row actions navigate.
import { LightningElement, api } from 'lwc';
import { navigate } from 'one/navigation';
import { recordColumns, rowActionUrl } from 'one/recordTable';

export default class ListView extends LightningElement {
    @api objectName = '';
    @api plural = '';
    @api iconName = 'standard:record';
    @api viewName = '';
    /** [{label, url, current}] */
    @api views = [];
    /** [{label, url}]: the header's buttons (New, ...). */
    @api actions = [];
    /** [{label, url}]: List View Controls (New, Select Fields to Display, ...). */
    @api controls = [];
    @api status = '';
    @api query = '';
    /** The list's URL without q, sort, dir and page (search and sorting add theirs). */
    @api listUrl = '';
    @api chartsUrl = '';
    /** [{label, fieldName, link}]: link = the cell holds a URL in `<fieldName>__url`; the first is the name. */
    @api columns = [];
    /** [{id, <fieldName>: text, <fieldName>__url: url, editUrl, deleteUrl}] */
    @api rows = [];
    @api sortedBy = '';
    @api sortedDirection = 'asc';
    @api page = 1;
    @api pages = 1;
    @api previousUrl = '';
    @api nextUrl = '';

    get pickerLabel() {
        return `Select a List View: ${this.plural}`;
    }

    get sortedColumn() {
        // a linked column's field is its URL's (`<field>__url`): the datatable marks that one sorted
        const column = this.columns.find((c) => c.fieldName === this.sortedBy);
        return column && column.link ? `${this.sortedBy}__url` : this.sortedBy;
    }

    get hasRows() {
        return this.rows.length > 0;
    }

    get paged() {
        return this.pages > 1;
    }

    get tableColumns() {
        return recordColumns(this.columns, true);
    }

    go(event) {
        navigate(event.currentTarget.dataset.url);
    }

    withParams(params) {
        const url = new URL(this.listUrl, window.location.origin);
        for (const [k, v] of Object.entries(params)) {
            if (v) url.searchParams.set(k, v);
        }
        return url.pathname + url.search;
    }

    search(event) {
        if (event.key !== 'Enter') return;
        navigate(this.withParams({ q: (event.target.value || '').trim() }));
    }

    refresh() {
        window.location.reload();
    }

    sort(event) {
        const field = event.detail.fieldName.replace(/__url$/, '');
        navigate(this.withParams({ q: this.query, sort: field, dir: event.detail.sortDirection }));
    }

    rowAction(event) {
        navigate(rowActionUrl(event.detail));
    }
}
