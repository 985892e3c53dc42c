// Minimal reproductions of the bugs the fuzz found, each in its own process (a trap kills the
// wasm instance for the whole process; an uncaught exception would be blamed on whatever test
// runs next). Each must settle (fulfil, or reject with an Error), leave nothing uncaught, and
// leave cutover working.
// The reproductions themselves: helpers/repro-child.mjs. The children run concurrently.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const child = fileURLToPath(new URL('./helpers/repro-child.mjs', import.meta.url));
const run = (...args) =>
  promisify(execFile)(process.execPath, ['--unhandled-rejections=strict', child, ...args], { encoding: 'utf8', timeout: 20_000 }).catch(
    (e) => ({ stdout: e.stdout ?? '', stderr: `${e.stderr ?? ''}\n${e.message}` }),
  );

const names = JSON.parse((await run('--list')).stdout);
const results = await Promise.all(names.map((name) => run(name)));

names.forEach((name, i) => {
  test(`settles, nothing uncaught, still works: ${name}`, () => {
    const r = results[i];
    const line = r.stdout.trim().split('\n').at(-1);
    assert.ok(line?.startsWith('{'), `child died: ${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(line);
    // A rejection must carry an Error (class name, capitalized), never a trap or a bare value.
    const settledOk = out.settled === 'fulfilled' || (/^rejected \([A-Z]/.test(out.settled) && !out.settled.includes('RuntimeError'));
    assert.deepEqual(
      { settled: settledOk ? 'settled' : out.settled, uncaught: out.uncaught, after: out.after },
      { settled: 'settled', uncaught: [], after: 'works' },
    );
  });
});
