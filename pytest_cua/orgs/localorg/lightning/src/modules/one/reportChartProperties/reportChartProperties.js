// The report builder's Chart Properties panel: Display As (one button per chart type, the chosen one pressed),
// Chart Title, Show Values, Legend Position; every change goes up at once as `change` ({chart}), as Lightning's
// panel applies it to the preview. Close (`close`) and Remove Chart (`remove`).
import { LightningElement, api } from 'lwc';

const LEGENDS = ['Right', 'Bottom', 'Top'];

export default class ReportChartProperties extends LightningElement {
    /** {type, title, showValues, legend}. */
    @api chart = {};
    /** The chart types: [{value (the Analytics API's chartType), label (Lightning's name)}]. */
    @api charts = [];

    get legends() {
        return LEGENDS.map((l) => ({ value: l, label: l }));
    }

    handleType(event) {
        this.send({ type: event.detail.value });
    }

    handleTitle(event) {
        this.send({ title: event.target.value });
    }

    handleValues(event) {
        this.send({ showValues: event.target.checked });
    }

    handleLegend(event) {
        this.send({ legend: event.detail.value });
    }

    send(chart) {
        this.dispatchEvent(new CustomEvent('change', { detail: { chart } }));
    }

    close() {
        this.dispatchEvent(new CustomEvent('close'));
    }

    remove() {
        this.dispatchEvent(new CustomEvent('remove'));
    }
}
