// One related list of a record page as Lightning shows it: a card with the child object's icon, the title with
// its count ("Contacts (3)", "(6+)" beyond the rows shown) linking to the full list, the list's buttons, the first
// rows in a lightning-datatable with a row action menu (Edit, Delete), and "View All". The list's own New reads
// "New" as on Lightning's card (the server's "New Contact" stays its name for assistive technology and the
// demonstrations that click it: docs/lightning-fidelity.md); the lists Salesforce gives a button of their own
// ("New Quote", "Add New Change Request", "Add Products") keep their label.
import { LightningElement, api } from 'lwc';
import { navigate } from 'one/navigation';
import { recordColumns, rowActionUrl } from 'one/recordTable';

// the New buttons Salesforce's cards label with their object ("New Quote" on an opportunity's Quotes)
const OWN_LABELS = new Set(['New Quote', 'New Contact Role']);

export default class RelatedListCard extends LightningElement {
    /** {key, label, title, iconName, actions: [{label, url}], viewAllUrl, columns: [{label, fieldName, link}],
     *  rows: [{id, <field>, <field>__url, editUrl, deleteUrl}]} */
    @api card;

    get hasRows() {
        return this.card.rows.length > 0;
    }

    /** The card's buttons: the first (the list's New) labelled "New" as Lightning's card labels it. */
    get buttons() {
        return this.card.actions.map((action, index) => {
            const generic = index === 0 && /^New /.test(action.label) && !OWN_LABELS.has(action.label);
            return { ...action, shown: generic ? 'New' : action.label, name: generic ? action.label : null };
        });
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
