// The cutover dashboard: a live technology migration between two simulated in-page stores, and a
// Big Segments store behind cutover's cache and status polling. Everything shown is measured by
// cutover itself (`migrator.stats()`, `trackMigrationOp` events, `manager.stats()`, the status
// provider); the page only draws it, and times what read()/write() cost the calling code.

import { createChart } from './chart.mjs';
import { $, fmtAxis, fmtInt, fmtMs, fmtPct, fmtRate, show, sleep, TICK_MS, WINDOW } from './dom.mjs';
import { startBigSegments } from './segments-panel.mjs';
import { createDifferencesPanel, KEEP } from './differences-panel.mjs';
import { knobs, oldOrigin, newOrigin, nextRecord, records, KEYS, keyOf } from './sim.mjs';

const FLAG = 'kv-store-migration';
const CONCURRENCY = 8; // simulated clients, each one operation at a time
const READ_SHARE = 0.8;
const EVENTS_SHOWN = 40;

const STAGES = ['off', 'dualwrite', 'shadow', 'live', 'rampdown', 'complete'];
const STAGE_PLAN = {
  off: ['old', 'old'],
  dualwrite: ['old', 'old → new'],
  shadow: ['old (authoritative) + new, compared', 'old → new'],
  live: ['new (authoritative) + old, compared', 'new → old'],
  rampdown: ['new', 'new → old'],
  complete: ['new', 'new'],
};

/** p50 and p99 (nearest rank) of a tick's samples, or null when there are none. */
function percentiles(samples) {
  if (!samples.length) return null;
  const sorted = samples.slice().sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99) };
}

function fail(error) {
  const status = $('wasm-status');
  status.textContent = `error: ${error?.message ?? error}`;
  status.className = 'pill bad';
  console.error(error);
}

async function main() {
  let cutover;
  try {
    cutover = await import('cutover'); // the import map points this at /dist/cutover.browser.mjs
  } catch (error) {
    fail(error);
    return;
  }
  const status = $('wasm-status');
  status.textContent = 'running';
  status.className = 'pill ok';
  startMigration(cutover);
  startBigSegments(cutover);
}

// ---------------------------------------------------------------------------------------------
// Migration

