// The latency histograms' wire forms as they cross to and from the wasm (src/js/fleet.rs): flat
// arrays of numbers, several wire forms each after its length.

/** A migrator's console sample, `[inFlight, n, …wire, n, …wire, …]`, as `[inFlight, ...wires]`. */
export function splitSample(flat) {
  if (!flat || flat.length === 0) return undefined;
  const out = [flat[0]];
  for (let at = 1; at < flat.length; ) {
    const n = flat[at];
    out.push(flat.subarray ? flat.subarray(at + 1, at + 1 + n) : flat.slice(at + 1, at + 1 + n));
    at += 1 + n;
  }
  return out;
}

/** Wire forms (arrays of numbers) as one flat array, each after its length; non-arrays left out. */
export function flatWires(wires) {
  const flat = [];
  for (const wire of wires) {
    if (!Array.isArray(wire)) continue;
    flat.push(wire.length, ...wire);
  }
  return Float64Array.from(flat, Number);
}
