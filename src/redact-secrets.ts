/**
 * Takes secrets out of a text in every form a text can carry them in (issue #32.2, #32.4): as typed, in
 * any letter case, percent-encoded (either hex case, some or every byte), as HTML character references
 * (decimal, hex or named), as JSON `\u` escapes, nested (`&amp;#x73;`, `%2525`), and in base64 (either
 * alphabet, at any of the three byte alignments).
 *
 * The text is normalized first (each escape decoded, every decoded character remembering the span of
 * the original it came from) and the secrets are matched in that form, so one pass finds a key however
 * its characters were mixed; the spans are then replaced in the original text. One function for the
 * service's keys and the GitHub token, so both are taken out the same way.
 */
import { REDACTED } from './redacted.js';

/** A text with each secret, in any form, replaced by `[REDACTED]`. */
export type SecretMatcher = (text: string) => string;

/** Escapes of escapes: `&amp;#x73;` takes two rounds, `%252B` two; three is a margin. */
const MAX_DECODE_ROUNDS = 3;

/**
 * Named HTML character references of ASCII characters (HTML's named character list), the ones a key's
 * characters can be written as; digits and letters have none.
 */
const NAMED_ASCII: Readonly<Record<string, string>> = {
  tab: '\t',
  newline: '\n',
  excl: '!',
  quot: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  equals: '=',
  gt: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  hat: '^',
  lowbar: '_',
  underbar: '_',
  grave: '`',
  diacriticalgrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  verticalline: '|',
  rcub: '}',
  rbrace: '}',
};

/** One escape at a position: `%2b`, `&#x2B;`, `&#43;`, `&plus;`, `\u002b`, JSON's `\/`. */
const ESCAPE =
  /%([0-9a-f]{2})|&#x([0-9a-f]{1,6});?|&#([0-9]{1,7});?|&([a-z]{2,20});|\\u([0-9a-f]{4})|\\(\/)/iy;

/** A text in its decoded form; `starts[i]`/`ends[i]` is the original span of `text[i]`. */
interface Decoded {
  text: string;
  starts: number[];
  ends: number[];
}

function decodeEscape(match: RegExpExecArray): string | undefined {
  const [, percent, hex, decimal, name, unicode, slash] = match;
  if (percent !== undefined) return String.fromCharCode(parseInt(percent, 16));
  if (unicode !== undefined) return String.fromCharCode(parseInt(unicode, 16));
  if (slash !== undefined) return slash;
  if (name !== undefined) return NAMED_ASCII[name.toLowerCase()];
  const codePoint = hex === undefined ? Number(decimal) : parseInt(hex, 16);
  return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : undefined;
}

/** One round of decoding, each decoded character keeping the original span of its escape. */
function decodeOnce(input: Decoded): Decoded {
  const { text } = input;
  let out = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    let decoded: string | undefined;
    let length = 1;
    if (char === '%' || char === '&' || char === '\\') {
      ESCAPE.lastIndex = index;
      const match = ESCAPE.exec(text);
      if (match !== null) {
        decoded = decodeEscape(match);
        length = match[0].length;
      }
    }
    if (decoded === undefined) {
      decoded = char;
      length = 1;
    }
    const start = input.starts[index] ?? index;
    const end = input.ends[index + length - 1] ?? index + length;
    for (let unit = 0; unit < decoded.length; unit++) {
      starts.push(start);
      ends.push(end);
    }
    out += decoded;
    index += length;
  }
  return { text: out, starts, ends };
}

/** ASCII letters lower-cased, nothing else changed: the length stays, so positions still map. */
function foldCase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The base64 characters that depend on the secret's bytes alone, at each of the three alignments it can
 * have inside a longer encoded text, in both alphabets (RFC 4648 sections 4 and 5).
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const firstBit = offset * 8;
    const endBit = (offset + bytes.length) * 8;
    const from = Math.ceil(firstBit / 6);
    const to = Math.floor(endBit / 6);
    const core = encoded.slice(from, to);
    if (core.length >= 4) {
      cores.add(core);
      cores.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...cores];
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** Every occurrence of `needle` in `haystack`, as [start, end) index pairs. */
function findAll(haystack: string, needle: string, found: [number, number][]): void {
  if (needle === '') return;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    found.push([at, at + needle.length]);
    at = haystack.indexOf(needle, at + 1);
  }
}

/**
 * A matcher for `secrets` (each at least a few characters long: shorter values would match everywhere).
 * Build it once per set of secrets; it is called on every string of every answer.
 */
export function createSecretMatcher(secrets: readonly string[]): SecretMatcher {
  const plain = new Set<string>();
  const base64 = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    plain.add(foldCase(secret));
    // A non-ASCII secret percent-encoded is its UTF-8 bytes, decoded above one per character.
    plain.add(foldCase(Buffer.from(secret, 'utf8').toString('latin1')));
    for (const core of base64Cores(secret)) base64.add(core);
  }
  if (plain.size === 0) return (text) => text;

  return (text: string): string => {
    let decoded: Decoded = { text, starts: [], ends: [] };
    for (let round = 0; round < MAX_DECODE_ROUNDS && /[%&\\]/.test(decoded.text); round++) {
      const next = decodeOnce(decoded);
      if (next.text === decoded.text) break;
      decoded = next;
    }
    const spans: [number, number][] = [];
    const folded = foldCase(decoded.text);
    for (const secret of plain) findAll(folded, secret, spans);
    for (const core of base64) {
      const found: [number, number][] = [];
      findAll(decoded.text, core, found);
      for (const [start, end] of found) {
        // The characters at each edge that mix the secret's bits with its neighbours', and padding.
        let from = start;
        let to = end;
        if (from > 0 && BASE64_CHAR.test(decoded.text[from - 1] ?? '')) from--;
        if (to < decoded.text.length && BASE64_CHAR.test(decoded.text[to] ?? '')) to++;
        while (to < decoded.text.length && decoded.text[to] === '=' && to - end < 3) to++;
        spans.push([from, to]);
      }
    }
    if (spans.length === 0) return text;
    const original = spans
      .map(([start, end]): [number, number] => [decoded.starts[start] ?? start, decoded.ends[end - 1] ?? end])
      .sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [start, end] of original) {
      const last = merged.at(-1);
      if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    let result = '';
    let copied = 0;
    for (const [start, end] of merged) {
      result += text.slice(copied, start) + REDACTED;
      copied = end;
    }
    return result + text.slice(copied);
  };
}

/** `text` with each of `secrets` taken out in every form (see {@link createSecretMatcher}). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return createSecretMatcher(secrets)(text);
}
