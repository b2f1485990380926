import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/service/errors.js';
import { createSecretRedactor, isRedactedUrl } from '../../../src/service/secret-redactor.js';

const KEY = 'sk-unit-9f8e7d6c5b4a';

describe('createSecretRedactor (issue #24.6)', () => {
  it('redacts the key deep inside an answer and returns the same object when there is none', () => {
    const redactor = createSecretRedactor(KEY);
    const clean = { jobId: 'J1', resultImages: ['https://cdn.test/a.png'] };
    expect(redactor.redactData(clean)).toBe(clean);
    const echoed = { jobId: 'J1', error: `bad key ${KEY}`, nested: [{ note: KEY }] };
    expect(redactor.redactData(echoed)).toEqual({
      jobId: 'J1',
      error: 'bad key [REDACTED]',
      nested: [{ note: '[REDACTED]' }],
    });
    expect(echoed.error).toContain(KEY);
  });

  it('keeps the real form of a redacted URL in memory, percent-encoded keys included', () => {
    const redactor = createSecretRedactor('key+with/slash-123');
    const real = `https://cdn.test/r/${encodeURIComponent('key+with/slash-123')}/1.png`;
    const stored = redactor.redactData(real);
    expect(stored).toBe('https://cdn.test/r/[REDACTED]/1.png');
    expect(isRedactedUrl(stored)).toBe(true);
    expect(redactor.realUrl(stored)).toBe(real);
    expect(createSecretRedactor('key+with/slash-123').realUrl(stored)).toBeUndefined();
  });

  it('adds the legacy key later and replaces a longer key before a shorter one it contains', () => {
    const redactor = createSecretRedactor(KEY);
    redactor.addSecret(`${KEY}-legacy`);
    redactor.addSecret('abc');
    expect(redactor.redactText(`${KEY}-legacy and ${KEY} and abc`)).toBe('[REDACTED] and [REDACTED] and abc');
  });

  it('redacts an error in place: message, path, service message, stack and cause', () => {
    const redactor = createSecretRedactor(KEY);
    const error = new NotFoundError({ method: 'GET', path: `host/r/${KEY}/1.png` }, { serviceMessage: KEY });
    (error as { cause?: unknown }).cause = new Error(`socket to ${KEY}`);
    expect(redactor.redactError(error)).toBe(error);
    expect(
      JSON.stringify({ ...error, message: error.message, stack: error.stack, cause: String(error.cause) }),
    ).not.toContain(KEY);
    expect(error.path).toBe('host/r/[REDACTED]/1.png');
  });
});
