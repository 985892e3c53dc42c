// The package.json that npm packs (and publishes): the repository's, without what only the
// repository can use. `scripts` run files the tarball lacks (scripts/, bench/, demo/, …) and
// `devDependencies` name one of them (file:scripts/typedoc), so both are left out.
//   node scripts/manifest.mjs clean    (npm's prepack) keeps the repository's package.json in
//                                      .wb/package.json.repo and writes the packed one in its place
//   node scripts/manifest.mjs restore  (npm's postpack, and scripts/pack-for-tests.sh before it
//                                      packs) puts the repository's back, when it was kept
// npm packs package.json as it is on disk after prepack, and runs postpack from the manifest it
// read before prepack (checked with npm 11.19), so the repository's file is back after every pack.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const MANIFEST = join(ROOT, 'package.json');
const KEPT = join(ROOT, '.wb/package.json.repo');
/** The fields only the repository can use. */
export const REPOSITORY_ONLY = ['scripts', 'devDependencies'];

/** The packed manifest made from the repository's (a parsed package.json). */
export function packedManifest(manifest) {
  return Object.fromEntries(Object.entries(manifest).filter(([field]) => !REPOSITORY_ONLY.includes(field)));
}

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

function clean() {
  // A kept file left by a pack that stopped half-way is the repository's: back first.
  restore();
  const text = readFileSync(MANIFEST, 'utf8');
  mkdirSync(join(ROOT, '.wb'), { recursive: true });
  copyFileSync(MANIFEST, KEPT);
  writeFileSync(MANIFEST, `${JSON.stringify(packedManifest(JSON.parse(text)), null, 2)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const command = process.argv[2];
  if (command === 'clean') clean();
  else if (command === 'restore') restore();
  else {
    console.error(`manifest: unknown command ${command}; use clean or restore`);
    process.exitCode = 2;
  }
}
