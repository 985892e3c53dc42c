// A small hand-drawn time-series chart in inline SVG: a few lines over a fixed window of ticks,
// auto-scaled y axis, null values leave gaps.

const SVG = 'http://www.w3.org/2000/svg';
const PAD = { top: 8, right: 10, bottom: 20, left: 44 };

function el(name, attrs = {}, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

/** A "nice" grid step (1, 2, 2.5 or 5 × 10^n) that covers `max` in at most `rows` rows. */
function niceStep(max, rows) {
  const raw = max > 0 ? max / rows : 1 / rows;
  const exp = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * exp) return m * exp;
  return 10 * exp;
}

/**
 * @param {HTMLElement} host  where the chart goes (its width is the chart's width)
 * @param {{ series: {key: string, label: string, color: string, dash?: string}[],
 *           window: number, tickMs: number, height?: number,
 *           format?: (v: number) => string, fixedMax?: number, minMax?: number }} options
 */
export function createChart(host, options) {
  const { series, window: size, tickMs, height = 150, format = String, fixedMax, minMax = 0 } = options;
  const legend = document.createElement('div');
  legend.className = 'legend';
  for (const s of series) {
    const item = document.createElement('span');
    item.innerHTML = `<i style="background:${s.color}${s.dash ? ';opacity:.65' : ''}"></i>${s.label}`;
    legend.append(item);
  }
  const svg = el('svg', { class: 'chart', height, role: 'img' });
  svg.setAttribute('aria-label', series.map((s) => s.label).join(', '));
  host.append(legend, svg);

  let data = [];

  function render() {
    const width = Math.max(200, host.clientWidth);
    svg.setAttribute('width', width);
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.replaceChildren();
    const w = width - PAD.left - PAD.right;
    const h = height - PAD.top - PAD.bottom;
    let max = fixedMax ?? minMax;
    if (fixedMax === undefined) {
      for (const point of data) for (const s of series) if (point[s.key] != null) max = Math.max(max, point[s.key]);
    }
    const step = niceStep(max, 4);
    const rows = Math.max(1, Math.ceil(max / step - 1e-9));
    const top = step * rows;
    const x = (i) => PAD.left + (w * (i + size - data.length)) / (size - 1);
    const y = (v) => PAD.top + h - (h * Math.min(v, top)) / top;

    const grid = el('g', { class: 'grid' }, svg);
    for (let k = 0; k <= rows; k++) {
      const v = step * k;
      const yy = Math.round(y(v)) + 0.5;
      el('line', { x1: PAD.left, x2: PAD.left + w, y1: yy, y2: yy }, grid);
      const label = el('text', { x: PAD.left - 6, y: yy + 4, 'text-anchor': 'end' }, grid);
      label.textContent = format(v);
    }
    const seconds = Math.round(((size - 1) * tickMs) / 1000);
    for (const [frac, text] of [[0, `−${seconds} s`], [0.5, `−${Math.round(seconds / 2)} s`], [1, 'now']]) {
      const label = el('text', {
        x: PAD.left + w * frac, y: height - 5,
        'text-anchor': frac === 0 ? 'start' : frac === 1 ? 'end' : 'middle',
      }, grid);
      label.textContent = text;
    }

    for (const s of series) {
      let d = '';
      let pen = false;
      data.forEach((point, i) => {
        const v = point[s.key];
        if (v == null || !Number.isFinite(v)) { pen = false; return; }
        d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
        pen = true;
      });
      const path = el('path', { d: d || 'M0,0', fill: 'none', stroke: s.color, 'stroke-width': 1.8,
        'stroke-linejoin': 'round', 'data-series': s.key }, svg);
      if (s.dash) path.setAttribute('stroke-dasharray', s.dash);
      if (!d) path.setAttribute('visibility', 'hidden');
    }
  }

  new ResizeObserver(() => render()).observe(host);
  return {
    /** `points`: oldest first, at most `window` of them; each maps series keys to numbers or null. */
    update(points) {
      data = points.slice(-size);
      render();
    },
  };
}
