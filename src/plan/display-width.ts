/**
 * Terminal column widths of text, so tables of unicode ids line up: East Asian wide and fullwidth
 * characters and emoji take two columns, combining marks and zero-width characters none. An
 * approximation of UAX #11 good for ids and model names; no dependency needed.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;
const EMOJI = /\p{Extended_Pictographic}/u;
const EMOJI_PRESENTATION = /\uFE0F/;

/** Code point ranges of East Asian Wide (W) and Fullwidth (F) characters, inclusive. */
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

function isWide(codePoint: number): boolean {
  return WIDE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

/** Columns one grapheme cluster takes in a terminal: 0, 1 or 2. */
function measureGrapheme(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  const first = grapheme.codePointAt(0) ?? 0;
  if (isWide(first)) return 2;
  if (EMOJI.test(grapheme) && (first > 0xffff || EMOJI_PRESENTATION.test(grapheme))) return 2;
  return 1;
}

/** Printable ASCII: one column per character, the common case of ids, paths and figures. */
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/**
 * Characters that take one column each and never join a neighbour into one grapheme: printable ASCII,
 * Latin-1 and Latin Extended letters and signs up to U+02FF (not the soft hyphen, U+00AD, which takes
 * none), and the dashes, quotes, bullet and `…` of U+2010–U+2027. A table cell made only of these is
 * measured by its length: walking grapheme clusters costs ~1 µs a character (4 s of a 100,000-job
 * `runner status`, whose shortened cells end in `…`).
 */
const SINGLE_COLUMN = /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027]*$/;

/** Terminal columns `text` takes (no escape codes expected). */
export function measureDisplayWidth(text: string): number {
  if (SINGLE_COLUMN.test(text)) return text.length;
  return measureByGraphemes(text);
}

/** {@link measureDisplayWidth} by walking grapheme clusters, for any text. */
export function measureByGraphemes(text: string): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += measureGrapheme(segment);
  return width;
}

/** `text` cut to at most `width` columns with a trailing `…`, never splitting a character. */
export function truncateToWidth(text: string, width: number): string {
  if (PRINTABLE_ASCII.test(text)) {
    // One column a character: no need to walk grapheme clusters (40 µs a cell, 8 s of a
    // 100,000-job `runner status`).
    return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
  }
  if (measureDisplayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const next = measureGrapheme(segment);
    if (used + next > width - 1) break;
    out += segment;
    used += next;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns, at the end (`left`) or the start (`right`). */
export function padToWidth(text: string, width: number, align: 'left' | 'right'): string {
  const padding = ' '.repeat(Math.max(0, width - measureDisplayWidth(text)));
  return align === 'right' ? padding + text : text + padding;
}
