// cutover against an earlier build of itself, in one run: `node bench/against.mjs <entry>`, where
// <entry> is the Node ESM entry of another build (e.g. a copy of an older dist/cutover.node.mjs).
// The same paired rounds as bench/run.mjs (bench/lib/rounds.mjs): a round runs each scenario's
// cutover side once with each build, each in a fresh child process, the build that goes first
// alternating; ratio = this build / that build within a round (lower is better), reported as the
// median and quartiles over the rounds.
// Env: BENCH_ROUNDS (default 15), BENCH_ONLY=name,name; BENCH_SCALE scales the children's op counts.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pairedRounds, runChild } from './lib/rounds.mjs';
import { median, pairedRatios, spread } from './lib/stats.mjs';

const at = (relative) => fileURLToPath(new URL(relative, import.meta.url));
const REDIS = at('../scripts/redis-server.sh');
// Every scenario with a cutover side, but those that count calls or time no cutover work.
// shadow-read-latency needs background() (issue 21), which older builds lack, and takes 6.5 minutes.
const NOT_TIMED = new Set(['concurrent-miss-store-calls', 'raw-promise-all', 'shadow-read-latency']);
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
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 15) | 0);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;

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
const f3 = (x) => (x == null ? '—' : x.toFixed(3));
try {
  console.log(`${ROUNDS} paired rounds per scenario (the build going first alternates); this, that: medians over rounds;`);
  console.log(`ratio = this build / ${other} per round: median (p25–p75) over rounds, lower is better\n`);
  console.log(`${'scenario'.padEnd(38)}${'this'.padStart(10)}${'that'.padStart(10)}${'ratio (p25–p75)'.padStart(24)}`);
  for (const name of selected) {
    const samples = await pairedRounds({
      sides: ['this', 'that'],
      rounds: ROUNDS,
      run: async (build) => (await runChild(name, 'cutover', builds[build])).value,
    });
    const r = spread(pairedRatios(samples.this, samples.that));
    const cell = `${f3(r?.median)} (${f3(r?.p25)}–${f3(r?.p75)})`;
    console.log(`${name.padEnd(38)}${f3(median(samples.this)).padStart(10)}${f3(median(samples.that)).padStart(10)}${cell.padStart(24)}`);
  }
} finally {
  if (pidfile) execFileSync('bash', [REDIS, 'stop', pidfile]);
}
