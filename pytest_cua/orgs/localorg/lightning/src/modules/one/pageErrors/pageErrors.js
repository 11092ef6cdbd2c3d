// The error alert at the top of a builder whose save the server refused (SLDS alert blueprint, role alert):
// "We couldn't save this report." and each message the server gave for the whole page; nothing when there is none.
import { LightningElement, api } from 'lwc';

export default class PageErrors extends LightningElement {
    /** What could not be done ("We couldn't save this dashboard."). */
    @api heading = '';
    /** The server's messages for the whole page (strings). */
    @api messages = [];

    get shown() {
        return (this.messages || []).length > 0;
    }

    get items() {
        return (this.messages || []).map((message, i) => ({ key: i, message }));
    }
}
