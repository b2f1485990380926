import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/redact-secrets.js';

const KEY = 'sk-ECHO+enc/5e1d0c9b7a2f';

/** Every form issue #32.2 found a key echoed in, and a few more a service could write. */
function encodings(key: string): Record<string, string> {
  const bytes = [...Buffer.from(key, 'utf8')];
  const hex = (code: number) => code.toString(16).padStart(2, '0');
  return {
    raw: key,
    upper: key.toUpperCase(),
    lower: key.toLowerCase(),
    'percent, upper hex': encodeURIComponent(key),
    'percent, lower hex (.NET)': encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (s) => s.toLowerCase()),
    'percent, every byte': bytes.map((b) => `%${hex(b).toUpperCase()}`).join(''),
    'percent, every byte, lower': bytes.map((b) => `%${hex(b)}`).join(''),
    'percent, twice': encodeURIComponent(encodeURIComponent(key)),
    'html hex entities': [...key].map((c) => `&#x${hex(c.charCodeAt(0))};`).join(''),
    'html decimal entities': [...key].map((c) => `&#${c.charCodeAt(0)};`).join(''),
    'html named entities': key.replace(/\+/g, '&plus;').replace(/\//g, '&sol;'),
    'html escaped twice': [...key].map((c) => `&amp;#${c.charCodeAt(0)};`).join(''),
    'json \\u escapes': [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    'json \\u escapes, upper': [...key]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)
      .join(''),
    'json \\/': key.replace(/\//g, '\\/'),
    base64: Buffer.from(key).toString('base64'),
    'base64, offset 1': Buffer.from(`x${key}`).toString('base64'),
    'base64, offset 2': Buffer.from(`xy${key}yz`).toString('base64'),
    base64url: Buffer.from(`!${key}`).toString('base64url'),
    mixed: `${key.slice(0, 4)}%${hex(key.charCodeAt(4))}&#${key.charCodeAt(5)};${key.slice(6)}`,
  };
}

describe('redactSecrets', () => {
  for (const [name, form] of Object.entries(encodings(KEY))) {
    it(`takes the key out when written ${name}`, () => {
      const text = `Invalid key "${form}" (see docs)`;
      const redacted = redactSecrets(text, [KEY]);
      expect(redacted).toContain('[REDACTED]');
      expect(redacted.startsWith('Invalid key "')).toBe(true);
      expect(redacted.endsWith('" (see docs)')).toBe(true);
      expect(redacted).not.toContain(form);
    });
  }

  it('leaves a text without the key as it is, escapes included', () => {
    const text = 'Nothing here: 100% &amp; \\u0041 %zz &#xZZ; aGVsbG8gd29ybGQ=';
    expect(redactSecrets(text, [KEY])).toBe(text);
  });

  it('keeps what surrounds each occurrence and replaces each one', () => {
    const text = `a=${KEY}&b=${encodeURIComponent(KEY)}&c=1`;
    expect(redactSecrets(text, [KEY])).toBe('a=[REDACTED]&b=[REDACTED]&c=1');
  });

  it("leaves no base64 character that carries the key's bits (any prefix and suffix)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), (before, after) => {
        const encoded = Buffer.from(`${before}${KEY}${after}`).toString('base64');
        const redacted = redactSecrets(`<${encoded}>`, [KEY]);
        expect(redacted).toContain('[REDACTED]');
        // What is left decodes to no more than the parts around the key.
        const left = redacted.slice(1, -1).split('[REDACTED]');
        const bytesLeft = left.reduce((sum, part) => sum + Buffer.from(part, 'base64').length, 0);
        expect(bytesLeft).toBeLessThanOrEqual(Buffer.byteLength(before) + Buffer.byteLength(after));
      }),
    );
  });
});
