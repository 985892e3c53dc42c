// cutover against an earlier build of itself, in one run: `node bench/against.mjs <entry>`, where
// <entry> is the Node ESM entry of another build (e.g. a copy of an older dist/cutover.node.mjs).
// Each scenario's cutover side runs in fresh child processes, alternating the two builds, and the
// medians are compared: ratio = this build / that build (lower is better).
// Env: BENCH_RUNS (default 7), BENCH_ONLY=name,name; the child scenarios read BENCH_MEASURE_MS.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const at = (relative) => fileURLToPath(new URL(relative, import.meta.url));
const [root, CHILD, REDIS] = [at('..'), at('./lib/child.mjs'), at('../scripts/redis-server.sh')];
// Every scenario with a cutover side, but those that count calls or time no cutover work.
const NOT_TIMED = new Set(['concurrent-miss-store-calls', 'raw-promise-all']);
const HOT_PATHS = readdirSync(at('./scenarios'))
  .map((file) => file.replace(/\.mjs$/, ''))
  .filter((name) => !NOT_TIMED.has(name))
  // A store this script does not start is compared only when the environment names one.
  .filter((name) => name !== 'uncached-lookup-redis-cluster' || process.env.REDIS_CLUSTER_URLS);

const [other] = process.argv.slice(2);
if (!other || !existsSync(other)) {
  console.error('usage: node bench/against.mjs <path to another build’s cutover.node.mjs>');
  process.exit(2);
}
const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 7) | 0);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function runChild(scenario, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, scenario, 'cutover'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('@@RESULT '));
      if (code !== 0 || !line) reject(new Error(`${scenario} failed (code ${code})\n${err.slice(-1500)}`));
      else resolve(JSON.parse(line.slice('@@RESULT '.length)).value);
    });
  });
}

const selected = HOT_PATHS.filter((s) => !ONLY || ONLY.has(s));
let pidfile = null;
let redisUrl = process.env.REDIS_URL;
if (!redisUrl && selected.includes('uncached-lookup-redis')) {
  pidfile = path.join(tmpdir(), `cutover-against-redis-${process.pid}.pid`);
  redisUrl = execFileSync('bash', [REDIS, 'start', pidfile]).toString().trim();
}
const base = { ...process.env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) };
delete base.BENCH_CUTOVER_MODULE;
const builds = { this: base, that: { ...base, BENCH_CUTOVER_MODULE: path.resolve(other) } };
try {
  console.log(`runs per build: ${RUNS}, median reported; ratio = this build / ${other}\n`);
  console.log(`${'scenario'.padEnd(34)}${'this'.padStart(10)}${'that'.padStart(10)}${'ratio'.padStart(8)}`);
  for (const name of selected) {
    const samples = { this: [], that: [] };
    for (let i = 0; i < RUNS; i++) for (const b of ['that', 'this']) samples[b].push(await runChild(name, builds[b]));
    const a = median(samples.this);
    const b = median(samples.that);
    console.log(`${name.padEnd(34)}${a.toFixed(3).padStart(10)}${b.toFixed(3).padStart(10)}${(a / b).toFixed(3).padStart(8)}`);
  }
} finally {
  if (pidfile) execFileSync('bash', [REDIS, 'stop', pidfile]);
}
