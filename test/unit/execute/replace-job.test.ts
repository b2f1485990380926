import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executePlan } from '../../../src/execute/executor.js';
import type { ExecutionEvent } from '../../../src/execute/events.js';
import type { ExecuteOptions } from '../../../src/execute/options.js';
import type { Plan, PlannedJob } from '../../../src/plan/types.js';
import { openJournal } from '../../../src/state/journal.js';
import { replayJournal } from '../../../src/state/replay.js';
import { createMemoryUploadCache } from '../../../src/state/upload-cache.js';
import { createFakeClock, createFakeService } from './fake-service.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-replace-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function job(id: string, prompt: string): PlannedJob {
  return {
    id,
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt,
    params: {},
    estimatedCredits: 1,
    payloadHash: `hash-${prompt}`,
    source: { matrixValues: {}, specIndex: 0, origins: {} } as unknown as PlannedJob['source'],
  };
}

const plan: Plan = {
  pipeline: 'pipe',
  manifestFile: 'm.yaml',
  jobs: [job('a', 'x'), job('b', 'y'), job('c', 'fail:PROMPT_UNCLEAR')],
  warnings: [],
};

describe('executePlan with replace (--replace)', () => {
  it('creates exactly one new attempt, with a new key, for each replaced done or failed job', async () => {
    const service = createFakeService();
    const clock = createFakeClock();
    const journalPath = join(dir, 'journal.jsonl');
    const uploadCache = createMemoryUploadCache();
    const events: ExecutionEvent[] = [];
    const state = async () => replayJournal(await readFile(journalPath, 'utf8').catch(() => '')).jobs;
    const run = async (options: Partial<ExecuteOptions> = {}) => {
      const journal = await openJournal(journalPath, { clock });
      try {
        return await executePlan(
          plan,
          {
            client: service.client,
            journal,
            state: await state(),
            clock,
            random: () => 0.5,
            uploadCache,
            onEvent: (event) => events.push(event),
            signal: new AbortController().signal,
          },
          { runId: 'r', pollIntervalMs: [10, 20], firstPollAfterMs: 5, retry: { backoffMs: 1 }, ...options },
        );
      } finally {
        await journal.close();
      }
    };

    await run();
    expect(service.creates).toHaveLength(3);
    await run({ replace: ['a', 'c'] });
    const prompts = service.creates.map((create) => create.body.prompt);
    expect(prompts).toEqual(['x', 'y', 'fail:PROMPT_UNCLEAR', expect.any(String), expect.any(String)]);
    expect(prompts.slice(3).sort()).toEqual(['fail:PROMPT_UNCLEAR', 'x']);
    const keys = service.creates.filter((c) => c.body.prompt === 'x').map((c) => c.idempotencyKey);
    expect(new Set(keys).size).toBe(2);
    const after = await state();
    expect(after.get('a')?.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
    expect(after.get('a')?.status).toBe('done');
    expect(after.get('b')?.attempts).toHaveLength(1);
    expect(events.some((e) => e.type === 'warning' && e.id === 'a' && /replaced/.test(e.message))).toBe(true);

    // Without --replace the next apply skips the replacement like any done job: nothing is paid again.
    await run();
    expect(service.creates).toHaveLength(5);
  });
});
