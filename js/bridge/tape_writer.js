// Writing values onto the tape (tape.js says what a value becomes; src/js/tape.rs has the layout):
// a writer holds every count, list and map of the pair being written, so a tape nested in it (the
// next level's: tape.js, "Nesting") touches none of it. It writes the wasm's buffer in place
// (`view`), checking its length before each write: a view of memory that grew meanwhile (length
// 0) is asked for again (`tapeGrow`).
import { TapeNode, tapeGrow } from '../wasm/cutover.js';

// The codes, read from the glue at the first tape (`readCodes`: the glue and the bridge load each
// other), constant from then on: module bindings, which the writing loop reads faster than fields.
let UNDEFINED, NULL, FALSE, TRUE, NUMBER, STRING, DATE, OTHER, UNREADABLE, THREW, ARRAY, OBJECT, SEEN, CUT_DEPTH;
let codesRead = false;
export function readCodes() {
  if (codesRead) return;
  ({
    Undefined: UNDEFINED, Null: NULL, False: FALSE, True: TRUE, Number: NUMBER, String: STRING, Date: DATE,
    Other: OTHER, Unreadable: UNREADABLE, Threw: THREW, Array: ARRAY, Object: OBJECT, Seen: SEEN, CutDepth: CUT_DEPTH,
  } = TapeNode);
  codesRead = true;
}

const getTime = Date.prototype.getTime;
const objectPrototype = Object.prototype;
const getPrototypeOf = Object.getPrototypeOf;
const isArray = Array.isArray;

// Writes one pair's values; a tape's beginning and end are tape.js's (`TapeLevel`: it reads and
// resets the public fields). Private fields are the writer's alone, and minify: a page bundling
// cutover/migrations pays for public names (359 B gzipped of JS when all of these were public).
export class TapeWriter {
  /** @type {Map<string, number>} The shared keys' ids (tape_buffer.js). */
  #keyIds;
  /** The nodes' ordinals of the arrays and objects open on the current path, by depth. */
  #pathNodes = [];
  /** The old value's strings, and the slots of their ids; the slots of the new strings' ids. */
  #oldStrings = [];
  #oldStringSlots = [];
  #newStringSlots = [];
  /** Text → the first old string's id, made at the first new string that is not the old one there. */
  #stringIds = new Map();
  /** The old value's keys' ids, in the order of `oldKeys`. */
  #oldKeyIds = [];
  // Of the old value's objects (`oldObjects`), in order: each one's node, the counts of strings and
  // keys before it, and (an array or plain object) the counts of objects, strings and keys after it.
  #oldObjectNodes = [];
  #oldStartStrings = [];
  #oldStartKeys = [];
  #oldEndObjects = [];
  #oldEndStrings = [];
  #oldEndKeys = [];

  /** @param {import('./tape_buffer.js').TapeKeys} keys the keys' ids, shared by every writer */
  constructor(keys) {
    this.keys = keys;
    this.#keyIds = keys.ids;
    /** @type {Float64Array} */
    this.view = new Float64Array(0);
    /** The next slot, the next node's ordinal, the ordinal at which this value's budget ends. */
    this.at = 0;
    this.ordinal = 0;
    this.sideEnd = 0;
    /** This value's node budget is spent (or the buffer cannot grow): nothing more is written. */
    this.full = false;
    /** The tape holds a node that is not a value's own (thrown, unreadable, seen, cut), or a value was cut. */
    this.irregular = false;
    this.depthLimit = 0;
    this.newSide = false;
    /** `for…in` lists only own keys (tape.js checks it per tape). */
    this.ownOnly = true;
    /** The arrays and objects open on the current path, by depth. */
    this.path = [];
    this.oldStringCount = 0;
    this.newStringCount = 0;
    this.canonical = false;
    /** Other values → ids, for one tape. */
    this.others = new Map();
    /** The old value's keys in order (a new value's key that is the old one at its place takes its id). */
    this.oldKeys = [];
    this.oldKeyCount = 0;
    this.newKeyCount = 0;
    this.keysAligned = true;
    /** The old value's objects in order (a new value's k-th that is the very same is `Seen`). */
    this.oldObjects = [];
    this.oldObjectCount = 0;
    this.newObjectCount = 0;
    /** With `keep`: each node's value by ordinal, and what reading it threw (tape.js's pool); else null. */
    this.values = null;
    this.thrownBy = null;
  }

