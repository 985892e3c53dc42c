// Helpers shared by every suite (migration.mjs, segments.mjs and redis-env.mjs re-export them).
import assert from 'node:assert/strict';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `run()` throws an instance of `Class` whose message starts with `prefix`. */
export function throwsStarting(run, Class, prefix) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof Class, `a ${Class.name}, got ${error?.name}: ${error?.message}`);
    assert.ok(
      typeof error.message === 'string' && error.message.startsWith(prefix),
      `message starts with ${JSON.stringify(prefix)}: ${JSON.stringify(error.message)}`,
    );
    return true;
  });
}

/** A logger that records every call; `text` is the args joined with ' '. */
export function makeLogger() {
  const calls = [];
  const logger = {};
  for (const level of ['debug', 'info', 'warn', 'error']) {
    logger[level] = (...args) => {
      calls.push({ level, args, text: args.map((a) => String(a)).join(' ') });
    };
  }
  return {
    logger,
    calls,
    texts(level) {
      return calls.filter((c) => c.level === level).map((c) => c.text);
    },
    has(level, substring) {
      return calls.some((c) => c.level === level && c.text.includes(substring));
    },
  };
}
