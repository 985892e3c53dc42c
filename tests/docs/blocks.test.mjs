// Docs are tests: every ```js and ```ts block of README.md and docs/*.md runs as written, against
// the packed package, in a process of its own that must exit 0 by itself within
// BLOCK_TIMEOUT_MS (a thrown error, an unhandled rejection — --unhandled-rejections=strict — or
// a handle left open fails it); every ```ts block also type-checks under --strict with nodenext.
// A block marked `<!-- not run: reason -->` is reported as skipped, with its reason.
// tests/docs/README.md describes the conventions; self-check.test.mjs shows the checks can fail.
import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { allBlocks, blockName } from './extract.mjs';
import { describeRun, problemsOf, runBlock, scratchDir, servicesOf, standInDefinitions, TSC, typeCheck } from './run.mjs';
import { packageMissing } from '../runtimes/common/run.mjs';

const blocks = allBlocks();
const definitions = standInDefinitions();
const runnable = blocks.filter((b) => !b.skip);
const tsBlocks = runnable.filter((b) => b.lang === 'ts');
const unavailable = packageMissing() ?? (existsSync(TSC) ? undefined : `typescript is not installed (${TSC})`);

test('docs: the blocks of README.md and docs/*.md are found, and counted', (t) => {
  const skipped = blocks.filter((b) => b.skip);
  t.diagnostic(
    `${blocks.length} js/ts blocks: ${runnable.length} run, ${tsBlocks.length} type-checked, ${skipped.length} skipped` +
      skipped.map((b) => `\n  skipped ${blockName(b)}: ${b.skip}`).join(''),
  );
  // The extractor finds what is there (a broken fence pattern would find nothing and pass).
  const files = new Set(blocks.map((b) => b.file));
  for (const file of ['README.md', 'docs/STORES.md', 'docs/OPENFEATURE.md']) assert.ok(files.has(file), `blocks found in ${file}`);
  assert.ok(blocks.length >= 10, `${blocks.length} blocks`);
  for (const b of skipped) assert.ok(b.skip.length > 0, `${blockName(b)} says why it is not run`);
});

describe('docs: every block runs as written', { concurrency: 2 }, () => {
  let scratch;
  let environment;
  let checked; // the one tsc run over every ts block, started by the first ts test

  before(async () => {
    if (unavailable) return;
    scratch = await scratchDir();
    const services = new Set(runnable.flatMap((b) => servicesOf(b, definitions)));
    const { startEnvironment } = await import('./environment.mjs'); // its clients load only when the suite runs
    environment = await startEnvironment(services);
  });

  after(async () => {
    await environment?.stop();
    scratch?.remove();
  });

  for (const block of blocks) {
    const skip = block.skip ? `not run: ${block.skip}` : unavailable;
    it(`${blockName(block)} runs to its end by itself`, { skip, timeout: 90_000 }, async (t) => {
      assert.deepEqual(problemsOf(block, definitions), [], blockName(block));
      const r = await runBlock(block, { dir: scratch.dir, env: environment.env });
      t.diagnostic(`${r.ms} ms; stdout: ${r.stdout.trim().split('\n').join(' | ')}`);
      assert.ok(r.ok, describeRun(block, r));
    });
    if (block.lang === 'ts') {
      it(`${blockName(block)} type-checks (tsc --strict, nodenext)`, { skip, timeout: 90_000 }, async () => {
        checked ??= typeCheck(tsBlocks, scratch.dir);
        const { errors } = await checked;
        for (const shared of ['stand-ins.mts', 'tsc']) assert.deepEqual(errors.get(shared) ?? [], [], `the check itself (${shared})`);
        assert.deepEqual(errors.get(block) ?? [], [], `${blockName(block)} compiles`);
      });
    }
  }
});
