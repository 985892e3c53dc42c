// The tape (src/js/tape.rs has its layout): a pair of values flattened, in one tight loop, into
// numbers in wasm memory, so that the core's walk compares them with no call back per node.
// `sameStructure`'s function calls `flatten` and then the wasm (js/diff.js); a migrator's
// comparison has the wasm call it (src/js/same_structure.rs).
//
// What a value becomes (TapeNode, src/js/codes.rs), read as the walk's rules say (src/diff/mod.rs):
// - primitives as themselves; a string as an id (below); a symbol, a bigint, a function and any
//   object that is neither an array, a plain object (prototype Object.prototype or null) nor a
//   Date as an `Other` id, the same for the same value (`===`);
// - an array as its length and its elements (`v[i]`: a hole reads undefined); a plain object as
//   its own enumerable string keys and their values, in `Object.keys` order; a Date as its time;
// - an array or plain object already on the current path as `Seen` (a cycle): the ordinal of its
//   node. The k-th object of the new value, when it is the k-th of the old one (the very same
//   array or plain object: the values share it), as `Seen` of that node too, unread: the walk
//   takes it as equal. Elsewhere a shared object is written again (its identity is then lost,
//   which only matters to one that cannot be read: see below);
// - a read that throws (a getter, a proxy's trap, a revoked proxy) as `Threw` (the property or
//   element) or `Unreadable` (what the value is, with its id as an `Other`'s, so that the very
//   same one is `===`): never a throw out of here. What was thrown is kept only when the wasm
//   asks (`keep`, to explain a mismatch).
// Bounds: at most `maxNodes` nodes per value (then nothing more is written: the wasm reads what
// is missing as cut), and nothing deeper than `maxDepth` (children there are `CutDepth`, unread;
// never deeper than MAX_DEPTH whatever the bound, as this recurses).
//
// Strings: an old string's id is its index among the old value's strings; a new string that is
// the old one at the same index (`===`, the usual case for equal values) takes its id, at the
// cost of one comparison. That is right for a walk that pairs strings by their index, which equal
// values with their keys in the same order do (values that are not equal are found different
// whatever their strings' ids). At the first new string that is not the old one there, or at the
// end when a new key was not the old one at its place (or, to explain a mismatch, when the wasm
// asks: canonicaliseTape), the old strings are put in a Map once, so that every old string's id
// becomes the first one with its text, and new strings take the id of the old string with their
// text (a negative id when none has it).
// No Map for equal values in the same order.
//
// Keys: interned once for all comparisons (a key id is the same from one tape to the next); a key
// not seen before is sent to the wasm with the others of its tape, in one string (`internKeys`).
// A new value's key that is the old value's key at the same place (in the order of all keys)
// takes its id without a lookup, until the first one that is not. Past MAX_KEYS keys (or
// MAX_KEY_CHARS characters) both sides forget them all, between tapes.
//
// Equal values with their keys in the same order are written as the very same slots (nothing on
// the tape depends on where a value sits but a `Seen` node's ordinal): the wasm sees that in
// one comparison of the two runs of slots, unless the tape is irregular (slot 2: something was
// thrown, unreadable, seen again or cut), and walks only the other pairs (src/js/tape.rs).
//
// Re-entrancy: code of the caller's that runs while a tape is written (a getter, a trap) may
// compare other values, which writes another tape (a migrator's read with sameStructure, or
// sameStructure itself). That tape is written and compared at once, in the same buffer: before
// it starts, the state of the one it interrupts (its slots so far, counts, ids) is put aside
// (`suspend`), and the interrupted one puts it back (`resume`) as soon as the caller's code
// returns, before it writes anything more. Only a nested tape pays for that.
//
// Memory: the wasm's buffer is written in place (tapeView); before each write after code of the
// caller's ran (a getter, a trap) its length is checked, which also catches a view of memory
// that grew meanwhile (length 0) and asks for the new one. Nothing of the caller's is kept after
// a tape is written, unless the wasm asked to keep the values (until releaseTape).
import { TapeNode, TapeStatus, internKeys, resetKeys, tapeGrow, tapeView } from '../wasm/cutover.js';

