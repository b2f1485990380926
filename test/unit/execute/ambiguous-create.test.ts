import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { createServiceClient } from '../../../src/service/client.js';
import { deriveIdempotencyKey } from '../../../src/state/idempotency-key.js';
import { replayJournal } from '../../../src/state/replay.js';
import { createFakeClock } from './fake-service.js';
import { createExecutorHarness, HARNESS_RUN, makePlan, plannedJob } from './executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

/**
 * The real client's retry loop under the executor: a keyed create whose first send got no usable
 * answer (a 5xx or a timeout: the service may have made the job) and whose re-sends were then refused
 * (429, 402). The refusal proves only that the LAST send made nothing.
 */
const ORIGIN = 'https://svc.test';
const CREATE = '/api/v2/agents/jobs/create';
const ok = (data: unknown) => ({ success: true, data, error: null, errorCode: null });
const fail = (error: string, errorCode: string | null = null) => ({ success: false, error, errorCode });

const tmp = useTempDir('runner-ambiguous-');
let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(() => agent.close());

const job = plannedJob('a', 'a cat');
const plan = makePlan([job]);

async function apply(): Promise<void> {
  const clock = createFakeClock();
  const client = createServiceClient({
    baseUrl: `${ORIGIN}/api/v2`,
    apiKey: 'sk-test-0123456789',
    dispatcher: agent,
    clock,
    random: () => 0.5,
  });
  try {
    await createExecutorHarness(tmp.path, { client, clock }).run(plan, { download: false });
  } finally {
    await client.close();
  }
}

async function jobStatus(): Promise<string | undefined> {
  return replayJournal(await readFile(join(tmp.path, 'journal.jsonl'), 'utf8')).jobs.get('a')?.status;
}

describe('a keyed create refused after an ambiguous send', () => {
  for (const [name, refusal] of [
    ['429 with a long Retry-After', { status: 429, body: fail('slow down'), retryAfter: '3600' }],
    ['402', { status: 402, body: fail('no credits'), retryAfter: undefined }],
  ] as const) {
    it(`stays unanswered (same key next time) after a 500 then a ${name}`, async () => {
      const keys: string[] = [];
      const answer =
        (statusCode: number, data: object, headers: Record<string, string> = {}) =>
        (request: { body?: unknown }) => {
          keys.push((JSON.parse(String(request.body)) as { idempotencyKey: string }).idempotencyKey);
          return { statusCode, data, responseOptions: { headers } };
        };
      const api = agent.get(ORIGIN);
      // The first send reached the service, which may have made the job, then answered 500.
      api.intercept({ path: CREATE, method: 'POST' }).reply(answer(500, fail('boom')));
      api
        .intercept({ path: CREATE, method: 'POST' })
        .reply(
          answer(
            refusal.status,
            refusal.body,
            refusal.retryAfter === undefined ? {} : { 'retry-after': refusal.retryAfter },
          ),
        );
      await apply();
      expect(keys).toHaveLength(2);
      expect(await jobStatus()).toBe('creating');

      // The next apply re-sends the SAME key: the service answers with the job the first send made.
      api
        .intercept({ path: CREATE, method: 'POST' })
        .reply(
          answer(200, ok({ jobId: 'J1', status: 'WaitingForAgent', creditCost: 1, chargeSource: 'Credit' })),
        );
      api
        .intercept({ path: '/api/v2/jobs/J1', method: 'GET' })
        .reply(200, ok({ jobId: 'J1', status: 'complete', resultImages: ['https://r.test/1.png'] }));
      await apply();
      expect(new Set(keys).size).toBe(1);
      expect(await jobStatus()).toBe('done');
    });
  }

  it('does not re-send a resumed create past the key window of the send a crashed run made', async () => {
    const key = deriveIdempotencyKey({
      ...HARNESS_RUN,
      jobId: 'a',
      payloadHash: job.payloadHash,
      attempt: 1,
    });
    // A crashed run sent the create 200 s ago (fake clock starts at 1_000_000); its answer was lost.
    await writeFile(
      join(tmp.path, 'journal.jsonl'),
      `${JSON.stringify({ type: 'intent', at: 800_000, id: 'a', attempt: 1, idempotencyKey: key, payloadHash: job.payloadHash })}\n`,
    );
    let sends = 0;
    const api = agent.get(ORIGIN);
    api
      .intercept({ path: CREATE, method: 'POST' })
      .reply(() => {
        sends++;
        return {
          statusCode: 429,
          data: fail('slow down'),
          responseOptions: { headers: { 'retry-after': '100' } },
        };
      })
      .times(2);
    api
      .intercept({ path: CREATE, method: 'POST' })
      .reply(200, ok({ jobId: 'second-paid-job', status: 'WaitingForAgent' }));
    await apply();
    // Waiting 100 s would re-send ~300 s after the crashed run's send: past the key's window.
    expect(sends).toBe(1);
    expect(await jobStatus()).toBe('creating');
  });

  it('still takes a 429 without an earlier ambiguous send as "nothing created"', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: CREATE, method: 'POST' })
      .reply(429, fail('slow down'), { headers: { 'retry-after': '3600' } });
    await apply();
    expect(await jobStatus()).toBe('pending');
  });
});
