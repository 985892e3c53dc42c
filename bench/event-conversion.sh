#!/usr/bin/env bash
# The per-operation migration_op event: serde-wasm-bindgen against the hand-built conversion
# (src/js/event.rs), in one run of one build. Usage: bash bench/event-conversion.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(bash scripts/tools-dir.sh)/bin:$PATH"
out=$(mktemp -d)
cargo build --release --quiet --target wasm32-unknown-unknown --features bench-event --target-dir target/bench-event
for target in nodejs web; do
  wasm-bindgen --target "$target" --out-dir "$out/wb/$target" --out-name cutover target/bench-event/wasm32-unknown-unknown/release/cutover.wasm
done
mkdir -p "$out/dist"
node_modules/.bin/wasm-opt -Oz "$out/wb/web/cutover_bg.wasm" -o "$out/dist/cutover_bg.wasm"
node scripts/assemble-entries.mjs "$out/dist" "$out/wb/nodejs/cutover.js" "$out/wb/web/cutover.js"
node - "$out/dist" <<'JS'
const dist = process.argv[2];
const api = require(`${dist}/cutover.cjs`);
const glue = require(`${dist}/lib/glue.js`);
api.fixedStage('off'); // installs nothing; a builder installs the bridge
new api.MigratorBuilder(api.fixedStage('off'));
const context = { kind: 'user', key: 'u1' };
const n = 200000;
const rounds = { hand: [], serde: [] };
for (let round = 0; round < 7; round++) {
  for (const [name, viaSerde] of [['hand', false], ['serde', true]]) {
    rounds[name].push((glue.benchEventConversion(context, n, viaSerde) / n) * 1000);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const [hand, serde] = [median(rounds.hand), median(rounds.serde)];
console.log(`hand-built ${hand.toFixed(3)} µs, serde-wasm-bindgen ${serde.toFixed(3)} µs per event: ${((serde / hand - 1) * 100).toFixed(0)} % slower`);
JS
rm -rf "$out"
