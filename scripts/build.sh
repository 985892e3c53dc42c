#!/usr/bin/env bash
# Builds the npm package into dist/: release wasm → wasm-bindgen's `web` glue (ES module) in
# js/wasm/ → one wasm-opt'ed .wasm → every entry bundled by esbuild from js/ (scripts/bundle.mjs).
# Usage: scripts/build.sh [--quiet]
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1
say() { [ "$quiet" = 1 ] || echo "[build] $*" >&2; }
export PATH="$(bash scripts/tools-dir.sh)/bin:$PATH"

cargo build --release --target wasm32-unknown-unknown ${quiet:+--quiet}
wasm=target/wasm32-unknown-unknown/release/cutover.wasm
rm -rf js/wasm dist.tmp && mkdir -p dist.tmp
wasm-bindgen --target web --out-dir js/wasm --out-name cutover "$wasm"
node_modules/.bin/wasm-opt -Oz --strip-debug --strip-producers js/wasm/cutover_bg.wasm -o dist.tmp/cutover_bg.wasm
node scripts/bundle.mjs dist.tmp
rm -rf dist && mv dist.tmp dist

raw=$(wc -c < dist/cutover_bg.wasm)
gz=$(gzip -9c dist/cutover_bg.wasm | wc -c)
say "dist/cutover_bg.wasm: $raw bytes raw, $gz bytes gzipped"
