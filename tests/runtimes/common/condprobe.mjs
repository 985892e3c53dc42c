// Writes a throwaway project whose dependency `condprobe` has exactly the shape of the packed
// cutover's `exports["."]`, with every leaf rewritten to a file that exports its condition path
// (e.g. 'node.import.default'). cutover maps `deno` and `node`/`import` to the same file, so its
// own entry cannot tell which condition a runtime picked; this probe can.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CUTOVER_PKG = new URL('../../node_modules/cutover/package.json', import.meta.url);

export function writeConditionProbe() {
  const dir = mkdtempSync(join(tmpdir(), 'cutover-condprobe-'));
  const pkg = join(dir, 'node_modules', 'condprobe');
  mkdirSync(pkg, { recursive: true });
  const rewrite = (node, path) => {
    if (typeof node === 'string') {
      const name = path.join('.');
      const file = path.includes('require') ? `${name}.cjs` : `${name}.mjs`;
      const body = file.endsWith('.cjs') ? `exports.condition = ${JSON.stringify(name)};\n` : `export const condition = ${JSON.stringify(name)};\n`;
      writeFileSync(join(pkg, file), body);
      return `./${file}`;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, [...path, k])]));
  };
  const dot = JSON.parse(readFileSync(CUTOVER_PKG, 'utf8')).exports['.'];
  const exportsMap = { '.': rewrite(dot, []) };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'condprobe', version: '1.0.0', exports: exportsMap }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import { condition } from 'condprobe';\nimport { createRequire } from 'node:module';\n` +
      `const required = createRequire(import.meta.url)('condprobe').condition;\n` +
      `console.log('CUTOVER_REPORT ' + JSON.stringify({ import: condition, require: required }));\n`,
  );
  return dir;
}