function startMigration({ MigratorBuilder, sameStructure }) {
  const flag = { stage: 'shadow', version: 1, order: 'parallel' };
  // Not flag values: how this page builds its migrator (the switch and slider rebuild it).
  const mode = { background: false, maxInFlight: 100 };
  const events = { total: 0, sinceTick: 0, recent: [] };

  // The flag system: this page. Every context gets the stage the select says.
  const client = {
    migrationVariation() {
      return {
        value: flag.stage,
        variationIndex: STAGES.indexOf(flag.stage),
        reason: { kind: 'FALLTHROUGH' },
        flagVersion: flag.version,
      };
    },
    trackMigrationOp(event) {
      events.total++;
      events.sinceTick++;
      events.recent.push(event);
      if (events.recent.length > EVENTS_SHOWN) events.recent.shift();
    },
  };

  // Background parts not yet ended: cutover hands each one to `waitUntil` as a promise, as it
  // would to a worker's `ctx.waitUntil`. Kept across rebuilds (an old migrator's parts still end).
  const background = { inFlight: 0 };
  const waitUntil = (promise) => {
    background.inFlight++;
    promise.then(() => background.inFlight--);
  };

  // The comparison is the Differences panel's `sameStructure({ ignore })`; applying a new ignore
  // list rebuilds the migrator with it.
  const differences = createDifferencesPanel({ sameStructure, rebuild: () => { migrator = build(); } });
  const build = () => {
    let builder = new MigratorBuilder(client)
      .readExecutionOrder(flag.order)
      .read((key, signal) => oldOrigin.read(key, signal), (key, signal) => newOrigin.read(key, signal), differences.comparison())
      .write((p, signal) => oldOrigin.write(p, signal), (p, signal) => newOrigin.write(p, signal))
      .mismatches({ keep: KEEP });
    if (mode.background) builder = builder.background({ maxInFlight: mode.maxInFlight, waitUntil });
    return builder.build();
  };
  let migrator = build();

  // What the calling code waits for: ms from read()/write() to its result, this tick.
  const caller = { read: [], write: [] };

  const totals = { oldInvoked: 0, newInvoked: 0, failed: 0, failedSinceTick: 0, ops: 0, readShed: 0, writeShed: 0 };

  async function clientLoop() {
    for (;;) {
      const m = migrator;
      const n = Math.floor(Math.random() * KEYS);
      const key = keyOf(n);
      const context = { kind: 'user', key: `u${n}` };
      try {
        if (Math.random() < READ_SHARE) {
          const started = performance.now();
          const result = await m.read(FLAG, context, 'off', key);
          caller.read.push(performance.now() - started);
          if (!result.success) totals.failedSinceTick++;
        } else {
          const current = records.get(key);
          const record = nextRecord(current, Math.random() < 0.5 ? 'free' : 'pro');
          const started = performance.now();
          const result = await m.write(FLAG, context, 'off', { key, record });
          caller.write.push(performance.now() - started);
          if (!result.authoritative.success) totals.failedSinceTick++;
        }
      } catch (error) {
        // read()/write() reject only on misuse or abort; neither should happen here.
        console.error('cutover rejected an operation:', error);
        await sleep(250);
      }
    }
  }
  for (let i = 0; i < CONCURRENCY; i++) clientLoop();

  // Controls.
  const stageSelect = $('stage-select');
  stageSelect.value = flag.stage;
  stageSelect.addEventListener('change', () => {
    flag.stage = stageSelect.value;
    flag.version++;
    showStage();
  });
  const orderSelect = $('order-select');
  orderSelect.value = flag.order;
  orderSelect.addEventListener('change', () => {
    flag.order = orderSelect.value;
    migrator = build(); // a fresh migrator; clients pick it up on their next operation
    show('execution-order', flag.order);
  });
  const backgroundToggle = $('background-toggle');
  backgroundToggle.checked = mode.background;
  backgroundToggle.addEventListener('change', () => {
    mode.background = backgroundToggle.checked;
    migrator = build();
    showMode();
  });
  const maxInFlight = $('max-in-flight');
  maxInFlight.value = String(mode.maxInFlight);
  show('max-in-flight-value', maxInFlight.value);
  maxInFlight.addEventListener('input', () => show('max-in-flight-value', maxInFlight.value));
  maxInFlight.addEventListener('change', () => {
    show('max-in-flight-value', maxInFlight.value);
    mode.maxInFlight = Number(maxInFlight.value);
    if (mode.background) migrator = build(); // only a background migrator has the limit
    showMode();
  });
  function showMode() {
    show('background-state', mode.background ? 'on' : 'off');
    const pill = $('background-pill');
    show('background-pill', mode.background ? `background · at most ${mode.maxInFlight}` : 'foreground');
    pill.className = mode.background ? 'pill ok' : 'pill';
  }
  showMode();

  const slider = (id, valueId, apply, format) => {
    const input = $(id);
    const update = () => {
      apply(Number(input.value));
      show(valueId, format(Number(input.value)));
    };
    input.addEventListener('input', update);
    input.addEventListener('change', update);
    update();
  };
  slider('old-latency', 'old-latency-value', (v) => (knobs.oldLatencyMs = v), (v) => `${v} ms`);
  slider('new-latency', 'new-latency-value', (v) => (knobs.newLatencyMs = v), (v) => `${v} ms`);
  slider('mismatch-rate', 'mismatch-rate-value', (v) => (knobs.mismatchRate = v / 100), (v) => `${v}%`);
  slider('error-rate', 'error-rate-value', (v) => (knobs.errorRate = v / 100), (v) => `${v}%`);

  function showStage() {
    show('stage', flag.stage);
    show('flag-version', String(flag.version));
    const [reads, writes] = STAGE_PLAN[flag.stage];
    show('stage-reads', reads);
    show('stage-writes', writes);
    document.querySelectorAll('.stages li').forEach((li) => {
      li.classList.toggle('current', li.dataset.stage === flag.stage);
    });
  }
  showStage();
  show('execution-order', flag.order);

  // Charts.
  const OLD = '#f2a93b';
  const NEW = '#4ea8ff';
  const CALLER = '#e4e8ef';
  const WRITE = '#b48cff';
  const charts = {
    latency: createChart($('latency-chart'), {
      window: WINDOW, tickMs: TICK_MS, format: fmtAxis, minMax: 10,
      series: [
        { key: 'oldP50', label: 'old p50', color: OLD },
        { key: 'oldP99', label: 'old p99', color: OLD, dash: '4 3' },
        { key: 'newP50', label: 'new p50', color: NEW },
        { key: 'newP99', label: 'new p99', color: NEW, dash: '4 3' },
      ],
    }),
    consistency: createChart($('consistency-chart'), {
      window: WINDOW, tickMs: TICK_MS, fixedMax: 100, format: (v) => `${v}%`,
      series: [{ key: 'consistency', label: 'consistent reads', color: '#3ecf8e' }],
    }),
    errors: createChart($('errors-chart'), {
      window: WINDOW, tickMs: TICK_MS, format: fmtAxis, minMax: 1,
      series: [
        { key: 'oldErrors', label: 'old errors/s', color: OLD },
        { key: 'newErrors', label: 'new errors/s', color: NEW },
        { key: 'failed', label: 'failed operations/s', color: '#ff5d6c', dash: '4 3' },
      ],
    }),
    caller: createChart($('caller-chart'), {
      window: WINDOW, tickMs: TICK_MS, format: fmtAxis, minMax: 10, height: 130,
      series: [
        { key: 'callerReadP50', label: 'read p50', color: CALLER },
        { key: 'callerReadP99', label: 'read p99', color: CALLER, dash: '4 3' },
        { key: 'callerWriteP50', label: 'write p50', color: WRITE },
        { key: 'callerWriteP99', label: 'write p99', color: WRITE, dash: '4 3' },
      ],
    }),
    calls: createChart($('calls-chart'), {
      window: WINDOW, tickMs: TICK_MS, format: fmtAxis, minMax: 10,
      series: [
        { key: 'oldCalls', label: 'old calls/s', color: OLD },
        { key: 'newCalls', label: 'new calls/s', color: NEW },
      ],
    }),
  };

  const history = [];
  let ticks = 0;
  let last = performance.now();

  function tick() {
    const now = performance.now();
    const secs = Math.max(0.001, (now - last) / 1000);
    last = now;
    const s = migrator.stats();
    migrator.resetStats();
    const { read, write } = s;
    ticks++;

    const oldInvoked = read.old.invoked + write.old.invoked;
    const newInvoked = read.new.invoked + write.new.invoked;
    totals.oldInvoked += oldInvoked;
    totals.newInvoked += newInvoked;
    totals.ops += read.count + write.count;
    const failed = totals.failedSinceTick;
    totals.failed += failed;
    totals.failedSinceTick = 0;
    const { checked, consistent } = read.consistency;
    const callerRead = percentiles(caller.read);
    const callerWrite = percentiles(caller.write);
    caller.read.length = 0;
    caller.write.length = 0;
    // stats().read.shed / .write.shed: operations that ran the authoritative origin only.
    const shed = { read: read.shed, write: write.shed };
    if (typeof shed.read === 'number') totals.readShed += shed.read;
    if (typeof shed.write === 'number') totals.writeShed += shed.write;
    const point = {
      oldP50: read.old.latencyMs?.p50 ?? null,
      oldP99: read.old.latencyMs?.p99 ?? null,
      newP50: read.new.latencyMs?.p50 ?? null,
      newP99: read.new.latencyMs?.p99 ?? null,
      consistency: checked ? (100 * consistent) / checked : null,
      oldErrors: (read.old.errors + write.old.errors) / secs,
      newErrors: (read.new.errors + write.new.errors) / secs,
      failed: failed / secs,
      oldCalls: oldInvoked / secs,
      newCalls: newInvoked / secs,
      callerReadP50: callerRead?.p50 ?? null,
      callerReadP99: callerRead?.p99 ?? null,
      callerWriteP50: callerWrite?.p50 ?? null,
      callerWriteP99: callerWrite?.p99 ?? null,
    };
    history.push(point);
    if (history.length > WINDOW) history.shift();

    show('tick', String(ticks));
    show('ops-per-sec', fmtRate((read.count + write.count) / secs));
    show('reads-per-sec', fmtRate(read.count / secs));
    show('writes-per-sec', fmtRate(write.count / secs));
    show('old-p50', fmtMs(point.oldP50));
    show('old-p99', fmtMs(point.oldP99));
    show('new-p50', fmtMs(point.newP50));
    show('new-p99', fmtMs(point.newP99));
    show('consistency-rate', checked ? fmtPct(consistent / checked) : '—');
    show('consistency-checked', fmtInt(checked));
    show('old-errors', fmtRate(point.oldErrors));
    show('new-errors', fmtRate(point.newErrors));
    show('failed-per-sec', fmtRate(point.failed));
    show('old-invoked', fmtInt(oldInvoked));
    show('new-invoked', fmtInt(newInvoked));
    show('old-invoked-total', fmtInt(totals.oldInvoked));
    show('new-invoked-total', fmtInt(totals.newInvoked));
    show('ops-total', fmtInt(totals.ops));
    show('events-per-sec', fmtRate(events.sinceTick / secs));
    show('caller-read-p50', fmtMs(point.callerReadP50));
    show('caller-read-p99', fmtMs(point.callerReadP99));
    show('caller-write-p50', fmtMs(point.callerWriteP50));
    show('caller-write-p99', fmtMs(point.callerWriteP99));
    show('read-shed', shed.read == null ? '—' : fmtInt(shed.read));
    show('write-shed', shed.write == null ? '—' : fmtInt(shed.write));
    show('read-shed-total', fmtInt(totals.readShed));
    show('write-shed-total', fmtInt(totals.writeShed));
    show('background-in-flight', fmtInt(background.inFlight));
    events.sinceTick = 0;

    const rate = checked ? consistent / checked : null;
    $('consistency-rate').dataset.level = rate == null ? 'none' : rate >= 0.99 ? 'good' : rate >= 0.9 ? 'warn' : 'bad';

    for (const chart of Object.values(charts)) chart.update(history);
    differences.update(read, migrator);
  }
  setInterval(tick, TICK_MS);

  // The event stream, refreshed more often than the statistics.
  const list = $('events');
  const pause = $('events-pause');
  function renderEvents() {
    show('events-count', fmtInt(events.total));
    if (pause.checked) return;
    const rows = events.recent.slice().reverse().map((event) => {
      const row = document.createElement('div');
      // The event as one line of JSON: the telling keys first, latencies rounded to 0.01 ms.
      // The tooltip holds the event exactly as trackMigrationOp received it.
      const { operation, measurements, evaluation, samplingRatio, context, creationDate, kind } = event;
      row.textContent = JSON.stringify(
        { operation, measurements, evaluation, samplingRatio, context, creationDate, kind },
        (_, v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 100) / 100 : v),
      );
      row.title = JSON.stringify(event, null, 2);
      const consistentM = event.measurements.find((m) => m.key === 'consistent');
      if (event.measurements.some((m) => m.key === 'error')) row.className = 'error';
      else if (consistentM && !consistentM.value) row.className = 'inconsistent';
      return row;
    });
    list.replaceChildren(...rows);
  }
  setInterval(renderEvents, 400);
}

main();
