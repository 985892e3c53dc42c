// Fixed-width text table, printed row by row as results come in.

import { visibleLength } from './term.mjs';

/**
 * @param {{ title: string, width: number, align?: 'left' | 'right' }[]} columns
 * @param {{ bold: Function, dim: Function }} style
 */
export function createTable(columns, style, { gap = '  ', indent = '  ' } = {}) {
  const pad = (text, { width, align = 'right' }) => {
    const s = String(text);
    const fill = ' '.repeat(Math.max(0, width - visibleLength(s)));
    return align === 'left' ? s + fill : fill + s;
  };
  const line = (cells) => indent + cells.map((c, i) => pad(c, columns[i])).join(gap);
  const totalWidth = columns.reduce((n, c) => n + c.width, 0) + gap.length * (columns.length - 1);
  return {
    width: indent.length + totalWidth,
    header: () => style.bold(line(columns.map((c) => c.title))),
    rule: () => indent + style.dim('─'.repeat(totalWidth)),
    row: (cells) => line(cells),
  };
}
