// The App Launcher: the waffle's panel (search apps and items, the apps with their own icons, View All) and the full App Launcher
// modal that View All opens (All Apps, All Items). Escape or a click outside closes it (event `close`).
import { LightningElement, api } from 'lwc';

const SHOWN_APPS = 7;
const SHOWN_ITEMS = 10;

export default class AppLauncher extends LightningElement {
    @api apps = [];
    @api items = [];

    term = '';
    showAll = false;
    allSections = ['apps', 'items'];
    focused = false;

    connectedCallback() {
        this.outside = () => this.close();
        // a click elsewhere on the page closes the launcher; its own clicks stop at its root (stop), but for its links
        window.setTimeout(() => document.addEventListener('click', this.outside));
    }

    disconnectedCallback() {
        document.removeEventListener('click', this.outside);
    }

    renderedCallback() {
        if (!this.focused) {
            const search = this.template.querySelector('.one-launcher-search');
            if (search) {
                search.focus();
                this.focused = true;
            }
        }
    }

    match(list) {
        const term = this.term.trim().toLowerCase();
        return term ? list.filter((x) => x.label.toLowerCase().includes(term)) : list;
    }

    get matchingApps() {
        // each app with its own icon: its initials on its colour (SLDS's App Launcher tile), from the server
        const apps = this.match(this.apps).map((app) => ({
            ...app,
            initialsClass: `slds-avatar__initials ${app.colour || 'slds-icon-custom-27'}`,
        }));
        return this.showAll ? apps : apps.slice(0, SHOWN_APPS);
    }

    get matchingItems() {
        // the panel lists items only for a search, as Lightning does; the full launcher lists them all
        if (!this.showAll && !this.term.trim()) return [];
        const items = this.match(this.items);
        return this.showAll ? items : items.slice(0, SHOWN_ITEMS);
    }

    get hasApps() {
        return this.matchingApps.length > 0;
    }

    get hasItems() {
        return this.matchingItems.length > 0;
    }

    get noMatch() {
        return this.term.trim() !== '' && !this.hasApps && !this.hasItems;
    }

    handleSearch(event) {
        this.term = event.target.value || '';
    }

    handleKey(event) {
        if (event.key === 'Escape') {
            event.stopPropagation();
            this.close();
        }
    }

    stop(event) {
        // a click on an app or an item leaves the launcher, closed, for the page it names (the shell's router
        // shows it); any other click inside it stays inside
        const link = event.composedPath().find((node) => node.tagName === 'A' && node.hasAttribute('href'));
        if (link) {
            this.close();
            return;
        }
        event.stopPropagation();
    }

    openAll() {
        this.showAll = true;
        this.focused = false;
    }

    close() {
        this.dispatchEvent(new CustomEvent('close'));
    }
}
