// A one-line progress bar, redrawn in place. Drawn only on a TTY; elsewhere it stays silent.

import { CLEAR_LINE } from './term.mjs';

export function createProgress({ stream = process.stderr, style, width = 28, intervalMs = 80 } = {}) {
  const enabled = Boolean(stream.isTTY);
  let label = '';
  let total = 0;
  let started = 0;
  let lastDraw = 0;

  function draw(done) {
    const frac = total ? done / total : 1;
    const filled = Math.round(frac * width);
    const bar = style.cyan('█'.repeat(filled)) + style.gray('░'.repeat(width - filled));
    const secs = (performance.now() - started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    stream.write(
      `${CLEAR_LINE}  ${label.padEnd(10)} ${bar} ${String(Math.round(frac * 100)).padStart(3)}%` +
        `  ${done}/${total} ops  ${style.dim(`${rate} ops/s`)}`,
    );
  }

  return {
    start(stageLabel, totalOps) {
      label = stageLabel;
      total = totalOps;
      started = performance.now();
      lastDraw = started;
      if (enabled) draw(0);
    },
    update(done) {
      if (!enabled) return;
      const now = performance.now();
      if (now - lastDraw < intervalMs && done < total) return;
      lastDraw = now;
      draw(done);
    },
    /** Removes the bar so that the next line prints cleanly. */
    clear() {
      if (enabled) stream.write(CLEAR_LINE);
    },
  };
}
