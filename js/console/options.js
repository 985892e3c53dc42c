// migrationConsole's options (API.md §2d), read once and checked: a TypeError for a wrong type, a
// RangeError for a number out of range, each naming the option and the value it got.
import { OptionsOf, checkOptionNames } from '../wasm/cutover.js';
import { describe, read } from '../util.js';
import { isFleetStore } from '../fleet.js';

const NAME = 'migrationConsole';
/** At most this many migrators and managers each: the snapshot's size is bounded. */
export const MAX_SHOWN = 64;
/** Longest history kept, in seconds (one sample a second per series). */
export const MAX_HISTORY_SECONDS = 3600;
const MAX_STREAMS = 1000;

/** A whole-number option in `min..max`, or its default. */
function wholeOption(options, name, fallback, min, max) {
  const value = read(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${NAME}: ${name} must be a number, ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${NAME}: ${name} must be an integer from ${min} to ${max}, ${describe(value)}`);
  }
  return value;
}

/** `basePath`: '/' followed by URL path characters, no empty, '.' or '..' segment; a trailing '/' dropped. */
function basePathOption(options) {
  const value = read(options, 'basePath');
  if (value === undefined) return '/cutover';
  if (typeof value !== 'string' || !value.startsWith('/')) {
    throw new TypeError(`${NAME}: basePath must be a string starting with '/', ${describe(value)}`);
  }
  const trimmed = value.length > 1 && value.endsWith('/') ? value.slice(0, -1) : value;
  const segments = trimmed === '/' ? [] : trimmed.slice(1).split('/');
  if (!/^[A-Za-z0-9._~/-]*$/.test(trimmed) || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new TypeError(`${NAME}: basePath must be a plain URL path (letters, digits, '-', '_', '.', '~' between single '/'), ${describe(value)}`);
  }
  return trimmed === '/' ? '' : trimmed;
}

/** `migrators`/`managers`: display name → an object with a `stats()` method (at most MAX_SHOWN). */
function namedOption(options, name, what) {
  const value = read(options, name);
  if (value === undefined) return [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${NAME}: ${name} must be an object of display name → ${what}, ${describe(value)}`);
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_SHOWN) {
    throw new RangeError(`${NAME}: ${name} must name at most ${MAX_SHOWN}, got ${entries.length}`);
  }
  for (const [key, item] of entries) {
    if (item === null || typeof item !== 'object' || typeof read(item, 'stats') !== 'function') {
      throw new TypeError(`${NAME}: ${name}.${key} must be a ${what}, ${describe(item)}`);
    }
  }
  return entries.map(([key, item]) => ({ name: key, item }));
}

/** The console's settings, checked; throws for options it cannot use. */
export function consoleOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${NAME}: options must be an object with at least authorize, ${describe(options)}`);
  }
  checkOptionNames(OptionsOf.MigrationConsole, options);
  const authorize = read(options, 'authorize');
  if (typeof authorize !== 'function') {
    throw new TypeError(`${NAME}: authorize must be a function of the request (write \`() => true\` to let everyone in), ${describe(authorize)}`);
  }
  const showValues = read(options, 'showValues') ?? false;
  if (typeof showValues !== 'boolean') throw new TypeError(`${NAME}: showValues must be a boolean, ${describe(showValues)}`);
  const fleet = read(options, 'fleet');
  if (fleet !== undefined && !isFleetStore(fleet)) {
    throw new TypeError(`${NAME}: fleet must be made by redisFleet(), ${describe(fleet)}`);
  }
  return Object.freeze({
    authorize,
    showValues,
    fleet,
    basePath: basePathOption(options),
    migrators: namedOption(options, 'migrators', 'Migrator'),
    managers: namedOption(options, 'managers', 'BigSegmentStoreManager'),
    historySeconds: wholeOption(options, 'historySeconds', 900, 10, MAX_HISTORY_SECONDS),
    maxStreams: wholeOption(options, 'maxStreams', 16, 1, MAX_STREAMS),
  });
}
