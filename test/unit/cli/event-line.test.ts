import { describe, it, expect } from 'vitest';
import { formatEventLine } from '../../../src/cli/render/event-line.js';
import { createStyle } from '../../../src/text-style.js';

describe('formatEventLine', () => {
  it('says when a deferred job is retried in UTC words, not ISO, to the second: a retry at 07:00:10 would be refused', () => {
    const line = formatEventLine(
      {
        type: 'job-deferred',
        id: 'busy',
        attempt: 1,
        failureKind: 'QUOTA_EXHAUSTED',
        notBefore: Date.UTC(2026, 10, 27, 7, 0, 17, 393),
      },
      createStyle(false),
    );
    expect(line).toBe('deferred  busy: QUOTA_EXHAUSTED; retry after 27 Nov 2026, 07:00:17 UTC');
  });
});
