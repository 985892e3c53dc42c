// The fixture of the suites that hold cases to the harness's oracle (fuzz, contexts,
// differences): the package loaded through the caller's require, the driver state, the canary
// checked and the console muted before the tests, all of it undone after them.
import test from 'node:test';
import { canary, makeState, moduleLoader, muteConsole } from './harness.mjs';

/** Registers the suite's before/after hooks; `{ loader, state }` for its cases. */
export function harnessSuite(requireFn) {
  const loader = moduleLoader(requireFn);
  const state = makeState(loader);
  let restoreConsole;
  test.before(async () => {
    await canary(loader.current);
    restoreConsole = muteConsole(); // cutover's default logger is console.warn/error
  });
  test.after(() => {
    restoreConsole?.();
    state.watch.dispose();
    loader.dispose();
  });
  return { loader, state };
}
