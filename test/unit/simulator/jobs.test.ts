import { describe, expect, it } from 'vitest';
import { computeCreditCost, buildCatalog } from '../../../src/simulator/catalog.js';
import { createJobEngine, describeJob, type SimJob } from '../../../src/simulator/jobs.js';
import { parsePromptMarkers } from '../../../src/simulator/markers.js';
import { decideOutcome } from '../../../src/simulator/outcomes.js';

function makeJob(jobId: string, durationMs: number, fail = false): SimJob {
  return {
    jobId,
    kind: 'image',
    model: 'm',
    prompt: undefined,
    resultExt: 'png',
    creditCost: 4,
    chargeSource: 'Credit',
    quotaRemaining: null,
    createdAt: 0,
    durationMs,
    outcome: fail
      ? { type: 'error', failureKind: 'CONTENT_REJECTED', message: 'no', atFraction: 0.5 }
      : { type: 'complete', imageCount: 1 },
    state: 'queued',
  };
}

describe('simulator job engine', () => {
  it('starts queued jobs at the exact time a slot frees, in FIFO order', () => {
    const finished: string[] = [];
    const engine = createJobEngine({ concurrencyLimit: 2, onFinish: (job) => finished.push(job.jobId) });
    const a = makeJob('a', 100);
    const b = makeJob('b', 300);
    const c = makeJob('c', 100);
    const d = makeJob('d', 100);
    expect(engine.add(a, 0).queuePosition).toBe(0);
    expect(engine.add(b, 0).queuePosition).toBe(0);
    expect(engine.add(c, 0)).toEqual({ queuePosition: 1, queueDepth: 1, runningJobs: 2 });
    expect(engine.add(d, 0).queuePosition).toBe(2);
    engine.advance(250);
    expect(finished).toEqual(['a', 'c']);
    expect(c.startedAt).toBe(100);
    expect(d.startedAt).toBe(200);
    expect(engine.maxRunningAtOnce()).toBe(2);
  });

  it('ends a failing job partway through its duration and reports the record', () => {
    const engine = createJobEngine({ concurrencyLimit: 4, onFinish: () => undefined });
    const job = makeJob('x', 100, true);
    engine.add(job, 0);
    engine.advance(49);
    expect(describeJob(job, 49, 'http://h')).toMatchObject({ status: 'Processing', progress: 49 });
    engine.advance(50);
    expect(describeJob(job, 50, 'http://h')).toMatchObject({
      status: 'error',
      failureKind: 'CONTENT_REJECTED',
    });
  });
});

describe('simulator prompt markers and outcomes', () => {
  const base = { jobId: 'j', seed: 1, isImage: true, requireTransparent: false, promptSeenBefore: false };

  it('parses markers and strips them from the text', () => {
    expect(parsePromptMarkers('A cat [[fail:CONTENT_REJECTED]] [[status:Odd]] [[two-images]]')).toEqual({
      failKind: 'CONTENT_REJECTED',
      runningStatus: 'Odd',
      imageCount: 2,
      noAlpha: false,
      text: 'A cat',
    });
  });

  it('fails a fail-once prompt only the first time and short prompts always', () => {
    const prompt = 'A long enough prompt [[fail-once:QUOTA_EXHAUSTED]]';
    expect(decideOutcome({ ...base, prompt })).toMatchObject({
      type: 'error',
      failureKind: 'QUOTA_EXHAUSTED',
    });
    expect(decideOutcome({ ...base, prompt, promptSeenBefore: true }).type).toBe('complete');
    expect(decideOutcome({ ...base, prompt: 'tiny [[one-image]]' })).toMatchObject({
      failureKind: 'PROMPT_UNCLEAR',
    });
    expect(decideOutcome({ ...base, isImage: false, prompt: undefined }).type).toBe('complete');
  });
});

describe('simulator catalog cost', () => {
  it('multiplies creditCost by creditCostMultiplier fields, using defaults', () => {
    const voiceover = buildCatalog('img').find((m) => m.slug === 'voiceover-standard')!;
    expect(computeCreditCost(voiceover, {})).toBe(50);
    expect(computeCreditCost(voiceover, { sceneCount: 2 })).toBe(20);
  });
});
