// One related list of a record page as Lightning shows it: a card with the child object's icon, the title with
// its count ("Contacts (3)", "(6+)" beyond the rows shown) linking to the full list, the list's buttons (New ...),
// the first rows in a lightning-datatable with a row action menu (Edit, Delete), and "View All".
import { LightningElement, api } from 'lwc';
import { navigate } from 'one/navigation';
import { recordColumns, rowActionUrl } from 'one/recordTable';

export default class RelatedListCard extends LightningElement {
    /** {key, label, title, iconName, actions: [{label, url}], viewAllUrl, columns: [{label, fieldName, link}],
     *  rows: [{id, <field>, <field>__url, editUrl, deleteUrl}]} */
    @api card;

    get hasRows() {
        return this.card.rows.length > 0;
    }

    get tableColumns() {
        return recordColumns(this.card.columns, false);
    }

    go(event) {
        navigate(event.currentTarget.dataset.url);
    }

    rowAction(event) {
        navigate(rowActionUrl(event.detail));
    }
}
