// cutover vs LaunchDarkly's JS SDK: the benchmark driver (`npm run bench`).
// Every scenario side runs in a fresh child process; cutover and LD runs are interleaved
// (cutover 1, LD 1, cutover 2, …) and the median of the runs is reported.
// Env: BENCH_RUNS (default 5, minimum 5), BENCH_ONLY=name,name (subset), BENCH_MEASURE_MS, BENCH_WARMUP_MS.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const CHILD = path.join(here, 'lib', 'child.mjs');

const SCENARIOS = [
  'shadow-read-parallel',
  'live-read-serial',
  'off-read',
  'dualwrite-write',
  'live-write',
  'shadow-read-parallel-fixedstage',
  'shadow-read-parallel-fixedstage-otel',
  'own-events-read',
  'context-size',
  'raw-promise-all',
  'cached-lookup',
  'uncached-lookup-redis',
  'uncached-lookup-redis-cluster',
  'uncached-lookup-dynamodb',
  'concurrent-miss-store-calls',
  'cold-start-ms',
];
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 5) | 0);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim()).filter(Boolean)) : null;
const CHILD_TIMEOUT_MS = 120_000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const decimals = (unit) => (unit === 'calls' ? 0 : unit === 'ms' ? 2 : 3);
const round = (x, d) => (x == null ? null : Number(x.toFixed(d)));

function runChild(scenario, side, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, scenario, side], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('@@RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`${scenario}/${side} failed (code ${code}, signal ${signal})\n${err.slice(-2000)}${out.slice(-500)}`));
        return;
      }
      resolve(JSON.parse(line.slice('@@RESULT '.length)));
    });
  });
}

