// The keys' ids of every tape (src/js/tape_buffer.rs keeps their texts): interned once for all
// comparisons and every nesting level, so that a key id is the same from one tape to the next; a
// key not seen before is sent to the wasm with the others its tape met, in one string
// (`internKeys`). Past MAX_KEYS keys (or MAX_KEY_CHARS characters) both sides forget them all,
// between tapes (never while one is being written: its slots hold their ids).
import { internKeys, resetKeys } from '../wasm/cutover.js';

const MAX_KEYS = 65536;
const MAX_KEY_CHARS = 1 << 22;

export class TapeKeys {
  /** @type {string[]} The keys met since the last `send`, in the order of their ids. */
  #unsent = [];
  /** One of `#unsent` holds a NUL (then they cross one by one). */
  #unsentNul = false;
  /** The characters of every key interned: the texts the wasm keeps. */
  #chars = 0;

  constructor() {
    /** @type {Map<string, number>} Key → id, ids from 0 in order (the writers read it directly). */
    this.ids = new Map();
  }

  /** The id of `key`, which has none yet. */
  add(key) {
    const id = this.ids.size;
    this.ids.set(key, id);
    this.#unsent.push(key);
    if (key.includes('\0')) this.#unsentNul = true;
    this.#chars += key.length;
    return id;
  }

  /** Forgets every key past the bounds, on both sides: only between tapes. */
  forgetIfTooMany() {
    if (this.ids.size <= MAX_KEYS && this.#chars <= MAX_KEY_CHARS) return;
    this.ids.clear();
    this.#unsent = [];
    this.#unsentNul = false;
    this.#chars = 0;
    resetKeys();
  }

  /** Sends the keys met since the last call: joined by NUL, or one by one if one holds a NUL. */
  send() {
    const count = this.#unsent.length;
    if (count === 0) return;
    const first = this.ids.size - count;
    const keys = this.#unsent;
    const nul = this.#unsentNul;
    this.#unsent = [];
    this.#unsentNul = false;
    if (!nul) internKeys(keys.join('\0'), first, count);
    else for (let i = 0; i < count; i++) internKeys(keys[i], first + i, 1);
  }
}
