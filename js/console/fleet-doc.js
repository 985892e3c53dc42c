// What one process publishes into the fleet (redisFleet), and how the console reads a fleet back:
// the document is counts, guard states, mismatch paths and the latency histograms' wire form,
// never a value or a context key. The fleet's totals are the sums of the live instances' counts
// and the core's merge of their histograms (fleetLatency: percentiles of every call, never an
// average of percentiles); which instances are live is the core's (fleetStandings).
import { FleetStanding, fleetLatency, fleetStandings } from '../wasm/cutover.js';
import { CONSOLE_SAMPLE, read } from '../util.js';
import { figure } from './history.js';
import { flatWires, splitSample } from './wires.js';

const OPS = ['read', 'write'];
const SIDES = ['old', 'new'];
/** The latency wires' order in a document: read old/new, write old/new. */
const LATENCIES = ['readOld', 'readNew', 'writeOld', 'writeNew'];
const num = (x) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);

/** One operation's counts, from stats(). */
function opCounts(op) {
  const consistency = read(op, 'consistency') ?? {};
  const side = (s) => ({ invoked: num(read(read(op, s), 'invoked')), errors: num(read(read(op, s), 'errors')), timeouts: num(read(read(op, s), 'timeouts')) });
  return {
    count: num(read(op, 'count')),
    byStage: { ...(read(op, 'byStage') ?? {}) },
    shed: num(read(op, 'shed')),
    old: side('old'),
    new: side('new'),
    checked: num(read(consistency, 'checked')),
    consistent: num(read(consistency, 'consistent')),
    paths: { ...(read(consistency, 'paths') ?? {}) },
  };
}

/** This process's document: `{ v: 1, at, migrators: { name: … }, managers: { name: counters } }`, as JSON. */
export function fleetDocument(migrators, managers, at = Date.now()) {
  const doc = { v: 1, at, migrators: {}, managers: {} };
  for (const { name, item } of migrators) {
    let stats, sample;
    try {
      stats = item.stats();
      sample = typeof item[CONSOLE_SAMPLE] === 'function' ? splitSample(item[CONSOLE_SAMPLE]()) : undefined;
    } catch {
      continue;
    }
    const guard = read(stats, 'guard');
    const flags = read(guard, 'flags');
    doc.migrators[name] = {
      read: opCounts(read(stats, 'read')),
      write: opCounts(read(stats, 'write')),
      inFlight: sample ? num(sample[0]) : 0,
      latency: sample ? sample.slice(1, 5).map((w) => Array.from(w)) : [],
      guard: flags && typeof flags === 'object'
        ? Object.fromEntries(Object.entries(flags).map(([flag, f]) => [flag, { state: String(read(f, 'state')), since: read(f, 'since') ?? null, reason: read(f, 'reason') ?? null }]))
        : null,
    };
  }
  for (const { name, item } of managers) {
    try {
      const wire = typeof item[CONSOLE_SAMPLE] === 'function' ? item[CONSOLE_SAMPLE]() : undefined;
      doc.managers[name] = { counters: { ...item.stats() }, latency: wire ? Array.from(wire) : [] };
    } catch {
      // left out
    }
  }
  return JSON.stringify(doc);
}

/** A latency summary array of the core (`[count, mean, p50, p90, p99, max, …]`) as an object, or null. */
function summaryOf(numbers) {
  return numbers.length >= 6 ? { count: numbers[0], p50: figure(numbers[2]), p99: figure(numbers[4]), max: figure(numbers[5]) } : null;
}

/** Adds `from`'s counts into `into` (numbers added, objects merged key by key). */
function addCounts(into, from) {
  for (const [k, v] of Object.entries(from ?? {})) {
    if (typeof v === 'number') into[k] = (typeof into[k] === 'number' ? into[k] : 0) + num(v);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) addCounts((into[k] ??= {}), v);
  }
  return into;
}

/**
 * The fleet as the page shows it, from the hash's [field, document] pairs at `now`: totals and
 * each live instance; `expired` the fields to delete.
 */
export function fleetView(pairs, now, ttlMs, self) {
  const docs = pairs.map(([field, text]) => {
    try {
      const doc = JSON.parse(String(text));
      return doc !== null && typeof doc === 'object' && doc.v === 1 ? { field, doc } : { field, doc: null };
    } catch {
      return { field, doc: null };
    }
  });
  const standings = fleetStandings(Float64Array.from(docs, ({ doc }) => (doc ? Number(doc.at) : NaN)), now, ttlMs);
  const live = docs.filter((_, i) => standings[i] === FleetStanding.Live);
  const expired = docs.filter((_, i) => standings[i] === FleetStanding.Expired).map(({ field }) => field);
  const names = [...new Set(live.flatMap(({ doc }) => Object.keys(doc.migrators ?? {})))].slice(0, 64);
  const latencyOf = (wires) => {
    const merged = fleetLatency(flatWires(wires));
    return { summary: summaryOf(merged), unreadable: merged[merged.length - 1] };
  };
  let unreadable = 0;
  const migrators = names.map((name) => {
    const parts = live.map(({ doc }) => doc.migrators?.[name]).filter((p) => p && typeof p === 'object');
    const total = { name, instances: parts.length, inFlight: 0, guard: {} };
    for (const op of OPS) total[op] = {};
    for (const p of parts) {
      for (const op of OPS) addCounts(total[op], p[op]);
      total.inFlight += num(p.inFlight);
      for (const [flag, g] of Object.entries(p.guard ?? {})) {
        const states = (total.guard[flag] ??= {});
        const state = String(read(g, 'state'));
        states[state] = (states[state] ?? 0) + 1;
      }
    }
    total.latency = {};
    LATENCIES.forEach((slot, i) => {
      const { summary, unreadable: bad } = latencyOf(parts.map((p) => (Array.isArray(p.latency) ? p.latency[i] : undefined)));
      total.latency[slot] = summary;
      unreadable += bad;
    });
    for (const op of OPS) total[op].paths = Object.entries(total[op].paths ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 33);
    return total;
  });
  const instances = live.map(({ field, doc }) => ({
    instance: field,
    self: field === self,
    at: doc.at,
    migrators: Object.fromEntries(Object.entries(doc.migrators ?? {}).slice(0, 64).map(([name, p]) => {
      const ops = num(p?.read?.count) + num(p?.write?.count);
      const errors = SIDES.reduce((n, s) => n + num(p?.read?.[s]?.errors) + num(p?.write?.[s]?.errors), 0);
      const newP99 = latencyOf([Array.isArray(p?.latency) ? p.latency[1] : undefined]).summary?.p99 ?? null;
      return [name, { ops, errors, readNewP99: newP99 }];
    })),
  }));
  const managerNames = [...new Set(live.flatMap(({ doc }) => Object.keys(doc.managers ?? {})))].slice(0, 64);
  const managers = managerNames.map((name) => {
    const parts = live.map(({ doc }) => doc.managers?.[name]).filter((p) => p && typeof p === 'object');
    const counters = {};
    for (const p of parts) addCounts(counters, p.counters);
    return { name, instances: parts.length, counters, storeLatencyMs: latencyOf(parts.map((p) => p.latency)).summary };
  });
  return { ttlMs, instances, migrators, managers, unreadable: unreadable + docs.filter((d) => d.doc === null).length, expired };
}
