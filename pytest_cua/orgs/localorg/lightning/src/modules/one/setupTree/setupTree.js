// Lightning Setup's tree, left of every Setup page: the Quick Find box, Setup Home, then the sections
// (Administration, Platform Tools, Settings), each a lightning-tree of collapsible groups holding the pages.
// Groups are collapsed but for the ones holding the current page; Quick Find keeps the pages whose label, or a
// group's label above them, contains the text, with their groups expanded. A click on a group's label expands or
// collapses it, as its chevron does; a page is a link. The current page is the tree's selected item. Setup's
// Classic frame names the page it shows with a `one-setup-current` event on the window (its page segment).
import { LightningElement, api, track } from 'lwc';

const GROUP = 'group:';

export default class SetupTree extends LightningElement {
    /** The sections: [{label, groups: [{label, groups, items}], items: [{label, url, page}]}]. */
    @api sections = [];
    /** Setup Home's address. */
    @api home = '/lightning/setup/SetupOneHome/home';
    /** The current page's segment (`Roles` for /lightning/setup/Roles/home). */
    @api
    get current() {
        return this.page;
    }
    set current(value) {
        this.page = value || '';
    }

    @track page = '';
    @track query = '';
    /** A group's name -> expanded, for the groups a person expanded or collapsed. */
    @track toggled = {};

    connectedCallback() {
        this.onCurrent = (event) => {
            this.page = String(event.detail || '');
        };
        window.addEventListener('one-setup-current', this.onCurrent);
    }

    disconnectedCallback() {
        window.removeEventListener('one-setup-current', this.onCurrent);
    }

    get searching() {
        return this.query.trim() !== '';
    }

    get homeItems() {
        const label = 'Setup Home';
        if (this.searching && !label.toLowerCase().includes(this.needle)) return [];
        return [{ label, name: this.home, href: this.home }];
    }

    get homeSelected() {
        return this.page === 'SetupOneHome' ? this.home : null;
    }

    get needle() {
        return this.query.trim().toLowerCase();
    }

    /** One lightning-tree per section that shows anything: {key, header, items, selected}. */
    get trees() {
        const out = [];
        for (const section of this.sections || []) {
            const items = this.nodes(section, section.label, false);
            if (items.length) {
                out.push({ key: section.label, header: section.label, items, selected: this.selectedIn(section) });
            }
        }
        return out;
    }

    get nothingFound() {
        return this.searching && this.homeItems.length === 0 && this.trees.length === 0;
    }

    /** The tree items of `node`'s groups and pages, filtered by Quick Find (`shown`: an enclosing group matched). */
    nodes(node, path, shown) {
        const out = [];
        for (const group of node.groups || []) {
            const name = `${GROUP}${path}/${group.label}`;
            const matched = this.searching && group.label.toLowerCase().includes(this.needle);
            const items = this.nodes(group, `${path}/${group.label}`, shown || matched);
            if (!items.length) continue;
            let expanded = this.holds(group, this.page);
            if (this.searching) expanded = true;
            else if (name in this.toggled) expanded = this.toggled[name];
            out.push({ label: group.label, name, expanded, items });
        }
        for (const item of node.items || []) {
            if (this.searching && !shown && !item.label.toLowerCase().includes(this.needle)) continue;
            out.push({ label: item.label, name: item.url, href: item.url });
        }
        return out;
    }

    /** Whether `node` (a group) holds the page `page`. */
    holds(node, page) {
        if (!page) return false;
        return (node.items || []).some((i) => i.page === page) || (node.groups || []).some((g) => this.holds(g, page));
    }

    /** The name (address) of the current page's item in `section`, or null. */
    selectedIn(section) {
        const find = (node) => {
            const here = (node.items || []).find((i) => i.page === this.page);
            if (here) return here.url;
            for (const group of node.groups || []) {
                const found = find(group);
                if (found) return found;
            }
            return null;
        };
        return this.page ? find(section) : null;
    }

    handleFind(event) {
        this.query = event.detail.value || '';
    }

    /** A chevron expanded or collapsed a group: remember it. */
    handleToggle(event) {
        const { key, expand } = event.detail;
        if (key && key.startsWith(GROUP)) this.toggled = { ...this.toggled, [key]: expand };
    }

    /** A click on a group's label expands or collapses it; a page's label is its link (the browser follows it). */
    handleSelect(event) {
        const name = event.detail.name;
        if (!name || !name.startsWith(GROUP) || this.searching) return;
        const tree = event.currentTarget;
        const item = this.findItem(tree.items, name);
        const expanded = item ? item.expanded : false;
        this.toggled = { ...this.toggled, [name]: !expanded };
    }

    findItem(items, name) {
        for (const item of items || []) {
            if (item.name === name) return item;
            const found = this.findItem(item.items, name);
            if (found) return found;
        }
        return null;
    }
}
