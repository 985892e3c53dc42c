// The page of issue 23's size target: a search box whose results move from an old endpoint to a
// new one, shadowed (both called, the old one answers) and compared with sameStructure. Built by
// bench/lib/page-size.mjs (the migrations-page-bytes scenario) and loaded in Chromium by
// tests/runtimes/chromium.test.mjs. It imports `cutover/migrations`, which the builds alias to
// dist/migrations/migrations.browser.mjs (or, for the comparison, the full entry).
import { MigratorBuilder, beaconSink, fixedStage, sameStructure } from 'cutover/migrations';

// The page's events, batched and posted home (to a relay: docs/EDGE.md).
const events = beaconSink('./events');

const search = (path) => async (query) => {
  const response = await fetch(`${path}?q=${encodeURIComponent(query)}`);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
};

const stage = fixedStage('shadow');
const client = events ? { ...stage, trackMigrationOp: events } : stage;
const migrator = new MigratorBuilder(client)
  .read(search('./old-search.json'), search('./new-search.json'), sameStructure({ ignore: ['/tookMs'] }))
  .write(
    () => undefined,
    () => undefined,
  )
  .build();

/** One search through the migration: what the page shows, and the in-process statistics. */
export async function searchOnce(query) {
  const result = await migrator.read('search-backend', { kind: 'user', key: 'visitor' }, 'off', query);
  return { result, stats: migrator.stats() };
}

globalThis.__report = searchOnce('lamp').then(
  ({ result, stats }) => ({ origin: result.origin, success: result.success, value: result.value, consistency: stats.read.consistency }),
  (error) => ({ failed: String(error) }),
);
