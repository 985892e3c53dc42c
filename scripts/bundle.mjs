// Writes the package's entry files into <dist dir> from the ES modules under js/ and the
// wasm-bindgen glue in js/wasm/ (one `--target web` run, scripts/build.sh), with esbuild:
//   lib/esm/glue.js  the glue, minified (ES module)
//   lib/node.js      Node's CommonJS body: js/entries/node.js with the facade and that same
//                    minified glue in one file (one file to load, no interop getters: cold start)
//   lib/esm/web.js   the ESM body: js/entries/web.js with the facade; imports ./glue.js
//   cutover.{cjs,browser,deno,workerd,edge-light}.mjs  copied from js/entries/
//   cutover.web.mjs   cutover/web: the same names as the CommonJS body, and init()
//   cutover.node.mjs  Node's ESM entry, naming the CommonJS body's exports
// The facade keeps its identifiers, so stack traces and `constructor.name` name cutover's own
// classes and functions; only the glue is minified.
// Layout. npm packs files sorted by extension, then file name: esm/glue.js, node.js, esm/web.js,
// so each half of the CommonJS body sits next to its ESM copy in the tarball (the glue before
// it, the facade after it), where gzip finds it in its 32 KB window.
// Usage: node scripts/bundle.mjs <dist dir>
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const dist = resolve(process.argv[2]);
const root = new URL('..', import.meta.url).pathname;
const js = (p) => join(root, 'js', p);
const banner = '// cutover: built by scripts/bundle.mjs from js/; do not edit.';
mkdirSync(join(dist, 'lib/esm'), { recursive: true });
writeFileSync(join(dist, 'lib/esm/package.json'), '{ "type": "module" }\n');
const common = { bundle: true, target: 'es2022', legalComments: 'none', logLevel: 'warning', absWorkingDir: root };
const GLUE = /\/wasm\/cutover\.js$/;

// The glue with the wasm's import and export names as wasm-opt shortened them in <dist dir>'s
// wasm (--minify-imports-and-exports-and-modules in scripts/build.sh, which saved its map to
// js/wasm/minify.json): 118,892 → 115,081 B tarball, with build.sh. Every renaming is checked against the wasm.
function renamedGlue() {
  const map = JSON.parse(readFileSync(js('wasm/minify.json'), 'utf8'));
  const mod = new WebAssembly.Module(readFileSync(join(dist, 'cutover_bg.wasm')));
  const imports = WebAssembly.Module.imports(mod);
  const exports = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
  const modules = new Set(imports.map((i) => i.module));
  const fail = (why) => { throw new Error(`bundle: renaming the glue's wasm names: ${why}`); };
  if (modules.size !== 1) fail(`the wasm imports from ${[...modules].join(', ')}`);
  const id = (name) => name.replace(/\$/g, '\\$');
  let text = readFileSync(js('wasm/cutover.js'), 'utf8');
  const replace = (pattern, to, what) => {
    let n = 0;
    text = text.replace(pattern, () => (n++, to));
    if (n === 0) fail(`${what} not found`);
  };
  const [module] = modules;
  replace(/"\.\/cutover_bg\.js": import0,/g, `${JSON.stringify(module)}: import0,`, 'the import module');
  for (const [, from, to] of map.imports) replace(new RegExp(`(?<![\\w$])${id(from)}(?=: function\\()`, 'g'), `${JSON.stringify(to)}`, `import ${from}`);
  for (const [from, to] of map.exports) {
    if (!exports.has(to)) fail(`export ${to} (${from}) is not in the wasm`);
    text = text.replace(new RegExp(`(?<![\\w$])wasm\\.${id(from)}(?![\\w$])`, 'g'), () => `wasm.${to}`);
  }
  const names = new Set(imports.map((i) => i.name));
  const defined = new Set([...text.matchAll(/^ {8}"([^"]+)": function\(/gm)].map((m) => m[1]));
  for (const name of names) if (!defined.has(name)) fail(`import ${name} is not in the glue`);
  for (const [, name] of text.matchAll(/(?<![\w$])wasm\.([\w$]+)/g)) if (!exports.has(name)) fail(`wasm.${name} is not exported`);
  return text;
}

// The glue, minified once: the ESM file, and what the CommonJS body inlines.
const [glue] = (await build({ ...common, stdin: { contents: renamedGlue(), resolveDir: js('wasm'), sourcefile: 'cutover.js', loader: 'js' }, format: 'esm', platform: 'neutral', minify: true, write: false })).outputFiles;
writeFileSync(join(dist, 'lib/esm/glue.js'), `${banner}\n${glue.text}`);

const facade = { ...common, minifyWhitespace: true, minifySyntax: true, banner: { js: banner } };
await build({
  ...facade,
  entryPoints: [js('entries/node.js')],
  outfile: join(dist, 'lib/node.js'),
  format: 'cjs',
  platform: 'node',
  // The glue's default `init()` URL (new URL(…, import.meta.url)) is unused here: initSync.
  logOverride: { 'empty-import-meta': 'silent' },
  plugins: [{
    name: 'minified-glue',
    setup(b) {
      b.onResolve({ filter: GLUE }, () => ({ path: 'glue.js', namespace: 'minified-glue' }));
      b.onLoad({ filter: /.*/, namespace: 'minified-glue' }, () => ({ contents: glue.text, loader: 'js' }));
    },
  }],
});
await build({
  ...facade,
  entryPoints: [js('entries/web.js')],
  outfile: join(dist, 'lib/esm/web.js'),
  format: 'esm',
  platform: 'neutral',
  plugins: [{ name: 'glue-external', setup: (b) => b.onResolve({ filter: GLUE }, () => ({ path: './glue.js', external: true })) }],
});

for (const file of ['cutover.cjs', 'cutover.browser.mjs', 'cutover.deno.mjs', 'cutover.workerd.mjs', 'cutover.edge-light.mjs']) {
  copyFileSync(js(`entries/${file}`), join(dist, file));
}
// Node's ESM entry re-exports the CommonJS build: one wasm instance and one glue copy in the
// process, and no dual-package hazard between `import` and `require`. Its names are the
// CommonJS body's own, read from the built file.
const names = Object.keys(createRequire(import.meta.url)(join(dist, 'lib/node.js')));
// cutover/web: the same names from the ESM body, and init() over the glue's, with the wasm
// beside this file (or beside a bundle made from it) as its default.
writeFileSync(
  join(dist, 'cutover.web.mjs'),
  `${banner}\nimport { initGlue } from './lib/esm/web.js';\n\nexport { ${names.join(', ')}, initSync } from './lib/esm/web.js';\n\n` +
    '/** `init()` with no argument fetches the wasm beside this file (or beside a bundle made from it). */\n' +
    'export default function init(options) {\n' +
    "  return initGlue(options === undefined ? { module_or_path: new URL('./cutover_bg.wasm', import.meta.url) } : options);\n" +
    '}\nexport { init };\n',
);
writeFileSync(
  join(dist, 'cutover.node.mjs'),
  `${banner}\nimport api from './cutover.cjs';\n\nexport const { ${names.join(', ')} } = api;\n`,
);
copyFileSync(js('index.d.ts'), join(dist, 'index.d.ts'));
copyFileSync(js('web.d.mts'), join(dist, 'web.d.mts'));
// ESM and CommonJS resolution under `nodenext` get their own entry files that re-export the one
// set of declarations (one copy in the package instead of three).
for (const file of ['index.d.mts', 'index.d.cts']) {
  writeFileSync(join(dist, file), "// cutover's declarations live in index.d.ts.\nexport * from './index.js';\n");
}
