// Profile one scenario side: node bench/profile.mjs <scenario> [cutover|launchdarkly] [top=25]
// Runs the child with --cpu-prof and prints the top self-time functions and a breakdown by layer.
// Wasm frames show as wasm-function[N] because dist/ is stripped; to see Rust names, point
// BENCH_CUTOVER_MODULE at a copy of dist/ whose cutover_bg.wasm was optimized with names kept
// (wasm-opt -Oz -g on wasm-bindgen's output), e.g. BENCH_CUTOVER_MODULE=/tmp/x/dist/cutover.node.mjs.
// The op counts are 8× the bench's by default here (BENCH_SCALE) so that startup is a small share.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [scenario, side = 'cutover', topArg = '25'] = process.argv.slice(2);
if (!scenario) {
  console.error('usage: node bench/profile.mjs <scenario> [cutover|launchdarkly] [top]');
  process.exit(2);
}
const dir = mkdtempSync(path.join(os.tmpdir(), 'cutover-prof-'));
const res = spawnSync(
  process.execPath,
  ['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=50', path.join(here, 'lib', 'child.mjs'), scenario, side],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { BENCH_SCALE: '8', ...process.env } },
);
const line = res.stdout.toString().split('\n').find((l) => l.startsWith('@@RESULT '));
console.log(`${scenario}/${side}: ${line ?? '(no result)'}`);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const prof = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
rmSync(dir, { recursive: true, force: true });

const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
}
function layer(cf) {
  const u = cf.url || '';
  if (cf.functionName === '(garbage collector)') return 'gc';
  if (cf.functionName === '(idle)' || cf.functionName === '(program)') return cf.functionName;
  if (u.startsWith('wasm://') || /^\$?func\d+|wasm-function/.test(cf.functionName)) return 'wasm';
  if (/\/dist\/lib\/(esm\/)?glue\.js$/.test(u)) return 'cutover glue (wasm-bindgen)';
  if (u.includes('/dist/')) return 'cutover api.js';
  if (u.includes('@launchdarkly')) return 'launchdarkly sdk';
  if (u.includes('/bench/')) return 'bench harness + origins';
  if (u.startsWith('node:') || u === '') return cf.functionName.startsWith('(') ? cf.functionName : 'node/v8 builtins';
  return path.basename(u);
}
const fn = new Map();
const layers = new Map();
let total = 0;
for (const [id, t] of self) {
  const cf = byId.get(id).callFrame;
  const key = `${cf.functionName || '(anonymous)'}  ${cf.url ? `${path.basename(cf.url)}:${cf.lineNumber + 1}` : ''}`;
  fn.set(key, (fn.get(key) ?? 0) + t);
  const l = layer(cf);
  layers.set(l, (layers.get(l) ?? 0) + t);
  if (l !== '(idle)') total += t;
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
console.log(`\nself time by layer (excluding idle; total ${(total / 1000).toFixed(0)} ms):`);
for (const [l, t] of [...layers].sort((a, b) => b[1] - a[1])) if (l !== '(idle)') console.log(`  ${pct(t)}  ${l}`);
console.log(`\ntop ${topArg} functions by self time:`);
for (const [k, t] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`  ${pct(t)}  ${k}`);
