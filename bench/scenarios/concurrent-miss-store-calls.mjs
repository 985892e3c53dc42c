// 100 concurrent lookups of one context that is not cached: how many store calls reach the store?
import { ldBigSegmentClient, loadCutover, loadLD, memoryStore } from '../lib/common.mjs';

const N = 100;
export const meta = {
  unit: 'calls',
  note:
    `${N} concurrent getUserMembership of one uncached context; the same in-memory JS store (answers after 2 ms) ` +
    'counts its membership calls. LD: its BigSegmentsManager path (client._evaluator._queries); the count for ' +
    `${N} concurrent client.variation evaluations of a big-segment flag is in info`,
};

export async function cutover() {
  const c = await loadCutover();
  const counter = { calls: 0 };
  const mgr = new c.BigSegmentStoreManager({ store: memoryStore({ delayMs: 2, counter }) });
  const results = await Promise.all(Array.from({ length: N }, () => mgr.getUserMembership('user-c')));
  if (!results.every((x) => x.membership && x.membership['bigseg.g1'] === true)) throw new Error('bad membership');
  const s = mgr.stats();
  await mgr.close();
  return { value: counter.calls, info: { membershipQueries: s.membershipQueries, coalescedLookups: s.coalescedLookups } };
}

export async function launchdarkly() {
  const ld = await loadLD();
  const counter = { calls: 0 };
  const { client, managerLookup } = await ldBigSegmentClient(ld, { store: () => memoryStore({ delayMs: 2, counter }) });
  let managerCalls = null;
  if (managerLookup) {
    const res = await Promise.all(Array.from({ length: N }, () => managerLookup('user-c')));
    if (!res.every(([m]) => m && m['bigseg.g1'] === true)) throw new Error('bad membership');
    managerCalls = counter.calls;
  }
  counter.calls = 0;
  const ctx = { kind: 'user', key: 'user-v' };
  const vals = await Promise.all(Array.from({ length: N }, () => client.variation('bigflag', ctx, false)));
  if (!vals.every((v) => v === true)) throw new Error('bad variation');
  const variationCalls = counter.calls;
  client.close();
  return { value: managerCalls ?? variationCalls, info: { path: managerCalls != null ? 'manager' : 'variation', variationCalls } };
}
