#!/usr/bin/env node
// `npm run www`: a demo service with cutover's console mounted over live simulated migrators.
//
//   node www/serve.mjs [--port N]        (default: $PORT, else 8080; 0 picks a free port)
//
// On 127.0.0.1 only. The first line on stdout is always `cutover console: http://127.0.0.1:PORT/cutover/`.
// Two migrations run against the simulated stores of www/sim.mjs: `accounts` (reads and writes,
// its flag moving through the stages every 20 s, differences explained by mismatches()) and
// `search` (background reads with a small maxInFlight, so some are shed; guarded when the
// package has guard()); and a Big Segments manager over an in-memory store whose synchronizer
// halts now and then (STALE). The console shows values (showValues: a local demo).
import { createServer } from 'node:http';
import {
  BigSegmentStoreManager, MigratorBuilder, bigSegmentRef, hashContextKey, migrationConsole, sameStructure,
} from '../dist/cutover.node.mjs';
import { KEYS, MemoryBigSegmentStore, keyOf, knobs, newOrigin, nextRecord, oldOrigin, random, records } from './sim.mjs';

const HOST = '127.0.0.1';
const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];

function parsePort(argv, env) {
  let raw = env.PORT ?? '8080';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--port' || arg === '-p') raw = argv[++i];
    else if (arg.startsWith('--port=')) raw = arg.slice('--port='.length);
    else {
      process.stderr.write(`serve: unknown argument ${arg}\nusage: node www/serve.mjs [--port N]\n`);
      process.exit(2);
    }
  }
  const port = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`serve: invalid port ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return port;
}

// The flag system: `accounts` moves one stage every 20 s, some contexts a stage ahead (a ramp);
// `search` stays in shadow.
const started = Date.now();
const client = {
  migrationVariation(flagKey, context) {
    if (flagKey !== 'accounts-store') return 'shadow';
    const phase = 1 + (Math.floor((Date.now() - started) / 20_000) % 4); // dualwrite … rampdown
    const ahead = Number(String(context.key).slice(-1)) < 3;
    return STAGES[Math.min(phase + (ahead ? 1 : 0), 4)];
  },
};

const accounts = new MigratorBuilder(client)
  .read((key, signal) => oldOrigin.read(key, signal), (key, signal) => newOrigin.read(key, signal), sameStructure())
  .write((change, signal) => oldOrigin.write(change, signal), (change, signal) => newOrigin.write(change, signal))
  .originTimeout(500)
  .mismatches({ keep: 20 })
  .build();

let searchBuilder = new MigratorBuilder(client)
  .read((key, signal) => oldOrigin.read(key, signal), (key, signal) => newOrigin.read(key, signal), sameStructure({ ignore: ['/updatedAt'] }))
  .write((change, signal) => oldOrigin.write(change, signal), (change, signal) => newOrigin.write(change, signal))
  .background({ maxInFlight: 2 })
  .mismatches();
// The guard (issue 30) when this build has it.
if (typeof searchBuilder.guard === 'function') searchBuilder = searchBuilder.guard({ minCalls: 20, windowMs: 10_000, cooldownMs: 8_000, maxErrorRate: 0.2 });
const search = searchBuilder.build();

// Big Segments: half of the users in one segment; the synchronizer halts for 15 s of every 60.
const store = new MemoryBigSegmentStore();
const ref = bigSegmentRef('beta-testers', 3);
const rand = random(2024);
for (let i = 0; i < 2000; i++) if (rand() < 0.5) store.members.set(hashContextKey(`user-${i}`), { [ref]: true });
const segments = new BigSegmentStoreManager({ store, statusPollIntervalMs: 1000, staleAfterMs: 5000, contextCacheSize: 500, contextCacheTimeMs: 2000 });
segments.start();

// Traffic: every 50 ms a few reads and a write; the new store's error rate rises for 10 s of every 45.
const traffic = setInterval(() => {
  const cycle = (Date.now() - started) % 45_000;
  knobs.errorRate = cycle > 35_000 ? 0.4 : 0.01;
  const syncCycle = (Date.now() - started) % 60_000;
  if (syncCycle > 45_000) store.haltSync();
  else store.resumeSync();
  for (let n = 0; n < 4; n++) {
    const key = keyOf(Math.floor(Math.random() * KEYS));
    accounts.read('accounts-store', { kind: 'user', key }, 'off', key).catch(() => {});
    search.read('search-index', { kind: 'user', key }, 'off', key).catch(() => {});
    segments.getUserMembership(`user-${Math.floor(Math.random() * 2000)}`).catch(() => {});
  }
  const key = keyOf(Math.floor(Math.random() * KEYS));
  const record = records.get(key);
  if (record) accounts.write('accounts-store', { kind: 'user', key }, 'off', { key, record: nextRecord(record, Math.random() < 0.5 ? 'pro' : 'free') }).catch(() => {});
}, 50);

const cutoverConsole = migrationConsole({
  migrators: { accounts, search },
  managers: { 'beta-testers': segments },
  authorize: () => true, // a local demo on 127.0.0.1; a service asks its own authentication here
  showValues: true,
});

const server = createServer((req, res) => {
  cutoverConsole.node(req, res, () => {
    res.writeHead(302, { location: '/cutover/' });
    res.end();
  });
});

const port = parsePort(process.argv.slice(2), process.env);
server.on('error', (error) => {
  process.stderr.write(`serve: ${error.message}\n`);
  process.exit(1);
});
server.listen(port, HOST, () => {
  process.stdout.write(`cutover console: http://${HOST}:${server.address().port}/cutover/\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    clearInterval(traffic);
    cutoverConsole.close();
    segments.close().catch(() => {});
    server.close();
    server.closeAllConnections?.();
    process.exit(0);
  });
}