function compact(info) {
  if (!info) return '';
  const fmt = (v) =>
    typeof v === 'number' ? String(round(v, Number.isInteger(v) ? 0 : 3)) : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return Object.entries(info)
    .map(([k, v]) => `${k}=${fmt(v)}`)
    .join(', ');
}

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

  const t0 = Date.now();
  const results = [];
  const details = [];
  try {
    for (const name of selected) {
      const mod = await import(new URL(`./scenarios/${name}.mjs`, import.meta.url));
      const { unit, note } = mod.meta;
      const sides = ['cutover', 'launchdarkly', 'floor'].filter((s) => typeof mod[s] === 'function');
      const runs = name === 'cold-start-ms' ? Math.max(RUNS, 9) : RUNS;
      const samples = Object.fromEntries(sides.map((s) => [s, []]));
      process.stderr.write(`${name}: `);
      for (let i = 0; i < runs; i++) {
        for (const side of sides) {
          samples[side].push(await runChild(name, side, env));
          process.stderr.write(side[0]);
        }
      }
      process.stderr.write('\n');
      const med = {};
      const infoOfMedian = {};
      for (const side of sides) {
        const values = samples[side].map((r) => r.value);
        med[side] = median(values);
        // info from the run closest to the median
        const best = samples[side].reduce((a, b) => (Math.abs(b.value - med[side]) < Math.abs(a.value - med[side]) ? b : a));
        infoOfMedian[side] = best.info;
        details.push({ name, side, values });
      }
      const d = decimals(unit);
      const cutover = round(med.cutover, d);
      const launchdarkly = med.launchdarkly == null ? null : round(med.launchdarkly, d);
      const ratio = launchdarkly == null || med.launchdarkly === 0 ? null : round(med.cutover / med.launchdarkly, 3);
      const label = { cutover: 'cutover', launchdarkly: 'LD', floor: 'floor' };
      const extra = sides.map((s) => `${label[s]} (median run): ${compact(infoOfMedian[s])}`);
      const result = { name, unit, cutover, launchdarkly, ratio, note: `${note}. ${extra.join('; ')}` };
      // What bounds the ratio: the same work's unavoidable part, measured in the same run.
      if (med.floor != null) {
        result.floor = round(med.floor, d);
        result.floor_ratio = launchdarkly == null ? null : round(med.floor / med.launchdarkly, 3);
        result.floor_note = mod.meta.floor;
      }
      // Scenario-specific figures: meta.figures = [{ key, side = 'cutover', label, unit?, max? }],
      // each the median over runs of that side's info[key]; meta.maxRatio is a target for ratio.
      if (mod.meta.figures) {
        result.figures = mod.meta.figures.map(({ key, side = 'cutover', label, unit: u, max }) => {
          const values = samples[side].map((r) => r.info?.[key]).filter((v) => typeof v === 'number');
          const value = values.length ? round(median(values), 3) : null;
          details.push({ name, side: `${side} ${key}`, values });
          const fig = { key, side, label: label ?? key, ...(u ? { unit: u } : {}), value };
          if (max != null) Object.assign(fig, { max, met: value != null && value <= max });
          return fig;
        });
      }
      if (mod.meta.maxRatio != null) {
        result.target = { maxRatio: mod.meta.maxRatio, met: ratio != null && ratio <= mod.meta.maxRatio };
      }
      results.push(result);
    }
  } finally {
    stopRedis();
  }

  const size = sizes();
  // A subset run (BENCH_ONLY) prints its table but leaves bench/results.json alone.
  // So does a run that skipped a scenario: the file always has every row.
  const out = ONLY || skipped.length ? null : path.join(here, 'results.json');
  if (out) writeFileSync(out, `${JSON.stringify({ machine, results, size }, null, 2)}\n`);

  const header = ['name', 'unit', 'cutover', 'launchdarkly', 'ratio', 'floor', 'floor ratio'];
  const dash = (v) => (v == null ? '—' : String(v));
  const rows = results.map((r) => [r.name, r.unit, String(r.cutover), dash(r.launchdarkly), dash(r.ratio), dash(r.floor), dash(r.floor_ratio)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`machine: ${machine}`);
  console.log(`runs per side: ${RUNS} (cold-start: ${Math.max(RUNS, 9)}), median reported; ratio = cutover/LD, lower is better`);
  console.log('floor = the part of the same work no implementation can avoid (see each note); floor ratio = floor/LD, the best ratio possible\n');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const targeted = results.filter((r) => r.figures || r.target);
  if (targeted.length) {
    const met = (ok) => (ok ? 'met' : 'MISSED');
    console.log('\nfigures (median over runs) and targets:');
    for (const r of targeted) {
      if (r.target) console.log(`  ${r.name}: ratio ${dash(r.ratio)} (target ≤ ${r.target.maxRatio}: ${met(r.target.met)})`);
      for (const f of r.figures ?? []) {
        const target = f.max != null ? ` (target ≤ ${f.max}: ${met(f.met)})` : '';
        console.log(`  ${r.name}: ${f.label} = ${dash(f.value)}${f.unit ? ` ${f.unit}` : ''}${target}`);
      }
    }
  }
  console.log(`\nsize: wasm_raw=${size.wasm_raw} B, wasm_gz=${size.wasm_gz} B (gzip -9), package_gz=${size.package_gz} B (npm pack)`);
  console.log('\nper-run values (min … max):');
  for (const { name, side, values } of details) {
    const s = [...values].sort((a, b) => a - b);
    console.log(`  ${name} ${side}: ${round(s[0], 3)} … ${round(s[s.length - 1], 3)}  [${values.map((v) => round(v, 3)).join(', ')}]`);
  }
  console.log('\nnotes:');
  for (const r of results) console.log(`  ${r.name}: ${r.note}`);
  if (wasmHash() !== startHash) console.log('\nWARNING: dist/cutover_bg.wasm changed during the run (a rebuild happened); results may mix builds.');
  console.log(`\ntotal ${((Date.now() - t0) / 1000).toFixed(1)} s; ${out ? 'wrote bench/results.json' : `${skipped.length ? `${skipped.join(', ')} skipped` : 'subset run'}: bench/results.json not written`}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
