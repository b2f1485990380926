import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countMatrixProduct,
  countMatrixUpperBound,
  expandMatrix,
  matrixValueText,
} from '../../../src/manifest/expand-matrix.js';
import type { MatrixSpec } from '../../../src/manifest/types.js';

describe('expandMatrix', () => {
  it('builds the cross product in declaration order, first axis slowest', () => {
    expect(expandMatrix({ a: [1, 2], b: ['x', 'y'] })).toEqual([
      { a: 1, b: 'x' },
      { a: 1, b: 'y' },
      { a: 2, b: 'x' },
      { a: 2, b: 'y' },
    ]);
  });

  it('expands the example of the brief: exclude drops, include adds', () => {
    const matrix: MatrixSpec = {
      product: ['latte', 'mocha', 'cold brew'],
      style: ['watercolor', '35mm photo'],
      exclude: [{ product: 'mocha', style: 'watercolor' }],
      include: [{ product: 'espresso', style: 'watercolor' }],
    };
    expect(
      expandMatrix(matrix).map((c) => `${matrixValueText(c['product'])}/${matrixValueText(c['style'])}`),
    ).toEqual([
      'latte/watercolor',
      'latte/35mm photo',
      'mocha/35mm photo',
      'cold brew/watercolor',
      'cold brew/35mm photo',
      'espresso/watercolor',
    ]);
  });

  it('drops every combination matching all keys of a partial exclude entry', () => {
    expect(expandMatrix({ a: [1, 2], b: [1, 2], exclude: [{ a: 1 }] })).toEqual([
      { a: 2, b: 1 },
      { a: 2, b: 2 },
    ]);
  });

  // The example from GitHub's "Expanding or adding matrix configurations" documentation.
  it('follows GitHub Actions include semantics', () => {
    const matrix: MatrixSpec = {
      fruit: ['apple', 'pear'],
      animal: ['cat', 'dog'],
      include: [
        { color: 'green' },
        { color: 'pink', animal: 'cat' },
        { fruit: 'apple', shape: 'circle' },
        { fruit: 'banana' },
        { fruit: 'banana', animal: 'cat' },
      ],
    };
    expect(expandMatrix(matrix)).toEqual([
      { fruit: 'apple', animal: 'cat', color: 'pink', shape: 'circle' },
      { fruit: 'apple', animal: 'dog', color: 'green', shape: 'circle' },
      { fruit: 'pear', animal: 'cat', color: 'pink' },
      { fruit: 'pear', animal: 'dog', color: 'green' },
      { fruit: 'banana' },
      { fruit: 'banana', animal: 'cat' },
    ]);
  });

  it('treats a matrix of only include entries as a list of combinations', () => {
    expect(expandMatrix({ include: [{ a: 1 }, { a: 2, b: true }] })).toEqual([{ a: 1 }, { a: 2, b: true }]);
  });

  it('does not mutate its input', () => {
    const matrix: MatrixSpec = { a: [1], include: [{ b: 2 }] };
    const copy = structuredClone(matrix);
    const [first] = expandMatrix(matrix);
    first!['c'] = 3;
    expect(matrix).toEqual(copy);
  });

  it('counts without building the combinations', () => {
    const matrix: MatrixSpec = {
      a: Array.from({ length: 1000 }, (_, i) => i),
      b: Array.from({ length: 1000 }, (_, i) => i),
    };
    expect(countMatrixProduct(matrix)).toBe(1_000_000);
    expect(countMatrixUpperBound({ ...matrix, include: [{ c: 1 }] })).toBe(1_000_001);
    expect(countMatrixProduct({ include: [{ a: 1 }] })).toBe(0);
  });
});

const axisValues = fc.uniqueArray(
  fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean()),
  {
    minLength: 1,
    maxLength: 4,
  },
);
const axes = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), axisValues, { minKeys: 1 });

describe('matrix properties', () => {
  it('the count equals the product of the axis lengths, and all combinations are distinct', () => {
    fc.assert(
      fc.property(axes, (matrix) => {
        const combinations = expandMatrix(matrix);
        const product = Object.values(matrix).reduce((n, values) => n * values.length, 1);
        expect(combinations).toHaveLength(product);
        expect(countMatrixProduct(matrix)).toBe(product);
        expect(new Set(combinations.map((c) => JSON.stringify(c))).size).toBe(product);
      }),
    );
  });

  it('exclude never increases the count', () => {
    fc.assert(
      fc.property(
        axes.chain((matrix) => {
          const entry = fc.dictionary(
            fc.constantFrom(...Object.keys(matrix)),
            fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean()),
            { minKeys: 1 },
          );
          return fc.tuple(fc.constant(matrix), fc.array(entry, { maxLength: 3 }));
        }),
        ([matrix, exclude]) => {
          expect(expandMatrix({ ...matrix, exclude }).length).toBeLessThanOrEqual(
            expandMatrix(matrix).length,
          );
        },
      ),
    );
  });

  it('include never adds more than one combination per entry', () => {
    fc.assert(
      fc.property(
        axes,
        fc.array(fc.dictionary(fc.constantFrom('a', 'x'), fc.integer({ min: 0, max: 3 }), { minKeys: 1 }), {
          maxLength: 4,
        }),
        (matrix, include) => {
          const count = expandMatrix({ ...matrix, include }).length;
          expect(count).toBeGreaterThanOrEqual(expandMatrix(matrix).length);
          expect(count).toBeLessThanOrEqual(countMatrixUpperBound({ ...matrix, include }));
        },
      ),
    );
  });
});
