// The bridge's two declarations agree: the Rust imports (src/js/bridge.rs) and their TypeScript
// declaration (src/js/bridge.d.mts), which `tsc -p js` holds the JavaScript functions to. Same
// functions, same number of arguments, matching types; none takes more than six.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const source = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Each `fn` of the bridge's extern block: its JavaScript name, argument types and result. */
export function rustImports(text) {
  const block = text.slice(text.indexOf('extern "C" {'), text.indexOf('\n}\n', text.indexOf('extern "C" {')));
  const out = new Map();
  const fn = /(?:#\[wasm_bindgen\(js_name = (\w+)\)\]\s*)?pub fn (\w+)\(([^)]*)\)(?:\s*->\s*([\w:]+))?;/g;
  for (const [, jsName, name, args, result] of block.matchAll(fn)) {
    const types = args.split(',').map((a) => a.trim()).filter(Boolean).map((a) => a.slice(a.indexOf(':') + 1).trim());
    out.set(jsName ?? name, { types, result: result ?? '()' });
  }
  return out;
}

/** Each `export function` of the declaration: its parameter types and result. */
export function declared(text) {
  const out = new Map();
  for (const [, name, params, result] of text.matchAll(/export function (\w+)\(([^)]*)\): ([\w[\]]+);/g)) {
    const types = params.split(',').map((p) => p.trim()).filter(Boolean).map((p) => p.slice(p.indexOf(':') + 1).trim());
    out.set(name, { types, result });
  }
  return out;
}

// The Rust types the bridge uses, and the TypeScript types each may be declared as (a code
// crosses as a u32 and is declared as its enum).
const CODES = ['Answer', 'Call', 'Check', 'Settle', 'Side', 'TapeStatus', 'TrackerMethod'];
const AS = {
  f64: ['number'],
  i32: ['number'],
  u32: ['number', ...CODES],
  bool: ['boolean'],
  '&JsValue': ['unknown'],
  JsValue: ['unknown'],
  'js_sys::Array': ['string[]'],
  '&str': ['string'],
  '()': ['void'],
};
const matches = (rust, ts) => (AS[rust] ?? []).includes(ts);

test('every Rust import of the bridge is declared, with as many arguments and matching types', () => {
  const rust = rustImports(source('src/js/bridge.rs'));
  const ts = declared(source('src/js/bridge.d.mts'));
  assert.ok(rust.size >= 20, `found ${rust.size} Rust imports: the parser no longer reads bridge.rs`);
  assert.deepEqual([...rust.keys()].sort(), [...ts.keys()].sort());
  for (const [name, { types, result }] of rust) {
    const d = ts.get(name);
    assert.equal(d.types.length, types.length, `${name}: ${types.length} arguments in Rust, ${d.types.length} declared`);
    assert.ok(types.length <= 6, `${name} takes ${types.length} arguments (at most 6)`);
    types.forEach((t, i) => assert.ok(matches(t, d.types[i]), `${name} argument ${i + 1}: Rust ${t}, declared ${d.types[i]}`));
    assert.ok(matches(result, d.result), `${name} result: Rust ${result}, declared ${d.result}`);
  }
});

test('the check can fail: a dropped argument, a renamed function and a wrong type are found', () => {
  const rust = rustImports(source('src/js/bridge.rs'));
  const ts = declared(
    source('src/js/bridge.d.mts')
      .replace('export function stopTimer(handle: unknown): void;', 'export function stopTimer(): void;')
      .replace('export function now(): number;', 'export function clock(): number;')
      .replace('ms: number, id: number, unref: boolean', 'ms: number, id: number, unref: number'),
  );
  assert.equal(ts.get('stopTimer').types.length, rust.get('stopTimer').types.length - 1);
  assert.ok(!ts.has('now') && rust.has('now'));
  assert.ok(!matches(rust.get('startTimer').types[2], ts.get('startTimer').types[2]));
});
