// The console's snapshot (GET /api/snapshot, and each event of /api/stream): the sampler's last
// readings and history, the last mismatches, the managers' state and the fleet, as plain JSON.
// Redacted unless showValues: a mismatch's values, its differences' old/new and its context's
// key never leave the process; its flag key, stage, time, paths and kinds of difference do.
// Bounded: at most 64 migrators and 64 managers (options.js), 10 mismatches each, 10
// differences each, previews of 200 characters, the history's length.
import { read } from '../util.js';
import { fleetLatency } from '../wasm/cutover.js';
import { CONSOLE_SAMPLE } from '../util.js';
import { figure } from './history.js';

/** Mismatches shown per migrator (the newest), and differences per mismatch. */
const MISMATCHES = 10;
const DIFFERENCES = 10;
/** Longest preview of a value (showValues only). */
const PREVIEW = 200;

/** A value as at most PREVIEW characters of JSON (or its String when it has none). */
function preview(value) {
  let text;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value) ?? String(value);
  } catch {
    try {
      text = String(value);
    } catch {
      text = '(unprintable)';
    }
  }
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text;
}

/** One mismatch as the page shows it: values and the context's key only with showValues. */
function mismatchView(m, showValues) {
  const context = read(m, 'context');
  const differences = Array.from(read(m, 'differences') ?? []).slice(0, DIFFERENCES).map((d) => {
    const view = { path: String(read(d, 'path')), kind: String(read(d, 'kind')) };
    if (showValues) {
      if (view.kind !== 'added') view.old = preview(read(d, 'old'));
      if (view.kind !== 'removed') view.new = preview(read(d, 'new'));
    }
    return view;
  });
  const kind = read(context, 'kind');
  const view = {
    flagKey: String(read(m, 'flagKey')),
    stage: String(read(m, 'stage')),
    at: read(m, 'at'),
    context: { kind: typeof kind === 'string' ? kind : 'user' },
    differences,
    truncated: read(m, 'truncated') === true || (read(m, 'differences')?.length ?? 0) > DIFFERENCES,
  };
  if (showValues) {
    const key = read(context, 'key');
    if (key !== undefined) view.context.key = preview(key).replace(/^"|"$/g, '');
    view.old = preview(read(m, 'old'));
    view.new = preview(read(m, 'new'));
  }
  return view;
}

/** The stats of one operation, latency summaries rounded, paths sorted by count. */
function operationView(op) {
  if (op === null || typeof op !== 'object') return null;
  const origin = (o) => {
    const latency = read(o, 'latencyMs');
    return {
      invoked: read(o, 'invoked') ?? 0,
      errors: read(o, 'errors') ?? 0,
      timeouts: read(o, 'timeouts') ?? 0,
      latencyMs: latency ? { count: latency.count, p50: figure(latency.p50), p99: figure(latency.p99), max: figure(latency.max) } : null,
    };
  };
  const consistency = read(op, 'consistency') ?? {};
  const paths = Object.entries(read(consistency, 'paths') ?? {}).sort((a, b) => b[1] - a[1]);
  return {
    count: read(op, 'count') ?? 0,
    byStage: { ...(read(op, 'byStage') ?? {}) },
    shed: read(op, 'shed') ?? 0,
    old: origin(read(op, 'old')),
    new: origin(read(op, 'new')),
    consistency: { checked: consistency.checked ?? 0, consistent: consistency.consistent ?? 0, paths },
  };
}

/** The guard of stats() when the migrator has one: its counts and each flag's state. */
function guardView(guard) {
  if (guard === null || typeof guard !== 'object') return null;
  const flags = Object.entries(read(guard, 'flags') ?? {}).map(([flagKey, f]) => ({
    flagKey,
    state: String(read(f, 'state')),
    since: read(f, 'since') ?? null,
    reason: read(f, 'reason') ?? null,
  }));
  return { trips: read(guard, 'trips') ?? 0, recoveries: read(guard, 'recoveries') ?? 0, fallbacks: { ...(read(guard, 'fallbacks') ?? {}) }, flags };
}

/** A manager's status as the API names it, from its status provider's last status. */
function managerStatus(manager) {
  const status = read(read(manager, 'statusProvider'), 'lastStatus');
  if (status === undefined || status === null) return 'UNKNOWN';
  if (!read(status, 'available')) return 'STORE_ERROR';
  return read(status, 'stale') ? 'STALE' : 'HEALTHY';
}

/**
 * The snapshot. `seconds`: how much history (all of it for GET /api/snapshot, the last second
 * for a stream's event); `fleet`: the fleet's view, when the console has one.
 */
export function snapshotOf(sampler, { showValues, historySeconds, seconds = historySeconds, fleet = null }) {
  const migrators = sampler.migrators.map((m) => {
    // The figures as they are now (the history is per second).
    let stats;
    try {
      stats = m.item.stats();
    } catch {
      stats = m.last?.stats;
    }
    let kept = [];
    try {
      kept = typeof m.item.mismatches === 'function' ? Array.from(m.item.mismatches() ?? []) : [];
    } catch {
      // a console shows what it can read
    }
    const mismatches = kept.slice(-MISMATCHES).reverse().map((x) => mismatchView(x, showValues));
    return {
      name: m.name,
      read: operationView(read(stats, 'read')),
      write: operationView(read(stats, 'write')),
      inFlight: m.last?.sample ? m.last.sample[0] : null,
      guard: guardView(read(stats, 'guard')),
      guardChanges: m.guardChanges,
      mismatches,
      history: m.history.toJSON(seconds),
    };
  });
  const managers = sampler.managers.map((m) => {
    let counters = m.last?.counters ? { ...m.last.counters } : null;
    let storeLatencyMs = null;
    try {
      counters = { ...m.item.stats() };
      const wire = typeof m.item[CONSOLE_SAMPLE] === 'function' ? m.item[CONSOLE_SAMPLE]() : undefined;
      const summary = wire ? fleetLatency(Float64Array.of(wire.length, ...wire)) : [];
      if (summary.length > 1) storeLatencyMs = { count: summary[0], p50: figure(summary[2]), p99: figure(summary[4]), max: figure(summary[5]) };
    } catch {
      // a console shows what it can read
    }
    return { name: m.name, status: managerStatus(m.item), counters, storeLatencyMs, history: m.history.toJSON(seconds) };
  });
  return { at: Number.isNaN(sampler.at) ? null : sampler.at, showValues, historySeconds, migrators, managers, fleet };
}
