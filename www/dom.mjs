// The dashboard's page helpers: elements by test id, number formats, and the chart clock.

export const TICK_MS = 1000; // statistics are read and reset once per tick
export const WINDOW = 61; // points shown in the charts: the last minute

export const $ = (id) => {
  const node = document.querySelector(`[data-testid="${id}"]`);
  if (!node) throw new Error(`no element with data-testid="${id}"`);
  return node;
};
export const show = (id, text) => {
  const node = $(id);
  if (node.textContent !== text) node.textContent = text;
};
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
export const fmtMs = (x) => (x == null ? '—' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
export const fmtPct = (x) => (x == null ? '—' : `${(100 * x).toFixed(1)}%`);
export const fmtRate = (x) => (x < 10 ? x.toFixed(1) : fmtInt(x));
export const fmtAxis = (v) => String(Number(v.toPrecision(3)));
