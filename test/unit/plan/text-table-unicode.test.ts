import { describe, expect, it } from 'vitest';
import { formatTable } from '../../../src/plan/text-table.js';
import { measureDisplayWidth } from '../../../src/plan/display-width.js';

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
