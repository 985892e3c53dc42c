// The dashboard's Differences panel: where the compared reads disagree. Paths by count come from
// `stats().read.consistency.paths` (read and reset every tick, summed here), the last mismatches
// with their differences from `migrator.mismatches()`, and the ignore box rebuilds the comparison
// with `sameStructure({ ignore })`.

import { $, fmtInt, fmtPct, show } from './dom.mjs';

export const KEEP = 20; // mismatches({ keep })
const SHOWN = 8; // mismatches listed, newest first
const VALUE_CHARS = 48; // a difference's old/new value as JSON, cut at this length

const describe = (ignore) => (ignore.length ? `sameStructure({ ignore: [${ignore.map((p) => `'${p}'`).join(', ')}] })` : 'sameStructure()');

function fmtValue(value) {
  if (value === undefined) return '∅';
  let text;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'className') node.className = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
};

/**
 * @param {object} o
 * @param {Function} o.sameStructure  cutover's
 * @param {() => void} o.rebuild      builds a fresh migrator with `comparison()` (may throw)
 */
export function createDifferencesPanel({ sameStructure, rebuild }) {
  let ignore = [];
  let compare = sameStructure();
  // Since the comparison was last applied: mismatches per path, and mismatched reads.
  let paths = new Map();
  let mismatched = 0;
  let since = 0;
  let lastKept = '';

  const form = $('ignore-form');
  const input = $('ignore-input');
  const error = $('ignore-error');

  function showError(message) {
    error.textContent = message;
    error.hidden = !message;
    input.setAttribute('aria-invalid', message ? 'true' : 'false');
  }

  function apply(text) {
    const next = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
    const previous = { ignore, compare };
    try {
      compare = sameStructure({ ignore: next });
      ignore = next;
      rebuild();
    } catch (e) {
      ({ ignore, compare } = previous); // the running comparison stays as it was
      showError(`${e?.name ?? 'Error'}: ${e?.message ?? e}`);
      return false;
    }
    showError('');
    paths = new Map();
    mismatched = 0;
    since = 0;
    lastKept = '';
    show('diff-comparison', describe(ignore));
    renderPaths({});
    $('mismatches').replaceChildren(el('li', { className: 'empty' }, 'no mismatch since the comparison was applied'));
    return true;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply(input.value);
  });
  show('diff-comparison', describe(ignore));
  show('diff-keep', String(KEEP));

  function renderPaths(tickPaths) {
    const rows = [...paths].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
    const max = rows.length ? rows[0][1] : 0;
    const body = $('diff-paths').tBodies[0];
    if (!rows.length) {
      body.replaceChildren(el('tr', { className: 'empty' }, el('td', { colspan: '4' }, 'no differences yet')));
      return;
    }
    body.replaceChildren(...rows.map(([path, count]) => {
      const bar = el('i');
      bar.style.width = `${(100 * count) / max}%`;
      const thisTick = tickPaths[path] ?? 0;
      return el('tr', { dataset: { path, count: String(count) } },
        el('td', { className: 'path' }, el('code', {}, path)),
        el('td', { className: 'bar' }, bar),
        el('td', { className: 'num' }, fmtInt(count), el('small', {}, thisTick ? ` +${fmtInt(thisTick)}` : '')),
        el('td', { className: 'num' }, mismatched ? fmtPct(count / mismatched) : '—'));
    }));
  }

  function renderMismatches(kept) {
    // Redraw only when the ring changed: its newest entry's time and identity tell.
    const newest = kept.at(-1);
    const key = newest ? `${kept.length}:${newest.at}:${newest.context?.key}:${newest.differences.length}` : '';
    if (key === lastKept) return;
    lastKept = key;
    const list = $('mismatches');
    if (!kept.length) {
      list.replaceChildren(el('li', { className: 'empty' }, 'no mismatch since the comparison was applied'));
      return;
    }
    list.replaceChildren(...kept.slice(-SHOWN).reverse().map((m) => {
      const time = new Date(m.at).toISOString().slice(11, 23);
      const diffs = m.differences.length
        ? m.differences.map((d) => el('li', { dataset: { path: d.path, kind: d.kind } },
          el('code', { className: 'path' }, d.path || '(root)'),
          el('span', { className: `kind ${d.kind}` }, d.kind),
          el('code', { className: 'old' }, 'old' in d ? fmtValue(d.old) : '∅'),
          el('span', { className: 'arrow' }, '→'),
          el('code', { className: 'new' }, 'new' in d ? fmtValue(d.new) : '∅')))
        : [el('li', { className: 'empty' }, 'the walk found no difference (the comparison disagreed anyway)')];
      return el('li', { dataset: { stage: m.stage, at: String(m.at) } },
        el('div', { className: 'mm-head' },
          el('b', {}, `context ${m.context?.key ?? '?'}`),
          el('span', {}, `${m.stage} · ${time}`),
          el('span', { className: 'count' }, `${m.differences.length} difference${m.differences.length === 1 ? '' : 's'}${m.truncated ? ', truncated' : ''}`)),
        el('ul', { className: 'mm-diffs' }, ...diffs));
    }));
  }

  return {
    /** The comparison the next migrator is built with. */
    comparison: () => compare,
    /** Once per tick, with the tick's `stats().read` and the current migrator. */
    update(read, migrator) {
      since++;
      const tickPaths = read.consistency.paths ?? {};
      for (const [path, count] of Object.entries(tickPaths)) paths.set(path, (paths.get(path) ?? 0) + count);
      mismatched += read.consistency.checked - read.consistency.consistent;
      renderPaths(tickPaths);
      show('diff-mismatched', fmtInt(mismatched));
      show('diff-since', `${since} s`);
      renderMismatches(migrator.mismatches());
    },
  };
}
