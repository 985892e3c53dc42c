#!/usr/bin/env bash
# Prints where wasm-bindgen-cli (at exactly the wasm-bindgen version in Cargo.lock) lives: a
# per-version folder in the user's cache, so every clone on a machine shares one install.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
echo "${CUTOVER_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cutover/wasm-bindgen-$version}"
