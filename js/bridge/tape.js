// The tape (src/js/tape.rs has its layout): a pair of values flattened, in one tight loop, into
// numbers in wasm memory, so that the core's walk compares them with no call back per node.
// `sameStructure`'s function calls `flatten` and then the wasm (js/diff.js); a migrator's
// comparison has the wasm call it (src/js/same_structure.rs). The writing is tape_writer.js's,
// one writer per nesting level; the keys' ids are tape_buffer.js's.
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
// never deeper than 256 whatever the bound, as the writer recurses).
//
// Strings: an old string's id is its index among the old value's strings; a new string that is
// the old one at the same index (`===`, the usual case for equal values) takes its id, at the
// cost of one comparison. That is right for a walk that pairs strings by their index, which equal
// values with their keys in the same order do (values that are not equal are found different
// whatever their strings' ids). At the first new string that is not the old one there, or at the
// end when a new key was not the old one at its place (or, to explain a mismatch, when the wasm
// asks: canonicaliseTape), the old strings are put in a Map once, so that every old string's id
// becomes the first one with its text, and new strings take the id of the old string with their
// text (a negative id when none has it). No Map for equal values in the same order.
//
// Keys: interned once for all comparisons (tape_buffer.js). A new value's key that is the old
// value's key at the same place (in the order of all keys) takes its id without a lookup, until
// the first one that is not.
//
// Equal values with their keys in the same order are written as the very same slots (nothing on
// the tape depends on where a value sits but a `Seen` node's ordinal): the wasm sees that in
// one comparison of the two runs of slots, unless the tape is irregular (slot 2: something was
// thrown, unreadable, seen again or cut), and walks only the other pairs (src/js/tape.rs).
//
// Nesting: code of the caller's that runs while a tape is written (a getter, a trap) may compare
// other values, which writes another tape (a migrator's read with sameStructure, or
// sameStructure itself), compared at once. That tape is the next level's (`TapeLevel`: a writer
// of its own, made the first time a tape nests that deep, then reused), written after the slots
// the interrupted tape has written so far (slot 3 says where its old value starts). It touches
// nothing of the interrupted level's but the view of the buffer, which it hands back (growing the
// buffer may move it); the interrupted tape goes on where it was, with nothing to put back. Only
// the wasm's buffer bounds the slots of all levels together (src/js/tape_buffer.rs MAX_SLOTS, some
// 17 levels of two 10,000-node values); past it a nested tape is cut, as a value past the node
// bound is.
// Measured against the module-variable writer this replaces (which saved and restored all its
// state around a nested tape): the equal 1 KB pair 0.89 × its time, sameStructure ÷ JSON.stringify
// 0.583 → 0.515 (15 paired rounds, bench/scenarios/mismatch-explain.mjs): no fast path is kept.
//
// Kept values: a tape written with `keep` keeps each node's value (and what reading it threw)
// for tapeValue, and its strings for canonicaliseTape, until releaseTape or the next tape begins:
// the wasm reads them at once, in the call that asked for them.
import { TapeStatus, tapeGrow, tapeView } from '../wasm/cutover.js';
import { TapeKeys } from './tape_buffer.js';
import { TapeWriter, readCodes } from './tape_writer.js';

/** The header's slots (src/js/tape.rs): where the new value starts and ends, irregular, where the old value starts. */
const HEADER = 4;
/** The deepest a writer goes, whatever the depth bound (it recurses once per level). */
const MAX_DEPTH = 256;
const objectPrototype = Object.prototype;

/** `for…in` lists only own keys: Object.prototype has no enumerable key. */
function listsOwnOnly() {
  // eslint-disable-next-line no-unreachable-loop
  for (const key in objectPrototype) return key === undefined;
  return true;
}

/** One nesting level: a writer, where in the buffer its tapes start, and what its last tape keeps. */
class TapeLevel extends TapeWriter {
  /** @type {TapeLevel | null} The level whose tapes this one's interrupt (null: the outermost). */
  #outer;
  /** @type {TapeLevel | null} The next level, made when a tape first nests in one of this one's. */
  #inner = null;
  /** A tape is being written (code of the caller's may be running in it). */
  #busy = false;
  /** The slot this level's tape starts at. */
  #start = HEADER;
  #keptValues = null;
  #keptThrown = null;
  // One array and one Map for every kept tape of this level, emptied on release: a fresh pair
  // per tape cost an equal pair about 2 µs more per check with `mismatches()` (1 KB values).
  #valuePool = [];
  #thrownPool = new Map();
  /** The nodes the pool holds values of. */
  #pooled = 0;
  /** The last tape was written with `keep`: its values and old strings stay until `release`. */
  #kept = false;

  /**
   * @param {TapeLevel | null} outer the level whose tapes this one's interrupt (null: the outermost)
   * @param {TapeKeys} keys the keys' ids, shared by every level
   */
  constructor(outer, keys) {
    super(keys);
    this.#outer = outer;
  }

