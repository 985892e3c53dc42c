// The simulated key-value service: two in-memory stores with latency, stale reads and errors.

/** Sleeps `ms` milliseconds. Timers have 1 ms granularity, so the fraction is rounded at random. */
export function sleep(ms) {
  const whole = Math.floor(ms);
  const delay = whole + (Math.random() < ms - whole ? 1 : 0);
  return new Promise((resolve) => setTimeout(resolve, Math.max(delay, 0)));
}

const between = ([lo, hi]) => lo + Math.random() * (hi - lo);

export class SimulatedStore {
  /**
   * @param {object} o
   * @param {string} o.name
   * @param {[number, number]} o.latencyMs     usual latency range
   * @param {number} [o.slowRate]              share of calls that take `slowLatencyMs`
   * @param {[number, number]} [o.slowLatencyMs]
   * @param {number} [o.staleReadRate]         share of reads that return an outdated value
   * @param {number} [o.errorRate]             share of calls that fail
   */
  constructor({ name, latencyMs, slowRate = 0, slowLatencyMs = [0, 0], staleReadRate = 0, errorRate = 0 }) {
    Object.assign(this, { name, latencyMs, slowRate, slowLatencyMs, staleReadRate, errorRate });
    this.data = new Map();
    this.injected = { staleReads: 0, errors: 0 };
  }

  async #delay() {
    await sleep(Math.random() < this.slowRate ? between(this.slowLatencyMs) : between(this.latencyMs));
    if (Math.random() < this.errorRate) {
      this.injected.errors++;
      throw new Error(`${this.name}: connection reset`);
    }
  }

  async get(key) {
    await this.#delay();
    const value = this.data.get(key);
    if (value !== undefined && Math.random() < this.staleReadRate) {
      this.injected.staleReads++;
      return { ...value, version: value.version - 1 }; // a replica that lags one write behind
    }
    return value;
  }

  async set(key, value) {
    await this.#delay();
    this.data.set(key, value);
    return value;
  }

  /** Copies every record from another store at once (the backfill step of a migration). */
  copyFrom(other) {
    for (const [k, v] of other.data) this.data.set(k, v);
    return other.data.size;
  }
}

export function legacyStore() {
  return new SimulatedStore({
    name: 'legacy store', latencyMs: [2, 4], slowRate: 0.01, slowLatencyMs: [8, 14],
  });
}

export function newStore() {
  return new SimulatedStore({
    name: 'new store', latencyMs: [0.5, 1.5], staleReadRate: 0.02, errorRate: 0.003,
  });
}
