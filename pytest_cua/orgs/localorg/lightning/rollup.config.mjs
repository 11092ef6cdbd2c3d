// Compiles the embedded org's Lightning UI: our `one` components (src/modules/one) with Salesforce's base
// components (npm lightning-base-components) on the LWC engine with synthetic shadow, as Lightning Experience
// runs them, into one script. Run by scripts/build_lightning.sh from its work folder (the sources copied there,
// beside node_modules), never by hand: ONE_OUT names the output file.
import lwc from '@lwc/rollup-plugin';
import replace from '@rollup/plugin-replace';
import terser from '@rollup/plugin-terser';

const out = process.env.ONE_OUT;
if (!out) throw new Error('rollup.config.mjs: ONE_OUT (the output file) is not set; run scripts/build_lightning.sh');

export default {
  input: 'src/main.js',
  output: { file: out, format: 'iife', inlineDynamicImports: true, sourcemap: false },
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
  ],
};