  /** The level a tape begun now is written by: this one, or the first one in it not busy. */
  free() {
    /** @type {TapeLevel} */
    let level = this;
    while (level.#busy) level = level.#inner ??= new TapeLevel(level, level.keys);
    return level;
  }

  /** The level (this one or one in it) whose last tape was kept and not yet released; null when none. */
  keeping() {
    for (let /** @type {TapeLevel} */ level = this; level !== null; level = level.#inner) if (level.#kept) return level;
    return null;
  }

  /** Writes the pair (`flatten`): a TapeStatus. */
  writePair(oldValue, newValue, maxNodes, maxDepth, keep) {
    // A nested level starts in the view its outer level holds (the buffer may have moved since it
    // last wrote), and hands its own back when it ends, whatever happens: growing may move it.
    const outer = this.#outer;
    if (outer !== null) this.view = outer.view;
    this.#busy = true;
    let status = TapeStatus.Failed;
    try {
      this.#begin(maxDepth, keep);
      this.full = false;
      this.sideEnd = maxNodes;
      this.put(oldValue, 0);
      const newStart = this.at;
      this.newSide = true;
      this.full = false;
      this.sideEnd = this.ordinal + maxNodes;
      this.put(newValue, 0);
      if (this.view.length === 0) this.view = tapeGrow(this.at);
      // New strings took old ones' ids by position: right for a walk that pairs them by position,
      // which equal values with their keys in the same order guarantee (values that are not equal
      // are found different either way). Otherwise make the ids canonical; a kept tape (to explain
      // a mismatch) only if the wasm asks, once it has found the pair different (canonicaliseTape).
      if (!this.canonical && this.newStringCount > 0 && !this.keysAligned) this.canonicalise(this.newStringCount);
      const view = this.view;
      view[0] = newStart;
      view[1] = this.at;
      view[2] = this.irregular ? 1 : 0;
      view[3] = this.#start;
      if (keep) {
        this.#keptValues = this.values;
        this.#keptThrown = this.thrownBy;
        this.#kept = true;
      }
      status = TapeStatus.Written;
    } catch {
      // The stack ran out (or worse): nothing of this tape is read.
      this.path.fill(undefined);
    } finally {
      this.#busy = false;
      if (outer !== null) outer.view = this.view;
      this.#end();
      try {
        this.keys.send();
      } catch {
        status = TapeStatus.Failed;
      }
    }
    return status;
  }

  #begin(maxDepth, keep) {
    readCodes();
    if (this.#outer === null) this.keys.forgetIfTooMany();
    // A nested tape starts after the slots the one it interrupts has written so far.
    this.#start = this.#outer === null ? HEADER : this.#outer.at;
    this.at = this.#start;
    this.ordinal = 0;
    this.newSide = false;
    this.canonical = false;
    this.oldStringCount = 0;
    this.newStringCount = 0;
    this.oldKeyCount = 0;
    this.newKeyCount = 0;
    this.keysAligned = true;
    this.oldObjectCount = 0;
    this.newObjectCount = 0;
    this.irregular = false;
    this.depthLimit = Math.min(maxDepth, MAX_DEPTH);
    this.ownOnly = listsOwnOnly();
    this.values = keep ? this.#valuePool : null;
    this.thrownBy = keep ? this.#thrownPool : null;
  }

  #end() {
    if (!this.#kept) this.forgetStrings();
    if (this.oldKeyCount > 0) this.oldKeys.fill(undefined, 0, this.oldKeyCount);
    if (this.oldObjectCount > 0) this.oldObjects.fill(undefined, 0, this.oldObjectCount);
    if (this.others.size > 0) this.others.clear();
    if (this.values !== null) {
      this.#pooled = this.ordinal;
      if (this.#keptValues === null) this.#emptyPool();
    }
    this.values = null;
    this.thrownBy = null;
  }

  /** The value kept for node `ordinal` (`thrown`: what reading it threw), undefined when none. */
  keptValue(ordinal, thrown) {
    if (thrown) return this.#keptThrown === null ? undefined : this.#keptThrown.get(ordinal);
    return this.#keptValues === null ? undefined : this.#keptValues[ordinal];
  }

  /** Makes the kept tape's string ids canonical; nothing when they are. */
  canonicaliseKept() {
    if (!this.#kept || this.canonical || this.newStringCount === 0) return;
    if (this.view.length === 0) this.view = tapeView();
    this.canonicalise(this.newStringCount);
  }

  /** Forgets the values and strings kept for the last tape. */
  release() {
    if (this.#keptValues !== null) {
      this.#keptValues = null;
      this.#keptThrown = null;
      this.#emptyPool();
    }
    if (this.#kept) {
      this.forgetStrings();
      this.#kept = false;
    }
  }

  #emptyPool() {
    if (this.#pooled > 0) this.#valuePool.fill(undefined, 0, this.#pooled);
    if (this.#thrownPool.size > 0) this.#thrownPool.clear();
    this.#pooled = 0;
  }
}

/** The outermost level; each level makes the next one when a tape first nests in one of its own. */
const outermost = new TapeLevel(null, new TapeKeys());

/**
 * Writes `oldValue` and `newValue` onto the wasm's tape: a TapeStatus. With `keep`, each node's
 * value and what reading it threw stay for tapeValue until releaseTape. Never throws.
 * @param {unknown} oldValue @param {unknown} newValue @param {number} maxNodes @param {number} maxDepth
 * @param {boolean} keep
 * @returns {import('../wasm/cutover.js').TapeStatus}
 */
export function flatten(oldValue, newValue, maxNodes, maxDepth, keep) {
  try {
    const level = outermost.free();
    releaseTape();
    return level.writePair(oldValue, newValue, maxNodes, maxDepth, keep);
  } catch {
    // The stack ran out (or worse) outside the writing itself: nothing of this tape is read.
    return TapeStatus.Failed;
  }
}

/**
 * The value kept for node `ordinal` (`thrown`: what reading it threw), undefined when none.
 * @param {number} ordinal @param {boolean} thrown
 */
export function tapeValue(ordinal, thrown) {
  const level = outermost.keeping();
  return level === null ? undefined : level.keptValue(ordinal, thrown);
}

/**
 * Makes the strings' ids of the last tape written with `keep` canonical (each string's id the
 * first old string with its text), as explaining a mismatch needs; nothing when they are already.
 */
export function canonicaliseTape() {
  outermost.keeping()?.canonicaliseKept();
}

/** Forgets the values (and strings) kept for the last tape written with `keep`. */
export function releaseTape() {
  outermost.keeping()?.release();
}
