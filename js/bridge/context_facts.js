// What context validation needs of a caller's context (SPEC A5.4; src/migration/context.rs
// decides, src/js/value.rs facts_from reads this answer): `kind`, `key` and `targetingKey`
// (OpenFeature's), and for a multi-kind context its attribute names and each nested `key` and
// `targetingKey`. Nothing else is read, and the object is never copied.
import { isArray, isObject, kept, read } from '../util.js';

const good = (key) => (typeof key === 'string' && key !== '' ? '1' : '0');
// `key`, then `targetingKey`: 1 a non-empty string, 0 anything else, - absent. targetingKey is
// read only where `key` is absent, the one case the core needs it.
const keys = (c) => {
  const key = read(c, 'key');
  return kept(key) ? good(key) + '-' : '-' + good(read(c, 'targetingKey'));
};

/**
 * @param {unknown} context
 * @returns {unknown}
 */
export function contextFacts(context) {
  if (!isObject(context) || isArray(context)) return undefined;
  const kind = read(context, 'kind');
  if (kind === 'multi') {
    let names;
    try {
      names = Object.keys(context);
    } catch {
      return undefined;
    }
    /** @type {unknown[]} */
    const facts = [kept(read(context, 'key'))];
    for (const name of names) {
      if (name === 'kind') continue;
      let nested;
      try {
        nested = context[name];
      } catch {
        continue; // an attribute that cannot be read is left out, as JSON would
      }
      if (!kept(nested)) continue;
      facts.push(name, isObject(nested) && !isArray(nested) ? keys(nested) : -1);
    }
    return facts;
  }
  if (typeof kind === 'string') return 's' + keys(context) + kind;
  return (kept(kind) ? 'o' : 'a') + keys(context);
}
