// openFeatureClient(client): an OpenFeature client as a MigrationClient. The stage comes from
// getStringDetails and the core applies SPEC A7 to it as to any client's answer; a getter that
// throws makes the answer an exception (A7.2), as any client's throw does. Sampled operations go
// to client.track('migration_op', context, flat details). LaunchDarkly's provider (getClient();
// options.provider, else the client's private _provider) is used through launchDarklyClient, so
// LaunchDarkly receives its own migration_op events.
import { OptionsOf, checkOptionNames } from './wasm/cutover.js';
import { launchDarklyClient } from './migration.js';

const isObject = (v) => v !== null && typeof v === 'object';
const int = (v) => (Number.isInteger(v) ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? +v : undefined);
const num = (v) => (Number.isFinite(v) ? v : undefined);

// key → targetingKey, the other attributes copied (a new object); multi-kind contexts nest. An
// OpenFeature context (no key) keeps its content: targetingKey kept, no key added.
function single(c, nested) {
  const out = {};
  for (const k of Object.keys(c)) if (k !== 'key' && !(nested && k === 'kind')) out[k] = c[k];
  if (c.key !== undefined) out.targetingKey = c.key;
  return out;
}
function evaluationContext(c) {
  if (!isObject(c)) return {};
  if (c.kind !== 'multi') return single(c, false);
  const out = {};
  for (const k of Object.keys(c)) out[k] = k !== 'kind' && isObject(c[k]) ? single(c[k], true) : c[k];
  return out;
}

// OpenFeature → LaunchDarkly's own client, which knows only `key`: a context (or a multi-kind
// context's nested one) with a targetingKey and no key gets `key` (a shallow copy; others pass as
// they are).
const withKey = (c) => (isObject(c) && c.key === undefined && c.targetingKey !== undefined ? { ...c, key: c.targetingKey } : c);
function ldContext(c) {
  if (!isObject(c) || c.kind !== 'multi') return withKey(c);
  const out = {};
  for (const k of Object.keys(c)) out[k] = k === 'kind' ? c[k] : withKey(c[k]);
  return out;
}

function answerOf(d) {
  if (!isObject(d)) return d;
  const m = isObject(d.flagMetadata) ? d.flagMetadata : {};
  const a = { value: d.value, variationIndex: int(d.variant), flagVersion: int(m.version),
    checkRatio: num(m.checkRatio), samplingRatio: num(m.samplingRatio) };
  if (d.errorCode) a.reason = { kind: 'ERROR', errorKind: String(d.errorCode) };
  else if (typeof d.reason === 'string' && d.reason) a.reason = { kind: d.reason };
  return a;
}

function details(e) {
  const m = {};
  for (const x of e.measurements ?? []) m[x.key] = x;
  const v = e.evaluation ?? {};
  const inv = m.invoked?.values ?? {}, lat = m.latency_ms?.values ?? {}, err = m.error?.values;
  const d = { flagKey: v.key, stage: v.value, operation: e.operation, variationIndex: v.variation,
    flagVersion: v.version, invokedOld: inv.old === true, invokedNew: inv.new === true,
    latencyOldMs: lat.old, latencyNewMs: lat.new, errorOld: err && err.old === true,
    errorNew: err && err.new === true, consistent: m.consistent && m.consistent.value === true,
    checkRatio: m.consistent && (m.consistent.samplingRatio ?? 1), samplingRatio: num(e.samplingRatio) ?? 1 };
  for (const k of Object.keys(d)) if (d[k] === undefined) delete d[k];
  return d;
}

/** Adapts an OpenFeature client (`getStringDetails`, optional `track`) as a MigrationClient. */
export function openFeatureClient(client, options = {}) {
  const fail = (what, v) => {
    throw new TypeError(`openFeatureClient: ${what}, got ${v === null ? 'null' : typeof v}`);
  };
  if (!isObject(client) || typeof client.getStringDetails !== 'function') {
    fail('client must be an OpenFeature client (with getStringDetails)', client);
  }
  if (!isObject(options)) fail('options must be an object', options);
  checkOptionNames(OptionsOf.OpenFeatureClient, options);
  const given = options.provider;
  if (given !== undefined && !isObject(given)) fail('options.provider must be an object', given);
  const adapters = new WeakMap();
  // The provider: the one given, else the client's private `_provider`, read live at each call.
  const provider = () => given ?? client._provider;
  // LaunchDarkly's provider exposes its LD client.
  const ld = () => {
    const p = provider();
    const c = isObject(p) && typeof p.getClient === 'function' ? p.getClient() : undefined;
    if (!isObject(c) || typeof c.migrationVariation !== 'function' || typeof c.trackMigration !== 'function') return;
    if (!adapters.has(c)) adapters.set(c, launchDarklyClient(c));
    return adapters.get(c);
  };
  const web = () => provider()?.runsOn === 'client';
  return Object.freeze({
    migrationVariation(flagKey, context, defaultStage) {
      const l = ld();
      if (l) return l.migrationVariation(flagKey, ldContext(context), defaultStage);
      // The web SDK evaluates its static context (OpenFeature.setContext): no context per call.
      const d = web() ? client.getStringDetails(flagKey, defaultStage)
        : client.getStringDetails(flagKey, defaultStage, evaluationContext(context));
      return typeof d?.then === 'function' ? d.then(answerOf) : answerOf(d);
    },
    trackMigrationOp(event) {
      const l = ld();
      if (l) return l.trackMigrationOp(event);
      if (typeof client.track !== 'function') return;
      if (web()) client.track('migration_op', details(event));
      else client.track('migration_op', evaluationContext(event.context), details(event));
    },
  });
}
