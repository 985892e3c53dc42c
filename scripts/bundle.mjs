// Writes the package's entry files into <dist dir> from the ES modules under js/ and the
// wasm-bindgen glue in js/wasm/ (one `--target web` run, scripts/build.sh), with esbuild:
//   lib/glue.js, lib/esm/glue.js  the glue, minified (CommonJS and ESM)
//   lib/api.js, lib/esm/api.js    the facade with its entry code (js/entries/node.js, web.js),
//                                 its identifiers kept, so stack traces and `constructor.name`
//                                 name cutover's own classes and functions; it imports ./glue.js
//   cutover.{cjs,web.mjs,node,browser,deno,workerd,edge-light}.mjs  copied from js/entries/
// Layout. npm packs files sorted by extension, then path: the CommonJS and ESM copies of the same
// code sit next to each other in the tarball (api next to esm/api, esm/glue next to glue), where
// gzip finds the second in its 32 KB window (~9 KB less than one bundle per format, whose copies
// are too large for the window).
// Usage: node scripts/bundle.mjs <dist dir>
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dist = resolve(process.argv[2]);
const root = new URL('..', import.meta.url).pathname;
const js = (p) => join(root, 'js', p);
mkdirSync(join(dist, 'lib/esm'), { recursive: true });
writeFileSync(join(dist, 'lib/esm/package.json'), '{ "type": "module" }\n');

const common = {
  bundle: true,
  target: 'es2022',
  legalComments: 'none',
  banner: { js: '// cutover: built by scripts/bundle.mjs from js/; do not edit.' },
  logLevel: 'warning',
  absWorkingDir: root,
};
const formats = [
  { dir: 'lib', format: 'cjs', platform: 'node', entry: 'entries/node.js' },
  { dir: 'lib/esm', format: 'esm', platform: 'neutral', entry: 'entries/web.js' },
];
/** The facade's imports of the glue stay imports of the glue file next to it. */
const glueExternal = {
  name: 'glue-external',
  setup(b) {
    b.onResolve({ filter: /\/wasm\/cutover\.js$/ }, () => ({ path: './glue.js', external: true }));
  },
};
for (const { dir, format, platform, entry } of formats) {
  // The glue's default `init()` URL (new URL(…, import.meta.url)) is unused in CommonJS: initSync.
  const logOverride = format === 'cjs' ? { 'empty-import-meta': 'silent' } : {};
  await build({ ...common, entryPoints: [js('wasm/cutover.js')], outfile: join(dist, dir, 'glue.js'), format, platform, minify: true, logOverride });
  await build({
    ...common,
    entryPoints: [js(entry)],
    outfile: join(dist, dir, 'api.js'),
    format,
    platform,
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [glueExternal],
  });
}

for (const file of ['cutover.cjs', 'cutover.web.mjs', 'cutover.node.mjs', 'cutover.browser.mjs', 'cutover.deno.mjs', 'cutover.workerd.mjs', 'cutover.edge-light.mjs']) {
  copyFileSync(js(`entries/${file}`), join(dist, file));
}
copyFileSync(js('index.d.ts'), join(dist, 'index.d.ts'));
copyFileSync(js('web.d.mts'), join(dist, 'web.d.mts'));
// ESM and CommonJS resolution under `nodenext` get their own entry files that re-export the one
// set of declarations (one copy in the package instead of three).
for (const file of ['index.d.mts', 'index.d.cts']) {
  writeFileSync(join(dist, file), "// cutover's declarations live in index.d.ts.\nexport * from './index.js';\n");
}
