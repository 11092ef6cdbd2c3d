// Lightning Setup's Quick Find over a list the server rendered (Object Manager's objects, an object's fields and
// validation rules): typing hides the rows that do not contain the text and updates the list's count ("4 Items,
// Sorted by Label").
import { LightningElement, api } from 'lwc';

export default class TableFind extends LightningElement {
    /** The id of the server-rendered table whose body rows are filtered. */
    @api table = '';
    /** The id of the element that counts the shown rows (none when empty). */
    @api counter = '';
    /** The column the list is sorted by, as its count names it ("Label", "Field Label"). */
    @api sortedBy = 'Label';

    handleFind(event) {
        const needle = (event.detail.value || '').trim().toLowerCase();
        const table = document.getElementById(this.table);
        if (!table) return;
        let shown = 0;
        for (const row of table.querySelectorAll('tbody tr')) {
            row.hidden = needle !== '' && !row.textContent.toLowerCase().includes(needle);
            if (!row.hidden) shown += 1;
        }
        const counter = this.counter ? document.getElementById(this.counter) : null;
        if (counter) counter.textContent = `${shown} ${shown === 1 ? 'Item' : 'Items'}, Sorted by ${this.sortedBy}`;
    }
}