const HEADER = 4;
/** The deepest the writer goes, whatever the depth bound (it recurses once per level). */
const MAX_DEPTH = 256;
const MAX_KEYS = 65536;
const MAX_KEY_CHARS = 1 << 22;

// The codes, read from the glue at the first tape (the glue and the bridge load each other).
let UNDEFINED, NULL, FALSE, TRUE, NUMBER, STRING, DATE, OTHER, UNREADABLE, THREW, ARRAY, OBJECT, SEEN, CUT_DEPTH;
let codesRead = false;
function readCodes() {
  ({
    Undefined: UNDEFINED, Null: NULL, False: FALSE, True: TRUE, Number: NUMBER, String: STRING, Date: DATE,
    Other: OTHER, Unreadable: UNREADABLE, Threw: THREW, Array: ARRAY, Object: OBJECT, Seen: SEEN, CutDepth: CUT_DEPTH,
  } = TapeNode);
  codesRead = true;
}

/** @type {Float64Array} */
let view = new Float64Array(0);
/** The next slot, the next node's ordinal, and the ordinal at which this value's budget ends. */
let at = 0;
let ordinal = 0;
let sideEnd = 0;
/** This value's node budget is spent (or the buffer cannot grow): nothing more is written. */
let full = false;
/** The tape holds a node that is not a value's own (thrown, unreadable, seen, cut), or a value was cut. */
let irregular = false;
let depthLimit = 0;
let busy = false;
/** This tape runs inside another one's write, whose state is on `suspended`: it leaves `stale` when it ends. */
let nested = false;
/** The state in the variables here is a nested tape's: the interrupted one must `resume`. */
let stale = false;
/** The states of interrupted tapes, innermost last. */
const suspended = [];
let newSide = false;
/** `for…in` lists only own keys: Object.prototype has no enumerable key (checked per tape). */
let ownOnly = true;

/** The arrays and objects open on the current path, and their nodes' ordinals, by depth. */
const path = [];
const pathNodes = [];

const oldStrings = [];
const oldStringSlots = [];
let oldStringCount = 0;
const newStringSlots = [];
let newStringCount = 0;
/** Text → the first old string's id, made at the first new string that is not the old one there. */
const stringIds = new Map();
let canonical = false;
/** Other values → ids, for one tape. */
const others = new Map();

const keyIds = new Map();
/** The old value's keys in order, and their ids: a new value's key that is the old one at the same place takes its id without a lookup. */
const oldKeys = [];
const oldKeyIds = [];
let oldKeyCount = 0;
let newKeyCount = 0;
let keysAligned = true;
/**
 * The old value's objects in order, each one's node and the counts of strings and keys before
 * it, and, for an array or plain object, the counts of objects, strings and keys after it.
 */
const oldObjects = [];
const oldObjectNodes = [];
const oldStartStrings = [];
const oldStartKeys = [];
const oldEndObjects = [];
const oldEndStrings = [];
const oldEndKeys = [];
let oldObjectCount = 0;
let newObjectCount = 0;
let pendingKeys = [];
let pendingNul = false;
let keyChars = 0;

/** With `keep`: each node's value by ordinal, and what reading it threw; then kept until releaseTape. */
let values = null;
let thrownBy = null;
let keptValues = null;
let keptThrown = null;
// One array and one Map for every kept tape, emptied on release: a fresh pair per tape cost an
// equal pair about 2 µs more per check with `mismatches()` (1 KB values, measured).
const valuePool = [];
const thrownPool = new Map();
/** The nodes the pool holds values of. */
let pooled = 0;
/** The last tape was written with `keep`: its old strings (and ids) stay until releaseTape. */
let stringsKept = false;

const getTime = Date.prototype.getTime;
const objectPrototype = Object.prototype;
const getPrototypeOf = Object.getPrototypeOf;
const isArray = Array.isArray;

function listsOwnOnly() {
  // eslint-disable-next-line no-unreachable-loop
  for (const key in objectPrototype) return key === undefined;
  return true;
}

/** Room for `n` more slots: grows the buffer (or takes its view again after memory grew). */
function room(n) {
  if (at + n <= view.length) return true;
  view = tapeGrow(at + n);
  if (at + n <= view.length) return true;
  full = true;
  irregular = true;
  return false;
}

