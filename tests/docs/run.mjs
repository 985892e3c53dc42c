// Runs the docs' blocks: each in a child process of its own, as a file in a scratch directory
// under tests/docs/ (so that `cutover` resolves to the packed package in tests/node_modules and
// every other package to the repository's node_modules), with the stand-ins it names imported on
// its first line. A ```ts block is transpiled by esbuild to run, and type-checked by tsc, all ts
// blocks in one tsc run.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { ROOT } from './extract.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const STAND_INS = join(HERE, 'stand-ins.mts');
const REGISTER = pathToFileURL(join(HERE, 'launchdarkly/register.mjs')).href;
export const TSC = join(ROOT, 'node_modules/.bin/tsc');
/** How long one block may run: a few seconds is what the slowest (a cluster example) takes. */
export const BLOCK_TIMEOUT_MS = 30_000;

/** The stand-ins stand-ins.mts defines: name → the source of its definition. */
export function standInDefinitions() {
  const source = readFileSync(STAND_INS, 'utf8');
  const starts = [...source.matchAll(/^export const (\w+)/gm)];
  return new Map(starts.map((m, i) => [m[1], source.slice(m.index, starts[i + 1]?.index ?? source.length)]));
}

/**
 * What is wrong with a block before it runs: stand-ins that do not exist, and process.exit (a
 * block must end on its own; exiting would hide a handle it left open).
 */
export function problemsOf(block, definitions = standInDefinitions()) {
  const problems = block.standIns.filter((n) => !definitions.has(n)).map((n) => `"${n}" is not a stand-in of tests/docs/stand-ins.mts`);
  if (/\bprocess\.exit\s*\(/.test(block.code)) problems.push('calls process.exit: a block must end on its own');
  return problems;
}

/** Each service environment.mjs starts, and the variable a block reads to reach it. */
export const SERVICE_VARIABLES = { redis: 'REDIS_URL', cluster: 'REDIS_CLUSTER_URLS', dynamodb: 'DYNAMODB_ENDPOINT' };

/** The services a block needs: those its code or its stand-ins read the variables of. */
export function servicesOf(block, definitions = standInDefinitions()) {
  const text = [block.code, ...block.standIns.map((n) => definitions.get(n) ?? '')].join('\n');
  return Object.keys(SERVICE_VARIABLES).filter((service) => new RegExp(`\\b${SERVICE_VARIABLES[service]}\\b`).test(text));
}

/** A scratch directory with the stand-ins (source for tsc, transpiled for node); `remove()` deletes it. */
export async function scratchDir(tag = 'blocks') {
  const dir = join(HERE, `.scratch-${tag}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const source = readFileSync(STAND_INS, 'utf8');
  writeFileSync(join(dir, 'stand-ins.mts'), source);
  writeFileSync(join(dir, 'stand-ins.mjs'), (await transform(source, { loader: 'ts', format: 'esm' })).code);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const baseName = (block) => `${block.file.replace(/[^\w]+/g, '_')}_${block.line}`;

/** The block's text as it is run and checked: its stand-ins imported on its first line. */
export function sourceOf(block) {
  if (block.standIns.length === 0) return block.code;
  return `import { ${block.standIns.join(', ')} } from './stand-ins.mjs'; ${block.code}`;
}

/** Writes the block's files into `dir`; the path of the one to run. */
async function writeBlock(block, dir) {
  const source = sourceOf(block);
  const runnable = join(dir, `${baseName(block)}.mjs`);
  if (block.lang === 'ts') {
    const js = await transform(source, { loader: 'ts', format: 'esm', sourcefile: `${baseName(block)}.ts` });
    writeFileSync(runnable, js.code);
  } else {
    writeFileSync(runnable, source);
  }
  return runnable;
}

/**
 * Runs one block to its end in `node --unhandled-rejections=strict`, killed after `timeoutMs`.
 * Resolves { ok, code, signal, timedOut, timeoutMs, ms, stdout, stderr }: ok when it exited 0 by
 * itself.
 */
export async function runBlock(block, { dir, env = {}, timeoutMs = BLOCK_TIMEOUT_MS }) {
  const file = await writeBlock(block, dir);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--unhandled-rejections=strict', '--import', REGISTER, file], {
      cwd: dir,
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0 && !timedOut, code, signal, timedOut, timeoutMs, ms: Date.now() - started, stdout, stderr });
    });
  });
}

/** A failed run, said so that the cause is plain: why, then what it printed. */
export function describeRun(block, r) {
  const why = r.timedOut
    ? `did not finish within ${r.timeoutMs / 1000} s (a handle left open, such as a client not closed, or an await that never settles)`
    : `exited with ${r.code ?? r.signal}`;
  return `${block.file}:${block.line} ${why}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

const TSCONFIG = {
  '//': 'The docs\' ts blocks, as a strict nodenext consumer of the packed package compiles them.',
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types: [],
    moduleDetection: 'force',
    skipLibCheck: true,
    noEmit: true,
  },
  include: ['*.ts', '*.mts'],
};

/**
 * Type-checks the ts `blocks` in `dir` with one tsc run. Resolves { errors, output }: errors maps
 * each block (and 'stand-ins.mts') to its error lines, with the block's line numbers as in its
 * markdown file.
 */
export async function typeCheck(blocks, dir) {
  const byFile = new Map();
  for (const block of blocks) {
    writeFileSync(join(dir, `${baseName(block)}.ts`), sourceOf(block));
    byFile.set(`${baseName(block)}.ts`, block);
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  const { code, out: output } = await new Promise((resolve, reject) => {
    const child = spawn(TSC, ['-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
  const errors = new Map();
  for (const m of output.matchAll(/^(.+?)\((\d+),(\d+)\): (error TS\d+: .*)$/gm)) {
    const [, file, line, col, message] = m;
    const block = byFile.get(file);
    const key = block ?? file;
    // The block's line N is line (opening fence + N) of its markdown file.
    const where = block ? `${block.file}:${block.line + Number(line)}:${col}` : `${file}:${line}:${col}`;
    if (!errors.has(key)) errors.set(key, []);
    errors.get(key).push(`${where} ${message}`);
  }
  // An error tsc reports on no file (a bad option) fails the whole check.
  if (code !== 0 && errors.size === 0) errors.set('tsc', [`tsc exited with ${code}: ${output}`]);
  return { errors, output };
}
