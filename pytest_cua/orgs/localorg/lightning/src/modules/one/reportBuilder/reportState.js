// The report being built, as plain data, and the edits the builder makes to it. Every function returns a new
// report (the component's tracked state is replaced, never changed in place).
//
// A report: {down: [field], across: [field], columns: [field], summaries: ['s!AMOUNT'], filters: [[field,
// operator, value]], cross: [{entity, with, criteria: [[field, operator, value]]}], down_dates / across_dates:
// {field: granularity}, scope, dateFilter: {column, durationValue}, logic, logicShown, chart: null | {type,
// title, showValues, legend}, name, developerName, description, folder, run}.

const LISTS = ['down', 'across', 'columns', 'summaries', 'filters', 'cross'];
const MAX_ROW_GROUPS = 3; // Salesforce's limits: three row groups (two in a matrix), two column groups
const MAX_COLUMN_GROUPS = 2;

export function normalized(raw, fields) {
    const r = raw && typeof raw === 'object' ? raw : {};
    const out = {};
    for (const key of LISTS) out[key] = Array.isArray(r[key]) ? r[key] : [];
    out.down_dates = r.down_dates && typeof r.down_dates === 'object' ? r.down_dates : {};
    out.across_dates = r.across_dates && typeof r.across_dates === 'object' ? r.across_dates : {};
    out.scope = r.scope || 'organization';
    const firstDate = (fields || []).find((f) => isDate(f));
    out.dateFilter = r.dateFilter && r.dateFilter.column ? r.dateFilter
        : { column: firstDate ? firstDate.name : 'CREATED_DATE', durationValue: 'CUSTOM' };
    out.logic = r.logic || '';
    out.logicShown = Boolean(r.logicShown || r.logic);
    out.chart = r.chart && r.chart.type ? r.chart : null;
    for (const key of ['name', 'developerName', 'description']) out[key] = r[key] || '';
    out.folder = r.folder || 'private';
    out.run = Boolean(r.run);
    return out;
}

export function isDate(field) {
    return Boolean(field) && (field.kind === 'date' || field.kind === 'datetime');
}

export function isSummable(field) {
    return Boolean(field) && ['currency', 'double', 'int', 'percent', 'boolean'].includes(field.kind);
}

export function canGroup(r, key) {
    if (key === 'across') return r.down.length > 0 && r.across.length < MAX_COLUMN_GROUPS;
    return r.down.length < (r.across.length ? MAX_COLUMN_GROUPS : MAX_ROW_GROUPS);
}

/** Group rows (key 'down') or columns ('across') by a field; a field grouped is no longer a detail column. */
export function addGroup(r, key, name) {
    if (!name || r.down.includes(name) || r.across.includes(name) || !canGroup(r, key)) return r;
    return { ...r, [key]: [...r[key], name], columns: r.columns.filter((c) => c !== name) };
}

export function removeGroup(r, key, index) {
    if (index < 0 || index >= r[key].length) return r;
    const gone = r[key][index];
    const dates = { ...r[`${key}_dates`] };
    delete dates[gone];
    const next = { ...r, [key]: r[key].filter((g, i) => i !== index), [`${key}_dates`]: dates };
    // without row groups there are no column groups (a matrix needs both)
    if (key === 'down' && next.down.length === 0) {
        next.across = [];
        next.across_dates = {};
        next.chart = null;
    }
    return next;
}

export function groupDateBy(r, key, name, granularity) {
    return { ...r, [`${key}_dates`]: { ...r[`${key}_dates`], [name]: granularity } };
}

export function addColumn(r, name) {
    if (!name || r.columns.includes(name) || r.down.includes(name) || r.across.includes(name)) return r;
    return { ...r, columns: [...r.columns, name] };
}

export function removeColumn(r, name) {
    return { ...r, columns: r.columns.filter((c) => c !== name),
        summaries: r.summaries.filter((s) => s.split('!')[1] !== name) };
}

export function toggleSummary(r, name, prefix) {
    const key = `${prefix}!${name}`;
    const summaries = r.summaries.includes(key) ? r.summaries.filter((s) => s !== key) : [...r.summaries, key];
    const columns = r.columns.includes(name) || r.down.includes(name) || r.across.includes(name)
        ? r.columns : [...r.columns, name];
    return { ...r, summaries, columns };
}

export function removeFilter(r, index) {
    return { ...r, filters: r.filters.filter((f, i) => i !== index) };
}

export function removeCriterion(r, cross, index) {
    return { ...r, cross: r.cross.map((x, i) => (i === cross
        ? { ...x, criteria: x.criteria.filter((c, j) => j !== index) } : x)) };
}

/** A new filter's popover on `field` (index -1) or an existing filter's (its index). */
export function filterDraft(field, index) {
    return { kind: 'filter', index, column: field ? field.name : '', operator: 'equals', value: '', relative: '' };
}

/** A date filter's value in the popover: a relative date literal is chosen as Relative Date. */
export function splitValue(field, value, relativeDates) {
    if (isDate(field) && relativeDates.some((d) => d.value === value)) return { value: '', relative: value };
    return { value, relative: '' };
}

/** The popover's Apply: {report} with the change, or {error} (the popover shows it, nothing changes). */
export function apply(r, editor, field) {
    if (editor.kind === 'scope') return { report: { ...r, scope: editor.scope } };
    if (editor.kind === 'date') {
        return { report: { ...r, dateFilter: { column: editor.column, durationValue: editor.durationValue } } };
    }
    if (editor.kind === 'cross') {
        if (!editor.entity) return { error: 'Choose the related object.' };
        const cross = { entity: editor.entity, with: editor.with !== 'without' };
        if (editor.index < 0) return { report: { ...r, cross: [...r.cross, { ...cross, criteria: [] }] } };
        return { report: { ...r, cross: r.cross.map((x, i) => (i === editor.index ? { ...x, ...cross } : x)) } };
    }
    if (editor.kind === 'criterion') {
        const column = (editor.column || '').trim();
        if (!column) return { error: 'Enter the field to filter.' };
        if (!editor.operator) return { error: 'Choose an operator.' };
        const criterion = [column, editor.operator, editor.value || ''];
        return { report: { ...r, cross: r.cross.map((x, i) => (i === editor.cross
            ? { ...x, criteria: [...x.criteria, criterion] } : x)) } };
    }
    if (!field) return { error: 'Choose the field to filter.' };
    if (!editor.operator) return { error: 'Choose an operator.' };
    if (editor.relative && !isDate(field)) return { error: 'A relative date filters a date field only.' };
    if (editor.relative && (editor.value || '').trim()) {
        return { error: 'Enter a value or choose a relative date, not both.' };
    }
    const filter = [field.name, editor.operator, editor.relative || editor.value || ''];
    if (editor.index < 0) return { report: { ...r, filters: [...r.filters, filter] } };
    return { report: { ...r, filters: r.filters.map((f, i) => (i === editor.index ? filter : f)) } };
}

export function newChart(charts) {
    const first = (charts || []).find((c) => c.value === 'Vertical Bar') || (charts || [])[0] || {};
    return { type: first.value || 'Vertical Bar', title: '', showValues: false, legend: 'Right' };
}

/** What Save posts: the report without the builder's own flags. */
export function posted(r) {
    const out = { ...r };
    if (!out.logicShown) out.logic = '';
    delete out.logicShown;
    return out;
}
