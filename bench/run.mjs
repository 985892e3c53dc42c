// cutover vs LaunchDarkly's JS SDK: the benchmark driver (`npm run bench`).
// Every scenario runs in paired rounds (bench/lib/rounds.mjs): a round runs each side once, each
// in a fresh child process, in alternating order; ratios are taken round by round and reported as
// median and quartiles over the rounds (bench/lib/summary.mjs). See bench/README.md.
// Env: BENCH_ROUNDS (rounds of a scenario with a LaunchDarkly side, default and minimum for
// writing results.json: 15), BENCH_RUNS (rounds of one without, default 5), BENCH_SCALE (op counts
// per round × this, default 1), BENCH_ONLY=name,name (subset), BENCH_OUT=file (write the results
// there, whatever the run; by default only a full run writes bench/results.json).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { printReport } from './lib/report.mjs';
import { pairedRounds, runChild } from './lib/rounds.mjs';
import { summarize } from './lib/summary.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const SCENARIOS = [
  'shadow-read-parallel',
  'live-read-serial',
  'off-read',
  'dualwrite-write',
  'live-write',
  'shadow-read-parallel-fixedstage',
  'shadow-read-parallel-fixedstage-otel',
  'shadow-read-latency',
  'own-events-read',
  'context-size',
  'raw-promise-all',
  'cached-lookup',
  'uncached-lookup-redis',
  'uncached-lookup-redis-cluster',
  'uncached-lookup-dynamodb',
  'concurrent-miss-store-calls',
  'cached-context-memory',
  'cold-start-ms',
  'mismatch-explain',
  'guard-failover',
  'migrations-page-bytes',
];
const MIN_ROUNDS = 15;
const count = (name, dflt) => Math.max(1, Number(process.env[name] ?? dflt) | 0);
const ROUNDS = count('BENCH_ROUNDS', MIN_ROUNDS);
const RUNS = count('BENCH_RUNS', 5);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim()).filter(Boolean)) : null;

function sizes() {
  const wasm = readFileSync(path.join(root, 'dist', 'cutover_bg.wasm'));
  let packageGz = null;
  try {
    const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    packageGz = JSON.parse(json)[0].size;
  } catch (e) {
    console.error(`npm pack failed: ${e.message}`);
  }
  return { wasm_raw: wasm.length, wasm_gz: gzipSync(wasm, { level: 9 }).length, package_gz: packageGz };
}

function hasCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const wasmHash = () => createHash('sha256').update(readFileSync(path.join(root, 'dist', 'cutover_bg.wasm'))).digest('hex');

