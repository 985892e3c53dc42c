// The docs' checks can fail: synthetic blocks that throw, reject unhandled, hang, exit, name a
// stand-in that does not exist or do not type-check are each caught, for the reason they fail;
// a skipped block is read with its reason; stand-ins and the offline LaunchDarkly SDK work.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { extractBlocks, standInsOf } from './extract.mjs';
import { problemsOf, runBlock, scratchDir, servicesOf, TSC, typeCheck } from './run.mjs';
import { packageMissing } from '../runtimes/common/run.mjs';

const F = '```';
const MARKDOWN = `# Synthetic

${F}js
console.log('fine');
${F}

${F}js
throw new Error('boom');
${F}

${F}js
Promise.reject(new Error('nobody awaits me'));
await new Promise((resolve) => setTimeout(resolve, 50));
${F}

${F}js
setInterval(() => {}, 1000); // an open handle: the process never ends
${F}

${F}js
// stand-ins: legacyDb (the old database), row (a row to write)
await legacyDb.put(row);
console.log((await legacyDb.get('user-123')).name, (await legacyDb.get(row.id)).name);
${F}

${F}js
// stand-ins: nothingLikeThis (a stand-in nobody defined)
${F}

${F}js
console.log('done'); process.exit(0);
${F}

<!-- not run: a shell session, not JavaScript -->
${F}js
$ npm run demo
${F}

${F}ts
const n: number = 1;
console.log(n + 1);
${F}

${F}ts
const wrong: number = 'a string';
${F}

${F}sh
echo not a js block
${F}

${F}js
import { init } from '@launchdarkly/node-server-sdk';
const client = init(process.env.LAUNCHDARKLY_SDK_KEY ?? 'no-key');
await client.waitForInitialization({ timeout: 5 });
console.log(await client.variation('beta-ui', { kind: 'user', key: 'user-123' }, 'default'));
client.close();
${F}

${F}js
import { createClient } from 'redis';
import { BigSegmentStoreManager, redisBigSegmentStore, nodeRedisHost } from 'cutover';
const redis = await createClient({ url: process.env.REDIS_URL }).connect();
const manager = new BigSegmentStoreManager({ store: redisBigSegmentStore(nodeRedisHost(redis)) });
console.log((await manager.getUserMembership('user-123')).status);
await manager.close(); // cutover's store closes, the caller's client stays open
${F}

${F}ts
// stand-ins: legacyDb (the old database)
import { BigSegmentStoreManager, type BigSegmentsStatus } from 'cutover';
const manager = new BigSegmentStoreManager({ store: null });
const status: BigSegmentsStatus = (await manager.getUserMembership('u1')).status;
const name: string | undefined = (await legacyDb.get('user-123'))?.name;
console.log(status, name);
await manager.close();
${F}

${F}ts
import type { BigSegmentsStatus } from 'cutover';
const status: BigSegmentsStatus = 'GREEN';
${F}
`;

const blocks = extractBlocks(MARKDOWN, 'synthetic.md');
const at = (i) => blocks[i];
const skip = packageMissing() ?? (existsSync(TSC) ? undefined : `typescript is not installed (${TSC})`);

