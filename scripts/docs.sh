#!/usr/bin/env bash
# The API reference (`npm run docs`): TypeDoc's HTML from the published declarations
# (dist/index.d.ts, the package's "cutover"; built first when stale) into docs/api/ (not committed).
# Usage: scripts/docs.sh [--strict]
#   --strict  TypeDoc's warnings are errors (npm test)
#
# TypeDoc needs TypeScript's JavaScript compiler API, which the repository's typescript 7 (the
# native port: a tsc binary and no such API) lacks. So TypeDoc is installed with TypeScript 6 in a
# package of its own, scripts/typedoc/ (the root devDependency cutover-typedoc, `file:`): npm puts
# both in scripts/typedoc/node_modules, where TypeDoc's `import 'typescript'` finds 6, and
# node_modules/.bin/tsc stays 7. (A top-level alias for TypeScript 6 would take over
# node_modules/.bin/tsc; typedoc itself at the top level conflicts with typescript 7 as its peer.)
# Source links are off (typedoc.json: disableSources): the package names no repository for them to
# point into, and TypeDoc warns (an error with --strict) when the checkout has no hosted `origin`.
set -euo pipefail
cd "$(dirname "$0")/.."
strict=()
for arg in "$@"; do
  case "$arg" in
    --strict) strict=(--treatWarningsAsErrors) ;;
    *) echo "docs: unknown argument $arg" >&2; exit 2 ;;
  esac
done
bash scripts/build.sh --quiet --if-stale
rm -rf docs/api
node scripts/typedoc/node_modules/typedoc/bin/typedoc --options typedoc.json "${strict[@]}"
echo "API reference: docs/api/index.html" >&2
