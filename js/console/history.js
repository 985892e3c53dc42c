// The console's history: one sample a second per series, the last `length` seconds, in fixed
// memory (one Float64Array per series, used as a ring). A second with no sample (the process was
// busy, or nobody asked in a Worker) holds NaN, sent as null.

/** A number for JSON: three decimals at most, NaN and ±Infinity as null. */
export const figure = (x) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null);

export class History {
  #columns;
  #length;
  /** Index of the newest row, and when (epoch ms) its sample was taken. */
  #head = -1;
  #at = NaN;
  #filled = 0;

  /** @param {number} length seconds kept @param {readonly string[]} names the series */
  constructor(length, names) {
    this.names = names;
    this.#length = length;
    this.#columns = names.map(() => new Float64Array(length).fill(NaN));
  }

  /**
   * Records `values` (in the order of `names`) taken at `at` (epoch ms): the next row, after a row
   * of NaN for each whole second missed since the last sample (timers drift: a sample 0.9 or
   * 1.4 s after the last is the next second's, one 2.6 s after it leaves a gap of one).
   */
  push(at, values) {
    const seconds = Number.isNaN(this.#at) ? 1 : Math.round((at - this.#at) / 1000);
    if (seconds < 1) return; // the same second again: the first sample stands
    const rows = Math.min(seconds, this.#length);
    for (let step = 1; step <= rows; step++) {
      this.#head = (this.#head + 1) % this.#length;
      this.#columns.forEach((column, i) => { column[this.#head] = step === rows ? values[i] : NaN; });
    }
    this.#filled = Math.min(this.#filled + rows, this.#length);
    this.#at = at;
  }

  /** The last `seconds` rows (all by default), oldest first: `{ end, series: { name: [...] } }`, end the newest row's time. */
  toJSON(seconds = this.#length) {
    const count = Math.min(seconds, this.#filled);
    const series = {};
    this.#columns.forEach((column, i) => {
      const out = new Array(count);
      for (let k = 0; k < count; k++) out[k] = figure(column[(this.#head - count + 1 + k + this.#length) % this.#length]);
      series[this.names[i]] = out;
    });
    return { end: Number.isNaN(this.#at) ? null : this.#at, series };
  }
}