describe('docs self-check: the runner fails what it must', { skip, concurrency: 2 }, () => {
  let scratch;
  let environment;
  before(async () => {
    scratch = await scratchDir('self-check');
    const { startEnvironment } = await import('./environment.mjs');
    environment = await startEnvironment(new Set(['redis']), { database: 10 }); // not the blocks' 9
  });
  after(async () => {
    await environment?.stop();
    scratch?.remove();
  });
  const run = (block) => runBlock(block, { dir: scratch.dir, env: environment.env, timeoutMs: 3000 });

  it('finds the js and ts blocks, with their lines, and leaves the others out', () => {
    assert.deepEqual(
      blocks.map((b) => `${b.line} ${b.lang}`),
      ['3 js', '7 js', '11 js', '16 js', '20 js', '26 js', '30 js', '35 js', '39 ts', '44 ts', '52 js', '60 js', '69 ts', '79 ts'],
    );
    assert.equal(at(7).skip, 'a shell session, not JavaScript');
    assert.equal(blocks.filter((b) => b.skip).length, 1);
  });

  it('a block that ends by itself passes', async () => {
    const r = await run(at(0));
    assert.ok(r.ok, r.stderr);
    assert.equal(r.stdout, 'fine\n');
  });

  it('a block that throws fails, with its error', async () => {
    const r = await run(at(1));
    assert.equal(r.ok, false);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /boom/);
  });

  it('an unhandled rejection fails the block (--unhandled-rejections=strict)', async () => {
    const r = await run(at(2));
    assert.equal(r.ok, false);
    assert.match(r.stderr, /nobody awaits me/);
  });

  it('a block that never ends is killed and fails as timed out', async () => {
    const r = await run(at(3));
    assert.equal(r.ok, false);
    assert.equal(r.timedOut, true);
    assert.equal(r.signal, 'SIGKILL');
  });

  it('stand-ins are imported on the first line, which keeps the block\'s line numbers', async () => {
    assert.deepEqual(at(4).standIns, ['legacyDb', 'row']);
    assert.deepEqual(problemsOf(at(4)), []);
    const r = await run(at(4));
    assert.ok(r.ok, r.stderr);
    assert.equal(r.stdout, 'Ann Bo\n');
  });

  it('a stand-in nobody defined, and process.exit, are problems before the block runs', () => {
    assert.deepEqual(problemsOf(at(5)), ['"nothingLikeThis" is not a stand-in of tests/docs/stand-ins.mts']);
    assert.deepEqual(problemsOf(at(6)), ['calls process.exit: a block must end on its own']);
  });

  it('a ts block runs (transpiled), and a type error fails its check at its markdown line', async () => {
    const r = await run(at(8));
    assert.ok(r.ok, r.stderr);
    assert.equal(r.stdout, '2\n');
    const { errors } = await typeCheck([at(8), at(9)], scratch.dir);
    assert.equal(errors.has(at(8)), false, String(errors.get(at(8))));
    assert.deepEqual(
      errors.get(at(9))?.map((e) => e.replace(/: Type .*/, '')),
      ['synthetic.md:45:7 error TS2322'],
    );
  });

  it("a Big Segments block that leaves its caller's Redis client open never ends (issue 20's README tour)", async () => {
    const r = await run(at(11));
    assert.equal(r.timedOut, true, r.stderr);
    assert.equal(r.stdout, 'HEALTHY\n', 'it got as far as its last line');
  });

  it("a ts block type-checks against the packed package's types and the stand-ins', and a wrong one fails", async () => {
    const r = await run(at(12));
    assert.ok(r.ok, r.stderr);
    assert.equal(r.stdout, 'NOT_CONFIGURED Ann\n');
    const { errors } = await typeCheck([at(12), at(13)], scratch.dir);
    assert.equal(errors.has(at(12)), false, String(errors.get(at(12))));
    assert.deepEqual(errors.get(at(13))?.map((e) => e.replace(/: Type .*/, '')), ['synthetic.md:81:7 error TS2322']);
  });

  it("LaunchDarkly's SDK answers offline from the docs' TestData", async () => {
    const r = await run(at(10));
    assert.ok(r.ok, r.stderr);
    assert.equal(r.stdout, 'false\n', 'beta-ui without a Big Segments store: not a member');
  });
});

describe('docs self-check: reading blocks', () => {
  it('a stand-ins comment may go on over lines while a parenthesis is open', () => {
    const code = '// stand-ins: a (one, with (nested) parentheses,\n//   over two lines), b\nconsole.log(a, b);\n';
    assert.deepEqual(standInsOf(code), ['a', 'b']);
    assert.deepEqual(standInsOf('console.log(1); // stand-ins: x\n'), [], 'only on the first line');
    assert.throws(() => standInsOf('// stand-ins: a b\n'), /"a b" .* is not a name/);
  });

  it('a not-run marker needs a reason', () => {
    assert.throws(() => extractBlocks(`<!-- not run: -->\n${F}js\nx\n${F}\n`, 'x.md'), /needs a reason/);
  });

  it('a block needs the services whose variables it or its stand-ins read', () => {
    const block = (code) => ({ code, standIns: standInsOf(code) });
    assert.deepEqual(servicesOf(block('createClient({ url: process.env.REDIS_URL })')), ['redis']);
    assert.deepEqual(servicesOf(block('// stand-ins: seeds (seed nodes)\nnew Cluster(seeds);')), ['cluster']);
    assert.deepEqual(servicesOf(block('endpoint: process.env.DYNAMODB_ENDPOINT')), ['dynamodb']);
    assert.deepEqual(servicesOf(block('console.log(1)')), []);
  });
});
