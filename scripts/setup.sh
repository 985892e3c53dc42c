#!/usr/bin/env bash
# Installs what a fresh machine lacks, and nothing it already has:
#   the wasm32 Rust target, wasm-bindgen-cli at exactly the crate's version (scripts/tools-dir.sh),
#   the npm dev dependencies (npm ci), and with --system the Debian packages the tests use.
# Usage: scripts/setup.sh [--system] [--quiet]
set -euo pipefail
cd "$(dirname "$0")/.."
system=0 quiet=0
for arg in "$@"; do
  case "$arg" in
    --system) system=1 ;;
    --quiet) quiet=1 ;;
    *) echo "setup: unknown argument $arg" >&2; exit 2 ;;
  esac
done
say() { [ "$quiet" = 1 ] || echo "[setup] $*" >&2; }

if [ "$system" = 1 ]; then
  missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v redis-cli >/dev/null || missing+=(redis-tools) # the cluster suites' redis-cli --cluster create
  command -v chromium >/dev/null || missing+=(chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
      echo "setup: the tests need ${missing[*]}; install them (Debian: apt-get install ${missing[*]}) and re-run" >&2
      exit 1
    fi
    say "installing Debian packages: ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The CLI must equal the wasm-bindgen crate version in Cargo.lock.
wbg_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
tools=$(bash scripts/tools-dir.sh)
if [ "$("$tools/bin/wasm-bindgen" --version 2>/dev/null | awk '{print $2}')" != "$wbg_version" ]; then
  say "installing wasm-bindgen-cli $wbg_version into $tools (about 2 minutes, once per machine)"
  # Without --locked first: the registry mirror here lacks a crate version its lockfile pins.
  cargo install wasm-bindgen-cli --version "=$wbg_version" --root "$tools" \
    || cargo install wasm-bindgen-cli --version "=$wbg_version" --root "$tools" --locked
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dev dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi
