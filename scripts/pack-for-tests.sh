#!/usr/bin/env bash
# Installs the package exactly as users get it: `npm pack`, then the tarball unpacked into
# tests/node_modules/cutover (cutover has no runtime dependencies, so unpacking is installing).
# Tests under tests/ then `import ... from 'cutover'` and get the packed build, not the sources.
# npm pack runs the prepack script: it builds dist/ unless a build after the last change made it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The repository's package.json back, if a pack that stopped half-way left the packed one
# (scripts/manifest.mjs).
node scripts/manifest.mjs restore
rm -rf .pack tests/node_modules/cutover
mkdir -p .pack tests/node_modules/cutover
npm pack --silent --pack-destination .pack >/dev/null
tar -xzf .pack/cutover-*.tgz -C tests/node_modules/cutover --strip-components=1
echo "packed $(basename .pack/cutover-*.tgz) ($(wc -c < .pack/cutover-*.tgz) bytes) into tests/node_modules/cutover"
