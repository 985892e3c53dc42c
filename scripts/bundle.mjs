// Writes the package's entry files into <dist dir> from the ES modules under js/ and the
// wasm-bindgen glue in js/wasm/ (one `--target web` run, scripts/build.sh), with esbuild:
//   lib/esm/web.js    the one body: js/entries/web.js, the facade and the minified glue in one
//                     ES module (one file to load; the facade calls the glue directly)
//   cutover.{cjs,browser,deno,workerd,edge-light}.mjs  copied from js/entries/
//   cutover.node.mjs  Node's entry: the body, with the wasm beside it instantiated at load
//   cutover.web.mjs   cutover/web: the body's names, and init()
// One body for every runtime: Node's CommonJS entry require()s the ES module entry (Node 20.19+,
// Bun, Deno). Two copies (a CommonJS body beside the ESM one) cost the tarball the whole second
// copy once the facade outgrew gzip's 32 KB window: 131,184 B against 118,892 B before.
// The facade keeps its identifiers, so stack traces and `constructor.name` name cutover's own
// classes and functions; only the glue is minified.
// Usage: node scripts/bundle.mjs <dist dir>
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dist = resolve(process.argv[2]);
const root = new URL('..', import.meta.url).pathname;
const js = (p) => join(root, 'js', p);
const banner = '// cutover: built by scripts/bundle.mjs from js/; do not edit.';
mkdirSync(join(dist, 'lib/esm'), { recursive: true });
writeFileSync(join(dist, 'lib/esm/package.json'), '{ "type": "module" }\n');
const common = { bundle: true, target: 'es2022', legalComments: 'none', logLevel: 'warning', absWorkingDir: root };
const GLUE = /\/wasm\/cutover\.js$/;

// The wasm's import and export names, as wasm-opt shortened them (scripts/build.sh saved its map
// in js/wasm/minify.json: 118,892 → 115,081 B of tarball): the glue's properties of those names
// are renamed to match by esbuild's own property mangling, given that map as its cache (and no
// other name: the pattern is the map's names exactly).
const minified = JSON.parse(readFileSync(js('wasm/minify.json'), 'utf8'));
const [{ module }] = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(join(dist, 'cutover_bg.wasm'))));
const mangleCache = {
  './cutover_bg.js': module,
  ...Object.fromEntries(minified.imports.map(([, from, to]) => [from, to])),
  ...Object.fromEntries(minified.exports),
};
const exactly = (names) => new RegExp(`^(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
// The glue, minified (the facade is not: see above), then inlined into the body.
const glueBuild = await build({
  ...common,
  entryPoints: [js('wasm/cutover.js')],
  format: 'esm',
  platform: 'neutral',
  minify: true,
  write: false,
  mangleProps: exactly(Object.keys(mangleCache)),
  mangleQuoted: true,
  mangleCache,
  // The bridge the wasm imports (src/js/bridge.rs) is the facade's own module: left to the body
  // build, so that it is bundled once, with the facade.
  plugins: [{
    name: 'bridge-outside-glue',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/bridge\.js$/ }, (args) => ({ path: args.path, external: true }));
    },
  }],
});
const renamed = Object.entries(glueBuild.mangleCache).filter(([from, to]) => mangleCache[from] !== to);
if (renamed.length > 0) throw new Error(`bundle: esbuild renamed wasm names outside wasm-opt's map: ${renamed}`);
const [glue] = glueBuild.outputFiles;

const body = await build({
  ...common,
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: banner },
  entryPoints: [js('entries/web.js')],
  outfile: join(dist, 'lib/esm/web.js'),
  format: 'esm',
  platform: 'neutral',
  metafile: true,
  plugins: [{
    name: 'minified-glue',
    setup(b) {
      b.onResolve({ filter: GLUE }, () => ({ path: 'glue.js', namespace: 'minified-glue' }));
      b.onLoad({ filter: /.*/, namespace: 'minified-glue' }, () => ({ contents: glue.text, loader: 'js', resolveDir: js('wasm') }));
    },
  }],
});

for (const file of ['cutover.cjs', 'cutover.browser.mjs', 'cutover.deno.mjs', 'cutover.workerd.mjs', 'cutover.edge-light.mjs']) {
  copyFileSync(js(`entries/${file}`), join(dist, file));
}
// The public names: the body's exports but the glue's two initialisers.
const names = Object.values(body.metafile.outputs)
  .flatMap((o) => o.exports)
  .filter((n) => n !== 'initGlue' && n !== 'initSync')
  .sort();
const exported = `{ ${names.join(', ')} }`;
// cutover/web: the names, and init() over the glue's, with the wasm beside this file (or beside
// a bundle made from it) as its default.
writeFileSync(
  join(dist, 'cutover.web.mjs'),
  `${banner}\nimport { initGlue } from './lib/esm/web.js';\n\nexport { ${names.join(', ')}, initSync } from './lib/esm/web.js';\n\n` +
    '/** `init()` with no argument fetches the wasm beside this file (or beside a bundle made from it). */\n' +
    'export default function init(options) {\n' +
    "  return initGlue(options === undefined ? { module_or_path: new URL('./cutover_bg.wasm', import.meta.url) } : options);\n" +
    '}\nexport { init };\n',
);
// Node: synchronous instantiation and no top-level await. cutover.cjs require()s the same body:
// one module instance for `import` and `require`, no dual-package hazard.
writeFileSync(
  join(dist, 'cutover.node.mjs'),
  `${banner}\n// Node's entry for import (cutover.cjs, for require(), loads the same body): the wasm beside\n` +
    '// it, compiled and instantiated synchronously at load (no top-level await).\n' +
    '// node:fs through process.getBuiltinModule (Node 20.16+, Bun), not `import`: the ES module\n' +
    '// facade of node:fs costs 2.1 ms of import time (cold start 10.9 → 9.6 ms, Node 20.20).\n' +
    "import { initSync } from './lib/esm/web.js';\n\n" +
    "const { readFileSync } = process.getBuiltinModule('node:fs');\n" +
    "initSync({ module: readFileSync(new URL('./cutover_bg.wasm', import.meta.url)) });\n\n" +
    `export ${exported} from './lib/esm/web.js';\n`,
);
// js/index.d.ts re-exports the parts of js/types/; the package gets them as one dist/index.d.ts
// (one file in the tarball instead of eight: 1.5 KB of the 120 KB bound), without the imports
// between the parts and their header comments.
const parts = [...readFileSync(js('index.d.ts'), 'utf8').matchAll(/^export \* from '\.\/types\/([\w-]+)\.js';$/gm)].map((m) => m[1]);
const declarations = parts.map((part) =>
  readFileSync(js(`types/${part}.d.ts`), 'utf8')
    .replace(/^import type \{[^}]*\} from '\.\/[\w-]+\.js';\n/gm, '')
    .replace(/^(\/\/.*\n)+\n?/, ''),
);
if (parts.length === 0 || declarations.some((d) => d.includes("from './"))) throw new Error('bundle: js/types/ parts not concatenable');
writeFileSync(join(dist, 'index.d.ts'), `// The public types of cutover (js/types/*.d.ts). All durations are milliseconds; timestamps epoch ms.\n\n${declarations.join('\n')}`);
copyFileSync(js('web.d.mts'), join(dist, 'web.d.mts'));
// ESM and CommonJS resolution under `nodenext` get their own entry files that re-export the one
// set of declarations (one copy in the package instead of three).
for (const file of ['index.d.mts', 'index.d.cts']) {
  writeFileSync(join(dist, file), "// cutover's declarations live in index.d.ts.\nexport * from './index.js';\n");
}