  /** Room for `n` more slots: grows the buffer (or takes its view again after memory grew). */
  #room(n) {
    if (this.at + n <= this.view.length) return true;
    this.view = tapeGrow(this.at + n);
    if (this.at + n <= this.view.length) return true;
    this.full = true;
    this.irregular = true;
    return false;
  }

  /** Writes one node. */
  #node(code, number) {
    if (this.at + 2 > this.view.length && !this.#room(2)) return false;
    const at = this.at;
    this.view[at] = code;
    this.view[at + 1] = number;
    this.at = at + 2;
    this.ordinal++;
    return true;
  }

  put(v, depth) {
    if (this.at + 2 > this.view.length && !this.#room(2)) return;
    const node = this.ordinal;
    if (this.values !== null) this.values[node] = v;
    let code;
    let number = 0;
    switch (typeof v) {
      case 'string':
        this.#putString(v);
        return;
      case 'number':
        code = NUMBER;
        number = v;
        break;
      case 'boolean':
        code = v ? TRUE : FALSE;
        break;
      case 'undefined':
        code = UNDEFINED;
        break;
      case 'object':
        if (v === null) {
          code = NULL;
          break;
        }
        this.#putObject(v, node, depth);
        return;
      default:
        this.#node(OTHER, this.#otherId(v));
        return;
    }
    const at = this.at;
    this.view[at] = code;
    this.view[at + 1] = number;
    this.at = at + 2;
    this.ordinal = node + 1;
  }

  #putString(s) {
    const at = this.at;
    let id;
    if (!this.newSide) {
      id = this.oldStringCount++;
      this.#oldStrings[id] = s;
      this.#oldStringSlots[id] = at + 1;
    } else {
      const j = this.newStringCount++;
      if (!this.canonical && j < this.oldStringCount && this.#oldStrings[j] === s) {
        this.#newStringSlots[j] = at + 1;
        id = j;
      } else {
        if (!this.canonical) this.canonicalise(j);
        id = this.#stringIds.get(s) ?? -1 - j;
      }
    }
    this.view[at] = STRING;
    this.view[at + 1] = id;
    this.at = at + 2;
    this.ordinal++;
  }

  /** Every old string's id becomes the first one with its text, the new ones written so far too. */
  canonicalise(hits) {
    this.canonical = true;
    const view = this.view;
    const strings = this.#oldStrings;
    const ids = this.#stringIds;
    for (let i = 0; i < this.oldStringCount; i++) {
      const first = ids.get(strings[i]);
      if (first === undefined) ids.set(strings[i], i);
      else view[this.#oldStringSlots[i]] = first;
    }
    const slots = this.#newStringSlots;
    for (let j = 0; j < hits; j++) if (slots[j] >= 0) view[slots[j]] = ids.get(strings[j]);
  }

  #otherId(v) {
    let id = this.others.get(v);
    if (id === undefined) this.others.set(v, (id = this.others.size));
    return id;
  }

  /** `v` could not be read: its node, with `v`'s id among the other values (`===` stays visible). */
  #unreadable(v, node, error) {
    this.irregular = true;
    if (this.#node(UNREADABLE, this.#otherId(v)) && this.thrownBy !== null) this.thrownBy.set(node, error);
  }

  #threw(error) {
    const node = this.ordinal;
    this.irregular = true;
    if (!this.#node(THREW, 0)) return;
    if (this.values !== null) this.values[node] = undefined;
    if (this.thrownBy !== null) this.thrownBy.set(node, error);
  }

  #putObject(v, node, depth) {
    const path = this.path;
    for (let d = depth - 1; d >= 0; d--) {
      if (path[d] === v) {
        this.irregular = true;
        this.#node(SEEN, this.#pathNodes[d]);
        return;
      }
    }
    // The k-th object of each value: the old one's is kept, and a new one that is the very same
    // array or plain object is written as `Seen` of its node, unread (the walk takes it as equal).
    const newSide = this.newSide;
    const k = newSide ? this.newObjectCount++ : this.oldObjectCount++;
    if (!newSide) {
      this.oldObjects[k] = v;
      this.#oldObjectNodes[k] = node;
      this.#oldEndObjects[k] = -1;
      this.#oldStartStrings[k] = this.oldStringCount;
      this.#oldStartKeys[k] = this.oldKeyCount;
    } else if (k < this.oldObjectCount && this.oldObjects[k] === v && this.#oldEndObjects[k] >= 0) {
      this.irregular = true;
      if (this.#node(SEEN, this.#oldObjectNodes[k])) {
        // Skip as many objects, strings and keys as it holds, so that those after it stay at the
        // places of the old value's (a skipped string has no slot to make canonical).
        const strings = this.#oldEndStrings[k] - this.#oldStartStrings[k];
        if (strings > 0) this.#newStringSlots.fill(-1, this.newStringCount, this.newStringCount + strings);
        this.newStringCount += strings;
        this.newKeyCount += this.#oldEndKeys[k] - this.#oldStartKeys[k];
        this.newObjectCount += this.#oldEndObjects[k] - (k + 1);
      }
      return;
    }
    let array, proto;
    try {
      array = isArray(v);
      if (!array) proto = getPrototypeOf(v);
    } catch (error) {
      this.#unreadable(v, node, error);
      return;
    }
    if (array || proto === objectPrototype || proto === null) {
      const written = array ? this.#putArray(v, node, depth) : this.#putPlain(v, node, depth);
      if (written && !newSide) {
        // Where the old value's counts stand after this container: a new value that has it again
        // skips as much.
        this.#oldEndObjects[k] = this.oldObjectCount;
        this.#oldEndStrings[k] = this.oldStringCount;
        this.#oldEndKeys[k] = this.oldKeyCount;
      }
    } else {
      this.#putDateOrOther(v);
    }
  }

  #putDateOrOther(v) {
    let time;
    try {
      if (v instanceof Date) time = getTime.call(v);
    } catch {
      // a proxy's trap threw, or a Date's prototype without a Date: compared by identity
    }
    if (time === undefined) this.#node(OTHER, this.#otherId(v));
    else this.#node(DATE, time);
  }

  /** Writes an array: whether it was (rather than an unreadable value, or nothing). */
  #putArray(v, node, depth) {
    let n;
    try {
      n = v.length >>> 0;
    } catch (error) {
      this.#unreadable(v, node, error);
      return false;
    }
    if (!this.#node(ARRAY, n)) return false;
    const next = depth + 1;
    if (next > this.depthLimit) {
      if (n > 0 && this.ordinal < this.sideEnd) {
        this.irregular = true;
        this.#node(CUT_DEPTH, 0);
      }
      return true;
    }
    this.path[depth] = v;
    this.#pathNodes[depth] = node;
    for (let i = 0; i < n; i++) {
      if (this.ordinal >= this.sideEnd) {
        this.full = true;
        this.irregular = true;
        break;
      }
      let item;
      try {
        item = v[i];
      } catch (error) {
        this.#threw(error);
        if (this.full) break;
        continue;
      }
      this.put(item, next);
      if (this.full) break;
    }
    this.path[depth] = undefined;
    return true;
  }

  /** One key of a plain object and its value: -1 when the key was not written, 1 to go on, 0 to stop. */
  #member(v, key, next, deep) {
    if (this.ordinal >= this.sideEnd) {
      this.full = true;
      this.irregular = true;
      return -1;
    }
    let id;
    if (!this.newSide) {
      id = this.#keyIds.get(key);
      if (id === undefined) id = this.keys.add(key);
      this.oldKeys[this.oldKeyCount] = key;
      this.#oldKeyIds[this.oldKeyCount++] = id;
    } else {
      const k = this.newKeyCount++;
      if (this.keysAligned && k < this.oldKeyCount && this.oldKeys[k] === key) {
        id = this.#oldKeyIds[k];
      } else {
        this.keysAligned = false;
        id = this.#keyIds.get(key);
        if (id === undefined) id = this.keys.add(key);
      }
    }
    if (this.at + 3 > this.view.length && !this.#room(3)) return -1;
    this.view[this.at++] = id;
    if (deep) {
      this.irregular = true;
      return this.#node(CUT_DEPTH, 0) ? 1 : 0;
    }
    let item;
    try {
      item = v[key];
    } catch (error) {
      this.#threw(error);
      return this.full ? 0 : 1;
    }
    this.put(item, next);
    return this.full ? 0 : 1;
  }

  /** Writes a plain object: whether it was (rather than an unreadable value, or nothing). */
  #putPlain(v, node, depth) {
    const header = this.at;
    if (!this.#node(OBJECT, 0)) return false;
    const next = depth + 1;
    const deep = next > this.depthLimit;
    const { oldStringCount, newStringCount, oldKeyCount, newKeyCount, oldObjectCount, newObjectCount } = this;
    let count = 0;
    this.path[depth] = v;
    this.#pathNodes[depth] = node;
    try {
      if (this.ownOnly) {
        for (const key in v) {
          const went = this.#member(v, key, next, deep);
          if (went >= 0) count++;
          if (went !== 1) break;
        }
      } else {
        const keys = Object.keys(v);
        for (let i = 0; i < keys.length; i++) {
          const went = this.#member(v, keys[i], next, deep);
          if (went >= 0) count++;
          if (went !== 1) break;
        }
      }
    } catch (error) {
      // Listing the keys threw (a proxy's trap): the object is unreadable, what was written of it taken back.
      this.path[depth] = undefined;
      this.at = header;
      this.ordinal = node;
      Object.assign(this, { oldStringCount, newStringCount, oldKeyCount, newKeyCount, oldObjectCount, newObjectCount });
      this.full = false;
      this.#unreadable(v, node, error);
      return false;
    }
    this.path[depth] = undefined;
    if (this.view.length === 0) this.view = tapeGrow(this.at);
    if (header + 1 < this.view.length) this.view[header + 1] = this.full ? count + 1 : count;
    return true;
  }

  /** Forgets the old strings (and their ids). */
  forgetStrings() {
    if (this.oldStringCount > 0) this.#oldStrings.fill(undefined, 0, this.oldStringCount);
    if (this.#stringIds.size > 0) this.#stringIds.clear();
  }
}
