// Finds the code blocks of the docs: every fenced ```js and ```ts block of README.md and
// docs/*.md, with where it is, what it is written in, the stand-ins it names and, for a block
// that must not run, why.
//
// Conventions a block follows (tests/docs/README.md says more):
// - `// stand-ins: name (what it stands for), other (…)` as its first line names the values it
//   uses without defining them; tests/docs/stand-ins.mts defines each of them.
// - `<!-- not run: reason -->` on the line right before the fence keeps it from running (a shell
//   session, a fragment); the reason is reported with the skipped block.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const LANGS = { js: 'js', javascript: 'js', mjs: 'js', ts: 'ts', typescript: 'ts', mts: 'ts' };
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/;
const NOT_RUN = /^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$/;

/** The markdown files whose blocks are tests: README.md, then docs/*.md in name order. */
export function docFiles(root = ROOT) {
  const docs = readdirSync(join(root, 'docs'), { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(root, 'docs', e.name))
    .sort();
  return [join(root, 'README.md'), ...docs];
}

/**
 * The js/ts blocks of one markdown text. Each: { file, line (of the opening fence, 1-based),
 * lang ('js' | 'ts'), code, standIns (names), skip (the reason, or null) }.
 */
export function extractBlocks(markdown, file) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(FENCE);
    if (!open) continue;
    const [, indent, fence, info] = open;
    // The block ends at a fence of the same character, at least as long, with nothing after it.
    let end = i + 1;
    while (end < lines.length && !isClosing(lines[end], fence)) end++;
    const lang = LANGS[info.toLowerCase()];
    if (lang) {
      const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()));
      const code = body.join('\n') + '\n';
      const skip = i > 0 ? (lines[i - 1].match(NOT_RUN)?.[1] ?? null) : null;
      if (skip === '') throw new Error(`${file}:${i}: "not run:" needs a reason`);
      blocks.push({ file, line: i + 1, lang, code, standIns: standInsOf(code, `${file}:${i + 1}`), skip });
    }
    i = end; // a fence inside a block is its text
  }
  return blocks;
}

function isClosing(line, fence) {
  const t = line.trim();
  return t.length >= fence.length && t[0] === fence[0] && /^(`+|~+)$/.test(t);
}

/**
 * The names a block's `// stand-ins:` comment lists. The comment is the block's first line and
 * goes on over the next `//` lines while a parenthesis is open; text in parentheses describes a
 * name and is not a name.
 */
export function standInsOf(code, where = 'block') {
  const lines = code.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  const head = lines[first]?.match(/^\s*\/\/\s*stand-ins:(.*)$/);
  if (!head) return [];
  let text = head[1];
  let depth = depthOf(text);
  for (let k = first + 1; depth > 0 && k < lines.length; k++) {
    const more = lines[k].match(/^\s*\/\/(.*)$/);
    if (!more) break;
    text += ' ' + more[1];
    depth += depthOf(more[1]);
  }
  if (depth !== 0) throw new Error(`${where}: the stand-ins comment leaves a parenthesis open`);
  let outside = '';
  let level = 0;
  for (const ch of text) {
    if (ch === '(') level++;
    else if (ch === ')') level--;
    else if (level === 0) outside += ch;
  }
  const names = outside.split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`${where}: "${name}" in the stand-ins comment is not a name`);
  }
  return names;
}

const depthOf = (s) => [...s].reduce((d, ch) => d + (ch === '(') - (ch === ')'), 0);

/** Every js/ts block of the docs, named by path relative to the repository. */
export function allBlocks(root = ROOT) {
  return docFiles(root).flatMap((path) => extractBlocks(readFileSync(path, 'utf8'), relative(root, path)));
}

/** A block's name in test output: `README.md:45 (js)`. */
export const blockName = (b) => `${b.file}:${b.line} (${b.lang})`;
