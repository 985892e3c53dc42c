// The caller's logger (`MigratorBuilder`'s or the Big Segments manager's `logger` option), called
// with a message: its method looked up when it logs, as a weak reference (held.js) the wasm keeps.

/**
 * `logger[level](message)` when the logger still has that method; a logger that throws must not
 * break the operation that is logging, so nothing it throws leaves here.
 * @param {any} logger
 * @param {string} level
 * @param {string} message
 */
export function logTo(logger, level, message) {
  try {
    const target = logger.deref();
    const f = target?.[level];
    if (typeof f === 'function') f.call(target, message);
  } catch {
    // the logger threw: the message is dropped, the operation goes on
  }
}
