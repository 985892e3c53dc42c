// Warm-cache Big Segment membership lookup for one context.
import { ldBigSegmentClient, loadCutover, loadLD, memoryStore, scaled, timeAsync } from '../lib/common.mjs';

const KEY = 'user-1';
// Timed lookups per side and round, the same for all three: about 0.35 s of either library's.
const OPS = 2_000_000;
export const meta = {
  unit: 'µs/op',
  note:
    "same in-memory JS store for both, one warm context. cutover: BigSegmentStoreManager.getUserMembership. " +
    "LD: its BigSegmentsManager.getUserMembership (class not exported by js-server-sdk-common; the client's own " +
    'instance is called through client._evaluator._queries.getBigSegmentsMembership, the exact call evaluations make)',
  floor: 'await Promise.resolve(answer): what returning any promise costs, with no lookup at all',
};

export async function cutover() {
  const c = await loadCutover();
  const mgr = new c.BigSegmentStoreManager({
    store: memoryStore(), contextCacheTimeMs: 600_000, statusPollIntervalMs: 600_000,
  });
  const first = await mgr.getUserMembership(KEY);
  if (first.status !== 'HEALTHY' || first.membership['bigseg.g1'] !== true) throw new Error(JSON.stringify(first));
  const r = await timeAsync(() => mgr.getUserMembership(KEY), { ops: OPS });
  // The synchronous part alone (the call into the wasm and the answer), without awaiting.
  const n = scaled(1_000_000);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) mgr.getUserMembership(KEY);
  const syncUs = Number(process.hrtime.bigint() - t0) / 1000 / n;
  const s = mgr.stats();
  await mgr.close();
  return { value: r.usPerOp, info: { ops: r.ops, syncUs, cacheMisses: s.cacheMisses, membershipQueries: s.membershipQueries } };
}

/** The floor of any promise-returning lookup: awaiting an already resolved answer. */
export async function floor() {
  const answer = Object.freeze({ membership: Object.freeze({ 'bigseg.g1': true }), status: 'HEALTHY' });
  const r = await timeAsync(() => Promise.resolve(answer), { ops: OPS });
  return { value: r.usPerOp, info: { ops: r.ops, what: 'await Promise.resolve(answer)' } };
}

export async function launchdarkly() {
  const ld = await loadLD();
  const counter = { calls: 0 };
  const store = memoryStore({ counter });
  const { client, managerLookup } = await ldBigSegmentClient(ld, {
    store: () => store, userCacheTime: 600, statusPollInterval: 600,
  });
  const ctx = { kind: 'user', key: KEY };
  let r;
  let path;
  if (managerLookup) {
    path = 'manager';
    const [membership, status] = await managerLookup(KEY);
    if (status !== 'HEALTHY' || membership['bigseg.g1'] !== true) throw new Error(`${status}`);
    r = await timeAsync(() => managerLookup(KEY), { ops: OPS });
  }
  // The full evaluation path (flag with one big-segment rule), for reference in the note.
  const d = await client.variationDetail('bigflag', ctx, false);
  if (d.value !== true || d.reason.bigSegmentsStatus !== 'HEALTHY') throw new Error(JSON.stringify(d));
  const v = await timeAsync(() => client.variation('bigflag', ctx, false), { ops: managerLookup ? 50_000 : OPS / 20 });
  if (!r) {
    path = 'variation';
    r = v;
  }
  client.close();
  return {
    value: r.usPerOp,
    info: { path, ops: r.ops, storeCalls: counter.calls, variationUsPerOp: v.usPerOp },
  };
}
