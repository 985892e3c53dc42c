// The cutover console's page script (served by migrationConsole as <basePath>/console.js).
// Plain DOM and hand-written SVG: no library, no inline script or style (the page's CSP is
// default-src 'self'). Every text from the server goes in through textContent, never as HTML.
// It loads /api/snapshot (the whole history), then follows /api/stream (one event a second
// with the last second's samples) and draws again.
const base = document.documentElement.dataset.base ?? '';
const SVG = 'http://www.w3.org/2000/svg';
const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const main = document.getElementById('main');
const live = document.getElementById('live');
const clock = document.getElementById('clock');
let snapshot = null;
let scope = 'process';

/** An element: `h('div.card', { title: 'x' }, child, 'text', …)`; null/false children skipped. */
function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag);
  if (classes.length) el.className = classes.join(' ');
  for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}
function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

const fmt = (x, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? '—' : Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en') : x.toFixed(digits));
const pct = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(x >= 0.9995 || x === 0 ? 0 : 1)}%`);
const ms = (x) => (x === null || x === undefined ? '—' : `${x < 10 ? x.toFixed(2) : fmt(x)} ms`);
const ago = (at) => (at ? `${Math.max(0, Math.round((Date.now() - at) / 1000))} s ago` : '—');
const time = (at) => (at ? new Date(at).toLocaleTimeString('en-GB') : '—');
const lastOf = (values) => {
  for (let i = (values?.length ?? 0) - 1; i >= 0; i--) if (values[i] !== null) return values[i];
  return null;
};
const ratio = (a, b) => (b > 0 ? a / b : null);

/** A figure: a label over a big number. */
const kpi = (label, value, cls) => h(`div.kpi${cls ? `.${cls}` : ''}`, null, h('span', null, label), h('b', null, value));

/**
 * A line chart of `lines` ([{ label, cls, values }], one value a second, null for none) over the
 * history, scaled to its largest value; `format` prints the legend's last values and the top.
 */
function chart(title, lines, format) {
  const n = Math.max(2, ...lines.map((l) => l.values?.length ?? 0));
  const top = Math.max(0, ...lines.flatMap((l) => (l.values ?? []).filter((v) => v !== null))) || 1;
  const svg = s('svg', { viewBox: '0 0 300 80', preserveAspectRatio: 'none', role: 'img', 'aria-label': title });
  for (const y of [20, 40, 60]) svg.append(s('line', { x1: 0, x2: 300, y1: y, y2: y, class: 'grid' }));
  for (const line of lines) {
    let d = '';
    let pen = false;
    (line.values ?? []).forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      const x = (300 * i) / (n - 1);
      const y = 78 - (76 * v) / top;
      d += `${pen ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`;
      pen = true;
    });
    if (d) svg.append(s('path', { d, class: `line ${line.cls}` }));
  }
  const legend = lines.map((l) => h(`span.key.${l.cls}`, null, `${l.label} ${format(lastOf(l.values))}`));
  return h('figure.chart', null, h('figcaption', null, h('b', null, title), h('span.ceil', null, `max ${format(top)}`)), svg, h('div.legend', null, legend));
}

/** The stage mix: one bar of the operations by stage, with its legend. */
function stageMix(read, write) {
  const counts = STAGES.map((st) => (read?.byStage?.[st] ?? 0) + (write?.byStage?.[st] ?? 0));
  const total = counts.reduce((a, b) => a + b, 0);
  const svg = s('svg', { viewBox: '0 0 100 4', preserveAspectRatio: 'none', class: 'stagebar', role: 'img', 'aria-label': 'stage mix' });
  let x = 0;
  counts.forEach((c, i) => {
    if (!c) return;
    const w = (100 * c) / total;
    svg.append(s('rect', { x, y: 0, width: w, height: 4, class: `st-${STAGES[i]}` }));
    x += w;
  });
  const legend = STAGES.map((st, i) => (counts[i] ? h(`span.key.st-${st}`, null, `${st} ${pct(counts[i] / total)}`) : null));
  return h('div.mix', null, total ? svg : h('p.muted', null, 'no operation yet'), h('div.legend', null, legend));
}

function pathsTable(paths) {
  if (!paths?.length) return h('p.muted', null, 'No mismatch path (mismatches() not configured, or none yet).');
  const top = paths[0][1];
  return h('table.paths', null, h('thead', null, h('tr', null, h('th', null, 'path'), h('th', null, 'mismatches'), h('th', null, ''))),
    h('tbody', null, paths.slice(0, 12).map(([path, n]) => h('tr', null, h('td', null, h('code', null, path || '(root)')), h('td.num', null, fmt(n, 0)), h('td', null, h('meter', { min: 0, max: top, value: n }))))));
}

function mismatchList(mismatches, showValues) {
  if (!mismatches?.length) return h('p.muted', null, 'No mismatch kept.');
  return h('ol.mismatches', null, mismatches.map((m) => h('li', null,
    h('div.meta', null, h('time', null, time(m.at)), h('code', null, m.flagKey), h('span.tag', null, m.stage), h('span', null, `${m.context.kind}${m.context.key !== undefined ? ` ${m.context.key}` : ''}`), m.truncated ? h('span.muted', null, 'more differences…') : null),
    h('ul', null, m.differences.map((d) => h('li', null, h('code', null, d.path || '(root)'), ` ${d.kind}`,
      showValues ? h('span.values', null, ` ${d.old ?? ''} → ${d.new ?? ''}`) : null))))));
}

function guardPanel(guard, changes) {
  if (!guard) return null;
  return h('div.guard', null, h('h3', null, 'Guard'),
    h('div.kpis', null, kpi('trips', fmt(guard.trips, 0)), kpi('recoveries', fmt(guard.recoveries, 0)), kpi('fallbacks', `${fmt(guard.fallbacks.read ?? 0, 0)} r / ${fmt(guard.fallbacks.write ?? 0, 0)} w`)),
    guard.flags.length ? h('table', null, h('tbody', null, guard.flags.map((f) => h('tr', null, h('td', null, h('code', null, f.flagKey)), h('td', null, h(`span.pill.g-${f.state}`, null, f.state)), h('td', null, ago(f.since)), h('td.muted', null, f.reason ?? ''))))) : null,
    changes?.length ? h('ol.changes', null, changes.slice().reverse().map((c) => h('li', null, h('time', null, time(c.at)), ` ${c.flagKey}: ${c.from ?? '—'} → ${c.to}`, c.reason ? h('span.muted', null, ` (${c.reason})`) : null))) : null);
}

function migratorCard(m, showValues) {
  const series = m.history.series;
  const r = m.read;
  const w = m.write;
  const checked = r?.consistency.checked ?? 0;
  return h('section.card', { 'data-migrator': m.name },
    h('h2', null, m.name, h('small', null, `${fmt((r?.count ?? 0) + (w?.count ?? 0), 0)} operations`)),
    stageMix(r, w),
    h('div.kpis', null,
      kpi('reads/s', fmt(lastOf(series.readOps))),
      kpi('writes/s', fmt(lastOf(series.writeOps))),
      kpi('consistent', pct(ratio(r?.consistency.consistent ?? 0, checked)), checked && r.consistency.consistent < checked ? 'warn' : null),
      kpi('new errors', pct(ratio((r?.new.errors ?? 0) + (w?.new.errors ?? 0), (r?.new.invoked ?? 0) + (w?.new.invoked ?? 0))), (r?.new.errors ?? 0) + (w?.new.errors ?? 0) ? 'bad' : null),
      kpi('shed', fmt((r?.shed ?? 0) + (w?.shed ?? 0), 0)),
      kpi('in flight', m.inFlight === null ? '—' : fmt(m.inFlight, 0))),
    h('div.charts', null,
      chart('operations/s', [{ label: 'read', cls: 'c1', values: series.readOps }, { label: 'write', cls: 'c2', values: series.writeOps }], fmt),
      chart('read latency', [{ label: 'old p50', cls: 'old', values: series.readOldP50 }, { label: 'old p99', cls: 'old p99', values: series.readOldP99 }, { label: 'new p50', cls: 'new', values: series.readNewP50 }, { label: 'new p99', cls: 'new p99', values: series.readNewP99 }], ms),
      chart('write latency', [{ label: 'old p50', cls: 'old', values: series.writeOldP50 }, { label: 'old p99', cls: 'old p99', values: series.writeOldP99 }, { label: 'new p50', cls: 'new', values: series.writeNewP50 }, { label: 'new p99', cls: 'new p99', values: series.writeNewP99 }], ms),
      chart('error rate', [{ label: 'old', cls: 'old', values: series.oldErrorRate }, { label: 'new', cls: 'new', values: series.newErrorRate }], pct),
      chart('consistent reads', [{ label: 'consistent', cls: 'c1', values: series.consistency }], pct),
      chart('background', [{ label: 'in flight', cls: 'c1', values: series.inFlight }, { label: 'shed/s', cls: 'c2', values: series.shed }], fmt)),
    guardPanel(m.guard, m.guardChanges),
    h('details', { open: '' }, h('summary', null, `Mismatch paths (${r?.consistency.paths.length ?? 0})`), pathsTable(r?.consistency.paths)),
    h('details', { open: '' }, h('summary', null, `Last mismatches (${m.mismatches.length})`), mismatchList(m.mismatches, showValues)));
}

function managerCard(m) {
  const c = m.counters ?? {};
  const series = m.history.series;
  return h('section.card', { 'data-manager': m.name },
    h('h2', null, m.name, h('small', null, 'Big Segments'), h(`span.pill.s-${m.status}`, null, m.status)),
    h('div.kpis', null,
      kpi('lookups/s', fmt(lastOf(series.lookups))),
      kpi('cache hit rate', pct(ratio(c.cacheHits ?? 0, c.lookups ?? 0))),
      kpi('store queries', fmt(c.membershipQueries ?? 0, 0)),
      kpi('store errors', fmt((c.membershipErrors ?? 0) + (c.statusErrors ?? 0), 0), c.membershipErrors || c.statusErrors ? 'bad' : null),
      kpi('store p50 / p99', m.storeLatencyMs ? `${ms(m.storeLatencyMs.p50)} / ${ms(m.storeLatencyMs.p99)}` : '—')),
    h('div.charts', null,
      chart('lookups/s', [{ label: 'lookups', cls: 'c1', values: series.lookups }, { label: 'store queries', cls: 'c2', values: series.queries }], fmt),
      chart('cache hit rate', [{ label: 'hits', cls: 'new', values: series.hitRate }], pct),
      chart('store latency', [{ label: 'p50', cls: 'new', values: series.storeP50 }, { label: 'p99', cls: 'new p99', values: series.storeP99 }], ms)));
}

function fleetSection(fleet) {
  const totals = fleet.migrators.map((t) => {
    const ops = (t.read.count ?? 0) + (t.write.count ?? 0);
    const lat = (x) => (x ? `${ms(x.p50)} / ${ms(x.p99)}` : '—');
    return h('tr', null, h('td', null, t.name), h('td.num', null, t.instances), h('td.num', null, fmt(ops, 0)),
      h('td.num', null, pct(ratio(t.read.consistent ?? 0, t.read.checked ?? 0))), h('td', null, lat(t.latency.readOld)), h('td', null, lat(t.latency.readNew)),
      h('td', null, Object.entries(t.guard).map(([flag, states]) => `${flag}: ${Object.entries(states).map(([st, n]) => `${n} ${st}`).join(', ')}`).join('; ') || '—'));
  });
  const names = fleet.migrators.map((t) => t.name);
  const managers = (fleet.managers ?? []).map((t) => h('tr', null, h('td', null, t.name), h('td.num', null, t.instances), h('td.num', null, fmt(t.counters.lookups ?? 0, 0)),
    h('td.num', null, pct(ratio(t.counters.cacheHits ?? 0, t.counters.lookups ?? 0))), h('td.num', null, fmt((t.counters.membershipErrors ?? 0) + (t.counters.statusErrors ?? 0), 0)),
    h('td', null, t.storeLatencyMs ? `${ms(t.storeLatencyMs.p50)} / ${ms(t.storeLatencyMs.p99)}` : '—')));
  return h('section.card.fleet', null,
    h('h2', null, `Fleet: ${fleet.instances.length} instance${fleet.instances.length === 1 ? '' : 's'}`, h('small', null, `${fleet.key}, every ${fleet.intervalMs / 1000} s, gone after ${fleet.ttlMs / 1000} s`)),
    fleet.error ? h('p.bad', null, `Reading the fleet failed: ${fleet.error}`) : null,
    fleet.publishError ? h('p.bad', null, `Publishing failed: ${fleet.publishError}`) : null,
    h('div.scroll', null, h('table', null, h('thead', null, h('tr', null, ['migrator', 'instances', 'operations', 'consistent', 'read old p50 / p99', 'read new p50 / p99', 'guard'].map((t) => h('th', null, t)))), h('tbody', null, totals))),
    managers.length ? h('div.scroll', null, h('table', null, h('thead', null, h('tr', null, ['Big Segments', 'instances', 'lookups', 'cache hit rate', 'store errors', 'store p50 / p99'].map((t) => h('th', null, t)))), h('tbody', null, managers))) : null,
    h('div.scroll', null, h('table', null, h('thead', null, h('tr', null, h('th', null, 'instance'), h('th', null, 'published'), names.map((n) => h('th', null, `${n} ops / errors / new p99`)))),
      h('tbody', null, fleet.instances.map((i) => h('tr', i.self ? { class: 'self' } : null, h('td', null, i.instance, i.self ? ' (this one)' : ''), h('td', null, ago(i.at)),
        names.map((n) => h('td', null, i.migrators[n] ? `${fmt(i.migrators[n].ops, 0)} / ${fmt(i.migrators[n].errors, 0)} / ${ms(i.migrators[n].readNewP99)}` : '—'))))))));
}

function render() {
  if (!snapshot) return;
  document.getElementById('redaction').textContent = snapshot.showValues ? 'shown (showValues: true)' : 'redacted';
  document.getElementById('window').textContent = `${Math.round(snapshot.historySeconds / 60)} min`;
  clock.textContent = time(snapshot.at);
  const sections = [];
  if (snapshot.fleet) {
    sections.push(h('nav.scope', null, ['process', 'fleet'].map((sc) => {
      const b = h(`button${scope === sc ? '.on' : ''}`, { type: 'button' }, sc === 'process' ? 'This process' : 'Whole fleet');
      b.addEventListener('click', () => { scope = sc; render(); });
      return b;
    })));
  }
  if (scope === 'fleet' && snapshot.fleet) sections.push(fleetSection(snapshot.fleet));
  else {
    sections.push(...snapshot.migrators.map((m) => migratorCard(m, snapshot.showValues)), ...snapshot.managers.map(managerCard));
    if (!snapshot.migrators.length && !snapshot.managers.length) sections.push(h('p.muted', null, 'Nothing to show: pass migrators or managers to migrationConsole().'));
  }
  main.replaceChildren(...sections);
}

/** Appends an event's last-second samples to the history held (at most historySeconds). */
function appendHistory(held, next) {
  if (!held || !next?.end) return next;
  if (held.end !== null && next.end <= held.end) return held;
  const gap = held.end === null ? 1 : Math.round((next.end - held.end) / 1000);
  for (const [name, values] of Object.entries(next.series)) {
    const old = held.series[name] ?? [];
    const filler = new Array(Math.max(0, Math.min(gap - 1, snapshot.historySeconds))).fill(null);
    held.series[name] = old.concat(filler, values).slice(-snapshot.historySeconds);
  }
  held.end = next.end;
  return held;
}

function apply(next) {
  const merge = (list, nextList) => nextList.map((item) => ({ ...item, history: appendHistory(list.find((x) => x.name === item.name)?.history, item.history) }));
  snapshot = { ...next, migrators: merge(snapshot.migrators, next.migrators), managers: merge(snapshot.managers, next.managers) };
  render();
}

function status(text, cls) {
  live.textContent = text;
  live.className = `pill ${cls}`;
}

async function start() {
  try {
    const response = await fetch(`${base}/api/snapshot`, { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) throw new Error(`${response.status}`);
    snapshot = await response.json();
    render();
  } catch (error) {
    status(`unavailable (${error.message})`, 'bad');
    setTimeout(start, 5000);
    return;
  }
  const events = new EventSource(`${base}/api/stream`);
  events.addEventListener('open', () => status('live', 'ok'));
  events.addEventListener('error', () => status('reconnecting…', 'warn'));
  events.addEventListener('snapshot', (event) => {
    try {
      apply(JSON.parse(event.data));
      status('live', 'ok');
    } catch {
      status('bad data', 'bad');
    }
  });
}

start();
