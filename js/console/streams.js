// The console's server-sent events (GET /api/stream): at most `max` open at once, one event a
// second for all of them from one timer (unref'd where the host has unref: it never keeps a
// process alive), a heartbeat comment every 15 seconds. A client that stops reading is skipped,
// and closed after 30 seconds of it: nothing queues without bound.
const encoder = new TextEncoder();
const HEARTBEAT_EVERY = 15;
const GIVE_UP_AFTER = 30;

/** `setInterval` that does not keep Node (or Bun, Deno) alive. */
export function unrefInterval(f, ms) {
  /** @type {any} */
  const timer = setInterval(f, ms);
  if (typeof timer === 'object' && timer !== null && typeof timer.unref === 'function') timer.unref();
  return timer;
}

export class Streams {
  #open = new Set();
  #timer;
  #ticks = 0;
  #busy = false;

  /** @param {number} max @param {() => Promise<string>} event the data of the next event (JSON) */
  constructor(max, event) {
    this.max = max;
    this.event = event;
  }

  get size() {
    return this.#open.size;
  }

  /** A new stream, or undefined when `max` are open. */
  open() {
    if (this.#open.size >= this.max) return undefined;
    const entry = { controller: undefined, skipped: 0 };
    this.#open.add(entry);
    this.#ensureTimer();
    return new ReadableStream(
      {
        start: (controller) => {
          entry.controller = controller;
          controller.enqueue(encoder.encode('retry: 2000\n\n'));
          this.#tick();
        },
        cancel: () => this.#drop(entry),
      },
      { highWaterMark: 4, size: () => 1 },
    );
  }

  /** Ends every stream and stops the timer. */
  closeAll() {
    for (const entry of [...this.#open]) {
      this.#drop(entry);
      try {
        entry.controller?.close();
      } catch {
        // already closed or errored
      }
    }
  }

  #drop(entry) {
    this.#open.delete(entry);
    if (this.#open.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #ensureTimer() {
    if (this.#timer === undefined) this.#timer = unrefInterval(() => this.#tick(), 1000);
  }

  #send(text) {
    const bytes = encoder.encode(text);
    for (const entry of [...this.#open]) {
      const { controller } = entry;
      if (controller === undefined) continue;
      if ((controller.desiredSize ?? 1) <= 0) {
        if (++entry.skipped >= GIVE_UP_AFTER) {
          this.#drop(entry);
          try {
            controller.close();
          } catch {
            // already closed
          }
        }
        continue;
      }
      entry.skipped = 0;
      try {
        controller.enqueue(bytes);
      } catch {
        this.#drop(entry);
      }
    }
  }

  /** One event to every stream (skipped while the previous one is still being made). */
  #tick() {
    if (this.#busy || this.#open.size === 0) return;
    this.#busy = true;
    const heartbeat = ++this.#ticks % HEARTBEAT_EVERY === 0;
    this.event()
      .then((data) => this.#send(`${heartbeat ? ': heartbeat\n\n' : ''}event: snapshot\ndata: ${data}\n\n`))
      .catch(() => this.#send(': the snapshot failed\n\n'))
      .finally(() => {
        this.#busy = false;
      });
  }
}
