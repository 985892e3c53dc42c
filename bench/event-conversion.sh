#!/usr/bin/env bash
# The per-operation migration_op event: serde-wasm-bindgen against the hand-built conversion
# (src/js/event.rs), in one run of one build. Usage: bash bench/event-conversion.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(bash scripts/tools-dir.sh)/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet --target wasm32-unknown-unknown --features bench-event --target-dir target/bench-event
wasm-bindgen --target web --out-dir "$out/wb" --out-name cutover target/bench-event/wasm32-unknown-unknown/release/cutover.wasm
node_modules/.bin/wasm-opt -Oz "$out/wb/cutover_bg.wasm" -o "$out/cutover_bg.wasm"
# The facade over this build's glue, bundled as the package's body is (scripts/bundle.mjs).
node --input-type=module - "$out" <<'JS'
import { build } from 'esbuild';
const out = process.argv[2];
await build({
  stdin: { contents: "export * from './js/api.js'; export { initSync, benchEventConversion } from './js/wasm/cutover.js';", resolveDir: process.cwd() },
  bundle: true, format: 'esm', platform: 'neutral', outfile: `${out}/bench.mjs`, logLevel: 'warning',
  plugins: [{ name: 'bench-glue', setup: (b) => b.onResolve({ filter: /\/wasm\/cutover\.js$/ }, () => ({ path: `${out}/wb/cutover.js` })) }],
});
JS
node --input-type=module - "$out" <<'JS'
import { readFileSync } from 'node:fs';
const out = process.argv[2];
const api = await import(`${out}/bench.mjs`);
api.initSync({ module: readFileSync(`${out}/cutover_bg.wasm`) });
new api.MigratorBuilder(api.fixedStage('off')); // a builder installs the bridge
const context = { kind: 'user', key: 'u1' };
const n = 200000;
const rounds = { hand: [], serde: [] };
for (let round = 0; round < 7; round++) {
  for (const [name, viaSerde] of [['hand', false], ['serde', true]]) {
    rounds[name].push((api.benchEventConversion(context, n, viaSerde) / n) * 1000);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const [hand, serde] = [median(rounds.hand), median(rounds.serde)];
console.log(`hand-built ${hand.toFixed(3)} µs, serde-wasm-bindgen ${serde.toFixed(3)} µs per event: ${((serde / hand - 1) * 100).toFixed(0)} % slower`);
JS
