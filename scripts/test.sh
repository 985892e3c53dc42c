#!/usr/bin/env bash
# The whole test suite (`npm test`): lints, native core tests, the release build, the JavaScript
# suites and the docs' code blocks (tests/docs/) against the packed package, every one with
# --unhandled-rejections=strict, then the API reference (TypeDoc).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo; echo "== $*" >&2; }

# The suites need redis-server (redis-cli too: the cluster suites) and chromium: installed from
# Debian's packages when missing.
bash scripts/setup.sh --system --quiet

step "cargo fmt / clippy (native and wasm32)"
cargo fmt --all -- --check
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown --lib -- -D warnings
# The migrations-only build (cutover/migrations: the `segments` feature off).
cargo clippy --quiet --target wasm32-unknown-unknown --lib --no-default-features -- -D warnings

step "core tests (native, fake clock)"
cargo test --quiet --lib

step "release build and pack"
bash scripts/build.sh
bash scripts/pack-for-tests.sh

step "facade type check (tsc: js/ against index.d.ts and the glue's declarations)"
node_modules/.bin/tsc -p js

step "package tests and the docs' blocks (node --test, with a private redis-server; the cluster suites start their own clusters)"
pidfile="$PWD/.redis-test.pid"
REDIS_URL=$(bash scripts/redis-server.sh start "$pidfile")
trap 'bash scripts/redis-server.sh stop "$pidfile"' EXIT
export REDIS_URL
suites=(tests/node/ tests/runtimes/ tests/docs/)
[ -d tests/hardening ] && suites+=(tests/hardening/)
node --unhandled-rejections=strict --test "${suites[@]}"

# Last, so that its warnings (missing doc comments) never hide the suites' results.
step "API reference (TypeDoc over dist/index.d.ts into docs/api/, warnings are errors)"
bash scripts/docs.sh --strict
