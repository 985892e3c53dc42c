// The context of cutover's own migration_op event is the caller's object, not a copy: when the
// context's `kind` and `key` are plain valid values and the client has trackMigrationOp, the
// delivered event's `context` is the very object passed to Migrator#read/write (`===`), however
// huge, deep, cyclic or hostile its other attributes are (10 000 attributes, 100 000-item arrays,
// 5 000 levels, ctx.self = ctx, throwing getters, a throwing toJSON). Each case is also held to
// the fuzz oracle (no trap, nothing unhandled, the module still works afterwards).
//
// A short fast-check run (a few hundred cases) against the packed build; the general fuzz
// (fuzz.test.mjs) feeds the same hostile contexts everywhere without this assertion.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';

import { STAGES, contextIsHuge, materialize, plainKindAndKey, singleContextRecipe } from './helpers/hostile.mjs';
import { canary, fuzzProperty, show } from './helpers/harness.mjs';
import { harnessSuite } from './helpers/suite.mjs';

const CASES = Number(process.env.CUTOVER_CONTEXT_CASES ?? 300);
const SEED = Number(process.env.CUTOVER_FUZZ_SEED ?? 20261130);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const { loader, state } = harnessSuite(createRequire(import.meta.url));

/** One operation through a client with trackMigrationOp and no tracker of its own. */
async function oneOperation(cx, { stage, op, order }, context, ms) {
  const events = [];
  const client = { migrationVariation: () => stage, trackMigrationOp: (e) => void events.push(e) };
  const builder = new cx.cutover.MigratorBuilder(client, { logger: silent });
  if (order) builder.readExecutionOrder(order);
  const migrator = builder
    .read(() => 1, () => 1, (a, b) => a === b)
    .write(() => 1, () => 2)
    .build();
  const r = cx.call(`Migrator#${op}`, () => migrator[op]('flag', context, 'off'));
  cx.expect(r.ok, `Migrator#${op} threw synchronously: ${show(r.error)}`);
  const out = await cx.settle(`Migrator#${op}`, r.value, { ms });
  cx.expect(out.status === 'fulfilled', `Migrator#${op} rejected: ${show(out.reason)}`);
  return events;
}

function expectSameContext(cx, events, context, what) {
  cx.expect(events.length === 1, `${what}: expected 1 migration_op event, got ${events.length}`);
  cx.expect(events[0]?.context === context, `${what}: event.context is not the object passed in (a copy, or another value)`);
}

const operation = {
  stage: fc.constantFrom(...STAGES),
  op: fc.constantFrom('read', 'write'),
  order: fc.option(fc.constantFrom('serial', 'random', 'parallel'), { nil: undefined }),
};

const hugeWeight = 1; // against 32 for the other hazards: a few percent of the cases
let hugeCases = 0;
const sameObject = {
  name: 'event context === the context passed in',
  deadlineMs: 4000,
  arbitrary: fc.record({
    ...operation,
    // kind 'user' and key 'ctx-key' stay own data properties; everything else may be hostile.
    context: singleContextRecipe({
      huge: hugeWeight,
      base: fc.constant('user'),
      wrap: fc.constant(null),
      minParts: 0,
      getterAttrs: ['name', 'email', 'anonymous', '_meta', 'custom', 'toJSON'],
    }),
  }),
  async run(input, cx) {
    if (!plainKindAndKey(input.context)) throw new Error('generator: kind/key not plain'); // the recipe guarantees it
    const context = materialize(input.context, cx.env);
    const huge = contextIsHuge(input.context);
    if (huge) hugeCases++;
    const events = await oneOperation(cx, input, context, huge ? 2000 : 150);
    expectSameContext(cx, events, context, `${input.op} at '${input.stage}'`);
  },
};

function report(stats) {
  return stats.failures.map(
    (f) => `${f.signature}\n    ${f.message.slice(0, 400)}\n    counterexample: ${f.counterexample.slice(0, 1200)}\n    seed ${f.seed}, path ${f.path}`,
  );
}

test(`contexts: ${sameObject.name}`, { timeout: 20_000 }, async (t) => {
  const stats = await fuzzProperty(sameObject, { numRuns: CASES, seed: SEED, state, shrinkMs: 1500 });
  t.diagnostic(`${stats.runs} cases (${hugeCases} with a 10 000-attribute or 100 000-item context), seed ${SEED}`);
  assert.deepEqual(report(stats), [], `${stats.runs} cases, ${stats.occurrenceCount} failing`);
});

// Kind and key are plain valid values here too, read through the proxy's get trap; every other
// trap (and get of any other property) throws.
test('contexts: event context === a proxy that only answers get of kind/key', async () => {
  const cutover = loader.current;
  for (const stage of STAGES) {
    for (const op of ['read', 'write']) {
      const boom = new Error('trap');
      const target = { kind: 'user', key: 'proxied', name: 'N' };
      const handler = {};
      for (const trap of ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'getPrototypeOf', 'setPrototypeOf', 'isExtensible', 'preventExtensions']) {
        handler[trap] = () => {
          throw boom;
        };
      }
      handler.get = (t, p, receiver) => {
        if (p === 'kind' || p === 'key') return Reflect.get(t, p, receiver);
        throw boom;
      };
      const context = new Proxy(target, handler);
      const events = [];
      const client = { migrationVariation: () => stage, trackMigrationOp: (e) => void events.push(e) };
      const migrator = new cutover.MigratorBuilder(client, { logger: silent }).read(() => 1, () => 1).write(() => 1, () => 1).build();
      await migrator[op]('flag', context, 'off');
      assert.equal(events.length, 1, `${op} at '${stage}': expected 1 event, got ${events.length}`);
      assert.ok(events[0].context === context, `${op} at '${stage}': event.context is not the proxy passed in`);
    }
  }
  await canary(cutover);
});

test('contexts: module still works at the end', async () => {
  await canary(loader.current);
});
