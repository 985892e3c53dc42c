// Writes the package's entry files into <dist dir> from the ES modules under js/ and the
// wasm-bindgen glue in js/wasm/ (one `--target web` run, scripts/build.sh), with esbuild:
//   lib/esm/web.js    the one body: js/entries/web.js, the facade and the minified glue in one
//                     ES module (one file to load; the facade calls the glue directly)
//   cutover.{cjs,browser,deno,workerd,edge-light}.mjs  copied from js/entries/
//   cutover.node.mjs  Node's entry: the body, with the wasm beside it instantiated at load
//   cutover.web.mjs   cutover/web: the body's names, and init()
//   migrations/       cutover/migrations (js/entries/migrations.js): the same files over the
//                     migrations-only wasm (migrations/migrations_bg.wasm, from scripts/build.sh),
//                     with its declarations (migrations.d.{ts,mts,cts}, web.d.mts)
// One body for every runtime: Node's CommonJS entry require()s the ES module entry (Node 20.19+,
// Bun, Deno). Two copies (a CommonJS body beside the ESM one) cost the tarball the whole second
// copy once the facade outgrew gzip's 32 KB window: 131,184 B against 118,892 B before.
// The facade keeps its identifiers, so stack traces and `constructor.name` name cutover's own
// classes and functions; only the glue is minified.
// Usage: node scripts/bundle.mjs <dist dir>
import { build, transform } from 'esbuild';
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
const exactly = (names) => new RegExp(`^(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);

// migrationConsole's page (js/console/page/: its HTML, script and stylesheet, served as files of
// their own) as the module 'cutover:console-assets' of three strings (js/console/assets.d.ts).
const consoleAssets = {
  name: 'console-assets',
  setup(b) {
    b.onResolve({ filter: /^cutover:console-assets$/ }, () => ({ path: 'console-assets', namespace: 'console-assets' }));
    b.onLoad({ filter: /.*/, namespace: 'console-assets' }, async () => {
      const text = (file) => readFileSync(js(`console/page/${file}`), 'utf8');
      // The script and the stylesheet minified: what the browser downloads and what the tarball
      // carries (page weight 7,275 → 6,063 B gzipped; script 14.7 → 10.6 KB raw).
      const script = await transform(text('page.js'), { loader: 'js', minify: true, target: 'es2022', legalComments: 'none' });
      const style = await transform(text('page.css'), { loader: 'css', minify: true, legalComments: 'none' });
      const strings = [['page', text('page.html')], ['script', script.code], ['style', style.code]];
      return { contents: strings.map(([name, value]) => `export const ${name} = ${JSON.stringify(value)};\n`).join(''), loader: 'js' };
    });
  },
};

/**
 * The glue with its `wasm` (the instance's exports, undefined until `init()`/`initSync()`) a
 * stand-in until then whose every property throws an error that says to initialise first: the API
 * used before init() said `Cannot read properties of undefined (reading 'Ac')`. The glue's two
 * "already initialised" checks compare with the stand-in; after init nothing is left of it.
 */
function initFirst(glue) {
  const declaration = 'let wasmModule, wasmInstance, wasm;';
  const check = 'if (wasm !== undefined) return wasm;';
  if (!glue.includes(declaration) || glue.split(check).length !== 3) throw new Error('bundle: the wasm-bindgen glue no longer declares and checks `wasm` as initFirst expects');
  const standIn =
    'const NOT_INITIALISED = new Proxy({}, { get() { throw new Error("cutover is not initialised yet: call init() first ' +
    '(await init() from cutover/web or cutover/migrations/web, or initSync({ module }))"); } });\n' +
    'let wasmModule, wasmInstance, wasm = NOT_INITIALISED;';
  // The glue's own default URL is never used (the entries' init() always names the wasm), and
  // bundlers that follow `new URL('…', import.meta.url)` (webpack, Vite) would look for a file
  // named cutover_bg.wasm beside the body, which the package does not have.
  const defaultUrl = "module_or_path = new URL('cutover_bg.wasm', import.meta.url);";
  if (!glue.includes(defaultUrl)) throw new Error("bundle: the wasm-bindgen glue's default URL changed");
  return glue
    .replace(declaration, standIn)
    .replaceAll(check, 'if (wasm !== NOT_INITIALISED) return wasm;')
    .replace(defaultUrl, 'throw new TypeError("cutover: init() needs the wasm (module_or_path)");');
}

/**
 * One body: `entry` (under js/entries/) with the glue of `glueDir` (js/wasm for the full wasm,
 * js/wasm-migrations for the migrations one) minified and inlined, written to `outfile`; the
 * glue's renamed names checked against the map of the wasm `wasmFile` was minified with.
 */
async function buildBody({ glueDir, wasmFile, entry, outfile }) {
  const minified = JSON.parse(readFileSync(js(`${glueDir}/minify.json`), 'utf8'));
  const [{ module }] = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(join(dist, wasmFile))));
  const mangleCache = {
    './cutover_bg.js': module,
    ...Object.fromEntries(minified.imports.map(([, from, to]) => [from, to])),
    ...Object.fromEntries(minified.exports),
  };
  // The glue, minified (the facade is not: see above), then inlined into the body.
  const glueBuild = await build({
    ...common,
    entryPoints: [js(`${glueDir}/cutover.js`)],
    format: 'esm',
    platform: 'neutral',
    minify: true,
    write: false,
    mangleProps: exactly(Object.keys(mangleCache)),
    mangleQuoted: true,
    mangleCache,
    // The bridge the wasm imports (src/js/bridge.rs) is the facade's own module: left to the body
    // build, so that it is bundled once, with the facade.
    plugins: [
      {
        name: 'bridge-outside-glue',
        setup(b) {
          b.onResolve({ filter: /^\.\.\/bridge\.js$/ }, (args) => ({ path: args.path, external: true }));
        },
      },
      { name: 'init-first', setup: (b) => b.onLoad({ filter: /\/cutover\.js$/ }, ({ path }) => ({ contents: initFirst(readFileSync(path, 'utf8')), loader: 'js' })) },
    ],
  });
  const renamed = Object.entries(glueBuild.mangleCache).filter(([from, to]) => mangleCache[from] !== to);
  if (renamed.length > 0) throw new Error(`bundle: esbuild renamed wasm names outside wasm-opt's map: ${renamed}`);
  const [glue] = glueBuild.outputFiles;

  const body = await build({
    ...common,
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: banner },
    entryPoints: [js(`entries/${entry}`)],
    outfile,
    format: 'esm',
    platform: 'neutral',
    metafile: true,
    plugins: [{
      name: 'minified-glue',
      setup(b) {
        // Every module's './wasm/cutover.js' (or '../wasm/cutover.js') is this body's glue.
        b.onResolve({ filter: GLUE }, () => ({ path: 'glue.js', namespace: 'minified-glue' }));
        b.onLoad({ filter: /.*/, namespace: 'minified-glue' }, () => ({ contents: glue.text, loader: 'js', resolveDir: js(glueDir) }));
      },
    }, consoleAssets],
  });
  // The public names: the body's exports but the glue's two initialisers.
  return Object.values(body.metafile.outputs)
    .flatMap((o) => o.exports)
    .filter((n) => n !== 'initGlue' && n !== 'initSync')
    .sort();
}

