// The page header of Lightning Setup's own pages (Setup Home, Object Manager): the Setup icon, "Setup" above the
// page's name, and on the right the page's Quick Find (one-table-find: Object Manager's filters the objects table
// the server rendered, `filter` names it) and the Create menu (links to the creation pages).
import { LightningElement, api } from 'lwc';

export default class SetupHeader extends LightningElement {
    /** The page's name ("Home", "Object Manager"). */
    @api heading = '';
    /** The Create menu's items: [{label, url}] (no menu when empty). */
    @api createItems = [];
    /** The id of the server-rendered table Quick Find filters (no Quick Find when empty). */
    @api filter = '';
    /** The id of the element that counts the table's shown rows ("4 Items, Sorted by Label"). */
    @api counter = '';

    get hasCreate() {
        return (this.createItems || []).length > 0;
    }
}