/** Writes one node. */
function write(code, number) {
  if (at + 2 > view.length && !room(2)) return false;
  view[at] = code;
  view[at + 1] = number;
  at += 2;
  ordinal++;
  return true;
}

function put(v, depth) {
  if (at + 2 > view.length && !room(2)) return;
  const node = ordinal;
  if (values !== null) values[node] = v;
  switch (typeof v) {
    case 'string':
      putString(v);
      return;
    case 'number':
      view[at] = NUMBER;
      view[at + 1] = v;
      break;
    case 'boolean':
      view[at] = v ? TRUE : FALSE;
      view[at + 1] = 0;
      break;
    case 'undefined':
      view[at] = UNDEFINED;
      view[at + 1] = 0;
      break;
    case 'object':
      if (v === null) {
        view[at] = NULL;
        view[at + 1] = 0;
        break;
      }
      putObject(v, node, depth);
      return;
    default:
      putOther(v);
      return;
  }
  at += 2;
  ordinal++;
}

function putString(s) {
  let id;
  if (!newSide) {
    id = oldStringCount++;
    oldStrings[id] = s;
    oldStringSlots[id] = at + 1;
  } else {
    const j = newStringCount++;
    if (!canonical && j < oldStringCount && oldStrings[j] === s) {
      newStringSlots[j] = at + 1;
      id = j;
    } else {
      if (!canonical) canonicalise(j);
      id = stringIds.get(s) ?? -1 - j;
    }
  }
  view[at] = STRING;
  view[at + 1] = id;
  at += 2;
  ordinal++;
}

/** Every old string's id becomes the first one with its text, the new ones written so far too. */
function canonicalise(hits) {
  canonical = true;
  for (let i = 0; i < oldStringCount; i++) {
    const s = oldStrings[i];
    const first = stringIds.get(s);
    if (first === undefined) stringIds.set(s, i);
    else view[oldStringSlots[i]] = first;
  }
  for (let j = 0; j < hits; j++) if (newStringSlots[j] >= 0) view[newStringSlots[j]] = stringIds.get(oldStrings[j]);
}

function otherId(v) {
  let id = others.get(v);
  if (id === undefined) {
    id = others.size;
    others.set(v, id);
  }
  return id;
}

function putOther(v) {
  write(OTHER, otherId(v));
}

/** `v` could not be read: its node, with `v`'s id among the other values (`===` stays visible). */
function unreadable(v, node, error) {
  irregular = true;
  if (write(UNREADABLE, otherId(v)) && thrownBy !== null) thrownBy.set(node, error);
}

function threw(error) {
  const node = ordinal;
  irregular = true;
  if (!write(THREW, 0)) return;
  if (values !== null) values[node] = undefined;
  if (thrownBy !== null) thrownBy.set(node, error);
}

function putObject(v, node, depth) {
  for (let d = depth - 1; d >= 0; d--) {
    if (path[d] === v) {
      irregular = true;
      write(SEEN, pathNodes[d]);
      return;
    }
  }
  // The k-th object of each value: the old one's is kept, and a new one that is the very same
  // array or plain object is written as `Seen` of its node, unread (the walk takes it as equal).
  const k = newSide ? newObjectCount++ : oldObjectCount++;
  if (!newSide) {
    oldObjects[k] = v;
    oldObjectNodes[k] = node;
    oldEndObjects[k] = -1;
    oldStartStrings[k] = oldStringCount;
    oldStartKeys[k] = oldKeyCount;
  } else if (k < oldObjectCount && oldObjects[k] === v && oldEndObjects[k] >= 0) {
    irregular = true;
    if (write(SEEN, oldObjectNodes[k])) {
      // Skip as many objects, strings and keys as it holds, so that those after it stay at the
      // places of the old value's (a skipped string has no slot to make canonical).
      const strings = oldEndStrings[k] - oldStartStrings[k];
      if (strings > 0) newStringSlots.fill(-1, newStringCount, newStringCount + strings);
      newStringCount += strings;
      newKeyCount += oldEndKeys[k] - oldStartKeys[k];
      newObjectCount += oldEndObjects[k] - (k + 1);
    }
    return;
  }
  let array, proto;
  try {
    array = isArray(v);
    if (!array) proto = getPrototypeOf(v);
  } catch (error) {
    if (stale) resume();
    unreadable(v, node, error);
    return;
  }
  if (stale) resume();
  if (array || proto === objectPrototype || proto === null) {
    const written = array ? putArray(v, node, depth) : putPlain(v, node, depth);
    if (written && !newSide) {
      // Where the old value's counts stand after this container: a new value that has it again
      // skips as much.
      oldEndObjects[k] = oldObjectCount;
      oldEndStrings[k] = oldStringCount;
      oldEndKeys[k] = oldKeyCount;
    }
  } else {
    putDateOrOther(v);
  }
}

