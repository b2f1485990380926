import { describe, expect, it } from 'vitest';
import type { ExecuteOptions } from '../../../src/execute/options.js';
import { createExecutorHarness, makePlan, plannedJob } from './executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

const tmp = useTempDir('runner-replace-');

const job = (id: string, prompt: string) => plannedJob(id, prompt);

const plan = makePlan([job('a', 'x'), job('b', 'y'), job('c', 'fail:PROMPT_UNCLEAR')]);

describe('executePlan with replace (--replace)', () => {
  it('creates exactly one new attempt, with a new key, for each replaced done or failed job', async () => {
    const h = createExecutorHarness(tmp.path);
    const { service, events, state } = h;
    const run = (options: Partial<ExecuteOptions> = {}) => h.run(plan, { download: false, ...options });

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

  it('a replaced job the cap keeps from being created stays done, with no "was sent" warning (#20.4)', async () => {
    const h = createExecutorHarness(tmp.path);
    const run = (options: Partial<ExecuteOptions> = {}) => h.run(plan, { download: false, ...options });
    await run();
    // Two done jobs cost 1 credit each (the failed one was refunded): a cap of 2 leaves no room.
    const summary = await run({ replace: ['a'], maxCredits: 2 });
    expect(h.service.creates).toHaveLength(3);
    expect(summary.stopReason).toBe('budget');
    expect(summary.jobs.find((job) => job.id === 'a')?.outcome).toBe('done');
    expect(summary.counts).toMatchObject({ done: 2, failed: 1, pending: 0 });
    expect(h.events.some((e) => e.type === 'warning' && e.id === 'a' && /replaced/.test(e.message))).toBe(
      false,
    );
    expect((await h.state()).get('a')?.status).toBe('done');
  });
});
