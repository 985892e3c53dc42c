// The benchmark tables of docs/BENCHMARKS.md, from bench/results.json (what `npm run bench` wrote):
//   node bench/table.mjs [results.json]   prints them (markdown)
//   node bench/table.mjs --readme         also puts them in docs/BENCHMARKS.md: the benchmark table between
//                                         the bench-table markers, the shadow read latency table
//                                         (shadow-read-latency, with the CPU figures of
//                                         shadow-read-parallel-fixedstage's background side)
//                                         between the latency-table markers
//   --latency=file (or --latency file)    the latency table from another results file, e.g. the
//                                         BENCH_OUT of a run of only those two scenarios
// A ratio shows as "median (p25–p75)" over the paired rounds; every other figure is a median.
// Where the file has no shadow-read-latency entry, the latency block in docs/BENCHMARKS.md is left as it is.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BASE_READS, CONCURRENCY, MAX_IN_FLIGHT, NEW_MS, OLD_MS } from './scenarios/shadow-read-latency.mjs';

const BEGIN = '<!-- bench-table: node bench/table.mjs --readme writes this block from bench/results.json -->';
const END = '<!-- /bench-table -->';
const LATENCY_BEGIN = '<!-- latency-table: node bench/table.mjs --readme writes this block from bench/results.json -->';
const LATENCY_END = '<!-- /latency-table -->';
const LATENCY = 'shadow-read-latency';
const CPU = 'shadow-read-parallel-fixedstage';
const README = fileURLToPath(new URL('../docs/BENCHMARKS.md', import.meta.url));

// Row order and the words a reader needs next to a scenario's name (bench/README.md has the rest).
const ROWS = [
  ['shadow-read-parallel'],
  ['live-read-serial'],
  ['off-read'],
  ['dualwrite-write'],
  ['live-write'],
  ['own-events-read', "plain client, cutover's own events"],
  ['context-size', '10,000-attribute context, plain client'],
  ['shadow-read-parallel-fixedstage'],
  ['shadow-read-parallel-fixedstage-otel', '`.meter()` over @opentelemetry/sdk-metrics'],
  ['raw-promise-all', '`Promise.all` + compare, no library'],
  ['cached-lookup'],
  ['uncached-lookup-redis', '1 vs 2 round trips'],
  ['uncached-lookup-redis-cluster', '3 masters, keys on two nodes; LaunchDarkly has no cluster mode'],
  ['uncached-lookup-dynamodb', "dynalite, 1 `GetItem`; LaunchDarkly's store not installable here"],
  ['concurrent-miss-store-calls', '100 misses of one context'],
  ['cold-start-ms', 'import + first read'],
];

/** About three significant digits, as a reader compares them; counts as integers. */
function value(v, unit) {
  if (v == null) return '—';
  if (unit === 'calls' || Math.abs(v) >= 1000) return String(Math.round(v));
  return v.toFixed(Math.abs(v) >= 10 ? 1 : Math.abs(v) >= 1 ? 2 : 3);
}
const two = (x) => x.toFixed(2);
/** "median (p25–p75)" of ratio field `key`, or the median alone where a file has no quartiles. */
function ratio(r, key) {
  if (r[key] == null) return '—';
  const q = r[`${key}_p25`] != null ? ` (${two(r[`${key}_p25`])}–${two(r[`${key}_p75`])})` : '';
  return `${two(r[key])}${q}`;
}
function cutoverCell(r) {
  const v = value(r.cutover, r.unit);
  // µs per lookup → millions of lookups per second.
  return r.name === 'cached-lookup' && r.cutover > 0 ? `${v} (${(1 / r.cutover).toFixed(1)} M lookups/s)` : v;
}

