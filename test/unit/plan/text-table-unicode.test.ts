import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../../src/plan/text-table.js';
import { measureByGraphemes, measureDisplayWidth, truncateToWidth } from '../../../src/plan/display-width.js';

/** Terminal columns of a line, using the same rule a terminal does for these sample characters. */
const columns = (line: string): number => measureDisplayWidth(line);

describe('formatTable with non-ASCII text', () => {
  it('measures wide, combining and emoji characters as a terminal shows them', () => {
    expect(measureDisplayWidth('latte')).toBe(5);
    expect(measureDisplayWidth('咖啡拿铁')).toBe(8);
    expect(measureDisplayWidth('cafe\u0301')).toBe(4);
    expect(measureDisplayWidth('🍵matcha')).toBe(8);
    expect(measureDisplayWidth('👩‍💻')).toBe(2);
  });

  it('gives two columns to flags, keycaps and the emoji shown as emoji by default, as terminals do', () => {
    // The hand-written width table before get-east-asian-width gave each of these one column (#21.3).
    expect(measureDisplayWidth('🇯🇵')).toBe(2);
    expect(measureDisplayWidth('1️⃣')).toBe(2);
    expect(measureDisplayWidth('⌚✅⭐⚡☔')).toBe(10);
    expect(measureDisplayWidth('\u{17000}')).toBe(2); // Tangut: East Asian Wide
    expect(measureDisplayWidth('ｶﾞ')).toBe(2); // halfwidth kana and its halfwidth dakuten
    expect(measureDisplayWidth('क्षि')).toBe(2); // a spacing vowel sign takes a column of its own
    // Text presentation stays one column; VS16 asks for the emoji.
    expect(measureDisplayWidth('☺')).toBe(1);
    expect(measureDisplayWidth('☺️')).toBe(2);
    const lines = formatTable(
      ['Job', 'N'],
      [
        ['done-✅', '4'],
        ['done-ok', '4'],
      ],
      { align: ['left', 'right'] },
    );
    expect(new Set(lines.map(columns)).size).toBe(1);
  });

  it('keeps the right-aligned column lined up when ids hold CJK, combining marks or emoji', () => {
    const rows = [
      ['hero-咖啡拿铁', '4'],
      ['hero-cafe\u0301', '4'],
      ['hero-🍵matcha', '4'],
      ['hero-latte', '4'],
    ];
    const lines = formatTable(['Job', 'Credits'], rows, { align: ['left', 'right'] });
    const widths = lines.map(columns);
    expect(new Set(widths).size).toBe(1);
    expect(lines[1]).toBe('hero-咖啡拿铁  ' + '      4');
  });

  it('shortens wide text by columns, never splitting a character', () => {
    const rows = [['咖啡拿铁咖啡拿铁咖啡拿铁', '4']];
    const lines = formatTable(['Job', 'N'], rows, { align: ['left', 'right'], maxWidth: 15 });
    for (const line of lines) expect(columns(line)).toBeLessThanOrEqual(15);
    expect(lines[1]).toMatch(/^咖啡拿铁咖… +4$/);
    expect(lines[1]).not.toMatch(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    const emoji = formatTable(['Job'], [['🍵🍵🍵🍵🍵🍵🍵🍵🍵🍵']], { align: ['left'], maxWidth: 9 });
    expect(emoji[1]).toMatch(/^(🍵)+…$/);
    expect(columns(emoji[1]!)).toBeLessThanOrEqual(9);
  });
});

describe('formatTable and truncateToWidth at scale', () => {
  it('lays out 200,000 rows (a runner status of a 200,000-job run) without overflowing the stack', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [`job-${i}`, String(i % 7)]);
    const lines = formatTable(['Job', 'Credits'], rows, { align: ['left', 'right'] });
    expect(lines).toHaveLength(200_001);
    expect(lines[200_000]).toBe('job-199999        2');
  });

  it('cuts printable ASCII to exactly the width, ending in …, and leaves text that fits alone', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x20-\x7e]{0,30}$/),
        fc.integer({ min: 1, max: 40 }),
        (text, width) => {
          const cut = truncateToWidth(text, width);
          if (text.length <= width) expect(cut).toBe(text);
          else {
            expect(measureDisplayWidth(cut)).toBe(width);
            expect(cut.endsWith('…')).toBe(true);
            expect(text.startsWith(cut.slice(0, -1))).toBe(true);
          }
        },
      ),
    );
  });
});

describe('measureDisplayWidth of Latin and punctuation text', () => {
  it('measures by length exactly what walking grapheme clusters gives', () => {
    const ranges: [number, number][] = [
      [0x20, 0x7e],
      [0xa0, 0x2ff],
      [0x2010, 0x2027],
    ];
    for (const [low, high] of ranges) {
      for (let code = low; code <= high; code++) {
        const text = `a${String.fromCharCode(code)}b`;
        expect(measureDisplayWidth(text), `U+${code.toString(16)}`).toBe(measureByGraphemes(text));
      }
    }
    const char = fc.oneof(
      ...ranges.map(([low, high]) =>
        fc.integer({ min: low, max: high }).map((code) => String.fromCharCode(code)),
      ),
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 20 }), (chars) => {
        const text = chars.join('');
        expect(measureDisplayWidth(text)).toBe(measureByGraphemes(text));
      }),
    );
  });
});
