// What a migrator keeps of the caller's (its flag client, its logger, and its origins,
// comparisons and onMismatch), held without a cycle through the wasm (src/js/builder.rs): the
// wasm keeps only a weak reference to each, and the facade (js/migration.js) keeps the object
// itself in its `held` list, which belongs to the builder, then to the Migrators built from it.
// Every operation's `Pending` carries the list until the operation, its background part
// included, has ended (src/js/migrator.rs). So a Migrator that they refer to is collected once
// nothing else does: a strong reference from the wasm (a GC root) kept both forever. The cost: a
// `deref()` (about 20 ns in V8) per call into such an object; a fixed-stage shadow read measured
// 1.17 → 1.28 µs (docs/ARCHITECTURE.md).

/** Where there is no `WeakRef`, a strong stand-in with the same `deref()`. */
class Strong {
  #value;
  constructor(value) {
    this.#value = value;
  }
  deref() {
    return this.#value;
  }
}

const Weak = typeof WeakRef === 'function' ? WeakRef : Strong;

/**
 * The weak reference the wasm keeps in the place of `f` (a strong one for a value no `WeakRef`
 * can hold, which then refers to nothing anyway).
 * @param {unknown} f
 * @returns {{ deref(): unknown }}
 */
export function weakly(f) {
  return (typeof f === 'object' && f !== null) || typeof f === 'function' ? new Weak(f) : new Strong(f);
}