function caption({ machine, method, duration_s: seconds }) {
  const run = `The run below: ${machine.replace(/node v/, 'Node ')}`;
  if (!method) return `${run}; each figure the median of 5 runs per side, interleaved; ratio = cutover ÷ LaunchDarkly, lower is better.`;
  const minutes = seconds ? `, ${(seconds / 60).toFixed(1)} min in all` : '';
  const scale = method.scale !== 1 ? `, op counts × ${method.scale}` : '';
  const runs = `${method.runs} run${method.runs === 1 ? '' : 's'}`;
  return (
    `${run}; ${method.rounds} paired rounds per scenario with a LaunchDarkly side (${runs} otherwise)${scale}${minutes}. ` +
    'Each figure is the median over rounds; ratio = cutover ÷ LaunchDarkly within a round, its median over the rounds ' +
    'with the quartiles in parentheses (p25–p75); lower is better.'
  );
}

function targets(results) {
  const lines = [];
  for (const r of results) {
    const state = (met, p75) => `${met ? 'met' : 'not met'}${p75 != null ? ` (p75 ${two(p75)})` : ''}`;
    if (r.target && r.target.p75 !== undefined) lines.push(`- ${r.name}: ratio ≤ ${r.target.maxRatio}: ${state(r.target.met, r.target.p75)}`);
    for (const f of r.figures ?? []) {
      if (f.max != null && f.p75 !== undefined) lines.push(`- ${r.name}: ${f.label} ≤ ${f.max}: ${state(f.met, f.p75)}`);
    }
  }
  if (!lines.length) return [];
  return ['', 'Targets, each met when the upper quartile over the rounds is at or under it:', '', ...lines];
}

export function table(data) {
  const byName = new Map(data.results.map((r) => [r.name, r]));
  // The latency scenario has a table of its own (latencyTable).
  const known = new Set([...ROWS.map(([name]) => name), LATENCY]);
  const rows = [...ROWS, ...data.results.filter((r) => !known.has(r.name)).map((r) => [r.name])].filter(([n]) => byName.has(n));
  const out = [
    caption(data),
    '',
    '| scenario | unit | cutover | LaunchDarkly | ratio | floor | floor ratio |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [name, words] of rows) {
    const r = byName.get(name);
    const cells = [words ? `${name} (${words})` : name, r.unit, cutoverCell(r), value(r.launchdarkly, r.unit), ratio(r, 'ratio'),
      value(r.floor, r.unit), ratio(r, 'floor_ratio')];
    out.push(`| ${cells.join(' | ')} |`);
  }
  out.push(...targets(data.results.filter((r) => r.name !== LATENCY)));
  const { wasm_raw: raw, wasm_gz: gz, package_gz: pkg } = data.size ?? {};
  if (raw) {
    const tarball = pkg ? `; npm tarball ${(pkg / 1000).toFixed(1)} KB` : '';
    out.push('', `Package: wasm ${raw.toLocaleString('en-US')} B raw / ${gz.toLocaleString('en-US')} B gzipped${tarball}.`);
  }
  return out.join('\n');
}

/**
 * The shadow read latency table: p50 and p99 of each mode of shadow-read-latency (medians over
 * its runs), each p99 ÷ the old origin's alone (per run: median (p25–p75)), the two targets, and
 * the CPU cost per operation of background mode from shadow-read-parallel-fixedstage when the
 * file has it. null when the file has no shadow-read-latency entry.
 */
