// Helpers shared by every suite (migration.mjs, segments.mjs and redis-env.mjs re-export them).

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