/**
 * The entry files of one body in `dir`: `<name>.web.mjs` (its names and init(), the wasm beside
 * it as init()'s default) and `<name>.node.mjs` (the wasm instantiated at load).
 */
function writeEntries({ dir, name, body, wasmFile, names }) {
  const exported = `{ ${names.join(', ')} }`;
  // <name>.web.mjs: the names, and init() over the glue's, with the wasm beside this file (or
  // beside a bundle made from it) as its default.
  writeFileSync(
    join(dir, `${name}.web.mjs`),
    `${banner}\nimport { initGlue } from './${body}';\n\nexport { ${names.join(', ')}, initSync } from './${body}';\n\n` +
      '/** `init()` with no argument fetches the wasm beside this file (or beside a bundle made from it). */\n' +
      'export default function init(options) {\n' +
      `  return initGlue(options === undefined ? { module_or_path: new URL('./${wasmFile}', import.meta.url) } : options);\n` +
      '}\nexport { init };\n',
  );
  // Node: synchronous instantiation and no top-level await. The .cjs entry require()s the same
  // body: one module instance for `import` and `require`, no dual-package hazard.
  writeFileSync(
    join(dir, `${name}.node.mjs`),
    `${banner}\n// Node's entry for import (${name}.cjs, for require(), loads the same body): the wasm beside\n` +
      '// it, compiled and instantiated synchronously at load (no top-level await).\n' +
      '// node:fs through process.getBuiltinModule (Node 20.16+, Bun), not `import`: the ES module\n' +
      '// facade of node:fs costs 2.1 ms of import time (cold start 10.9 → 9.6 ms, Node 20.20).\n' +
      `import { initSync } from './${body}';\n\n` +
      "const { readFileSync } = process.getBuiltinModule('node:fs');\n" +
      `initSync({ module: readFileSync(new URL('./${wasmFile}', import.meta.url)) });\n\n` +
      `export ${exported} from './${body}';\n`,
  );
}

