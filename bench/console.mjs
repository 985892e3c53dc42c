// The console's costs (issue 31's targets), over the built package (dist/):
//   node bench/console.mjs
// - the snapshot of 10 migrators with 32 mismatch paths and 10 kept mismatches each: one stream
//   event (the last second of history) and GET /api/snapshot (the whole history, 900 s filled);
// - an open stream: the CPU of one event a second, as a share of one core, measured over an open
//   stream (read by curl, a process of its own) for 10 s against the same 10 s without it;
// - the fleet's document per process.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { MigratorBuilder, fixedStage, migrationConsole, redisFleet, sameStructure } from '../dist/cutover.node.mjs';

const MIGRATORS = 10;
const PATHS = 32;

async function migrators() {
  const out = {};
  for (let m = 0; m < MIGRATORS; m++) {
    const migrator = new MigratorBuilder(fixedStage('shadow'))
      .read((i) => ({ [`field${i % PATHS}`]: 1, items: [{ price: 1 }] }), (i) => ({ [`field${i % PATHS}`]: 2, items: [{ price: 1 }] }), sameStructure())
      .write((x) => x, (x) => x)
      .mismatches({ keep: 10 })
      .build();
    for (let i = 0; i < 500; i++) await migrator.read('flag', { key: `user-${i}` }, 'off', i);
    out[`migrator-${m}`] = migrator;
  }
  return out;
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeRequests(handler, path, rounds) {
  const times = [];
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    const text = await (await handler(new Request(`http://bench${path}`))).text();
    times.push(performance.now() - start);
    bytes = text.length;
  }
  return { ms: median(times), bytes };
}

const all = await migrators();
const paths = Object.keys(all['migrator-0'].stats().read.consistency.paths).length;
const handler = migrationConsole({ migrators: all, authorize: () => true, historySeconds: 900 });

// A stream event's cost: the snapshot while the history is a few seconds long (a stream's
// event carries the last second); then the whole history.
const event = await timeRequests(handler, '/cutover/api/snapshot', 200);
console.log(`snapshot, ${MIGRATORS} migrators × ${paths} paths, history just started: ${event.ms.toFixed(3)} ms (median of 200), ${event.bytes} B`);

// The whole history: the console samples once a second; fill 900 s by moving the clock.
const realNow = Date.now;
let fake = realNow();
Date.now = () => fake;
for (let s = 0; s < 900; s++) {
  fake += 1000;
  await handler(new Request('http://bench/cutover/api/snapshot', { method: 'HEAD' }));
}
const full = await timeRequests(handler, '/cutover/api/snapshot', 50);
Date.now = realNow;
console.log(`GET /api/snapshot with 900 s of history: ${full.ms.toFixed(3)} ms (median of 50), ${full.bytes} B`);

// An open stream over real HTTP: CPU for 10 s with it, against 10 s without.
const server = createServer((req, res) => handler.node(req, res)).listen(0);
const url = `http://127.0.0.1:${server.address().port}/cutover/api/stream`;
const cpu = async (seconds, withStream) => {
  // The client in a process of its own (curl), so that only the server's side is counted.
  const client = withStream ? spawn('curl', ['-sN', url], { stdio: ['ignore', 'pipe', 'ignore'] }) : undefined;
  let events = 0;
  client?.stdout.on('data', (chunk) => { events += (String(chunk).match(/event: snapshot/g) ?? []).length; });
  await new Promise((r) => setTimeout(r, 500)); // connected
  events = 0;
  const before = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const used = process.cpuUsage(before);
  client?.kill();
  return { ms: (used.user + used.system) / 1000, events };
};
const idle = await cpu(10, false);
const streaming = await cpu(10, true);
const share = ((streaming.ms - idle.ms) / 10_000) * 100;
console.log(`an open stream: ${streaming.events} events in 10 s, ${(streaming.ms - idle.ms).toFixed(1)} ms of CPU more than idle (${idle.ms.toFixed(1)} ms): ${share.toFixed(2)} % of one core`);
server.close();

handler.close();
const sent = [];
const publisher = migrationConsole({ migrators: all, authorize: () => false, fleet: redisFleet(async (args) => { sent.push(args); }) });
await new Promise((r) => setTimeout(r, 10));
publisher.close();
console.log(`fleet document: ${sent[0][3].length} B for ${MIGRATORS} migrators (${sent[0][0]}, one command per interval)`);
