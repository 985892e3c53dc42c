// The caller's functions a migrator keeps (origins, comparisons, onMismatch), held without a
// cycle through the wasm (src/js/builder.rs): the wasm keeps only a weak reference to each, and
// the facade (js/migration.js) keeps the function itself in its `held` list, which belongs to the
// builder, then to the Migrators built from it. Every operation's `Pending` carries the list until
// the operation, its background part included, has ended (src/js/migrator.rs). So a Migrator
// whose functions refer to it is collected once nothing else does: a strong reference from the
// wasm (a GC root) kept both forever. The cost: a `deref()` (about 20 ns in V8) per call of such
// a function; a fixed-stage shadow read measured 1.13 → 1.23 µs (docs/ARCHITECTURE.md).

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
 * The weak reference the wasm keeps in the place of `f`.
 * @param {Function} f
 * @returns {{ deref(): Function | undefined }}
 */
export function weakly(f) {
  return new Weak(f);
}
