import { describe, expect, it } from 'vitest';
import { readableUtcTime } from '../../src/readable-time.js';

describe('readableUtcTime', () => {
  it('shows an ISO instant as a person reads it, in UTC, to the minute', () => {
    expect(readableUtcTime('2026-11-27T07:00:17.393Z')).toBe('27 Nov 2026, 07:00 UTC');
    expect(readableUtcTime('2027-01-03T23:59:59.999Z')).toBe('3 Jan 2027, 23:59 UTC');
  });

  it('reads an offset instant in UTC, whatever the machine’s zone', () => {
    expect(readableUtcTime('2026-11-27T09:05:00+09:00')).toBe('27 Nov 2026, 00:05 UTC');
  });

  it('reads milliseconds since the epoch as the same instant', () => {
    expect(readableUtcTime(Date.UTC(2026, 10, 27, 7, 0, 17, 393))).toBe('27 Nov 2026, 07:00 UTC');
  });

  it('says the seconds of a time something waits for', () => {
    expect(readableUtcTime('2026-11-27T07:00:17.393Z', { seconds: true })).toBe('27 Nov 2026, 07:00:17 UTC');
    expect(readableUtcTime(Date.UTC(2026, 0, 1, 3), { seconds: true })).toBe('1 Jan 2026, 03:00:00 UTC');
  });

  it('leaves text that is no time as it is', () => {
    expect(readableUtcTime('yesterday')).toBe('yesterday');
  });
});