function putDateOrOther(v) {
  let time;
  try {
    if (v instanceof Date) time = getTime.call(v);
  } catch {
    // a proxy's trap threw, or a Date's prototype without a Date: compared by identity
  }
  if (stale) resume();
  if (time === undefined) putOther(v);
  else write(DATE, time);
}

/** Writes an array: whether it was (rather than an unreadable value, or nothing). */
function putArray(v, node, depth) {
  let n;
  try {
    n = v.length >>> 0;
  } catch (error) {
    if (stale) resume();
    unreadable(v, node, error);
    return false;
  }
  if (stale) resume();
  if (!write(ARRAY, n)) return false;
  const next = depth + 1;
  if (next > depthLimit) {
    if (n > 0 && ordinal < sideEnd) {
      irregular = true;
      write(CUT_DEPTH, 0);
    }
    return true;
  }
  path[depth] = v;
  pathNodes[depth] = node;
  for (let i = 0; i < n; i++) {
    if (ordinal >= sideEnd) {
      full = true;
      irregular = true;
      break;
    }
    let item;
    try {
      item = v[i];
    } catch (error) {
      if (stale) resume();
      threw(error);
      if (full) break;
      continue;
    }
    if (stale) resume();
    put(item, next);
    if (full) break;
  }
  path[depth] = undefined;
  return true;
}

/** One key of a plain object and its value: -1 when the key was not written, 1 to go on, 0 to stop. */
function member(v, key, next, deep) {
  if (ordinal >= sideEnd) {
    full = true;
    irregular = true;
    return -1;
  }
  let id;
  if (!newSide) {
    id = keyIds.get(key);
    if (id === undefined) id = newKey(key);
    oldKeys[oldKeyCount] = key;
    oldKeyIds[oldKeyCount++] = id;
  } else {
    const k = newKeyCount++;
    if (keysAligned && k < oldKeyCount && oldKeys[k] === key) {
      id = oldKeyIds[k];
    } else {
      keysAligned = false;
      id = keyIds.get(key);
      if (id === undefined) id = newKey(key);
    }
  }
  if (at + 3 > view.length && !room(3)) return -1;
  view[at++] = id;
  if (deep) {
    irregular = true;
    return write(CUT_DEPTH, 0) ? 1 : 0;
  }
  let item;
  try {
    item = v[key];
  } catch (error) {
    if (stale) resume();
    threw(error);
    return full ? 0 : 1;
  }
  if (stale) resume();
  put(item, next);
  return full ? 0 : 1;
}

/** Writes a plain object: whether it was (rather than an unreadable value, or nothing). */
function putPlain(v, node, depth) {
  const header = at;
  if (!write(OBJECT, 0)) return false;
  const next = depth + 1;
  const deep = next > depthLimit;
  const oldStrs = oldStringCount;
  const newStrs = newStringCount;
  const oldKeysBefore = oldKeyCount;
  const newKeysBefore = newKeyCount;
  const oldObjectsBefore = oldObjectCount;
  const newObjectsBefore = newObjectCount;
  let count = 0;
  path[depth] = v;
  pathNodes[depth] = node;
  try {
    if (ownOnly) {
      for (const key in v) {
        if (stale) resume();
        const went = member(v, key, next, deep);
        if (went >= 0) count++;
        if (went !== 1) break;
      }
    } else {
      const keys = Object.keys(v);
      if (stale) resume();
      for (let i = 0; i < keys.length; i++) {
        const went = member(v, keys[i], next, deep);
        if (went >= 0) count++;
        if (went !== 1) break;
      }
    }
  } catch (error) {
    // Listing the keys threw (a proxy's trap): the object is unreadable; what was written of it
    // is taken back.
    if (stale) resume();
    path[depth] = undefined;
    at = header;
    ordinal = node;
    oldStringCount = oldStrs;
    newStringCount = newStrs;
    oldKeyCount = oldKeysBefore;
    newKeyCount = newKeysBefore;
    oldObjectCount = oldObjectsBefore;
    newObjectCount = newObjectsBefore;
    full = false;
    unreadable(v, node, error);
    return false;
  }
  if (stale) resume();
  path[depth] = undefined;
  if (view.length === 0) view = tapeGrow(at);
  if (header + 1 < view.length) view[header + 1] = full ? count + 1 : count;
  return true;
}

