// Drives a fixed number of operations through a handful of concurrent "clients".

/**
 * @param {object} o
 * @param {number} o.total          operations to run
 * @param {number} o.concurrency    operations in flight at once
 * @param {(i: number) => Promise<void>} o.operation
 * @param {(done: number) => void} [o.onProgress]
 */
export async function runWorkload({ total, concurrency, operation, onProgress = () => {} }) {
  let next = 0;
  let done = 0;
  async function worker() {
    while (next < total) {
      const i = next++;
      await operation(i);
      onProgress(++done);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}
