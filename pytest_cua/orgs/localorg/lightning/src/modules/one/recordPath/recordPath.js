// The path of a record (SLDS path): one step per value of the path's field (Opportunity's Stage, Lead's and
// Case's Status), the closing values as one last step ("Closed", "Converted"). Choosing a step selects it; the
// button beside the track says what it does: "Mark <Stage> as Complete" on the current step (the next step
// becomes current), "Mark as Current <Stage>" on another step, "Select Closed Stage" / "Select Converted Status" on
// the closing step (a dialog choosing the closed stage; a lead's conversion), "Change Closed Stage" once closed.
import { LightningElement, api } from 'lwc';
import { navigate, post } from 'one/navigation';

export default class RecordPath extends LightningElement {
    /** {word, fieldLabel, current, steps: [{label, value, state, group, won, lost}], groupValues, groupTitle,
     *  postUrl, convertUrl} */
    @api path;
    @api csrfField = '';
    @api csrf = '';

    selected = -1;
    dialogOpen = false;
    closedValue = '';

    get steps() {
        return this.path ? this.path.steps : [];
    }

    get currentIndex() {
        return this.steps.findIndex((s) => s.state === 'current');
    }

    get selectedIndex() {
        return this.selected >= 0 ? this.selected : this.currentIndex;
    }

    get items() {
        return this.steps.map((step, i) => {
            const active = i === this.selectedIndex;
            const classes = ['slds-path__item', `slds-is-${step.state}`];
            if (active) classes.push('slds-is-active');
            if (step.won) classes.push('slds-is-won');
            if (step.lost) classes.push('slds-is-lost');
            let assistive = '';
            if (step.state === 'complete') assistive = 'Stage Complete';
            else if (step.state === 'current') assistive = 'Current Stage:';
            return { key: `${i}`, index: i, label: step.label, className: classes.join(' '), assistive,
                     selected: active ? 'true' : 'false', tabIndex: active ? '0' : '-1' };
        });
    }

    get word() {
        return this.path ? this.path.word : 'Stage';
    }

    get stageName() {
        return `${this.word}: ${this.path ? this.path.current : ''}`;
    }

    /** What the button does for the selected step: {label, kind: 'post' | 'group' | 'none', value}. */
    get action() {
        const steps = this.steps;
        const at = this.selectedIndex;
        const step = steps[at];
        const word = this.word;
        if (!step) return { label: `Mark ${word} as Complete`, kind: 'none' };
        if (step.group) {
            if (step.state === 'current') return { label: `Change Closed ${word}`, kind: 'group' };
            return { label: this.path.convertUrl ? `Select Converted ${word}` : `Select Closed ${word}`, kind: 'group' };
        }
        if (at !== this.currentIndex) {
            return { label: `Mark as Current ${word}`, kind: 'post', value: step.value };
        }
        const next = steps[at + 1];
        if (!next) return { label: `Mark ${word} as Complete`, kind: 'none' };
        if (next.group) return { label: `Mark ${word} as Complete`, kind: 'group' };
        return { label: `Mark ${word} as Complete`, kind: 'post', value: next.value };
    }

    get actionLabel() {
        return this.action.label;
    }

    get actionDisabled() {
        return this.action.kind === 'none';
    }

    get groupOptions() {
        return (this.path ? this.path.groupValues : []).map((v) => ({ label: v, value: v }));
    }

    get dialogTitle() {
        return this.path.groupTitle || `Close This Record`;
    }

    get saveDisabled() {
        return !this.closedValue;
    }

    choose(event) {
        event.preventDefault();
        this.selected = Number(event.currentTarget.dataset.index);
    }

    act() {
        const action = this.action;
        if (action.kind === 'post') {
            this.submit(action.value);
        } else if (action.kind === 'group') {
            if (this.path.convertUrl) {
                navigate(this.path.convertUrl);
            } else {
                this.closedValue = '';
                this.dialogOpen = true;
            }
        }
    }

    submit(value) {
        post(this.path.postUrl, { value, [this.csrfField]: this.csrf });
    }

    pickClosed(event) {
        this.closedValue = event.detail.value;
    }

    cancel() {
        this.dialogOpen = false;
    }

    save() {
        if (this.closedValue) this.submit(this.closedValue);
    }

    keydown(event) {
        if (event.key === 'Escape' && this.dialogOpen) this.cancel();
    }
}
