import { eastAsianWidth } from 'get-east-asian-width';

/**
 * Terminal column widths of text, so tables of unicode ids line up: by grapheme cluster, the Unicode
 * East Asian Width (UAX #11) of its first visible character from get-east-asian-width (wide and
 * fullwidth characters, and the emoji shown as emoji by default, take two columns; ambiguous ones one),
 * two columns for flags, keycaps and emoji asked for with U+FE0F or joined with U+200D, none for
 * combining and zero-width characters. These are string-width's rules; string-width itself is not used
 * because its emoji check, `\p{RGI_Emoji}`, costs V8 ~245 M instructions (~35 ms) to compile at the
 * first table cell that is not Latin text (bench/README.md, #21.3).
 */

/**
 * Made at the first text that is not Latin: the first use of Intl loads ICU's data (~40 ms), which
 * `runner plan` and `validate` of Latin ids never need (bench/README.md, #34).
 */
let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): Intl.Segments {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return segmenter.segment(text);
}

/** A character that shows: not a control, format, combining or default-ignorable one. */
const VISIBLE = /[^\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Cs}]/u;
/** Clusters a terminal draws as one two-column emoji, whatever the width of their first character. */
const KEYCAP = /^[\d#*]\uFE0F?\u20E3$/u;
const FLAG = /^[\u{1F1E6}-\u{1F1FF}]{2}$/u;
const EMOJI_PRESENTATION = /\p{Extended_Pictographic}\uFE0F/u;
const PICTOGRAPHS = /\p{Extended_Pictographic}/gu;
/** Characters after the first of a cluster that take columns of their own. */
const SPACING_MARK_OR_HALFWIDTH_FORM = /[\p{Mc}\uFF00-\uFFEF]/u;

/** Columns one grapheme cluster takes in a terminal: 0, 1, 2 or, with spacing marks, more. */
function measureGrapheme(grapheme: string): number {
  const start = grapheme.search(VISIBLE);
  if (start < 0) return 0;
  const visible = start === 0 ? grapheme : grapheme.slice(start);
  if (visible.length > 1 && isEmojiCluster(visible)) return 2;
  let width = 0;
  for (const character of visible) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (width === 0) width = eastAsianWidth(codePoint);
    else if (SPACING_MARK_OR_HALFWIDTH_FORM.test(character)) width += eastAsianWidth(codePoint);
  }
  return width;
}

function isEmojiCluster(cluster: string): boolean {
  if (KEYCAP.test(cluster) || FLAG.test(cluster) || EMOJI_PRESENTATION.test(cluster)) return true;
  // A joined sequence of pictographs, even without U+FE0F (a minimally qualified emoji).
  return cluster.includes('\u200d') && (cluster.match(PICTOGRAPHS)?.length ?? 0) >= 2;
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
  for (const { segment } of graphemes(text)) width += measureGrapheme(segment);
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
  for (const { segment } of graphemes(text)) {
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
