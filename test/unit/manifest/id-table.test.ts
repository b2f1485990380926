import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIdTable } from '../../../src/manifest/id-table.js';

describe('createIdTable', () => {
  it('answers as a Map of first values does, keys in order of first addition', () => {
    // Few distinct characters and short ids: many repeats, and enough ids to make the table grow.
    const id = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'é', '-', '\u{1F600}'), maxLength: 4 });
    fc.assert(
      fc.property(fc.array(id, { maxLength: 3000 }), fc.array(id, { maxLength: 50 }), (added, asked) => {
        const table = createIdTable();
        const map = new Map<string, number>();
        added.forEach((key, position) => {
          expect(table.add(key, position)).toBe(map.get(key) ?? -1);
          if (!map.has(key)) map.set(key, position);
        });
        expect(table.size).toBe(map.size);
        expect([...table.keys()]).toEqual([...map.keys()]);
        for (const key of [...added, ...asked]) expect(table.get(key)).toBe(map.get(key) ?? -1);
      }),
    );
  });

  it('keeps 100,000 distinct ids apart through every doubling', () => {
    const table = createIdTable();
    let found = 0;
    for (let i = 0; i < 100_000; i++) if (table.add(`job-${i}`, i) !== -1) found++;
    expect(found).toBe(0);
    expect(table.size).toBe(100_000);
    for (let i = 0; i < 100_000; i += 997) expect(table.get(`job-${i}`)).toBe(i);
    expect(table.add('job-5', 7)).toBe(5);
    expect(table.get('job-100000')).toBe(-1);
  });

  it('answers the same when sized for the ids expected, more or fewer than come', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 3000 }),
        fc.nat(5000),
        (added, expected) => {
          const table = createIdTable(expected);
          const map = new Map<string, number>();
          added.forEach((key, position) => {
            expect(table.add(key, position)).toBe(map.get(key) ?? -1);
            if (!map.has(key)) map.set(key, position);
          });
          expect([...table.keys()]).toEqual([...map.keys()]);
          for (const key of added) expect(table.get(key)).toBe(map.get(key));
        },
      ),
      { numRuns: 50 },
    );
  });
});
