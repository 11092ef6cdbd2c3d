// A report's chart drawn from its run (the server's `report_table.chart`: the first row group's values as `bars`,
// the grand `total`, the chart's `kind`): bars across (Bar, Stacked Bar, Funnel centered), columns (Column,
// Stacked Column), points (Line joined, Scatter), a donut with its legend, a metric or gauge as the total, a
// Lightning Table as a table. The report builder's preview and the dashboard builder's component cards draw with
// it, as the report run and dashboard pages draw the same shapes (`_report_chart.html`). Named for assistive
// technology as "<type> chart: <summary> by <group>" (`label` overrides the name).
import { LightningElement, api } from 'lwc';

const CHART_COLORS = ['#1b96ff', '#fe9339', '#04844b', '#9050e9', '#ff538a', '#06a59a', '#dd7a01', '#0b5cab'];

export default class ReportChart extends LightningElement {
    /** {type, kind, title, bars: [{label, value, text, share}], total, measure, group, showValues}, or null. */
    @api chart = null;
    /** The drawing's accessible name, when the caller names it (the report builder's "Bar chart: ..."). */
    @api label = '';
    /** What shows while there is nothing to draw (no chart yet, or no groups). */
    @api empty = '';

    get emptyText() {
        return this.empty || 'No data to display: group the report\'s rows to chart them.';
    }

    get bars() {
        return (this.chart && Array.isArray(this.chart.bars)) ? this.chart.bars : [];
    }

    get isMetric() {
        return Boolean(this.chart) && this.chart.kind === 'metric';
    }

    get isTable() {
        return Boolean(this.chart) && this.chart.kind === 'table';
    }

    get metricLabel() {
        return `${this.chart.type}: ${this.chart.measure} ${this.chart.total}`;
    }

    get tableRows() {
        return this.bars.map((b, i) => ({ key: `row-${i}`, label: b.label, text: b.text }));
    }

    get tableGroup() {
        return this.chart.group || 'Total';
    }

    get isEmpty() {
        return !this.chart || (!this.isMetric && !this.isTable && !this.bars.length);
    }

    /** The shapes of a chart of bars, columns, points or a donut; null for the other kinds. */
    get drawing() {
        const c = this.chart;
        if (!c || this.isMetric || this.isTable || !this.bars.length) return null;
        const bars = this.bars;
        const n = bars.length;
        const kind = c.kind;
        const across = kind === 'horizontal' || kind === 'funnel';
        const donut = kind === 'donut';
        const step = Math.min(60, 360 / n);
        const total = bars.reduce((sum, b) => sum + b.value, 0) || 1;
        let at = 0;
        const shapes = bars.map((b, i) => {
            const width = Math.max(b.share * 2.4, 1);
            const x = 30 + step * i;
            const mid = x + step * 0.35;
            const y = 160 - 1.4 * b.share;
            const share = Math.round((10000 * b.value) / total) / 100;
            const previous = i ? 160 - 1.4 * bars[i - 1].share : y;
            const shape = {
                key: `bar-${i}`, label: short(b.label, 22), tick: short(b.label, 12), text: b.text,
                tip: `${b.label}: ${b.text}`,
                // bars across
                rowY: 12 + 22 * i, textY: 24 + 22 * i, barX: 130 + (kind === 'funnel' ? (240 - width) / 2 : 0), width,
                valueX: 134 + width + (kind === 'funnel' ? (240 - width) / 2 : 0),
                // columns and points
                x, mid, y, columnWidth: step * 0.7, height: Math.max(1.4 * b.share, 1), valueY: y - 5,
                joinFromX: mid - step, joinFromY: previous, joined: kind === 'line' && i > 0,
                // donut
                dash: `${share} 100`, offset: -at, color: CHART_COLORS[i % CHART_COLORS.length],
                legendY: 15 + 22 * i, legend: c.showValues ? `${b.label}: ${b.text}` : b.label,
            };
            at += share;
            return shape;
        });
        return {
            shapes, across, donut, columns: kind === 'vertical', total: c.total, showValues: Boolean(c.showValues),
            label: this.label || `${c.type} chart: ${c.measure} by ${c.group}`,
            viewBox: across ? `0 0 400 ${20 + 22 * n}` : donut ? `0 0 400 ${Math.max(170, 30 + 22 * n)}` : '0 0 400 190',
        };
    }
}

/** ``text`` cut to ``length`` characters with an ellipsis (a label under a column, beside a bar; the whole label
 * is the shape's title). */
function short(text, length) {
    const s = String(text == null ? '' : text);
    return s.length <= length ? s : `${s.slice(0, length - 1)}…`;
}
