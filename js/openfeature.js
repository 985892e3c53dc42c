// openFeatureClient(client): an OpenFeature client (server SDK, or the web SDK where evaluation
// is synchronous) as a MigrationClient. The stage comes from getStringDetails; the core applies
// SPEC A7 to the answer as to any client's. Events go to client.track('migration_op', ...) as
// flat details; with LaunchDarkly's provider (getClient()), its LD client is used instead,
// through launchDarklyClient, so LaunchDarkly receives its own migration_op events.
import { launchDarklyClient } from './migration.js';

const INTEGER = /^-?\d+$/;

function read(object, name) {
  try {
    return object[name];
  } catch {
    return undefined; // a throwing getter reads as absent
  }
}

function isObject(value) {
  return value !== null && typeof value === 'object';
}

// One cutover (LaunchDarkly-shaped) context as OpenFeature evaluation context attributes:
// `key` becomes `targetingKey`; every other attribute is copied; multi-kind contexts nest.
function single(context, nested) {
  const out = {};
  for (const name of Object.keys(context)) {
    if (name === 'key') continue;
    if (nested && name === 'kind') continue;
    out[name] = read(context, name);
  }
  const key = read(context, 'key');
  if (key !== undefined) out.targetingKey = key;
  return out;
}

/** A cutover context as an OpenFeature evaluation context (a new object; the input is only read). */
export function toEvaluationContext(context) {
  if (!isObject(context)) return {};
  try {
    if (read(context, 'kind') !== 'multi') return single(context, false);
    const out = { kind: 'multi' };
    for (const name of Object.keys(context)) {
      if (name === 'kind') continue;
      const part = read(context, name);
      out[name] = isObject(part) ? single(part, true) : part;
    }
    return out;
  } catch {
    return {}; // a context whose keys cannot be listed (a throwing proxy) evaluates as empty
  }
}

function integer(value) {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  return typeof value === 'string' && INTEGER.test(value) ? Number(value) : undefined;
}

function finite(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

// OpenFeature evaluation details → cutover's evaluation object.
function toAnswer(details) {
  if (!isObject(details)) return details; // not a stage: the core's A7.4
  const answer = { value: read(details, 'value') };
  const errorCode = read(details, 'errorCode');
  const reason = read(details, 'reason');
  if (typeof errorCode === 'string' && errorCode !== '') answer.reason = { kind: 'ERROR', errorKind: errorCode };
  else if (typeof reason === 'string' && reason !== '') answer.reason = { kind: reason };
  const variation = integer(read(details, 'variant'));
  if (variation !== undefined) answer.variationIndex = variation;
  const metadata = read(details, 'flagMetadata');
  if (isObject(metadata)) {
    const version = integer(read(metadata, 'version'));
    if (version !== undefined) answer.flagVersion = version;
    const checkRatio = finite(read(metadata, 'checkRatio'));
    if (checkRatio !== undefined) answer.checkRatio = checkRatio;
    const samplingRatio = finite(read(metadata, 'samplingRatio'));
    if (samplingRatio !== undefined) answer.samplingRatio = samplingRatio;
  }
  return answer;
}

function measurement(event, key) {
  const list = read(event, 'measurements');
  return Array.isArray(list) ? list.find((m) => isObject(m) && m.key === key) : undefined;
}

/**
 * The flat details of one `migration_op` event, as sent to `client.track`: `stage`, `operation`,
 * `invokedOld`/`invokedNew`, `latencyOldMs`/`latencyNewMs` and `errorOld`/`errorNew` (when
 * measured), `consistent` and `checkRatio` (when checked), `samplingRatio` (1 when none),
 * `flagKey`, and `variationIndex`/`flagVersion` when known.
 */
export function trackingDetails(event) {
  const evaluation = read(event, 'evaluation') ?? {};
  const details = {
    flagKey: read(evaluation, 'key'),
    stage: read(evaluation, 'value'),
    operation: read(event, 'operation'),
  };
  const variation = read(evaluation, 'variation');
  if (variation !== undefined) details.variationIndex = variation;
  const version = read(evaluation, 'version');
  if (version !== undefined) details.flagVersion = version;
  const invoked = measurement(event, 'invoked')?.values ?? {};
  details.invokedOld = invoked.old === true;
  details.invokedNew = invoked.new === true;
  const latency = measurement(event, 'latency_ms')?.values;
  if (latency?.old !== undefined) details.latencyOldMs = latency.old;
  if (latency?.new !== undefined) details.latencyNewMs = latency.new;
  const errors = measurement(event, 'error')?.values;
  if (errors) {
    details.errorOld = errors.old === true;
    details.errorNew = errors.new === true;
  }
  const consistent = measurement(event, 'consistent');
  if (consistent) {
    details.consistent = consistent.value === true;
    details.checkRatio = consistent.samplingRatio ?? 1;
  }
  details.samplingRatio = finite(read(event, 'samplingRatio')) ?? 1;
  return details;
}

// LaunchDarkly's OpenFeature provider exposes its LD client (getClient()); the OpenFeature
// client's provider is read live at each call (the bound provider can change).
function ldAdapter(client, cache) {
  let provider;
  try {
    provider = client._provider ?? (typeof client.getProvider === 'function' ? client.getProvider() : undefined);
  } catch {
    return undefined;
  }
  if (!isObject(provider) || typeof read(provider, 'getClient') !== 'function') return undefined;
  let ld;
  try {
    ld = provider.getClient();
  } catch {
    return undefined;
  }
  if (!isObject(ld) || typeof read(ld, 'migrationVariation') !== 'function'
    || typeof read(ld, 'trackMigration') !== 'function') return undefined;
  let adapter = cache.get(ld);
  if (!adapter) cache.set(ld, (adapter = launchDarklyClient(ld)));
  return adapter;
}

/** Adapts an OpenFeature client (`getStringDetails`, optional `track`) as a MigrationClient. */
export function openFeatureClient(client) {
  if (!isObject(client) || typeof read(client, 'getStringDetails') !== 'function') {
    throw new TypeError(`openFeatureClient: client must be an OpenFeature client with a getStringDetails method, got ${
      client === null ? 'null' : typeof client}`);
  }
  const cache = new WeakMap();
  return Object.freeze({
    migrationVariation(flagKey, context, defaultStage) {
      const ld = ldAdapter(client, cache);
      if (ld) return ld.migrationVariation(flagKey, context, defaultStage);
      const details = client.getStringDetails(flagKey, defaultStage, toEvaluationContext(context));
      return typeof read(details, 'then') === 'function' ? details.then(toAnswer) : toAnswer(details);
    },
    trackMigrationOp(event) {
      const ld = ldAdapter(client, cache);
      if (ld) return ld.trackMigrationOp(event);
      if (typeof read(client, 'track') !== 'function') return undefined;
      return client.track('migration_op', toEvaluationContext(read(event, 'context')), trackingDetails(event));
    },
  });
}