async function main() {
  const cpus = os.cpus();
  const machine = `${cpus[0]?.model?.trim() ?? 'unknown cpu'}, ${cpus.length} cores, node ${process.version}`;
  const startHash = wasmHash();
  const selected = SCENARIOS.filter((s) => !ONLY || ONLY.has(s));
  // Without REDIS_URL the Redis scenario needs a local redis-server (scripts/setup.sh --system);
  // the cluster one always does (and redis-cli), unless REDIS_CLUSTER_URLS names a cluster.
  const skipped = [];
  const skip = (name, why) => {
    if (!selected.includes(name)) return;
    selected.splice(selected.indexOf(name), 1);
    skipped.push(name);
    console.error(`skipping ${name}: ${why} (bash scripts/setup.sh --system installs it)`);
  };
  if (!process.env.REDIS_URL && !hasCommand('redis-server')) skip('uncached-lookup-redis', 'redis-server is not installed and REDIS_URL is not set');
  if (!process.env.REDIS_CLUSTER_URLS && !(hasCommand('redis-server') && hasCommand('redis-cli'))) {
    skip('uncached-lookup-redis-cluster', 'redis-server or redis-cli is not installed and REDIS_CLUSTER_URLS is not set');
  }
  const unknown = ONLY ? [...ONLY].filter((s) => !SCENARIOS.includes(s)) : [];
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);

  let redisUrl = process.env.REDIS_URL;
  let clusterUrls = process.env.REDIS_CLUSTER_URLS;
  let pidfile = null;
  let clusterDir = null;
  const script = (name) => path.join(root, 'scripts', name);
  const stopRedis = () => {
    if (pidfile) {
      try {
        execFileSync('bash', [script('redis-server.sh'), 'stop', pidfile], { stdio: 'ignore' });
      } catch {}
      pidfile = null;
    }
    if (clusterDir) {
      try {
        execFileSync('bash', [script('redis-cluster.sh'), 'stop', clusterDir], { stdio: 'ignore' });
      } catch {}
      clusterDir = null;
    }
  };
  try {
    if (!redisUrl && selected.includes('uncached-lookup-redis')) {
      pidfile = path.join(os.tmpdir(), `cutover-bench-redis-${process.pid}.pid`);
      redisUrl = execFileSync('bash', [script('redis-server.sh'), 'start', pidfile], { cwd: root }).toString().trim();
    }
    if (!clusterUrls && selected.includes('uncached-lookup-redis-cluster')) {
      clusterDir = path.join(os.tmpdir(), `cutover-bench-cluster-${process.pid}`);
      clusterUrls = execFileSync('bash', [script('redis-cluster.sh'), 'start', clusterDir], { cwd: root }).toString().trim().split('\n').join(' ');
    }
  } catch (e) {
    stopRedis();
    throw e;
  }
  if (pidfile || clusterDir) for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => (stopRedis(), process.exit(130)));
  const env = { ...process.env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}), ...(clusterUrls ? { REDIS_CLUSTER_URLS: clusterUrls } : {}) };

  for (const old of ['BENCH_MEASURE_MS', 'BENCH_WARMUP_MS']) {
    if (process.env[old]) console.error(`${old} is no longer read: rounds count operations; BENCH_SCALE scales the counts`);
  }
  const t0 = Date.now();
  const results = [];
  const details = [];
  try {
    for (const name of selected) {
      const mod = await import(new URL(`./scenarios/${name}.mjs`, import.meta.url));
      // `migrations`: the same work on the cutover/migrations entry (cold-start-ms), paired like the others.
      const sides = ['cutover', 'migrations', 'background', 'guarded', 'launchdarkly', 'floor'].filter((s) => typeof mod[s] === 'function');
      // Ratios need many rounds to show their spread; a single-sided scenario only a median (a
      // floor alone has no ratio). `background`: cutover's background mode, a ratio to `cutover`.
      const rounds = ['launchdarkly', 'background', 'guarded'].some((s) => sides.includes(s)) ? ROUNDS : RUNS;
      process.stderr.write(`${name} (${rounds} round${rounds === 1 ? '' : 's'}): `);
      const samples = await pairedRounds({
        sides,
        rounds,
        run: (side) => runChild(name, side, env),
        tick: (side) => process.stderr.write(side[0]),
      });
      process.stderr.write('\n');
      const summary = summarize(name, mod.meta, samples);
      results.push(summary.result);
      details.push(...summary.details);
    }
  } finally {
    stopRedis();
  }

  const size = sizes();
  const seconds = (Date.now() - t0) / 1000;
  const method = {
    rounds: ROUNDS,
    runs: RUNS,
    scale: SCALE,
    pairing: 'each round runs every side once, each in a fresh process, in alternating order; ratios are per round',
    ratio: 'median of the per-round ratios, with their quartiles (_p25, _p75)',
    target: 'met when the upper quartile of the per-round ratios is at or under it',
  };
  // A partial run (BENCH_ONLY, a skipped scenario, fewer rounds or smaller op counts) prints its
  // table but leaves bench/results.json alone: the file always has every row, fully measured.
  // BENCH_OUT=file writes any run there instead (a check of a subset: node bench/table.mjs file).
  const full = !ONLY && !skipped.length && ROUNDS >= MIN_ROUNDS && SCALE === 1;
  const out = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : full ? path.join(here, 'results.json') : null;
  if (out) {
    const json = { machine, method, duration_s: Math.round(seconds), results, size };
    writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  }
  printReport({ machine, method, results, size, details, seconds, written: out && (out.startsWith(root + path.sep) ? path.relative(root, out) : out), skipped });
  if (wasmHash() !== startHash) console.log('\nWARNING: dist/cutover_bg.wasm changed during the run (a rebuild happened); results may mix builds.');
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
