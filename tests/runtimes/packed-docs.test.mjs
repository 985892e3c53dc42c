// The docs as users get them (issue 33): README.md and docs/*.md are in the tarball, and every
// relative link in them resolves to a file inside the installed package (tests/node_modules/cutover,
// unpacked from the tarball by scripts/pack-for-tests.sh). A link to a file only the repository
// has is dead in node_modules: the docs name such files as text instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PACKAGE_DIR, packageMissing } from './common/run.mjs';

const skip = packageMissing();

/** The targets of a markdown text's inline links and images, outside fenced code blocks. */
export function linksOf(markdown) {
  const prose = markdown.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2\s*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** The targets of a markdown text's images (a subset of `linksOf`). */
export function imagesOf(markdown) {
  const prose = markdown.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2\s*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/**
 * The relative links of `file` (inside `root`) that do not resolve to a file inside `root`.
 * Images are the repository's only (the console's screenshot is 152 KB, half the tarball's bound):
 * in the installed package their alt text stands in, so they are left out unless `images`.
 */
export function deadLinks(root, file, markdown, { images = true } = {}) {
  const dead = [];
  const left = images ? new Set() : new Set(imagesOf(markdown));
  for (const target of linksOf(markdown)) {
    if (left.has(target)) continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // absolute URLs, anchors
    const path = decodeURIComponent(target.split('#')[0].split('?')[0]);
    const resolved = resolve(dirname(join(root, file)), path);
    const inside = !relative(root, resolved).startsWith('..');
    if (!inside || !existsSync(resolved) || (!statSync(resolved).isFile() && !existsSync(join(resolved, 'README.md')))) {
      dead.push(target);
    }
  }
  return dead;
}

/** README.md and docs/*.md of the installed package. */
function packedDocs() {
  const docs = existsSync(join(PACKAGE_DIR, 'docs')) ? readdirSync(join(PACKAGE_DIR, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`) : [];
  return ['README.md', ...docs.sort()];
}

test('packed docs: README.md and the user docs are in the tarball', { skip }, () => {
  const files = packedDocs();
  for (const doc of ['docs/BUNDLERS.md', 'docs/EDGE.md', 'docs/LAUNCHDARKLY.md', 'docs/STORES.md', 'docs/TYPESCRIPT.md']) {
    assert.ok(files.includes(doc), `${doc} is shipped: ${files}`);
  }
});

test('packed docs: every relative link in README.md and docs/*.md resolves inside the package', { skip }, (t) => {
  let links = 0;
  const dead = [];
  for (const file of packedDocs()) {
    const markdown = readFileSync(join(PACKAGE_DIR, file), 'utf8');
    links += linksOf(markdown).length;
    dead.push(...deadLinks(PACKAGE_DIR, file, markdown, { images: false }).map((target) => `${file}: ${target}`));
  }
  t.diagnostic(`${links} links read`);
  assert.ok(links >= 10, `${links} links found (the pattern finds links)`);
  assert.deepEqual(dead, [], 'links that do not resolve inside the package');
});

test('packed docs: the check finds a dead link, a link out of the package and one inside a code span not', () => {
  const root = PACKAGE_DIR;
  const markdown = [
    'See [the types](dist/index.d.ts), [home](https://example.org/x), [top](#top),',
    '[gone](bench/README.md), [out](../../package.json#x) and `[not a link](nowhere.md)`.',
    '```md',
    '[in a fence](fenced.md)',
    '```',
  ].join('\n');
  assert.deepEqual(linksOf(markdown), ['dist/index.d.ts', 'https://example.org/x', '#top', 'bench/README.md', '../../package.json#x']);
  const dead = deadLinks(root, 'README.md', markdown);
  assert.deepEqual(dead, skip ? ['dist/index.d.ts', 'bench/README.md', '../../package.json#x'] : ['bench/README.md', '../../package.json#x']);
});
