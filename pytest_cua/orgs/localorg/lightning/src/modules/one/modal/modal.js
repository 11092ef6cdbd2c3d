// A modal dialog of a component (SLDS modal blueprint): "Cancel and close" at the top, the heading, the caller's
// content (the default slot), Cancel and the confirming button in the footer, the backdrop behind. Escape, the
// close button and Cancel fire `cancel`; the confirming button fires `confirm`. The caller makes the page behind
// it inert (one/dialogFocus.holdBehindDialog) and handles its own content's keys (Enter to save).
import { LightningElement, api } from 'lwc';

export default class Modal extends LightningElement {
    /** The dialog's title, its accessible name ("Save Report", "Select Report"). */
    @api heading = '';
    /** The confirming button's label ("Save", "Select", "Add"). */
    @api confirmLabel = 'Save';

    handleKeydown(event) {
        if (event.key === 'Escape') this.cancel();
    }

    cancel() {
        this.dispatchEvent(new CustomEvent('cancel'));
    }

    confirm() {
        this.dispatchEvent(new CustomEvent('confirm'));
    }
}