function newKey(key) {
  const id = keyIds.size;
  keyIds.set(key, id);
  pendingKeys.push(key);
  if (key.includes('\0')) pendingNul = true;
  keyChars += key.length;
  return id;
}

/** Sends the keys first met in this tape: joined by NUL, or one by one if one holds a NUL. */
function flushKeys() {
  const count = pendingKeys.length;
  if (count === 0) return;
  const first = keyIds.size - count;
  const keys = pendingKeys;
  const nul = pendingNul;
  pendingKeys = [];
  pendingNul = false;
  if (!nul) internKeys(keys.join('\0'), first, count);
  else for (let i = 0; i < count; i++) internKeys(keys[i], first + i, 1);
}

function begin(maxNodes, maxDepth, keep) {
  if (!codesRead) readCodes();
  if (keptValues !== null || stringsKept) releaseTape();
  // A nested tape keeps the interned keys: the one it interrupted has their ids on its slots.
  if (!nested && (keyIds.size > MAX_KEYS || keyChars > MAX_KEY_CHARS)) {
    keyIds.clear();
    keyChars = 0;
    resetKeys();
  }
  at = HEADER;
  ordinal = 0;
  newSide = false;
  canonical = false;
  oldStringCount = 0;
  newStringCount = 0;
  oldKeyCount = 0;
  newKeyCount = 0;
  keysAligned = true;
  oldObjectCount = 0;
  newObjectCount = 0;
  irregular = false;
  depthLimit = Math.min(maxDepth, MAX_DEPTH);
  ownOnly = listsOwnOnly();
  values = keep ? valuePool : null;
  thrownBy = keep ? thrownPool : null;
  return maxNodes;
}

function end() {
  // A kept tape's strings stay until releaseTape, for canonicaliseTape.
  if (!stringsKept) forgetStrings();
  if (oldKeyCount > 0) oldKeys.fill(undefined, 0, oldKeyCount);
  if (oldObjectCount > 0) oldObjects.fill(undefined, 0, oldObjectCount);
  if (others.size > 0) others.clear();
  if (values !== null) {
    pooled = ordinal;
    if (keptValues === null) emptyPool();
  }
  values = null;
  thrownBy = null;
}

function emptyPool() {
  if (pooled > 0) valuePool.fill(undefined, 0, pooled);
  if (thrownPool.size > 0) thrownPool.clear();
  pooled = 0;
}

function forgetStrings() {
  if (oldStringCount > 0) oldStrings.fill(undefined, 0, oldStringCount);
  if (stringIds.size > 0) stringIds.clear();
  stringsKept = false;
}

// What a nested tape overwrites of the one it interrupts, beside the slots and the scalars below.
const lists = [path, pathNodes, oldStrings, oldStringSlots, newStringSlots, oldKeys, oldKeyIds, oldObjects,
  oldObjectNodes, oldStartStrings, oldStartKeys, oldEndObjects, oldEndStrings, oldEndKeys, valuePool];
const maps = [stringIds, others, thrownPool];

/** Puts aside the state of the tape being written, which a nested one is about to overwrite. */
function suspend() {
  if (view.length < at) view = tapeView();
  suspended.push([view.slice(0, at), lists.map((list) => list.slice()), maps.map((map) => new Map(map)), [
    at, ordinal, sideEnd, full, irregular, depthLimit, newSide, ownOnly, nested, canonical, pooled, values, thrownBy,
    oldStringCount, newStringCount, oldKeyCount, newKeyCount, keysAligned, oldObjectCount, newObjectCount,
  ]]);
}

