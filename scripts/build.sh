#!/usr/bin/env bash
# Builds the npm package into dist/: release wasm → wasm-bindgen glue for nodejs (CommonJS)
# and web (ESM) → one wasm-opt'ed .wasm → the facade per entry point.
# Usage: scripts/build.sh [--quiet]
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1
say() { [ "$quiet" = 1 ] || echo "[build] $*" >&2; }
export PATH="$(bash scripts/tools-dir.sh)/bin:$PATH"

cargo build --release --target wasm32-unknown-unknown ${quiet:+--quiet}
wasm=target/wasm32-unknown-unknown/release/cutover.wasm
rm -rf .wb dist.tmp && mkdir -p dist.tmp
for target in nodejs web; do
  wasm-bindgen --target "$target" --out-dir ".wb/$target" --out-name cutover "$wasm"
done
cmp -s .wb/nodejs/cutover_bg.wasm .wb/web/cutover_bg.wasm
node_modules/.bin/wasm-opt -Oz --strip-debug --strip-producers .wb/web/cutover_bg.wasm -o dist.tmp/cutover_bg.wasm
node scripts/assemble-entries.mjs dist.tmp .wb/nodejs/cutover.js .wb/web/cutover.js
rm -rf dist .wb && mv dist.tmp dist

raw=$(wc -c < dist/cutover_bg.wasm)
gz=$(gzip -9c dist/cutover_bg.wasm | wc -c)
say "dist/cutover_bg.wasm: $raw bytes raw, $gz bytes gzipped"
