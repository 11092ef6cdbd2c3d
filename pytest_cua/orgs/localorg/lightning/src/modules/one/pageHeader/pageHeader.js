// SLDS's page header as Lightning's object homes and Setup pages show it: the icon, a small caps label above the
// page's name (`switcher` slot beside the name: the list view picker), the `actions` slot on the right; a second row
// with the `meta` text (the list's status, "5 items") and the `controls` slot (search, menus) when `meta` is given.
import { LightningElement, api } from 'lwc';

export default class PageHeader extends LightningElement {
    @api iconName = '';
    /** The label above the name ("Accounts", "Setup", "Reports"). */
    @api label = '';
    /** The page's name, its h1 ("All Accounts", "Object Manager", "Recent"). */
    @api heading = '';
    /** The second row's text; no second row when empty. */
    @api meta = '';
    /** The object-home variant (list views, the Reports home). */
    @api objectHome = false;

    get headerClass() {
        return this.objectHome ? 'slds-page-header slds-page-header_object-home' : 'slds-page-header';
    }
}
