import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executePlan } from '../../../src/execute/executor.js';
import type { ExecutionEvent } from '../../../src/execute/events.js';
import { locateInKeyWindow } from '../../../src/execute/key-window.js';
import type { Plan, PlannedJob } from '../../../src/plan/types.js';
import { deriveIdempotencyKey } from '../../../src/state/idempotency-key.js';
import { openJournal } from '../../../src/state/journal.js';
import { replayJournal } from '../../../src/state/replay.js';
import { createMemoryUploadCache } from '../../../src/state/upload-cache.js';
import { createFakeClock, createFakeService } from './fake-service.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-skew-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const job: PlannedJob = {
  id: 'a',
  kind: 'image',
  model: 'chatgpt-image-sangtao',
  prompt: 'a cat',
  params: {},
  estimatedCredits: 1,
  payloadHash: 'hash-a',
  source: { matrixValues: {}, specIndex: 0, origins: {} } as unknown as PlannedJob['source'],
};
const plan: Plan = { pipeline: 'pipe', manifestFile: 'm.yaml', jobs: [job], warnings: [] };
const WINDOW_MS = 270_000;

/** Journals an unanswered keyed intent at `intentAt`, then applies once on a clock reading `now`. */
async function resumeAt(intentAt: number, now: number) {
  const service = createFakeService();
  const clock = createFakeClock(now);
  const events: ExecutionEvent[] = [];
  const journalPath = join(dir, 'journal.jsonl');
  const key = deriveIdempotencyKey({
    pipeline: 'pipe',
    runId: 'run-1',
    jobId: 'a',
    payloadHash: job.payloadHash,
    attempt: 1,
  });
  await writeFile(
    journalPath,
    `${JSON.stringify({ type: 'intent', at: intentAt, id: 'a', attempt: 1, idempotencyKey: key, payloadHash: job.payloadHash })}\n`,
  );
  const journal = await openJournal(journalPath, { clock });
  try {
    const summary = await executePlan(
      plan,
      {
        client: service.client,
        journal,
        state: replayJournal(await readFile(journalPath, 'utf8')).jobs,
        clock,
        random: () => 0.5,
        uploadCache: createMemoryUploadCache(),
        onEvent: (event) => events.push(event),
        signal: new AbortController().signal,
      },
      { runId: 'run-1', pollIntervalMs: [10, 20], firstPollAfterMs: 5, idempotencyWindowMs: WINDOW_MS },
    );
    return { summary, creates: service.creates, events };
  } finally {
    await journal.close();
  }
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
    const status = replayJournal(await readFile(join(dir, 'journal.jsonl'), 'utf8')).jobs.get('a')?.status;
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
