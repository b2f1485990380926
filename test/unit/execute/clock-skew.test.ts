import { describe, it, expect } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { locateInKeyWindow } from '../../../src/plan/key-window.js';
import { deriveIdempotencyKey } from '../../../src/state/idempotency-key.js';
import { replayJournal } from '../../../src/state/replay.js';
import { createFakeClock } from './fake-service.js';
import { createExecutorHarness, HARNESS_RUN, makePlan, plannedJob } from './executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

const tmp = useTempDir('runner-skew-');

const job = plannedJob('a', 'a cat');
const plan = makePlan([job]);
const WINDOW_MS = 270_000;

/** Journals an unanswered keyed intent at `intentAt`, then applies once on a clock reading `now`. */
async function resumeAt(intentAt: number, now: number) {
  const h = createExecutorHarness(tmp.path, { clock: createFakeClock(now) });
  const key = deriveIdempotencyKey({ ...HARNESS_RUN, jobId: 'a', payloadHash: job.payloadHash, attempt: 1 });
  await writeFile(
    h.journalPath,
    `${JSON.stringify({ type: 'intent', at: intentAt, id: 'a', attempt: 1, idempotencyKey: key, payloadHash: job.payloadHash })}\n`,
  );
  const summary = await h.run(plan, { download: false, idempotencyWindowMs: WINDOW_MS });
  return { summary, creates: h.service.creates, events: h.events };
}

describe('clock skew and the idempotency window (#11.3)', () => {
  it('treats an intent in the future of the clock (clock set back) as uncertain, never re-sent', async () => {
    const now = 5_000_000_000;
    // Journaled "one hour from now": the clock was corrected backwards after the crash.
    const { summary, creates, events } = await resumeAt(now + 3_600_000, now);
    expect(creates).toHaveLength(0);
    expect(summary.counts.uncertain).toBe(1);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'job-uncertain',
        action: 'skipped',
        reason: expect.stringMatching(/in the future of this machine's clock.*age is unknown/) as unknown,
      }),
    );
    const status = replayJournal(await readFile(join(tmp.path, 'journal.jsonl'), 'utf8')).jobs.get(
      'a',
    )?.status;
    expect(status).toBe('uncertain');
  });

  it('still re-sends a recent intent (positive age inside the window) with its key', async () => {
    const now = 5_000_000_000;
    const { summary, creates } = await resumeAt(now - 60_000, now);
    expect(creates).toHaveLength(1);
    expect(summary.counts.done).toBe(1);
  });

  it('places ages: negative unknown, [0, window) inside, beyond past', () => {
    expect(locateInKeyWindow(1000, 1001, WINDOW_MS)).toBe('unknown');
    expect(locateInKeyWindow(1000, 1000, WINDOW_MS)).toBe('inside');
    expect(locateInKeyWindow(1000 + WINDOW_MS - 1, 1000, WINDOW_MS)).toBe('inside');
    expect(locateInKeyWindow(1000 + WINDOW_MS, 1000, WINDOW_MS)).toBe('past');
  });
});
