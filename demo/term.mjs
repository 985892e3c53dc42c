// Terminal styling: plain ANSI escapes, no dependencies.
// Colour is used only when the stream is a TTY, TERM is not "dumb" and NO_COLOR is not set
// (https://no-color.org); FORCE_COLOR=1 turns it on regardless.

const ESC = '\x1b[';

export function colorEnabled(stream, env = process.env) {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream?.isTTY) && env.TERM !== 'dumb';
}

/** Returns { bold, dim, red, green, yellow, cyan, gray }: each wraps a string, or is identity without colour. */
export function styler(enabled) {
  const wrap = (open, close) => (enabled ? (s) => `${ESC}${open}m${s}${ESC}${close}m` : (s) => String(s));
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    gray: wrap(90, 39),
  };
}

/** Length of a string as shown on the terminal (escape sequences removed). */
export function visibleLength(s) {
  // eslint-disable-next-line no-control-regex
  return String(s).replace(/\x1b\[[0-9;]*m/g, '').length;
}

export const CLEAR_LINE = '\r\x1b[2K';
