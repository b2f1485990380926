import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../../src/service/schemas.js';

describe('checkSchema', () => {
  it('accepts extra fields and absent optional ones', () => {
    const check = checkSchema('job-record', { jobId: 'a', status: 'complete', surprise: { x: 1 } }, 'data');
    expect(check.ok).toBe(true);
  });

  it('names the field and both types on a type mismatch', () => {
    const check = checkSchema('job-record', { jobId: 'abc', status: 3 }, 'data');
    expect(check).toEqual({ ok: false, problem: 'data.status: expected string, received number' });
  });

  it('names a missing required field', () => {
    expect(checkSchema('job-creation', { status: 'WaitingForAgent' }, 'data')).toEqual({
      ok: false,
      problem: 'data.jobId: required field is missing',
    });
  });

  it('indexes into arrays', () => {
    const models = [
      { slug: 'a', displayName: 'A', category: 'image', creditCost: 1 },
      { slug: 'b', displayName: 2, category: 'image', creditCost: 2 },
    ];
    expect(checkSchema('model-list', models, 'data')).toEqual({
      ok: false,
      problem: 'data[1].displayName: expected string, received number',
    });
  });

  it('describes null and union types', () => {
    expect(checkSchema('job-record', { jobId: 'a', status: 'x', error: 5 }, 'data')).toEqual({
      ok: false,
      problem: 'data.error: expected string or null, received number',
    });
    expect(checkSchema('presign', null, 'data')).toEqual({
      ok: false,
      problem: 'data: expected object, received null',
    });
  });

  it('requires data on a successful envelope', () => {
    expect(checkSchema('envelope', { success: true, error: null }, 'body')).toEqual({
      ok: false,
      problem: 'body.data: required field is missing',
    });
    expect(checkSchema('envelope', { success: false, error: 'x', errorCode: 'Y' }, 'body').ok).toBe(true);
  });

  it('never echoes values, only types', () => {
    const check = checkSchema('balance', { freeCredit: 'sk-secret-value' }, 'data');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problem).not.toContain('sk-secret-value');
  });
});