const names = await buildBody({ glueDir: 'wasm', wasmFile: 'cutover_bg.wasm', entry: 'web.js', outfile: join(dist, 'lib/esm/web.js') });
for (const file of ['cutover.cjs', 'cutover.browser.mjs', 'cutover.deno.mjs', 'cutover.workerd.mjs', 'cutover.edge-light.mjs']) {
  copyFileSync(js(`entries/${file}`), join(dist, file));
}
writeEntries({ dir: dist, name: 'cutover', body: 'lib/esm/web.js', wasmFile: 'cutover_bg.wasm', names });

// cutover/migrations in <dist dir>/migrations/ (scripts/build.sh put its wasm there): its own
// body over the migrations wasm's glue, and the same runtime entries as the main one, made from
// js/entries/cutover.* with the file names swapped (one place to change a runtime's loading).
const migrations = join(dist, 'migrations');
const migrationNames = await buildBody({
  glueDir: 'wasm-migrations',
  wasmFile: 'migrations/migrations_bg.wasm',
  entry: 'migrations.js',
  outfile: join(migrations, 'lib/esm/migrations.js'),
});
writeFileSync(join(migrations, 'lib/esm/package.json'), '{ "type": "module" }\n');
writeEntries({ dir: migrations, name: 'migrations', body: 'lib/esm/migrations.js', wasmFile: 'migrations_bg.wasm', names: migrationNames });
for (const runtime of ['cjs', 'browser.mjs', 'deno.mjs', 'workerd.mjs', 'edge-light.mjs']) {
  const text = readFileSync(js(`entries/cutover.${runtime}`), 'utf8');
  const swapped = text
    .replaceAll('./cutover.web.mjs', './migrations.web.mjs')
    .replaceAll('cutover_bg.wasm', 'migrations_bg.wasm')
    .replaceAll('./lib/esm/web.js', './lib/esm/migrations.js')
    .replaceAll("require('cutover')", "require('cutover/migrations')")
    .replaceAll('cutover.node.mjs', 'migrations.node.mjs');
  if (swapped.includes('cutover.web.mjs') || swapped.includes('cutover_bg.wasm')) throw new Error(`bundle: cutover.${runtime} names a file the swap missed`);
  writeFileSync(join(migrations, `migrations.${runtime}`), `${banner}\n${swapped}`);
}

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
// cutover/migrations' declarations: re-exports of index.d.ts, one directory up from dist/migrations/.
writeFileSync(join(migrations, 'migrations.d.ts'), readFileSync(js('migrations.d.ts'), 'utf8').replaceAll("from './index.js'", "from '../index.js'"));
// ESM and CommonJS resolution under `nodenext` get their own entry files that re-export the one
// set of declarations (one copy in the package instead of three); cutover/migrations likewise.
for (const [dir, name] of [[dist, 'index'], [migrations, 'migrations']]) {
  for (const ext of ['d.mts', 'd.cts']) {
    writeFileSync(join(dir, `${name}.${ext}`), `// cutover's declarations live in ${name}.d.ts.\nexport * from './${name}.js';\n`);
  }
}
// cutover/migrations/web: cutover/web's declarations over the migrations names.
const webTypes = readFileSync(js('web.d.mts'), 'utf8');
if (!webTypes.includes("from './index.mjs'")) throw new Error('bundle: web.d.mts no longer re-exports ./index.mjs');
writeFileSync(join(migrations, 'web.d.mts'), webTypes.replaceAll("from './index.mjs'", "from './migrations.mjs'").replace('// cutover/web:', '// cutover/migrations/web:'));
