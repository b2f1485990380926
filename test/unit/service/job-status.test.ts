import { describe, expect, it } from 'vitest';
import { buildJobRecord, normalizeJobPhase } from '../../../src/service/job-status.js';

describe('normalizeJobPhase', () => {
  it.each([
    ['WaitingForAgent', 'queued'],
    ['waitingforagent', 'queued'],
    ['Processing', 'running'],
    ['PROCESSING', 'running'],
    ['complete', 'complete'],
    ['Completed', 'complete'],
    ['error', 'failed'],
    ['Failed', 'failed'],
    ['cancelled', 'failed'],
    ['canceled', 'failed'],
    ['done?', 'unknown'],
    ['', 'unknown'],
  ] as const)('%s → %s', (status, phase) => {
    expect(normalizeJobPhase(status)).toBe(phase);
  });
});

describe('buildJobRecord', () => {
  it('takes resultImages, filtered to non-empty strings', () => {
    const record = buildJobRecord({
      jobId: 'j1',
      status: 'complete',
      resultImages: ['https://cdn/a.png', 3, null, '', 'https://cdn/b.png'],
      resultUrl: 'https://cdn/ignored.png',
      creditCost: 4,
      chargeSource: 'Credit',
    });
    expect(record).toEqual({
      jobId: 'j1',
      status: 'complete',
      phase: 'complete',
      resultUrls: ['https://cdn/a.png', 'https://cdn/b.png'],
      creditCost: 4,
      chargeSource: 'Credit',
    });
  });

  it('falls back to [resultUrl] when resultImages is empty or absent', () => {
    expect(
      buildJobRecord({ jobId: 'j', status: 'Complete', resultImages: [], resultUrl: 'u' }).resultUrls,
    ).toEqual(['u']);
    expect(buildJobRecord({ jobId: 'j', status: 'complete', resultUrl: 'u' }).resultUrls).toEqual(['u']);
    expect(buildJobRecord({ jobId: 'j', status: 'complete', resultUrl: null }).resultUrls).toEqual([]);
  });

  it('reports no results unless complete', () => {
    expect(buildJobRecord({ jobId: 'j', status: 'Processing', resultUrl: 'u', progress: 40 })).toEqual({
      jobId: 'j',
      status: 'Processing',
      phase: 'running',
      resultUrls: [],
      progress: 40,
    });
  });

  it('keeps failure fields and omits absent ones', () => {
    const record = buildJobRecord({
      jobId: 'j',
      status: 'error',
      failureKind: 'PROMPT_UNCLEAR',
      error: 'too vague',
      chargeSource: 'something-else',
    });
    expect(record).toEqual({
      jobId: 'j',
      status: 'error',
      phase: 'failed',
      resultUrls: [],
      failureKind: 'PROMPT_UNCLEAR',
      error: 'too vague',
    });
    expect('chargeSource' in record).toBe(false);
  });
});
