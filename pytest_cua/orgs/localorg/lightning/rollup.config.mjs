// Compiles the embedded org's Lightning UI: our `one` components (src/modules/one) with Salesforce's base
// components (npm lightning-base-components) on the LWC engine with synthetic shadow, as Lightning Experience
// runs them, into ES modules: the shell every page loads (`one`, src/main.js), one entry per page component
// (`one-list-view`, ... from src/entries/, added by the server to the pages that have that component) and the
// chunks they share (the engine, the base components), every file named by its content's hash. ENTRIES (JSON,
// beside them) maps each entry's name to its file. Run by scripts/build_lightning.sh from its work folder (the
// sources copied there, beside node_modules), never by hand: ONE_OUT names the output folder.
import lwc from '@lwc/rollup-plugin';
import replace from '@rollup/plugin-replace';
import terser from '@rollup/plugin-terser';

const out = process.env.ONE_OUT;
if (!out) throw new Error('rollup.config.mjs: ONE_OUT (the output folder) is not set; run scripts/build_lightning.sh');

export default {
  input: {
    one: 'src/main.js',
    'one-analytics-home': 'src/entries/analyticsHome.js',
    'one-dashboard-builder': 'src/entries/dashboardBuilder.js',
    'one-date': 'src/entries/dateInput.js',
    'one-list-view': 'src/entries/listView.js',
    'one-lookup': 'src/entries/lookup.js',
    'one-picklist': 'src/entries/picklist.js',
    'one-record-home': 'src/entries/recordHome.js',
    'one-report-builder': 'src/entries/reportBuilder.js',
    'one-setup-header': 'src/entries/setupHeader.js',
    'one-setup-tree': 'src/entries/setupTree.js',
    'one-table-find': 'src/entries/tableFind.js',
  },
  output: { dir: out, entryFileNames: '[name]-[hash].js', chunkFileNames: '[name]-[hash].js', format: 'es',
            sourcemap: false },
  onwarn(warning, warn) {
    // the base components' own template warnings are Salesforce's; ours must build clean
    if (warning.id && warning.id.includes('node_modules')) return;
    if (warning.code === 'CIRCULAR_DEPENDENCY' && (warning.ids || []).some((id) => id.includes('node_modules'))) return;
    warn(warning);
  },
  plugins: [
    replace({
      preventAssignment: true,
      values: { 'process.env.NODE_ENV': JSON.stringify('production'), 'import.meta.env.SSR': 'false' },
    }),
    lwc({
      rootDir: 'src',
      modules: [{ dir: 'modules' }, { npm: 'lightning-base-components' }],
      // the base components use lwc:is (dynamic components) and the combobox's form internals
      enableDynamicComponents: true,
      enableSyntheticElementInternals: true,
    }),
    terser({ format: { comments: false } }),
    {
      name: 'one-entries',
      generateBundle(_options, bundle) {
        const entries = {};
        for (const chunk of Object.values(bundle)) {
          if (chunk.type === 'chunk' && chunk.isEntry) entries[chunk.name] = chunk.fileName;
        }
        this.emitFile({ type: 'asset', fileName: 'ENTRIES', source: `${JSON.stringify(entries, null, 1)}\n` });
      },
    },
  ],
};
