// Shapes inferred from real values, written out as TypeScript type literals, and the type-level
// checks (compare.mts) that compare a declared type with one, node by node.
//
// A shape records what the samples held at one place: the primitive kinds seen (number, string,
// boolean, bigint, null, undefined), the keys of the plain objects seen there (each with how
// many of those objects had it, so a key some object lacked is optional; a frozen object's keys
// are readonly) and the elements of the arrays seen there.

const PRIMITIVES = ['number', 'string', 'boolean', 'bigint', 'null', 'undefined'];

export function emptyShape() {
  return { kinds: new Set(), object: undefined, array: undefined };
}

/** Adds one sample to `shape` (recursively); returns the shape. */
export function observe(shape, value) {
  if (value === null) shape.kinds.add('null');
  else if (Array.isArray(value)) {
    shape.array ??= emptyShape();
    for (const element of value) observe(shape.array, element);
  } else if (typeof value === 'object') {
    // Only plain data: a class instance's keys live on its prototype, which this does not read.
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw new TypeError(`not a plain object: ${proto?.constructor?.name}`);
    if (Object.getOwnPropertySymbols(value).length > 0) throw new TypeError('an object with symbol keys');
    shape.object ??= { count: 0, frozen: 0, keys: new Map() };
    shape.object.count++;
    if (Object.isFrozen(value)) shape.object.frozen++;
    for (const key of Object.getOwnPropertyNames(value)) {
      let entry = shape.object.keys.get(key);
      if (entry === undefined) shape.object.keys.set(key, (entry = { present: 0, shape: emptyShape() }));
      entry.present++;
      observe(entry.shape, value[key]);
    }
  } else if (PRIMITIVES.includes(typeof value)) shape.kinds.add(typeof value);
  else throw new TypeError(`no shape for a ${typeof value}`);
  return shape;
}

export const shapeOf = (samples) => samples.reduce(observe, emptyShape());

const quote = (s) => JSON.stringify(s);
export const union = (members) => (members.length === 0 ? 'never' : members.join(' | '));
export const stringUnion = (strings) => union([...strings].sort().map(quote));

const optionalKeys = (object) => [...object.keys].filter(([, e]) => e.present < object.count).map(([k]) => k);
// Keys are readonly where every object seen there was frozen (a mix would be a finding of its own).
const readonlyKeys = (object) => (object.frozen === object.count ? [...object.keys.keys()] : []);

function primitives(shape) {
  return union(PRIMITIVES.filter((k) => shape.kinds.has(k)));
}

/** The shape as a type literal, e.g. `{ "count": number; "latencyMs": { "p50": number } | null }`. */
export function render(shape) {
  const parts = PRIMITIVES.filter((k) => shape.kinds.has(k));
  if (shape.object) {
    const readonly = shape.object.frozen === shape.object.count ? 'readonly ' : '';
    const fields = [...shape.object.keys].map(
      ([key, e]) => `${readonly}${quote(key)}${e.present < shape.object.count ? '?' : ''}: ${render(e.shape)}`,
    );
    parts.unshift(`{ ${fields.join('; ')} }`);
  }
  if (shape.array) parts.unshift(`Array<${render(shape.array)}>`);
  return union(parts);
}

/**
 * The checks that `declared` (a TypeScript type expression) has this shape, as
 * `[label, type]` pairs, each type `true` when it holds. Per node: its primitive kinds, whether
 * it may be an object or an array, an object's keys and which of them are optional or readonly; then the
 * same below each observed key that is declared.
 */
export function checks(path, declared, shape, out = []) {
  const add = (what, type) => out.push([`${path}: ${what}`, type]);
  const at = quote(path);
  add('kinds', `Same<${at}, Exclude<${declared}, object>, ${primitives(shape)}>`);
  if (shape.object) {
    const object = `Obj<${declared}>`;
    add('keys', `SameKeys<${at}, keyof ${object}, ${stringUnion(shape.object.keys.keys())}>`);
    add('optional keys', `SameOptional<${at}, OptionalKeys<${object}>, ${stringUnion(optionalKeys(shape.object))}>`);
    add('readonly keys', `SameReadonly<${at}, ReadonlyKeys<${object}>, ${stringUnion(readonlyKeys(shape.object))}>`);
    for (const [key, entry] of shape.object.keys) {
      const below = checks(`${path}.${key}`, `Prop<${object}, ${quote(key)}>`, entry.shape);
      for (const [label, type] of below) out.push([label, `IfDeclared<${object}, ${quote(key)}, ${type}>`]);
    }
  } else add('no object part', `Same<${at}, Obj<${declared}>, never>`);
  if (shape.array) checks(`${path}[]`, `Elem<${declared}>`, shape.array, out);
  else add('no array part', `Same<${at}, Elem<${declared}>, never>`);
  return out;
}

/** The checks of `declared` against `shape`: the whole type's identity first, then node by node. */
export function shapeChecks(path, declared, shape) {
  return [[`${path}: identical to the observed type`, `Same<${quote(path)}, ${declared}, ${render(shape)}>`], ...checks(path, declared, shape)];
}

/** A deep copy of a shape, for the self-check's deliberate mistakes. */
export function cloneShape(shape) {
  return {
    kinds: new Set(shape.kinds),
    object: shape.object && {
      count: shape.object.count,
      frozen: shape.object.frozen,
      keys: new Map([...shape.object.keys].map(([k, e]) => [k, { present: e.present, shape: cloneShape(e.shape) }])),
    },
    array: shape.array && cloneShape(shape.array),
  };
}

/** The shape at a dotted path of object keys. */
export function shapeAt(shape, path) {
  return path.split('.').reduce((s, key) => s.object.keys.get(key).shape, shape);
}

/**
 * A TypeScript module of checks: each `[label, type]` on its own line as `const cN: type = true;`.
 * Returns the source and the label of each line that holds a check (1-based line numbers).
 */
export function checkModule(imports, checkList) {
  const lines = [...imports, ''];
  const labels = new Map();
  checkList.forEach(([label, type], i) => {
    lines.push(`export const c${i}: ${type} = true;`);
    labels.set(lines.length, label);
  });
  return { source: `${lines.join('\n')}\n`, labels };
}
