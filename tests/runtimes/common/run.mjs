// Child-process and path helpers for the runtime orchestrators.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const TESTS_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const ROOT_DIR = fileURLToPath(new URL('../../..', import.meta.url));
export const PACKAGE_DIR = fileURLToPath(new URL('../../node_modules/cutover/', import.meta.url));
export const TARBALL = fileURLToPath(new URL('../../../.pack/cutover-0.1.0.tgz', import.meta.url));
export const bin = (name) => fileURLToPath(new URL(`../../../node_modules/.bin/${name}`, import.meta.url));

/** Why the packed package is unusable, or undefined when tests/node_modules/cutover is there. */
export function packageMissing() {
  return existsSync(new URL('package.json', `file://${PACKAGE_DIR}`))
    ? undefined
    : 'tests/node_modules/cutover is missing: run `bash scripts/pack-for-tests.sh`';
}

/** Runs a command to completion (killed after timeoutMs); resolves {code, signal, stdout, stderr}. */
export function run(cmd, args, { cwd = TESTS_DIR, env = {}, timeoutMs = 20_000 } = {}) {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (error.code ?? null) : 0, signal: error?.signal ?? null, stdout, stderr, error });
      },
    );
  });
}

export function describeRun(r) {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}
