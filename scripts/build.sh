#!/usr/bin/env bash
# Builds the npm package into dist/: release wasm → wasm-bindgen's `web` glue (ES module) in
# js/wasm/ → one wasm-opt'ed .wasm → every entry bundled by esbuild from js/ (scripts/bundle.mjs);
# then the migrations-only wasm (cargo's `segments` feature off) the same way, for dist/migrations/.
# Sets up what a fresh machine lacks first (scripts/setup.sh: wasm32 target, wasm-bindgen-cli,
# npm dev dependencies).
# Usage: scripts/build.sh [--quiet] [--if-stale]
#   --if-stale  nothing to do when dist/ was built after every input changed (npm's prepack
#               after a build, e.g. in scripts/pack-for-tests.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=0 if_stale=0
for arg in "$@"; do
  case "$arg" in
    --quiet) quiet=1 ;;
    --if-stale) if_stale=1 ;;
    *) echo "build: unknown argument $arg" >&2; exit 2 ;;
  esac
done
say() { [ "$quiet" = 1 ] || echo "[build] $*" >&2; }
stamp=.wb/dist-built
if [ "$if_stale" = 1 ] && [ -f "$stamp" ] && [ -f dist/cutover_bg.wasm ] &&
  [ -z "$(find src Cargo.toml Cargo.lock package-lock.json scripts/build.sh scripts/bundle.mjs scripts/event_format.rs js \( -path js/wasm -o -path js/wasm-migrations \) -prune -o -newer "$stamp" -print -quit)" ]; then
  say "dist/ is up to date"
  exit 0
fi

if [ "$quiet" = 1 ]; then bash scripts/setup.sh --quiet; else bash scripts/setup.sh; fi
export PATH="$(bash scripts/tools-dir.sh)/bin:$PATH"

# The bridge's builder of cutover's own migration_op event, generated from the wire format's
# tables (src/migration/event_format.rs) by scripts/event_format.rs (plain Rust, no crate: about
# a second); written only when it changed, so that an unchanged tree stays as it was.
# tests/event_format.rs (cargo test) checks the file in the tree is current.
mkdir -p target
rustc --edition 2021 --crate-name event_format_js -o target/event_format scripts/event_format.rs
target/event_format > target/event_format.js
cmp -s target/event_format.js js/bridge/event_format.js || cp target/event_format.js js/bridge/event_format.js

# The server wasm is built for speed (issue 32): opt-level 3 with LLVM's own inline threshold.
# Measured against the inline threshold of 25 it had for the tarball's old bound (bench/against.mjs,
# 9 paired rounds, this ÷ that by median): cached lookup 0.89, fixed-stage shadow read 0.91, live
# write through LaunchDarkly 0.92, shadow read through LaunchDarkly 0.95, off read 0.97, explained
# mismatch 1.03 (0.93–1.06); for 121,602 → 131,839 B of gzipped wasm (+10.2 KB of tarball).
cargo build --release --target wasm32-unknown-unknown $([ "$quiet" = 1 ] && echo --quiet)
wasm=target/wasm32-unknown-unknown/release/cutover.wasm
rm -rf js/wasm dist.tmp "$stamp" && mkdir -p dist.tmp .wb
wasm-bindgen --target web --out-dir js/wasm --out-name cutover "$wasm"
# --converge: -Oz until nothing shrinks; with the -Oz below, tarball 112,754 → 112,624 B (8 s of build).
# --low-memory-unused lets wasm-opt fold constant offsets into loads and stores: −740 B of gzipped
# wasm (111,994 → 111,254; the migrations wasm likewise). It holds for Rust's wasm32 layout, where
# lld puts the 1 MiB stack first, growing down from 1 MiB: the low 1 KiB would be touched only by
# the last KiB of a full stack, and nothing here recurses that deep (the walks are bounded).
opt=(-Oz --converge --low-memory-unused --strip-debug --strip-producers)
node_modules/.bin/wasm-opt "${opt[@]}" js/wasm/cutover_bg.wasm -o js/wasm/cutover_opt.wasm
# The imports' and exports' names shortened (-2.3 KB gzipped wasm, and the glue's copies of them:
# tarball 118,892 → 115,081 B), in a run of its own so that its map, which bundle.mjs renames the
# glue's names by, is printed once; -Oz after it lays the renamed module out smaller (of those 130 B).
# --strip-target-features in this last run only (earlier runs need the section to validate the
# module): −102 B of the migrations page gzipped (87,316 → 87,214), −106 B of the full wasm.
node_modules/.bin/wasm-opt --minify-imports-and-exports-and-modules -Oz --strip-target-features js/wasm/cutover_opt.wasm \
  -o dist.tmp/cutover_bg.wasm > js/wasm/minify.json
# The migrations-only wasm (cargo's `segments` feature off, a profile of its own so the full
# wasm stays), through the same steps, for the cutover/migrations body (js/entries/migrations.js).
# LLVM's inline threshold lowered for it alone (pages pay for its bytes): 187,451 → 173,665 B raw,
# 76,913 → 73,521 B gzipped (0: 172,839 / 73,309), measured before src/js/stats.rs. RUSTFLAGS with --target reach only the crate
# graph of that target, in that profile's directory.
RUSTFLAGS="${RUSTFLAGS:-} -C llvm-args=-inline-threshold=25" \
  cargo build --profile migrations --target wasm32-unknown-unknown --no-default-features $([ "$quiet" = 1 ] && echo --quiet)
small=target/wasm32-unknown-unknown/migrations/cutover.wasm
rm -rf js/wasm-migrations && mkdir -p dist.tmp/migrations
wasm-bindgen --target web --out-dir js/wasm-migrations --out-name cutover "$small"
node_modules/.bin/wasm-opt "${opt[@]}" js/wasm-migrations/cutover_bg.wasm -o js/wasm-migrations/cutover_opt.wasm
node_modules/.bin/wasm-opt --minify-imports-and-exports-and-modules -Oz --strip-target-features js/wasm-migrations/cutover_opt.wasm \
  -o dist.tmp/migrations/migrations_bg.wasm > js/wasm-migrations/minify.json
node scripts/bundle.mjs dist.tmp
rm -rf dist && mv dist.tmp dist
touch "$stamp"

raw=$(wc -c < dist/cutover_bg.wasm)
gz=$(gzip -9c dist/cutover_bg.wasm | wc -c)
say "dist/cutover_bg.wasm: $raw bytes raw, $gz bytes gzipped"
raw=$(wc -c < dist/migrations/migrations_bg.wasm)
gz=$(gzip -9c dist/migrations/migrations_bg.wasm | wc -c)
say "dist/migrations/migrations_bg.wasm: $raw bytes raw, $gz bytes gzipped"
