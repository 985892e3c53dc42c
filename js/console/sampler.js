// The console's sampler: once a second it reads each migrator's stats() (and, through the
// Migrator's console entry, its background parts in flight and its latency histograms) and each
// manager's counters, and turns the differences since the previous second into the history's
// rates. The per-second percentiles are the core's (windowLatency: the histogram of what was
// recorded in that second, src/fleet/latency.rs), not a difference of cumulative percentiles.
import { windowLatency } from '../wasm/cutover.js';
import { CONSOLE_SAMPLE, read } from '../util.js';
import { History } from './history.js';
import { splitSample } from './wires.js';

/** A migrator's series, one value a second. */
export const MIGRATOR_SERIES = Object.freeze([
  'readOps', 'writeOps', 'oldErrorRate', 'newErrorRate', 'consistency', 'shed', 'inFlight',
  'readOldP50', 'readOldP99', 'readNewP50', 'readNewP99', 'writeOldP50', 'writeOldP99', 'writeNewP50', 'writeNewP99',
]);
/** A manager's series. */
export const MANAGER_SERIES = Object.freeze(['lookups', 'hitRate', 'queries', 'queryErrors', 'storeP50', 'storeP99']);
/** Guard changes kept per migrator, newest last. */
const GUARD_CHANGES = 20;
/** Latency windows, in the order of the wire forms after `inFlight`: read old/new, write old/new. */
const WINDOWS = [[7, 8], [9, 10], [11, 12], [13, 14]];

/** `f()`, or undefined when it throws: a console shows what it can read. */
function attempt(f) {
  try {
    return f();
  } catch {
    return undefined;
  }
}

const count = (x) => (typeof x === 'number' && x >= 0 ? x : 0);
/** How much `now` grew since `before`; after a reset (it shrank), all of `now`. */
const grew = (now, before) => (count(now) >= count(before) ? count(now) - count(before) : count(now));
const ratio = (part, whole) => (whole > 0 ? part / whole : NaN);

/** One migrator's values for `MIGRATOR_SERIES`, from this second's and the previous reading. */
function migratorRow(now, before, seconds) {
  const op = (o) => read(now?.stats, o) ?? {};
  const was = (o) => read(before?.stats, o) ?? {};
  const delta = (o, ...path) => grew(path.reduce((x, k) => read(x, k), op(o)), path.reduce((x, k) => read(x, k), was(o)));
  const origin = (side, key) => delta('read', side, key) + delta('write', side, key);
  const row = new Array(MIGRATOR_SERIES.length).fill(NaN);
  if (before === undefined) return row;
  row[0] = delta('read', 'count') / seconds;
  row[1] = delta('write', 'count') / seconds;
  row[2] = ratio(origin('old', 'errors'), origin('old', 'invoked'));
  row[3] = ratio(origin('new', 'errors'), origin('new', 'invoked'));
  row[4] = ratio(delta('read', 'consistency', 'consistent'), delta('read', 'consistency', 'checked'));
  row[5] = (delta('read', 'shed') + delta('write', 'shed')) / seconds;
  row[6] = now.sample ? count(now.sample[0]) : NaN;
  WINDOWS.forEach(([p50, p99], i) => {
    const [current, previous] = [now.sample?.[i + 1], before.sample?.[i + 1]];
    if (current === undefined || previous === undefined) return;
    const summary = attempt(() => windowLatency(current, previous)) ?? [];
    if (summary.length > 0) [row[p50], row[p99]] = [summary[2], summary[4]];
  });
  return row;
}

/** One manager's values for `MANAGER_SERIES`. */
function managerRow(now, before, seconds) {
  if (before?.counters === undefined || now.counters === undefined) return new Array(MANAGER_SERIES.length).fill(NaN);
  const delta = (key) => grew(read(now.counters, key), read(before.counters, key));
  const window = now.wire && before.wire ? attempt(() => windowLatency(now.wire, before.wire)) ?? [] : [];
  return [delta('lookups') / seconds, ratio(delta('cacheHits'), delta('lookups')), delta('membershipQueries') / seconds,
    delta('membershipErrors') / seconds, window[2] ?? NaN, window[4] ?? NaN];
}

/** The guard's flags whose state changed since `before` (stats().guard, when the migrator has one). */
function guardChanges(guard, before, at) {
  const flags = read(guard, 'flags');
  if (flags === null || typeof flags !== 'object') return [];
  const changes = [];
  for (const [flagKey, now] of Object.entries(flags)) {
    const from = read(read(read(before, 'flags'), flagKey), 'state');
    const to = read(now, 'state');
    if (typeof to === 'string' && from !== to && (from !== undefined || to !== 'closed')) {
      changes.push({ flagKey, from: from ?? null, to, reason: read(now, 'reason') ?? null, at: read(now, 'since') ?? at });
    }
  }
  return changes;
}

export class Sampler {
  /** The epoch ms of the last sample. */
  at = NaN;

  constructor({ migrators, managers, historySeconds }) {
    this.migrators = migrators.map(({ name, item }) => ({ name, item, history: new History(historySeconds, MIGRATOR_SERIES), last: undefined, guardChanges: [] }));
    this.managers = managers.map(({ name, item }) => ({ name, item, history: new History(historySeconds, MANAGER_SERIES), last: undefined }));
  }

  /** Takes a sample when the last one is about a second old or more (or there is none); whether it did. */
  sampleIfDue(now = Date.now()) {
    if (now - this.at < 900) return false; // a timer may fire a little early
    const seconds = Number.isNaN(this.at) ? 1 : (now - this.at) / 1000;
    this.at = now;
    for (const m of this.migrators) {
      const reading = {
        stats: attempt(() => m.item.stats()),
        sample: attempt(() => (typeof m.item[CONSOLE_SAMPLE] === 'function' ? splitSample(m.item[CONSOLE_SAMPLE]()) : undefined)),
      };
      m.history.push(now, migratorRow(reading, m.last, seconds));
      const changes = guardChanges(read(reading.stats, 'guard'), read(m.last?.stats, 'guard'), now);
      if (changes.length > 0) m.guardChanges = [...m.guardChanges, ...changes].slice(-GUARD_CHANGES);
      m.last = reading;
    }
    for (const m of this.managers) {
      const reading = {
        counters: attempt(() => m.item.stats()),
        wire: attempt(() => (typeof m.item[CONSOLE_SAMPLE] === 'function' ? m.item[CONSOLE_SAMPLE]() : undefined)),
      };
      m.history.push(now, managerRow(reading, m.last, seconds));
      m.last = reading;
    }
    return true;
  }
}
