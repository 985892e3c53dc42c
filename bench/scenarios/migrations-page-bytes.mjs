// Issue 33's page target (issue 23's was 40,000 B): what a visitor downloads for a page that uses MigratorBuilder,
// fixedStage, sameStructure and beaconSink from cutover/migrations (bench/pages/migrations-page.mjs, built by
// esbuild as a site would: bench/lib/page-size.mjs), JS and wasm gzipped, against the same page
// built on the full entry. A size, not a time: every round gives the same bytes.
import { buildPage } from '../lib/page-size.mjs';

export const meta = {
  unit: 'B',
  note:
    'bench/pages/migrations-page.mjs (MigratorBuilder, fixedStage, sameStructure, beaconSink) bundled by esbuild (minified, ESM, browser) against dist/migrations/migrations.browser.mjs: ' +
    'the bundle and the wasm it fetches, each gzip -9, summed. Also the same page on the full entry (dist/cutover.browser.mjs). ' +
    'Target: ≤ 60,000 B gzipped (issue 33); brotli (quality 11) reported too',
  figures: [
    { key: 'value', label: 'migrations page, JS + wasm gzipped', unit: 'B', max: 60_000 },
    { key: 'totalBr', label: 'migrations page, JS + wasm brotli', unit: 'B' },
    { key: 'jsGz', label: 'migrations page, its JS bundle gzipped', unit: 'B' },
    { key: 'wasmGz', label: 'migrations page, migrations_bg.wasm gzipped', unit: 'B' },
    { key: 'fullTotalGz', label: 'the same page on the full entry, JS + wasm gzipped', unit: 'B' },
  ],
};

export async function cutover() {
  const page = await buildPage('migrations');
  const full = await buildPage('full');
  return {
    value: page.totalGz,
    info: {
      jsGz: page.jsGz,
      wasmGz: page.wasmGz,
      jsRaw: page.jsRaw,
      wasmRaw: page.wasmRaw,
      totalBr: page.totalBr,
      jsBr: page.jsBr,
      wasmBr: page.wasmBr,
      fullTotalGz: full.totalGz,
      fullTotalBr: full.totalBr,
      fullJsGz: full.jsGz,
      fullWasmGz: full.wasmGz,
    },
  };
}
