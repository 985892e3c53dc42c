// The console report of bench/run.mjs: the table, targets and figures, per-round series, notes.
import { round } from './summary.mjs';

const dash = (v) => (v == null ? '—' : String(v));
const met = (ok) => (ok ? 'met' : 'not met');
/** "median (p25–p75)" of a ratio field of a results entry, or "—". */
export const ratioCell = (r, key) =>
  r[key] == null ? '—' : r[`${key}_p25`] == null ? String(r[key]) : `${r[key]} (${r[`${key}_p25`]}–${r[`${key}_p75`]})`;

export function printReport({ machine, method, results, size, details, seconds, written, skipped }) {
  const header = ['name', 'unit', 'cutover', 'launchdarkly', 'ratio (p25–p75)', 'floor', 'floor ratio (p25–p75)'];
  const rows = results.map((r) => [
    r.name, r.unit, String(r.cutover), dash(r.launchdarkly), ratioCell(r, 'ratio'), dash(r.floor), ratioCell(r, 'floor_ratio'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`machine: ${machine}`);
  console.log(
    `${method.rounds} paired rounds per scenario with a LaunchDarkly side, ${method.runs} run${method.runs === 1 ? '' : 's'} otherwise ` +
      `(every side of a round in a fresh process, order alternating; op counts × ${method.scale})`,
  );
  console.log('values: median over rounds; ratio = cutover/LD per round, median (p25–p75) over rounds; lower is better');
  console.log('floor = the part of the same work no implementation can avoid (see each note); floor ratio = floor/LD, the best ratio possible\n');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));

  const targeted = results.filter((r) => r.figures || r.target);
  if (targeted.length) {
    console.log('\ntargets (met when the upper quartile over rounds is at or under the target) and figures (median over rounds):');
    for (const r of targeted) {
      if (r.target) {
        console.log(`  ${r.name}: ratio ${ratioCell(r, 'ratio')}, target ≤ ${r.target.maxRatio}: ${met(r.target.met)}`);
      }
      for (const f of r.figures ?? []) {
        const q = f.p25 != null ? ` (${f.p25}–${f.p75})` : '';
        const target = f.max != null ? `, target ≤ ${f.max}: ${met(f.met)}` : '';
        console.log(`  ${r.name}: ${f.label} = ${dash(f.value)}${q}${f.unit ? ` ${f.unit}` : ''}${target}`);
      }
    }
  }
  console.log(`\nsize: wasm_raw=${size.wasm_raw} B, wasm_gz=${size.wasm_gz} B (gzip -9), package_gz=${size.package_gz} B (npm pack)`);
  console.log('\nper-round values, in round order (even rounds ran cutover first):');
  for (const { name, side, values } of details) {
    const s = [...values].sort((a, b) => a - b);
    console.log(`  ${name} ${side}: ${round(s[0], 3)} … ${round(s[s.length - 1], 3)}  [${values.map((v) => round(v, 3)).join(', ')}]`);
  }
  console.log('\nnotes:');
  for (const r of results) console.log(`  ${r.name}: ${r.note}`);
  const fate = written ? `wrote ${written}` : `${skipped.length ? `${skipped.join(', ')} skipped` : 'partial run'}: bench/results.json not written`;
  console.log(`\ntotal ${seconds.toFixed(1)} s; ${fate}`);
}
