// One scenario's entry in bench/results.json, from its per-round results: every side's median,
// the median and quartiles of the paired per-round ratios, figures and targets.
import { median, pairedRatios, spread } from './stats.mjs';

const decimals = (unit) => (unit === 'calls' ? 0 : unit === 'ms' ? 2 : 3);
export const round = (x, d) => (x == null ? null : Number(x.toFixed(d)));
const LABEL = { cutover: 'cutover', migrations: 'cutover/migrations', launchdarkly: 'LD', floor: 'floor', background: 'background', guarded: 'guarded' };

function compact(info) {
  if (!info) return '';
  const fmt = (v) =>
    typeof v === 'number' ? String(round(v, Number.isInteger(v) ? 0 : 3)) : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return Object.entries(info)
    .map(([k, v]) => `${k}=${fmt(v)}`)
    .join(', ');
}

/** `key`, `key_p25`, `key_p75` of the per-round ratios a/b, rounded; nothing when there is no pair. */
function ratioFields(key, a, b) {
  const s = spread(pairedRatios(a, b));
  return s ? { [key]: round(s.median, 3), [`${key}_p25`]: round(s.p25, 3), [`${key}_p75`]: round(s.p75, 3) } : { [key]: null };
}

/**
 * The results.json entry of scenario `name` (module metadata `meta`) from `samples`:
 * { side: [{ value, info? } per round] }. Also returns `details`, every series of per-round
 * numbers for the console report.
 */
export function summarize(name, meta, samples) {
  const sides = Object.keys(samples);
  const d = decimals(meta.unit);
  const values = Object.fromEntries(sides.map((s) => [s, samples[s].map((r) => r.value)]));
  const med = Object.fromEntries(sides.map((s) => [s, median(values[s])]));
  const details = sides.map((side) => ({ name, side, values: values[side] }));
  // The info of the round whose value is closest to the side's median.
  const extra = sides.map((s) => {
    const best = samples[s].reduce((a, b) => (Math.abs(b.value - med[s]) < Math.abs(a.value - med[s]) ? b : a));
    return `${LABEL[s] ?? s} (median round): ${compact(best.info)}`;
  });
  const ld = values.launchdarkly;
  const result = {
    name,
    unit: meta.unit,
    rounds: values[sides[0]].length,
    cutover: round(med.cutover, d),
    launchdarkly: ld ? round(med.launchdarkly, d) : null,
    ...(ld ? ratioFields('ratio', values.cutover, ld) : { ratio: null }),
    note: `${meta.note}. ${extra.join('; ')}`,
  };
  if (ld) details.push({ name, side: 'ratio cutover/LD', values: pairedRatios(values.cutover, ld) });
  // What bounds the ratio: the same work's unavoidable part, measured in the same rounds.
  if (values.floor) {
    result.floor = round(med.floor, d);
    Object.assign(result, ld ? ratioFields('floor_ratio', values.floor, ld) : { floor_ratio: null });
    result.floor_note = meta.floor;
  }
  // Scenario-specific figures: meta.figures = [{ key, side = 'cutover', label, unit?, max?, ratioOf? }],
  // each the median (and quartiles) over rounds of that side's info[key] (key 'value': the side's
  // value itself), or with ratioOf: [a, b], of the per-round ratios a ÷ b of two sides' values.
  if (meta.figures) {
    result.figures = meta.figures.map(({ key, side = 'cutover', label, unit, max, ratioOf }) => {
      const series = ratioOf
        ? pairedRatios(values[ratioOf[0]], values[ratioOf[1]])
        : samples[side].map((r) => (key === 'value' ? r.value : r.info?.[key])).filter((v) => typeof v === 'number');
      const s = spread(series);
      const where = ratioOf ? ratioOf.join('/') : side;
      if (ratioOf || key !== 'value') details.push({ name, side: `${where} ${key}`, values: series }); // a side's values are there already
      const fig = { key, side: where, label: label ?? key, ...(unit ? { unit } : {}), value: s && round(s.median, 3) };
      if (s) Object.assign(fig, { p25: round(s.p25, 3), p75: round(s.p75, 3) });
      if (max != null) Object.assign(fig, { max, met: s != null && s.p75 <= max });
      return fig;
    });
  }
  // A target for the ratio is met when the upper quartile of the per-round ratios is at or under it.
  if (meta.maxRatio != null) {
    const p75 = result.ratio_p75 ?? null;
    result.target = { maxRatio: meta.maxRatio, p75, met: p75 != null && p75 <= meta.maxRatio };
  }
  result.samples = Object.fromEntries(sides.map((s) => [s, values[s].map((v) => round(v, d))]));
  return { result, details };
}