export function latencyTable(data) {
  const r = data.results.find((x) => x.name === LATENCY);
  if (!r?.figures) return null;
  const fig = Object.fromEntries(r.figures.map((f) => [f.key, f]));
  const ms = (key) => (fig[key]?.value == null ? '—' : fig[key].value.toFixed(fig[key].value >= 10 ? 1 : 2));
  const quartiles = (f) => (f?.value == null ? '—' : `${two(f.value)}${f.p25 != null ? ` (${two(f.p25)}–${two(f.p75)})` : ''}`);
  const state = (f) => `${f.met ? 'met' : 'not met'} (p75 ${two(f.p75)})`;
  const scale = data.method?.scale && data.method.scale !== 1 ? ` × ${data.method.scale}` : '';
  const machine = data.machine.replace(/node v/, 'Node ');
  const out = [
    `The time a shadow read keeps its caller waiting, from the call until its promise resolves, when the old origin answers in ` +
      `about ${OLD_MS} ms and the new one in about ${NEW_MS} ms: the old origin awaited alone (what the caller waited before the ` +
      "migration), cutover in both modes and LaunchDarkly's `createMigration`, on the same seeded delays " +
      `(\`${LATENCY}\`: ${BASE_READS.toLocaleString('en-US')}${scale} reads per row, ${CONCURRENCY} in flight, the rows taking turns in one ` +
      `process; ${r.rounds} runs on ${machine}; medians over the runs, ratios per run with their quartiles; ` +
      'method in `bench/README.md` of the repository, "Latency").',
    '',
    "| read | p50 (ms) | p99 (ms) | p99 ÷ old alone's p99 |",
    '|---|---|---|---|',
  ];
  const rows = [
    ['old origin alone', 'Old', null],
    ["cutover, foreground (LaunchDarkly's semantics), `'parallel'`", 'Fg', 'fgToOld'],
    [`cutover, \`.background({ maxInFlight: ${MAX_IN_FLIGHT} })\`, \`'parallel'\``, 'Bg', 'bgToOld'],
    ["LaunchDarkly's `createMigration`, `LDConcurrentExecution`", 'Ld', 'ldToOld'],
  ];
  for (const [label, key, ratioKey] of rows) {
    out.push(`| ${label} | ${ms(`p50${key}`)} | ${ms(`p99${key}`)} | ${ratioKey ? quartiles(fig[ratioKey]) : '1.00'} |`);
  }
  const goals = r.figures.filter((f) => f.max != null && f.p75 != null);
  if (goals.length) {
    out.push('', 'Targets, each met when the upper quartile over the runs is at or under it:', '');
    for (const f of goals) out.push(`- ${f.label} ≤ ${f.max}: ${quartiles(f)}, ${state(f)}`);
  }
  const cpu = data.results.find((x) => x.name === CPU);
  const bgUs = cpu?.figures?.find((f) => f.key === 'value' && f.side === 'background');
  const ratioCpu = cpu?.figures?.find((f) => f.key === 'backgroundToForeground');
  if (bgUs && ratioCpu) {
    out.push(
      '',
      `CPU per operation in the same run (\`${CPU}\`, trivial origins, ${cpu.rounds} paired rounds, each window closed by \`await migrator.settled()\` ` +
        `so that the background parts are in it): foreground ${value(cpu.cutover, cpu.unit)} µs, \`.background()\` ` +
        `${value(bgUs.value, cpu.unit)} µs; background ÷ foreground within a round ${quartiles(ratioCpu)}, target ≤ ${ratioCpu.max}: ` +
        `${state(ratioCpu)}.`,
    );
  }
  return out.join('\n');
}

/** docs/BENCHMARKS.md with the block between the markers `begin` … `end` replaced by `body`. */
export function intoReadme(readme, body, begin = BEGIN, end = END) {
  const a = readme.indexOf(begin);
  const b = readme.indexOf(end);
  if (a < 0 || b < a) throw new Error(`docs/BENCHMARKS.md has no ${begin} … ${end} block`);
  return `${readme.slice(0, a + begin.length)}\n${body}\n${readme.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const files = [];
  let latencyFile = null;
  for (let k = 0; k < args.length; k++) {
    if (args[k].startsWith('--latency=')) latencyFile = args[k].slice('--latency='.length);
    else if (args[k] === '--latency') latencyFile = args[++k];
    else if (!args[k].startsWith('--')) files.push(args[k]);
  }
  const file = files[0] ?? fileURLToPath(new URL('./results.json', import.meta.url));
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const body = table(data);
  console.log(body);
  const latency = latencyTable(latencyFile ? JSON.parse(readFileSync(latencyFile, 'utf8')) : data);
  if (latency) console.log(`\n${latency}`);
  if (args.includes('--readme')) {
    let readme = intoReadme(readFileSync(README, 'utf8'), body);
    if (latency) readme = intoReadme(readme, latency, LATENCY_BEGIN, LATENCY_END);
    writeFileSync(README, readme);
    console.error(
      `docs/BENCHMARKS.md: benchmark table replaced; ${latency ? 'latency table replaced' : `latency table left as it was (no ${LATENCY} entry in ${latencyFile ?? file})`}`,
    );
  }
}
