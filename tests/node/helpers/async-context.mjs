// Recording where callbacks ran, for the AsyncLocalStorage suites: each operation `<id>` runs in
// als.run(<id>, …) with flag key `flag-<id>`, context `user-<id>` and values `<id>:…`, so every
// callback can tell from its arguments which operation it belongs to, and a probe notes
// `{ id, what, store }` with store = als.getStore(): right exactly when store === id.

export const ctxOf = (id) => ({ kind: 'user', key: `user-${id}` });
export const idOfFlag = (flagKey) => flagKey.slice('flag-'.length);
export const idOfValue = (value) => String(value).split(':')[0];

/** A probe over `als`: `note(id, what)` records the store current at the call; `whats(id)` what ran for id. */
export function makeProbe(als) {
  const seen = [];
  return {
    seen,
    note(id, what) {
      seen.push({ id, what, store: als.getStore() });
    },
    whats(id) {
      return new Set(seen.filter((e) => e.id === id).map((e) => e.what));
    },
  };
}
