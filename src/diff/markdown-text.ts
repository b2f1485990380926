/**
 * User strings (job ids, paths, prompts' dotted paths, model names, axis values) in a pull request
 * comment are text, never markup: a job id like `a|b`, `<img src=x>` or `@octocat` must neither break a
 * table, inject HTML, nor ping anyone. Two contexts need two escapes: Markdown text (table cells,
 * paragraphs) and raw HTML (`<summary>`, where GitHub does not read Markdown).
 */
import type { CreditDelta } from './cost-diff.js';

/** Longest user string shown in a cell; longer ones are cut with `…` (the JSON has them whole). */
export const MAX_SHOWN_CHARS = 200;

/** `@` followed by a zero-width space: shows as `@name` but is no mention (as Dependabot writes them). */
const NO_MENTION = '@&#8203;';

/** Newlines, tabs and other control characters would end a table row or vanish: each becomes a space. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks): a right-to-left override makes
 * `gpj.exe` read as `exe.jpg`, so a value shows other than it is (issue #32.6). They are dropped.
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * What GFM turns into a link by itself in text (its extended autolinks: a scheme it knows, or `www.`):
 * a value from a manifest or a catalog that looks like one is shown as a code span instead (#32.6).
 */
const AUTOLINK = /(?:https?|ftp|mailto|xmpp):|www\./i;

function cut(text: string, max: number): string {
  const chars = [...text.replace(BIDI, '').replace(CONTROL, ' ')];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * A user string as Markdown text (a table cell or a paragraph): `&`, `<`, `>` as entities (no HTML, no
 * entity smuggled in), every other ASCII punctuation that Markdown reads backslash-escaped (CommonMark
 * allows escaping any of them; in a GFM table `\|` is the escaped pipe), `@` defused, control characters
 * as spaces, bidirectional controls dropped, cut at {@link MAX_SHOWN_CHARS}. A value GFM would link by
 * itself (`https://…`, `www.…`) is a {@link tableCodeSpan} instead: escapes do not stop an autolink.
 */
export function escapeMarkdownText(text: string, max = MAX_SHOWN_CHARS): string {
  if (AUTOLINK.test(text.replace(BIDI, ''))) return tableCodeSpan(text, max);
  return cut(text, max).replace(/[&<>@\\`*_[\]{}()#+\-.!|~:"']/g, (c) => {
    if (c === '&') return '&amp;';
    if (c === '<') return '&lt;';
    if (c === '>') return '&gt;';
    if (c === '@') return NO_MENTION;
    // Dots, dashes and colons are escaped only where Markdown could read them (a list, a link scheme):
    // inside a word they read as written and keep paths and ids legible in the comment's source.
    if (c === '.' || c === '-' || c === ':' || c === '"' || c === "'") return c;
    return `\\${c}`;
  });
}

/**
 * A user string inside raw HTML (`<summary>…</summary>`), where GitHub shows backslashes as written:
 * entities only. Markdown's own characters become numeric entities too, in case a renderer reads
 * Markdown there after all.
 */
export function escapeHtmlText(text: string, max = MAX_SHOWN_CHARS): string {
  return cut(text, max).replace(/[&<>"'`*_[\]|\\@]/g, (c) =>
    c === '@' ? NO_MENTION : `&#${c.codePointAt(0) ?? 0};`,
  );
}

/**
 * A user string as a Markdown code span: shown as written, never read as Markdown, HTML, a link or a
 * mention (GitHub links and mentions nothing inside a code span). The fence is one backtick longer
 * than the longest run inside; control characters become spaces; cut at `max` with `…`.
 */
export function codeSpan(text: string, max = MAX_SHOWN_CHARS): string {
  const shown = cut(text, max);
  const longest = Math.max(0, ...(shown.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space from each end when both are there: a value that starts or ends with
  // a backtick (or a space) is padded so it shows whole.
  const pad = /^[` ]|[` ]$/.test(shown) ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * {@link codeSpan} inside a GFM table cell: a `|` would end the cell even in a code span, so it is
 * escaped (`\|`), which GFM reads as a pipe inside any inline span of a cell.
 */
export function tableCodeSpan(text: string, max = MAX_SHOWN_CHARS): string {
  return codeSpan(text, max).replace(/\|/g, '\\|');
}

let credits: Intl.NumberFormat | undefined;

/**
 * A credit figure for people, as `runner plan` prints them: at most 2 decimals, thousands grouped
 * (`12,345.5`). One formatter for the whole comment: a 100,000-row diff formats many figures. Made on
 * first use, not when the module loads: making it loads ICU's number data (~50 ms), and `plan` loads
 * this module without formatting a figure here.
 */
export function formatCredits(value: number): string {
  credits ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
  return credits.format(value);
}

/** `1,240` with a sign: `+1,240`, `-80`, `0`. */
export function formatSigned(value: number): string {
  if (value > 0) return `+${formatCredits(value)}`;
  if (value < 0) return `-${formatCredits(-value)}`;
  return '0';
}

/** A percentage as the issue writes it: `+38 %`, `-4.5 %`. */
export function formatPercent(percent: number): string {
  const shown = Number.isInteger(percent) ? String(Math.abs(percent)) : Math.abs(percent).toFixed(1);
  return `${percent > 0 ? '+' : percent < 0 ? '-' : ''}${shown} %`;
}

/** A delta with its percentage: `+1,240 (+38 %)`, `+300 (new)` when the base was 0, `0`. */
export function formatDelta(delta: CreditDelta): string {
  if (delta.delta === 0) return '0';
  if (delta.percent === null) return `${formatSigned(delta.delta)} (new)`;
  return `${formatSigned(delta.delta)} (${formatPercent(delta.percent)})`;
}

/** A delta with its unit before the percentage: `+1,240 credits per night (+38 %)`. */
export function formatDeltaIn(delta: CreditDelta, unit: string): string {
  const [amount = '0', percent] = formatDelta(delta).split(' (');
  return percent === undefined ? `${amount} ${unit}` : `${amount} ${unit} (${percent}`;
}

/** `12` or `10 → 12`. */
export function formatCountChange(base: number, head: number): string {
  return base === head ? String(head) : `${base} → ${head}`;
}
