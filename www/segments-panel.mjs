// The dashboard's Big Segments panel: a store of simulated members behind cutover's cache and
// status polling, its traffic, and what the manager reports (`stats()`, the status provider).
import { createChart } from './chart.mjs';
import { $, fmtAxis, fmtInt, fmtPct, fmtRate, show, TICK_MS, WINDOW } from './dom.mjs';
import { MemoryBigSegmentStore, random } from './sim.mjs';

const SEGMENT = 'beta-testers';
const GENERATION = 3;
const USERS = 6000;
const HOT_USERS = 400; // get 80% of the lookups
const LOOKUP_BATCH = 16; // lookups per batch …
const LOOKUP_EVERY_MS = 20; // … every 20 ms: ~800 lookups/s
const SEGMENT_OPTIONS = {
  contextCacheSize: 1000,
  contextCacheTimeMs: 5000,
  statusPollIntervalMs: 250,
  staleAfterMs: 1500,
};

export function startBigSegments({ BigSegmentStoreManager, hashContextKey, bigSegmentRef }) {
  const ref = bigSegmentRef(SEGMENT, GENERATION);
  const userKey = (i) => `user-${i}`;
  const store = new MemoryBigSegmentStore();
  const rand = random(2024);
  let included = 0;
  for (let i = 0; i < USERS; i++) {
    const r = rand();
    if (r < 0.5) {
      store.members.set(hashContextKey(userKey(i)), { [ref]: true });
      included++;
    } else if (r < 0.53) {
      store.members.set(hashContextKey(userKey(i)), { [ref]: false }); // explicitly excluded
    }
  }
  show('segment-ref', ref);
  show('segment-members', fmtInt(store.members.size));
  show('segment-included', fmtInt(included));
  show('segment-users', fmtInt(USERS));
  show('segment-cache-size', fmtInt(SEGMENT_OPTIONS.contextCacheSize));
  show('segment-cache-ttl', `${SEGMENT_OPTIONS.contextCacheTimeMs / 1000} s`);
  show('segment-poll-interval', `${SEGMENT_OPTIONS.statusPollIntervalMs} ms`);
  show('segment-stale-after', `${SEGMENT_OPTIONS.staleAfterMs / 1000} s`);

  const manager = new BigSegmentStoreManager({ store, ...SEGMENT_OPTIONS });
  manager.start();

  const statusName = (s) => (!s ? 'UNKNOWN' : !s.available ? 'STORE_ERROR' : s.stale ? 'STALE' : 'HEALTHY');
  const SEVERITY = { UNKNOWN: -1, HEALTHY: 0, STALE: 1, STORE_ERROR: 2 };
  let worstThisTick = 'UNKNOWN'; // the strip shows the worst status seen during each tick
  const note = (name) => { if (SEVERITY[name] > SEVERITY[worstThisTick]) worstThisTick = name; };
  let statusChanges = 0;
  function showStatus(s) {
    const name = statusName(s);
    const node = $('segment-status');
    if (node.textContent !== name) {
      node.textContent = name;
      node.className = `pill ${name === 'HEALTHY' ? 'ok' : name === 'STALE' ? 'warn' : 'bad'}`;
    }
  }
  manager.statusProvider.addListener((s) => {
    statusChanges++;
    show('segment-status-changes', String(statusChanges));
    note(statusName(s));
    showStatus(s);
  });
  manager.statusProvider.getStatus().then(showStatus, (error) => console.error(error));

  const toggle = $('stale-toggle');
  toggle.addEventListener('click', () => {
    if (store.synced) store.haltSync();
    else store.resumeSync();
    toggle.textContent = store.synced ? 'Halt synchronizer (go stale)' : 'Resume synchronizer';
    toggle.setAttribute('aria-pressed', String(!store.synced));
    show('segment-sync', store.synced ? 'running' : 'halted');
  });

  // Traffic: batches of lookups, 80% from a hot set of users.
  const results = { included: 0, answered: 0 };
  const lookupStatus = new Map();
  setInterval(() => {
    for (let k = 0; k < LOOKUP_BATCH; k++) {
      const i = Math.random() < 0.8 ? Math.floor(Math.random() * HOT_USERS) : Math.floor(Math.random() * USERS);
      manager.getUserMembership(userKey(i)).then(({ membership, status }) => {
        results.answered++;
        if (membership?.[ref] === true) results.included++;
        lookupStatus.set(status, (lookupStatus.get(status) ?? 0) + 1);
      }, (error) => console.error('Big Segments lookup failed:', error));
    }
  }, LOOKUP_EVERY_MS);

  const history = [];
  const strip = $('segment-strip');
  const chart = createChart($('segment-chart'), {
    window: WINDOW, tickMs: TICK_MS, format: fmtAxis, minMax: 10,
    series: [
      { key: 'lookups', label: 'lookups/s', color: '#b48cff' },
      { key: 'queries', label: 'store queries/s', color: '#f2a93b' },
    ],
  });
  let prev = manager.stats();
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const secs = Math.max(0.001, (now - last) / 1000);
    last = now;
    const s = manager.stats();
    const lookups = s.lookups - prev.lookups;
    const hits = s.cacheHits - prev.cacheHits;
    const misses = s.cacheMisses - prev.cacheMisses;
    const queries = s.membershipQueries - prev.membershipQueries;
    prev = s;
    show('segment-lookups-per-sec', fmtRate(lookups / secs));
    show('segment-cache-hit-rate', hits + misses ? fmtPct(hits / (hits + misses)) : '—');
    show('segment-queries-per-sec', fmtRate(queries / secs));
    show('segment-lookups-total', fmtInt(s.lookups));
    show('segment-coalesced', fmtInt(s.coalescedLookups));
    show('segment-errors', fmtInt(s.membershipErrors + s.statusErrors));
    show('segment-status-polls', fmtInt(s.statusPolls));
    show('segment-included-rate', results.answered ? fmtPct(results.included / results.answered) : '—');
    show('segment-sync-age', `${((Date.now() - store.lastUpToDate) / 1000).toFixed(1)} s`);
    show('segment-lookup-statuses', [...lookupStatus].map(([k, v]) => `${k} ${fmtInt(v)}`).join(' · ') || '—');
    showStatus(manager.statusProvider.lastStatus);

    const name = statusName(manager.statusProvider.lastStatus);
    note(name);
    history.push({ lookups: lookups / secs, queries: queries / secs, status: worstThisTick });
    worstThisTick = name;
    if (history.length > WINDOW) history.shift();
    chart.update(history);
    const cells = history.map((h) => {
      const cell = document.createElement('i');
      cell.className = { HEALTHY: 'ok', STALE: 'warn', STORE_ERROR: 'bad' }[h.status] ?? '';
      cell.title = h.status;
      return cell;
    });
    if (cells.length) cells[0].style.gridColumnStart = String(WINDOW - cells.length + 1);
    strip.replaceChildren(...cells);
  }, TICK_MS);
}
