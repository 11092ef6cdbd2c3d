// "Display As": the chart types as a group of icon buttons, the chosen one pressed (the report builder's Chart
// Properties, the dashboard builder's Add Component). A click chooses a type: `change` ({value}).
import { LightningElement, api } from 'lwc';

// each type's icon, by its label (the types with none show the bar chart's)
const ICONS = { Line: 'utility:line_chart', Scatter: 'utility:line_chart', Donut: 'utility:donut_chart',
    Funnel: 'utility:filterList', Gauge: 'utility:metrics', Metric: 'utility:metrics', 'Lightning Table': 'utility:table' };

export default class DisplayAs extends LightningElement {
    /** The types: [{value, label}]. */
    @api options = [];
    /** The chosen type's value. */
    @api value = '';

    get buttons() {
        return (this.options || []).map((o) => ({
            ...o, selected: o.value === this.value, iconName: ICONS[o.label] || 'utility:chart',
        }));
    }

    handleClick(event) {
        this.dispatchEvent(new CustomEvent('change', { detail: { value: event.currentTarget.dataset.value } }));
    }
}
