// The global header of Lightning Experience (SLDS "Global Header" blueprint): the org's logo, global search,
// and the global actions (favorites, Global Actions, Help, the Setup gear, notifications, the user's menu).
import { LightningElement, api } from 'lwc';
import { navigate } from 'one/navigation';

export default class GlobalHeader extends LightningElement {
    @api orgName = 'Salesforce';
    @api userName = '';
    @api userLogin = '';
    @api query = '';
    @api searchUrl = '/lightning/search';
    @api setupUrl = '/lightning/setup/SetupOneHome/home';
    @api logoutUrl = '/secur/logout.jsp';
    /** [{label, url, icon}]: the Global Actions menu (New Event, New Task, ...). */
    @api globalActions = [];

    favorite = false;

    toggleFavorite() {
        this.favorite = !this.favorite;
    }

    handleSearchKey(event) {
        if (event.key !== 'Enter') return;
        const term = (event.target.value || '').trim();
        if (!term) return;
        navigate(`${this.searchUrl}?q=${encodeURIComponent(term)}`);
    }
}
