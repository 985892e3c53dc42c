// The README's benchmark table, from bench/results.json (what `npm run bench` wrote):
//   node bench/table.mjs [results.json]   prints it (markdown)
//   node bench/table.mjs --readme         also puts it in README.md, between the bench-table markers
// A ratio shows as "median (p25–p75)" over the paired rounds; every other figure is a median.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BEGIN = '<!-- bench-table: node bench/table.mjs --readme writes this block from bench/results.json -->';
const END = '<!-- /bench-table -->';
const README = fileURLToPath(new URL('../README.md', import.meta.url));

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
  const known = new Set(ROWS.map(([name]) => name));
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
  out.push(...targets(data.results));
  const { wasm_raw: raw, wasm_gz: gz, package_gz: pkg } = data.size ?? {};
  if (raw) {
    const tarball = pkg ? `; npm tarball ${(pkg / 1000).toFixed(1)} KB` : '';
    out.push('', `Package: wasm ${raw.toLocaleString('en-US')} B raw / ${gz.toLocaleString('en-US')} B gzipped${tarball}.`);
  }
  return out.join('\n');
}

/** README.md with the block between the markers replaced by `body`. */
export function intoReadme(readme, body) {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  return `${readme.slice(0, a + BEGIN.length)}\n${body}\n${readme.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--')) ?? fileURLToPath(new URL('./results.json', import.meta.url));
  const body = table(JSON.parse(readFileSync(file, 'utf8')));
  console.log(body);
  if (args.includes('--readme')) {
    writeFileSync(README, intoReadme(readFileSync(README, 'utf8'), body));
    console.error('README.md: benchmark table replaced');
  }
}
