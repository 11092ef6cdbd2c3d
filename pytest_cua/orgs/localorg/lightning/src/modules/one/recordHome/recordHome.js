// A record's home as Lightning Experience shows it: the highlights panel (the object's icon, its label above the
// record's name, Follow, the actions and "Show more actions", the compact layout's fields), the path where the
// object has one, and the Related, Details and Activity tabs (related lists as cards, the page layout's sections,
// the activity composer's New Task / Log a Call / New Event and the timeline).
import { LightningElement, api } from 'lwc';
import { navigate, post } from 'one/navigation';

export default class RecordHome extends LightningElement {
    @api objectName = '';
    @api objectLabel = '';
    @api iconName = 'standard:record';
    @api recordId = '';
    @api name = '';
    /** Account: the highlights panel's "View Account Hierarchy" button. */
    @api hierarchyUrl = '';
    /** [{key, label, text, link}]: the compact layout's fields. */
    @api highlights = [];
    /** [{label, url}]: the buttons beside Follow. */
    @api actions = [];
    /** [{label, url} | {label, postUrl}]: "Show more actions". */
    @api moreActions = [];
    @api note = '';
    /** The path's props (one-record-path), or null. */
    @api path = null;
    /** [{key, title, iconName, actions, viewAllUrl, columns, rows}]: one card per related list. */
    @api related = [];
    /** {composer: [{label, iconName, url}], upcoming: [item], past: [item]} or null: the Activity tab, whose
     * items are {key, subject, kind, iconName, url, date}. */
    @api activity = null;
    /** [{key, label, fields}]: the Details tab's sections. */
    @api sections = [];
    @api csrfField = '';
    @api csrf = '';

    following = false;

    get hasMoreActions() {
        return this.moreActions.length > 0;
    }

    get hasRelated() {
        return this.related.length > 0;
    }

    /** The Activity tab's timeline: its two parts, each with Salesforce's words when it is empty. */
    get timeline() {
        if (!this.activity) return [];
        return [
            { key: 'upcoming', label: 'Upcoming & Overdue', items: this.activity.upcoming,
              empty: 'No next steps. To get things moving, add a task or set up a meeting.' },
            { key: 'past', label: 'Past Activities', items: this.activity.past,
              empty: 'No past activity. Past meetings and tasks marked as done show up here.' },
        ];
    }

    get menuItems() {
        return this.moreActions.map((a, i) => ({ ...a, key: `${i}-${a.label}`, value: String(i) }));
    }

    follow() {
        this.following = !this.following;
    }

    go(event) {
        navigate(event.currentTarget.dataset.url);
    }

    more(event) {
        const action = this.moreActions[Number(event.detail.value)];
        if (!action) return;
        if (action.postUrl) {
            post(action.postUrl, { [this.csrfField]: this.csrf });
        } else {
            navigate(action.url);
        }
    }
}
