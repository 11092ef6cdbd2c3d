// The lightning-datatable of a list of records (an object's list view, a record's related list): the server's
// columns ({label, fieldName, link}; a linked column shows `<fieldName>` as the text of the URL in
// `<fieldName>__url`), then the row action menu (Edit, Delete) whose choice opens the row's `editUrl` or
// `deleteUrl`.

/** lightning-datatable columns for `columns`, sortable or not, with the Edit / Delete row actions last. */
export function recordColumns(columns, sortable) {
    const out = columns.map((c) => (c.link
        ? { label: c.label, fieldName: `${c.fieldName}__url`, type: 'url', sortable,
            typeAttributes: { label: { fieldName: c.fieldName }, target: '_self', tooltip: { fieldName: c.fieldName } } }
        : { label: c.label, fieldName: c.fieldName, type: 'text', sortable }));
    out.push({ type: 'action', typeAttributes: { rowActions: [{ label: 'Edit', name: 'edit' },
                                                                { label: 'Delete', name: 'delete' }] } });
    return out;
}

/** The URL a row action (a datatable `rowaction` event's detail) opens. */
export function rowActionUrl(detail) {
    return detail.action.name === 'edit' ? detail.row.editUrl : detail.row.deleteUrl;
}
