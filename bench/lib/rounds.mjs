// Paired rounds: a round runs every side of a scenario once, each in a fresh child process
// (bench/lib/child.mjs), one after the other, never two at once. Even rounds run the sides in
// the given order, odd rounds in reverse, so no side always goes first (or always follows the
// same one). Used by bench/run.mjs (cutover, LaunchDarkly, floor) and bench/against.mjs (two
// builds of cutover).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));
const CHILD_TIMEOUT_MS = 120_000;

/** One scenario side in a fresh `node --expose-gc` process; resolves to its { value, info? }. */
export function runChild(scenario, side, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, scenario, side], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('@@RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`${scenario}/${side} failed (code ${code}, signal ${signal})\n${err.slice(-2000)}${out.slice(-500)}`));
        return;
      }
      resolve(JSON.parse(line.slice('@@RESULT '.length)));
    });
  });
}

/** The order of the sides in round `round` (0-based): as given on even rounds, reversed on odd. */
export const roundOrder = (sides, round) => (round % 2 ? [...sides].reverse() : [...sides]);

/**
 * `rounds` rounds of `run(side, round)` over `sides`; returns { side: [result of round 0, …] },
 * index-aligned across sides so that round i of one side pairs with round i of another.
 * `tick(side)` is called after every side of every round (progress).
 */
export async function pairedRounds({ sides, rounds, run, tick = () => {} }) {
  const results = Object.fromEntries(sides.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) {
    for (const side of roundOrder(sides, round)) {
      results[side][round] = await run(side, round);
      tick(side);
    }
  }
  return results;
}
