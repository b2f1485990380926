import { describe, expect, it } from 'vitest';
import { parseByteSize } from '../../../src/cli/parse/values.js';
import {
  parseDialectSpec,
  parseHostileSpec,
  shapeBalance,
  shapeCreation,
  shapeJobRecord,
  shapeModels,
  stringifyNumbers,
} from '../../../src/simulator/dialect.js';

describe('simulator dialect', () => {
  it('parses the --dialect flag', () => {
    expect(
      parseDialectSpec(
        'balance=credits-only, numbersAsStrings,results=none,failedStatus=cancelled,maxConcurrentJobs=2',
      ),
    ).toEqual({
      balance: 'credits-only',
      numbersAsStrings: true,
      results: 'none',
      failedStatus: 'cancelled',
      maxConcurrentJobs: 2,
    });
    expect(parseDialectSpec('balance=some')).toBe('cannot read "balance=some"');
    expect(parseDialectSpec('maxConcurrentJobs=two')).toBe('cannot read "maxConcurrentJobs=two"');
  });

  it('parses and applies rewritten prices (#24.2)', () => {
    const dialect = parseDialectSpec('catalogCost.veo=-30,catalogCost.img=free,reportedCost=null');
    expect(dialect).toEqual({ catalogCosts: { veo: -30, img: 'free' }, reportedCost: null });
    if (typeof dialect === 'string') return;
    const models = [
      { slug: 'veo', creditCost: 20 },
      { slug: 'other', creditCost: 4 },
    ];
    expect(shapeModels(models, dialect)).toEqual([
      { slug: 'veo', creditCost: -30 },
      { slug: 'other', creditCost: 4 },
    ]);
    expect(shapeCreation({ jobId: 'j', creditCost: 8 }, dialect)).toEqual({ jobId: 'j', creditCost: null });
    expect(
      shapeCreation({ jobId: 'j', creditCost: 8 }, { creation: 'job-id-only', reportedCost: -1 }),
    ).toEqual({ jobId: 'j' });
  });

  it('parses the --hostile flag', () => {
    expect(parseHostileSpec('errorTextBytes=100000,dripPollMs=500')).toEqual({
      errorTextBytes: 100_000,
      dripPollMs: 500,
    });
    expect(parseHostileSpec('dripPollMs=0')).toBe('cannot read "dripPollMs=0"');
  });

  it('leaves the spec shapes untouched without a dialect', () => {
    const balance = { freeCredit: 1, availableCredit: 1, apiKey: 'k' };
    expect(shapeBalance(balance, {})).toBe(balance);
    const record = { jobId: 'j', status: 'complete', resultUrl: 'u', resultImages: ['u'], error: null };
    expect(shapeJobRecord(record, {}, {})).toEqual(record);
  });

  it('sends numbers as strings at any depth', () => {
    expect(stringifyNumbers({ a: 1, b: [2, { c: 3 }], d: null, e: 'x' })).toEqual({
      a: '1',
      b: ['2', { c: '3' }],
      d: null,
      e: 'x',
    });
  });
});

describe('parseByteSize (--max-download-size)', () => {
  it.each([
    ['2GB', 2 * 1024 ** 3],
    ['500mb', 500 * 1024 ** 2],
    ['64k', 64 * 1024],
    ['1048576', 1_048_576],
    [4096, 4096],
  ] as const)('%s → %d bytes', (value, bytes) => {
    expect(parseByteSize('max-download-size', value)).toBe(bytes);
  });

  it('refuses what it cannot read', () => {
    expect(() => parseByteSize('max-download-size', '2 parsecs')).toThrow(
      '--max-download-size expects a size such as 2GB, 500MB or 1048576 (bytes); received "2 parsecs".',
    );
  });
});
