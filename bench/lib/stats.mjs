// Order statistics over rounds: medians and quartiles of per-round values and of paired ratios.

/** The q-quantile of xs (0 ≤ q ≤ 1), interpolating linearly between the two nearest ranks. */
export function quantile(xs, q) {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo] + (s[hi] - s[lo]) * (at - lo);
}

export const median = (xs) => quantile(xs, 0.5);

/** { median, p25, p75 } of xs, or null when there is no number in it. */
export function spread(xs) {
  const m = median(xs);
  return m == null ? null : { median: m, p25: quantile(xs, 0.25), p75: quantile(xs, 0.75) };
}

/**
 * Round-by-round ratios a[i] / b[i]: each numerator is divided by the denominator measured in
 * the same round, so whatever slowed the machine during that round cancels out of it.
 */
export function pairedRatios(a, b) {
  const out = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (typeof a[i] === 'number' && typeof b[i] === 'number' && b[i] !== 0) out.push(a[i] / b[i]);
  }
  return out;
}
