import { measureDisplayWidth, padToWidth, truncateToWidth } from './display-width.js';

/** Column alignment: text left, figures right. */
export type Align = 'left' | 'right';

export interface TableOptions {
  align: readonly Align[];
  /** @default Infinity */
  maxWidth?: number;
  /** Columns that may be shortened with `…` to fit `maxWidth`. @default every left-aligned column */
  shrinkable?: readonly boolean[];
  /** @default two spaces */
  gap?: string;
}

const MIN_SHRUNK_WIDTH = 8;

/**
 * Pads a table into lines of plain text (no colors: callers color whole lines after padding, so
 * escape codes never upset the widths). Widths are terminal columns: CJK and emoji count two. When a line would exceed `maxWidth`, the widest shrinkable
 * columns are shortened with `…`, never below 8 characters; the first line is the header.
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions,
): string[] {
  const gap = options.gap ?? '  ';
  const shrinkable = headers.map(
    (_, column) => options.shrinkable?.[column] ?? options.align[column] !== 'right',
  );
  // A loop, not `Math.max(...)` over the rows: a spread of 120,000 arguments overflows the stack.
  const widths = headers.map((header) => measureDisplayWidth(header));
  for (const row of rows) {
    widths.forEach((width, column) => {
      widths[column] = Math.max(width, measureDisplayWidth(row[column] ?? ''));
    });
  }
  const maxWidth = options.maxWidth ?? Number.POSITIVE_INFINITY;
  shrinkToFit(widths, shrinkable, maxWidth - gap.length * (widths.length - 1));
  const formatRow = (row: readonly string[]): string =>
    widths
      .map((width, column) => {
        const cell = truncateToWidth(row[column] ?? '', width);
        return padToWidth(cell, width, options.align[column] === 'right' ? 'right' : 'left');
      })
      .join(gap)
      .trimEnd();
  return [formatRow(headers), ...rows.map(formatRow)];
}

function shrinkToFit(widths: number[], shrinkable: readonly boolean[], available: number): void {
  let excess = widths.reduce((sum, width) => sum + width, 0) - available;
  while (excess > 0) {
    let widest = -1;
    widths.forEach((width, column) => {
      if (
        shrinkable[column] === true &&
        width > MIN_SHRUNK_WIDTH &&
        (widest < 0 || width > (widths[widest] ?? 0))
      ) {
        widest = column;
      }
    });
    if (widest < 0) return;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess -= 1;
  }
}
