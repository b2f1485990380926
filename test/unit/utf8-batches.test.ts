import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Batches } from '../../src/utf8-batches.js';

describe('utf8Batches', () => {
  it('gives the bytes a stream writes for the texts one by one, in buffers no larger than asked', () => {
    // Any UTF-16 (lone surrogates too, written as U+FFFD as a stream writes them), and texts that
    // fill a batch exactly or are too long for one.
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('a', '\uD800', '\uDC00', '\u{1F600}', 'é', '€'), maxLength: 7 }),
      fc.constant(''),
      fc.constant('x'.repeat(40)),
      fc.constant('€'.repeat(200)),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 60 }), fc.integer({ min: 24, max: 120 }), (texts, size) => {
        const batches = [...utf8Batches(texts, size)];
        const expected = Buffer.concat(texts.map((piece) => Buffer.from(piece, 'utf8')));
        expect(Buffer.concat(batches).equals(expected)).toBe(true);
        for (const [index, batch] of batches.entries()) {
          expect(batch.length).toBeGreaterThan(0);
          // Only a text too long for any batch makes one larger than asked, and it is alone in it.
          if (batch.length > size) expect(texts.some((piece) => piece.length * 3 > size)).toBe(true);
          // Each batch is its own memory: a stream may hold it while the next is written.
          for (const other of batches.slice(index + 1)) {
            const overlap =
              other.buffer === batch.buffer &&
              other.byteOffset < batch.byteOffset + batch.length &&
              batch.byteOffset < other.byteOffset + other.length;
            expect(overlap).toBe(false);
          }
        }
      }),
    );
  });

  it('gives nothing for no text, or only empty ones', () => {
    expect([...utf8Batches([])]).toEqual([]);
    expect([...utf8Batches(['', ''])]).toEqual([]);
  });
});
