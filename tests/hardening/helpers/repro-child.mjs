// Process entry for tests/hardening/regressions.test.mjs: runs one minimal reproduction against
// the packed build in a fresh process (a trap kills the wasm instance for the whole process) and
// prints one JSON line: how the call settled, what escaped as uncaught, whether cutover still
// works afterwards.
//   node --unhandled-rejections=strict repro-child.mjs <name>
import { createRequire } from 'node:module';

const cutover = createRequire(import.meta.url)('cutover');
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const uncaught = [];
process.on('uncaughtException', (e, origin) => {
  let text;
  try {
    text = e instanceof Error ? `${e.constructor.name}: ${e.message}` : `${typeof e}: ${String(e)}`;
  } catch {
    text = 'unprintable';
  }
  uncaught.push(`${origin}: ${text.slice(0, 160)}`);
});

function weirdError(accessor) {
  const e = new Error('weird');
  void e.stack;
  Object.defineProperty(e, accessor, {
    get() {
      throw `${accessor} getter`;
    },
  });
  return e;
}
function revoked(target = {}) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}
const recentStore = (getMembership, getMetadata = async () => ({ lastUpToDate: Date.now() })) =>
  new cutover.BigSegmentStoreManager({ store: { getMetadata, getMembership }, logger: silent, queryTimeoutMs: 100 });
const migrator = (client, compare) =>
  new cutover.MigratorBuilder(client, { logger: silent })
    .read(() => 1, () => 1, compare)
    .write(() => 1, () => 1)
    .build();

const REPROS = {
  'redis reply: self-containing array': () => {
    const a = [];
    a.push(a);
    const store = cutover.redisBigSegmentStore({ command: async () => a });
    return Promise.all([store.getMetadata().catch(() => {}), store.getMembership('h').catch(() => {})]);
  },
  'redis reply: array nested 5000 deep': () => {
    let a = [];
    for (let i = 0; i < 5000; i++) a = [a];
    const store = cutover.redisBigSegmentStore({ command: async () => a });
    return Promise.all([store.getMetadata().catch(() => {}), store.getMembership('h').catch(() => {})]);
  },
  'redis reply: revoked proxy in the SMEMBERS array': () =>
    cutover.redisBigSegmentStore({ command: async () => [revoked([])] }).getMembership('h'),
  'store: getMembership rejects with an Error whose name getter throws': () =>
    recentStore(async () => {
      throw weirdError('name');
    }).getUserMembership('u'),
  'store: getMetadata rejects with an Error whose message getter throws': () =>
    recentStore(
      async () => ({}),
      async () => {
        throw weirdError('message');
      },
    ).getUserMembership('u'),
  'client: migrationVariation throws an Error whose name getter throws': () =>
    migrator({
      migrationVariation() {
        throw weirdError('name');
      },
    }).read('flag', { key: 'k' }, 'off'),
  'two concurrent reads; client rejects with an Error whose name getter throws': () => {
    const m = migrator({ migrationVariation: () => Promise.reject(weirdError('name')) });
    return Promise.all([m.read('flag', { key: 'a' }, 'off'), m.read('flag', { key: 'b' }, 'off')]);
  },
  "external tracker's invoked() throws an Error whose name getter throws": () => {
    const tracker = {
      op() {},
      invoked() {
        throw weirdError('name');
      },
      latency() {},
      error() {},
      consistency(check) {
        check();
      },
      createEvent: () => ({ kind: 'migration_op' }),
    };
    const m = migrator({ migrationVariation: () => ({ value: 'shadow', tracker }), trackMigrationOp() {} }, (a, b) => a === b);
    return Promise.all([m.read('flag', { key: 'a' }, 'off'), m.read('flag', { key: 'b' }, 'off')]);
  },
  'comparison throws an Error whose message getter throws': () =>
    migrator(cutover.fixedStage('shadow'), () => {
      throw weirdError('message');
    }).read('flag', { key: 'k' }, 'off'),
  'trackMigrationOp throws an Error whose message getter throws': () =>
    migrator({
      migrationVariation: () => 'off',
      trackMigrationOp() {
        throw weirdError('message');
      },
    }).read('flag', { key: 'k' }, 'off'),
  'context is a revoked proxy (events on)': () =>
    migrator({ migrationVariation: () => 'off', trackMigrationOp() {} }).read('flag', revoked(), 'off'),
  'context attribute is a revoked proxy (events on)': () =>
    migrator({ migrationVariation: () => 'off', trackMigrationOp() {} }).read('flag', { kind: 'user', key: 'k', a: revoked() }, 'off'),
  'evaluation reason holds a revoked proxy': () =>
    cutover.migrationVariation({ migrationVariation: () => ({ value: 'off', reason: { kind: 'RULE_MATCH', x: [revoked()] } }) }, 'flag', { key: 'k' }, 'off'),
  'OpTracker#consistent: check throws an Error whose name getter throws; then the tracker is used again': async () => {
    const t = new cutover.OpTracker('flag', { key: 'k' }, { value: 'off' }, 'off');
    try {
      t.consistent(() => {
        throw weirdError('name');
      });
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) throw e;
      uncaught.push(`consistent() threw ${typeof e}: ${String(e)}`); // API: a throwing check records nothing
    }
    return t.operation('read').invoked('old').build();
  },
  'ioredisHost: a malformed exec() reply (not [error, reply] pairs) must reject with an Error': () =>
    cutover.ioredisHost({ call: async () => null, pipeline: () => ({ exec: async () => [' '] }) }).pipeline([['GET', 'k']]),
  'context is a self-containing object (events on)': () => {
    const ctx = { kind: 'user', key: 'k' };
    ctx.self = ctx;
    return migrator({ migrationVariation: () => 'off', trackMigrationOp() {} }).read('flag', ctx, 'off');
  },
};

async function main(name) {
  let settled;
  try {
    const p = REPROS[name]();
    settled = await Promise.race([
      Promise.resolve(p).then(
        () => 'fulfilled',
        (e) => `rejected (${e instanceof Error ? e.constructor.name : typeof e})`,
      ),
      new Promise((r) => setTimeout(() => r('pending after 500 ms'), 500)),
    ]);
  } catch (e) {
    settled = `threw ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : typeof e}`;
  }
  await new Promise((r) => setTimeout(r, 50));
  let after;
  try {
    const h = cutover.hashContextKey('user-key');
    const r = await Promise.race([
      migrator(cutover.fixedStage('shadow')).read('flag', { key: 'k' }, 'off'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('read did not settle')), 500)),
    ]);
    after = h === 'CEXjZY7cHJG/ydFy7q4+YEFwVrG3/pkJwA4FAjrbfx0=' && r.value === 1 ? 'works' : 'wrong results';
  } catch (e) {
    after = `broken: ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`;
  }
  process.stdout.write(`${JSON.stringify({ name, settled, uncaught, after })}\n`);
}

if (process.argv[2] === '--list') process.stdout.write(`${JSON.stringify(Object.keys(REPROS))}\n`);
else if (process.argv[2]) await main(process.argv[2]);
