// The navigation bar of Lightning Experience (SLDS "Global Navigation" blueprint): the App Launcher waffle, the
// app's name and its tabs, each object tab with its menu ("New Account"), tabs past `shown` under "More".
import { LightningElement, api } from 'lwc';

export default class AppNav extends LightningElement {
    @api appName = 'Sales';
    /** [{label, url, newUrl?, newLabel?, current?}] in the app's order. */
    @api tabs = [];
    /** How many tabs the bar shows before "More". */
    @api shown = 10;
    /** The App Launcher's apps [{label, url, description, initials, colour}] and items [{label, url}]. */
    @api apps = [];
    @api items = [];

    launcherOpen = false;
    /** How many tabs fit the window (measured after rendering); null: not measured yet. */
    fitted = null;

    connectedCallback() {
        this.onResize = () => {
            this.fitted = null;
        };
        window.addEventListener('resize', this.onResize);
    }

    disconnectedCallback() {
        window.removeEventListener('resize', this.onResize);
    }

    get limit() {
        return Math.min(this.shown, this.fitted === null ? this.shown : this.fitted);
    }

    renderedCallback() {
        // one tab fewer until the row ends inside the bar (each change renders again and measures again)
        const bar = this.template.querySelector('.slds-context-bar');
        const items = this.template.querySelectorAll('.slds-context-bar__secondary > ul > li');
        if (!bar || !items.length) return;
        const last = items[items.length - 1].getBoundingClientRect();
        if (last.right > bar.getBoundingClientRect().right && this.limit > 1) {
            this.fitted = this.limit - 1;
        }
    }

    get launcherExpanded() {
        return this.launcherOpen ? 'true' : 'false';
    }

    decorate(tab) {
        return {
            ...tab,
            itemClass: 'slds-context-bar__item' + (tab.newUrl ? ' slds-context-bar__dropdown-trigger' : '')
                + (tab.current ? ' slds-is-active' : ''),
            current: tab.current ? 'page' : null,
            menuLabel: `${tab.label} List`,
        };
    }

    get shownTabs() {
        const first = this.tabs.slice(0, this.limit);
        const current = this.tabs.slice(this.limit).find((t) => t.current);
        // the open tab stays in the bar, as Lightning puts a current item from "More" there
        return (current ? [...first, current] : first).map((t) => this.decorate(t));
    }

    get moreTabs() {
        return this.tabs.slice(this.limit).filter((t) => !t.current);
    }

    get hasMore() {
        return this.moreTabs.length > 0;
    }

    toggleLauncher(event) {
        event.stopPropagation();
        this.launcherOpen = !this.launcherOpen;
    }

    closeLauncher() {
        this.launcherOpen = false;
        const waffle = this.template.querySelector('.slds-icon-waffle_container');
        if (waffle) waffle.focus();
    }
}