/** Puts back the state of the tape a nested one interrupted (it has ended): that one goes on. */
function resume() {
  stale = false;
  const saved = suspended.pop();
  if (saved === undefined) return;
  const [slots, savedLists, savedMaps, scalars] = saved;
  [
    at, ordinal, sideEnd, full, irregular, depthLimit, newSide, ownOnly, nested, canonical, pooled, values, thrownBy,
    oldStringCount, newStringCount, oldKeyCount, newKeyCount, keysAligned, oldObjectCount, newObjectCount,
  ] = scalars;
  view = tapeGrow(slots.length);
  view.set(slots, 0);
  lists.forEach((list, i) => {
    const from = savedLists[i];
    list.length = from.length;
    for (let j = 0; j < from.length; j++) list[j] = from[j];
  });
  maps.forEach((map, i) => {
    map.clear();
    savedMaps[i].forEach((value, key) => map.set(key, value));
  });
  keptValues = null;
  keptThrown = null;
  stringsKept = false;
  busy = true;
}

/**
 * Writes `oldValue` and `newValue` onto the wasm's tape: a TapeStatus. With `keep`, each node's
 * value and what reading it threw stay for tapeValue until releaseTape. Never throws.
 * @param {unknown} oldValue @param {unknown} newValue @param {number} maxNodes @param {number} maxDepth
 * @param {boolean} keep
 * @returns {import('../wasm/cutover.js').TapeStatus}
 */
export function flatten(oldValue, newValue, maxNodes, maxDepth, keep) {
  const inner = busy || stale;
  if (busy) suspend();
  // Snapshots above this one are of this tape (or of tapes nested in it): gone when it ends.
  const base = suspended.length;
  stale = false;
  busy = true;
  nested = inner;
  let status = TapeStatus.Failed;
  try {
    const budget = begin(maxNodes, maxDepth, keep);
    full = false;
    sideEnd = budget;
    put(oldValue, 0);
    const newStart = at;
    newSide = true;
    full = false;
    sideEnd = ordinal + budget;
    put(newValue, 0);
    if (view.length === 0) view = tapeGrow(at);
    // New strings took old ones' ids by position: right for a walk that pairs them by position,
    // which equal values with their keys in the same order guarantee (values that are not equal
    // are found different either way). Otherwise, and to explain, make the ids canonical.
    // A kept tape (to explain a mismatch) is made canonical only if the wasm asks, once it has
    // found the pair different (canonicaliseTape): an equal pair never pays for it.
    if (!canonical && newStringCount > 0 && !keysAligned) canonicalise(newStringCount);
    view[0] = newStart;
    view[1] = at;
    view[2] = irregular ? 1 : 0;
    view[3] = 0;
    if (keep) {
      keptValues = values;
      keptThrown = thrownBy;
      stringsKept = true;
    }
    status = TapeStatus.Written;
  } catch {
    // The stack ran out (or worse): nothing of this tape is read.
    path.fill(undefined);
  } finally {
    end();
    try {
      flushKeys();
    } catch {
      status = TapeStatus.Failed;
    }
    // A tape that failed while one nested in it had not been resumed leaves nothing behind: the
    // tape it interrupted (if any) resumes from its own snapshot, a top-level one from none.
    suspended.length = base;
    busy = false;
    stale = nested;
  }
  return status;
}

/**
 * The value kept for node `ordinal` (`thrown`: what reading it threw), undefined when none.
 * @param {number} ordinal @param {boolean} thrown
 */
export function tapeValue(ordinal, thrown) {
  if (thrown) return keptThrown === null ? undefined : keptThrown.get(ordinal);
  return keptValues === null ? undefined : keptValues[ordinal];
}

/**
 * Makes the strings' ids of the last tape written with `keep` canonical (each string's id the
 * first old string with its text), as explaining a mismatch needs; nothing when they are already.
 */
export function canonicaliseTape() {
  if (!stringsKept || canonical || newStringCount === 0) return;
  if (view.length === 0) view = tapeView();
  canonicalise(newStringCount);
}

/** Forgets the values (and strings) kept for the last tape written with `keep`. */
export function releaseTape() {
  if (keptValues !== null) {
    keptValues = null;
    keptThrown = null;
    emptyPool();
  }
  if (stringsKept) forgetStrings();
}
