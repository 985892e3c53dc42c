// What context validation needs of a caller's context (SPEC A5.4; src/migration/context.rs
// decides, src/js/value.rs facts_from reads this answer): `kind` and `key`, and for a
// multi-kind context its attribute names and each nested `key`. Nothing else is read, and the
// object is never copied.
import { isArray, isObject, kept, read } from './util.js';

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
      let fact = -1;
      if (isObject(nested) && !isArray(nested)) {
        const key = read(nested, 'key');
        fact = typeof key === 'string' && key !== '' ? 1 : 0;
      }
      facts.push(name, fact);
    }
    return facts;
  }
  const key = read(context, 'key');
  const keyOk = typeof key === 'string' && key !== '' ? '1' : '0';
  if (typeof kind === 'string') return 's' + keyOk + kind;
  return (kept(kind) ? 'o' : 'a') + keyOk;
}
