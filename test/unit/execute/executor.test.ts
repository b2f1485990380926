import { describe, it, expect } from 'vitest';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { executePlan } from '../../../src/execute/executor.js';
import type { ExecutionEvent } from '../../../src/execute/events.js';
import { RunnerError } from '../../../src/errors.js';
import { legacyPayloadHash } from '../../../src/catalog/payload-hash.js';
import { openJournal } from '../../../src/state/backends/folder/journal.js';
import type { JobState } from '../../../src/state/job-state.js';
import { viewJobState } from '../../../src/state/stored-job.js';
import { testRun } from '../../run-state.js';
import { deriveIdempotencyKey } from '../../../src/state/idempotency-key.js';
import { createExecutorHarness, type ExecutorHarness, makePlan, plannedJob } from './executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

const tmp = useTempDir('runner-exec-');
const createHarness = () => createExecutorHarness(tmp.path);

const types = (events: ExecutionEvent[], type: ExecutionEvent['type']) =>
  events.filter((event) => event.type === type);

describe('executePlan', () => {
  it('runs every job to done with at most 4 open, keys only for image jobs, and downloads results', async () => {
    const h = createHarness();
    const jobs = [
      ...Array.from({ length: 9 }, (_, i) => plannedJob(`img-${i}`, `cat ${i}`)),
      plannedJob('vid', 'a video', 'stock-video'),
    ];
    const summary = await h.run(makePlan(jobs));
    expect(summary.exitReason).toBe('ok');
    expect(summary.counts).toMatchObject({ total: 10, done: 10, failed: 0, pending: 0 });
    expect(h.service.maxOpen).toBeLessThanOrEqual(4);
    expect(h.service.maxOpen).toBeGreaterThan(1);
    expect(h.service.creates).toHaveLength(10);
    const keyOf = (prompt: string) =>
      h.service.creates.find((create) => create.body.prompt === prompt)?.idempotencyKey;
    expect(keyOf('cat 0')).toBe(
      deriveIdempotencyKey({
        pipeline: 'pipe',
        runId: 'run-1',
        jobId: 'img-0',
        payloadHash: 'hash-cat 0',
        attempt: 1,
      }),
    );
    expect(keyOf('a video')).toBeUndefined();
    expect(summary.jobs.find((job) => job.id === 'img-0')?.files).toEqual([
      join(tmp.path, 'out', 'img-0.png'),
      join(tmp.path, 'out', 'img-0+2.png'),
    ]);
    expect(summary.creditsSpent).toBe(10);
    const state = await h.state();
    expect([...state.values()].every((job) => job.status === 'done' && job.downloads.length === 2)).toBe(
      true,
    );
  });

  it('journals the intent before the create and the answer right after', async () => {
    const h = createHarness();
    await h.run(makePlan([plannedJob('a', 'x')]));
    const types = (await readFile(h.journalPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.slice(0, 3)).toEqual(['run', 'intent', 'created']);
    expect(types).toContain('completed');
    expect(types.filter((type) => type === 'downloaded')).toHaveLength(2);
  });

  it('skips done jobs on a second apply and downloads nothing twice', async () => {
    const h = createHarness();
    const plan = makePlan([plannedJob('a', 'x')]);
    await h.run(plan);
    const second = await h.run(plan);
    expect(h.service.creates).toHaveLength(1);
    expect(second.counts.done).toBe(1);
    expect(second.creditsSpent).toBe(0);
    expect(types(h.events, 'downloaded')).toHaveLength(2);
    expect(types(h.events, 'job-skipped')).toEqual([expect.objectContaining({ id: 'a', reason: 'done' })]);
  });

  it('settles done jobs of an earlier apply with their files, and still fetches a result never downloaded', async () => {
    const h = createHarness();
    const plan = makePlan([plannedJob('a', 'x'), plannedJob('b', 'y'), plannedJob('c', 'z')]);
    const first = await h.run(plan);
    // A crash after job c completed, before its downloads were journaled.
    const journal = (await readFile(h.journalPath, 'utf8')).trim().split('\n');
    const kept = journal.filter((line) => !(line.includes('"downloaded"') && line.includes('"id":"c"')));
    await writeFile(h.journalPath, `${kept.join('\n')}\n`);

    const second = await h.run(plan);
    expect(h.service.creates).toHaveLength(3);
    expect(second.counts.done).toBe(3);
    expect(second.jobs.map((job) => job.files)).toEqual(first.jobs.map((job) => job.files));
    const skipped = h.events.flatMap((event) => (event.type === 'job-skipped' ? [event.id] : []));
    expect(skipped).toEqual(['a', 'b', 'c']);
    const downloads = h.events.flatMap((event) => (event.type === 'downloaded' ? [event.id] : []));
    const downloadedAgain = downloads.slice(6);
    expect(downloadedAgain).toEqual(['c', 'c']);
  });

  it('passes by the done jobs of a state snapshot without reading their states, and reads a changed one', async () => {
    const h = createHarness();
    const plan = makePlan([plannedJob('a', 'x'), plannedJob('b', 'y'), plannedJob('c', 'z')]);
    const first = await h.run(plan);
    await h.snapshot();
    const unread = (state: Map<string, JobState>) =>
      [...state].filter(([, job]) => job.storedSummary?.() !== undefined).map(([id]) => id);

    const state = await h.state();
    expect(unread(state)).toEqual(['a', 'b', 'c']);
    const second = await h.run(plan, {}, undefined, state);
    expect(second.counts.done).toBe(3);
    expect(second.jobs).toEqual(first.jobs);
    expect(second.creditsSpent).toBe(0);
    expect(h.service.creates).toHaveLength(3);
    const skips = h.events.flatMap((event) =>
      event.type === 'job-skipped' ? [[event.id, event.detail]] : [],
    );
    expect(skips).toEqual(
      ['a', 'b', 'c'].map((id, index) => [id, `done in attempt 1 (${first.jobs[index]?.jobId})`]),
    );
    expect(unread(state)).toEqual(['a', 'b', 'c']);

    // A changed job is read (copied before its first change), paid for once, and written to the next
    // snapshot with the others copied from the one before.
    const changed = makePlan([plannedJob('a', 'x'), plannedJob('b', 'y, changed'), plannedJob('c', 'z')]);
    const third = await h.run(changed, {}, undefined, state);
    expect(third.counts.done).toBe(3);
    expect(h.service.creates).toHaveLength(4);
    expect(unread(state)).toEqual(['a', 'c']);
    const whole = async () => [...(await h.state())].map(([id, job]) => [id, viewJobState(job)]);
    const replayed = await whole();
    await h.snapshot();
    expect(await whole()).toEqual(replayed);
    expect((await h.state()).get('b')?.attempts.map((attempt) => attempt.payloadHash)).toEqual([
      'hash-y',
      'hash-y, changed',
    ]);
  });

  it('settles a job of a snapshot with the files a replayed state gives, downloaded in any order', async () => {
    const h = createHarness();
    const plan = makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]);
    await h.run(plan);
    // Job a's two results were downloaded last one first (downloads run side by side).
    const lines = (await readFile(h.journalPath, 'utf8')).trim().split('\n');
    const ofA = lines.flatMap((line, index) =>
      line.includes('"downloaded"') && line.includes('"id":"a"') ? [index] : [],
    );
    expect(ofA).toHaveLength(2);
    [lines[ofA[0]!], lines[ofA[1]!]] = [lines[ofA[1]!]!, lines[ofA[0]!]!];
    await writeFile(h.journalPath, `${lines.join('\n')}\n`);
    const filesOf = (summary: { jobs: { id: string; files: string[] }[] }) =>
      summary.jobs.map((job) => [job.id, job.files]);
    for (const download of [true, false]) {
      await rm(join(tmp.path, 'snapshot.jsonl'), { force: true });
      const replayed = filesOf(await h.run(plan, { download }));
      await h.snapshot();
      const fromSnapshot = filesOf(await h.run(plan, { download }));
      expect(fromSnapshot).toEqual(replayed);
      // Downloading: the files of the result URLs, in their order; not downloading: those on record.
      const files = [join(tmp.path, 'out', 'a.png'), join(tmp.path, 'out', 'a+2.png')];
      expect(replayed[0]).toEqual(['a', download ? files : [...files].reverse()]);
    }
    expect(h.service.creates).toHaveLength(2);
  });

  it('retries GENERATION_TIMEOUT with a new key and succeeds', async () => {
    const h = createHarness();
    const summary = await h.run(makePlan([plannedJob('a', 'fail-once:GENERATION_TIMEOUT')]));
    expect(summary.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(2);
    expect(h.service.creates[0]?.idempotencyKey).not.toBe(h.service.creates[1]?.idempotencyKey);
    expect(types(h.events, 'job-retry')).toEqual([
      expect.objectContaining({ id: 'a', attempt: 1, nextAttempt: 2, failureKind: 'GENERATION_TIMEOUT' }),
    ]);
  });

  it('gives up on GENERATION_TIMEOUT after maxAttempts', async () => {
    const h = createHarness();
    const summary = await h.run(makePlan([plannedJob('a', 'fail:GENERATION_TIMEOUT')]), {
      retry: { maxAttempts: 2, backoffMs: 1 },
    });
    expect(h.service.creates).toHaveLength(2);
    expect(summary.counts.failed).toBe(1);
    expect(summary.exitReason).toBe('failed');
  });

  it('fails PROMPT_UNCLEAR with advice, never re-sends it, unless retryFailed or the payload changes', async () => {
    const h = createHarness();
    const plan = makePlan([plannedJob('a', 'fail:PROMPT_UNCLEAR')]);
    const first = await h.run(plan);
    expect(first.counts.failed).toBe(1);
    expect(types(h.events, 'job-failed')).toEqual([
      expect.objectContaining({
        failureKind: 'PROMPT_UNCLEAR',
        advice: expect.stringMatching(/change the prompt/) as unknown,
      }),
    ]);
    await h.run(plan);
    expect(h.service.creates).toHaveLength(1);
    await h.run(plan, { retryFailed: true });
    expect(h.service.creates).toHaveLength(2);
    const changed = await h.run(makePlan([plannedJob('a', 'a clear prompt')]));
    expect(changed.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(3);
    expect((await h.state()).get('a')?.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3]);
  });

  it('defers QUOTA_EXHAUSTED for 3 hours, then retries', async () => {
    const h = createHarness();
    const plan = makePlan([plannedJob('a', 'fail-once:QUOTA_EXHAUSTED')]);
    const first = await h.run(plan);
    expect(first.counts.deferred).toBe(1);
    const deferred = types(h.events, 'job-deferred')[0] as Extract<ExecutionEvent, { type: 'job-deferred' }>;
    expect(deferred.notBefore - h.clock.now()).toBeGreaterThan(3 * 3600_000 - 1000);
    await h.run(plan);
    expect(h.service.creates).toHaveLength(1);
    h.clock.advance(3 * 3600_000);
    const later = await h.run(plan);
    expect(later.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(2);
  });

  it('marks a 400 on create failed (nothing created) and goes on with the others', async () => {
    const h = createHarness();
    h.service.createErrors.push(new RunnerError('SERVICE_VALIDATION', 'HTTP 400: bad size'));
    const summary = await h.run(makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]), { concurrency: 1 });
    expect(summary.counts).toMatchObject({ failed: 1, done: 1 });
    expect((await h.state()).get('a')?.status).toBe('failed');
  });

  it('stops creating on 402, lets open jobs finish and leaves the rest pending', async () => {
    const h = createHarness();
    const jobs = Array.from({ length: 8 }, (_, i) => plannedJob(`j${i}`, `p${i}`));
    const original = h.service.client.createJob.bind(h.service.client);
    let calls = 0;
    h.service.client.createJob = (request, options) => {
      calls++;
      if (calls === 3) return Promise.reject(new RunnerError('INSUFFICIENT_CREDITS', 'HTTP 402'));
      return original(request, options);
    };
    const summary = await h.run(makePlan(jobs));
    expect(summary.exitReason).toBe('credits');
    expect(summary.stopReason).toBe('credits');
    // Creates already in flight when the 402 came still finish; nothing is created after it.
    expect(summary.counts.done).toBeGreaterThanOrEqual(2);
    expect(summary.counts.done + summary.counts.pending).toBe(8);
    expect(h.service.creates).toHaveLength(summary.counts.done);
    expect(calls).toBe(summary.counts.done + 1);
    expect(types(h.events, 'stopped-creating')).toHaveLength(1);
    const state = await h.state();
    expect([...state.values()].filter((job) => job.status === 'done')).toHaveLength(summary.counts.done);
    expect(state.get(jobs[2]?.id ?? '')?.status).toBe('pending');
  });

  it('aborts everything on 401 while polling', async () => {
    const h = createHarness();
    h.service.pollErrors.push(new RunnerError('AUTHENTICATION', 'HTTP 401'));
    const summary = await h.run(makePlan(Array.from({ length: 6 }, (_, i) => plannedJob(`j${i}`, `p${i}`))));
    expect(summary.exitReason).toBe('auth');
    expect(summary.counts.done).toBe(0);
    expect(h.service.creates.length).toBeLessThanOrEqual(4);
    const state = await h.state();
    expect([...state.values()].every((job) => job.status === 'open')).toBe(true);
  });

  it('exits for auth (4) on a 401 that comes after creating already stopped for the budget', async () => {
    const h = createHarness();
    const jobs = Array.from({ length: 3 }, (_, i) =>
      plannedJob(`j${i}`, `p${i}`, 'image', { estimatedCredits: 2 }),
    );
    h.service.pollErrors.push(new RunnerError('AUTHENTICATION', 'HTTP 401'));
    // j0 is created; j1 would cross the budget and stops creating; then j0's poll gets a 401.
    const summary = await h.run(makePlan(jobs, 3), { concurrency: 2 });
    expect(h.service.creates).toHaveLength(1);
    expect(summary.stopReason).toBe('auth');
    expect(summary.exitReason).toBe('auth');
  });

  it('creates the jobs that fit the budget when another job running beside them does not', async () => {
    const h = createHarness();
    const jobs = Array.from({ length: 4 }, (_, i) =>
      plannedJob(`j${i}`, `p${i}`, 'image', { estimatedCredits: 2 }),
    );
    const summary = await h.run(makePlan(jobs, 5));
    // The first create goes alone (no answer has shown the price yet); it reports 1 charged to credits,
    // counted at its estimate of 2 (#32.1): then one more fits beside it (2 + 2), and the third does not.
    expect(h.service.creates).toHaveLength(2);
    expect(summary.counts).toMatchObject({ done: 2, pending: 2 });
    expect(summary.exitReason).toBe('budget');
  });

  it('exits for credits (3) on a 402 that comes after creating stopped on a service fault', async () => {
    const h = createHarness();
    const original = h.service.client.createJob.bind(h.service.client);
    let calls = 0;
    let bothSent: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (bothSent = resolve));
    h.service.client.createJob = async (request, options) => {
      const call = ++calls;
      if (call === 2) bothSent();
      // Both creates are in flight before either answer comes.
      await second;
      if (call === 1) throw new RunnerError('RATE_LIMITED', 'HTTP 429');
      if (call === 2) throw new RunnerError('INSUFFICIENT_CREDITS', 'HTTP 402');
      return original(request, options);
    };
    const summary = await h.run(makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]));
    expect(calls).toBe(2);
    expect(summary.exitReason).toBe('credits');
  });

  it("counts the estimate of an earlier run's job whose create answer carried no creditCost against the budget", async () => {
    const h = createHarness();
    const original = h.service.client.createJob.bind(h.service.client);
    const controller = new AbortController();
    h.service.client.createJob = async (request, options) => {
      // A video endpoint may answer with the job id only (its payload is "not shown").
      const { jobId, status } = await original(request, options);
      controller.abort();
      return { jobId, status };
    };
    const jobs = Array.from({ length: 3 }, (_, i) =>
      plannedJob(`v${i}`, `never ${i}`, 'stock-video', { estimatedCredits: 2 }),
    );
    await h.run(makePlan(jobs, 5), { concurrency: 1, jobDeadlineMs: 100 }, controller.signal);
    expect(h.service.creates).toHaveLength(1);
    expect((await h.state()).get('v0')?.status).toBe('open');
    // v0 is still open, cost unknown: the next apply may spend 5 - 2 more, one job, not two.
    const again = await h.run(makePlan(jobs, 5), { concurrency: 2, jobDeadlineMs: 100 });
    expect(h.service.creates).toHaveLength(2);
    expect(again.exitReason).toBe('budget');
  });

  it('stops before a create that would cross the budget', async () => {
    const h = createHarness();
    const jobs = Array.from({ length: 5 }, (_, i) =>
      plannedJob(`j${i}`, `p${i}`, 'image', { estimatedCredits: 2 }),
    );
    // Estimates of 2 reserve room; a job charged to credits that reports 1 is counted at its estimate
    // of 2 all the same (#32.1): two fit, a third would take 6.
    const summary = await h.run(makePlan(jobs, 5), { concurrency: 1 });
    expect(summary.exitReason).toBe('budget');
    expect(h.service.creates).toHaveLength(2);
    expect(summary.counts).toMatchObject({ done: 2, pending: 3 });
    expect(summary.creditsSpent).toBe(4);
    const again = await h.run(makePlan(jobs), { maxCredits: 4 });
    expect(again.exitReason).toBe('budget');
    expect(h.service.creates).toHaveLength(2);
  });

  it('creates nothing after the signal is aborted but follows open jobs to the end', async () => {
    const h = createHarness();
    const controller = new AbortController();
    const original = h.service.client.createJob.bind(h.service.client);
    h.service.client.createJob = async (request, options) => {
      const answer = await original(request, options);
      controller.abort();
      return answer;
    };
    const summary = await h.run(
      makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]),
      { concurrency: 1 },
      controller.signal,
    );
    expect(summary.exitReason).toBe('interrupted');
    // The interrupt also stopped its download: paid, its result owed, so not done (#20.8).
    expect(summary.counts).toMatchObject({ done: 0, downloading: 1, pending: 1 });
    const lines = (await readFile(h.journalPath, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ type: 'interrupted' });
  });

  it('re-sends an unanswered keyed create inside the window with the same key', async () => {
    const h = createHarness();
    const job = plannedJob('a', 'x');
    const key = deriveIdempotencyKey({
      pipeline: 'pipe',
      runId: 'run-1',
      jobId: 'a',
      payloadHash: job.payloadHash,
      attempt: 1,
    });
    await writeFile(
      h.journalPath,
      `${JSON.stringify({ type: 'intent', at: h.clock.now() - 60_000, id: 'a', attempt: 1, idempotencyKey: key, payloadHash: job.payloadHash })}\n`,
    );
    const summary = await h.run(makePlan([job]));
    expect(summary.counts.done).toBe(1);
    expect(h.service.creates.map((create) => create.idempotencyKey)).toEqual([key]);
    expect(types(h.events, 'job-created')).toEqual([expect.objectContaining({ resent: true, attempt: 1 })]);
  });

  it('leaves an unanswered create past the window uncertain (skip), or re-sends it on request', async () => {
    const h = createHarness();
    const job = plannedJob('a', 'x');
    await writeFile(
      h.journalPath,
      `${JSON.stringify({ type: 'intent', at: h.clock.now() - 600_000, id: 'a', attempt: 1, idempotencyKey: 'rn-old', payloadHash: job.payloadHash })}\n`,
    );
    const skipped = await h.run(makePlan([job]));
    expect(skipped.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
    expect(types(h.events, 'job-uncertain')).toEqual([
      expect.objectContaining({
        action: 'skipped',
        reason: expect.stringMatching(/past the idempotency window/) as unknown,
      }),
    ]);
    expect((await h.state()).get('a')?.status).toBe('uncertain');
    await h.run(makePlan([job]));
    expect(h.service.creates).toHaveLength(0);
    const resent = await h.run(makePlan([job]), { onUncertain: 'resend' });
    expect(resent.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(1);
  });

  it('never re-sends an unanswered video create (no key) by default', async () => {
    const h = createHarness();
    const job = plannedJob('v', 'x', 'stock-video');
    await writeFile(
      h.journalPath,
      `${JSON.stringify({ type: 'intent', at: h.clock.now() - 1000, id: 'v', attempt: 1, payloadHash: job.payloadHash })}\n`,
    );
    const summary = await h.run(makePlan([job]));
    expect(summary.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
  });

  it('keeps a keyed create whose answer was lost resumable (creating), not failed', async () => {
    const h = createHarness();
    h.service.createErrors.push(new RunnerError('NETWORK', 'socket reset'));
    const summary = await h.run(makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]), { concurrency: 1 });
    expect(summary.counts).toMatchObject({ creating: 1, pending: 1 });
    expect(summary.exitReason).toBe('failed');
    expect((await h.state()).get('a')?.status).toBe('creating');
    const again = await h.run(makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]));
    expect(again.counts.done).toBe(2);
    expect(h.service.creates[0]?.idempotencyKey).toBe(h.service.creates[1]?.idempotencyKey);
  });

  it('refuses a journal whose job id has no intent before it (never written by a runner), creating nothing (#24.4)', async () => {
    const h = createHarness();
    h.service.jobs.set('J-old', { prompt: 'x', polls: 0, outcome: 'complete' });
    await writeFile(
      h.journalPath,
      `${JSON.stringify({ type: 'created', at: h.clock.now() - 1000, id: 'a', attempt: 1, jobId: 'J-old', creditCost: 1 })}\n`,
    );
    await expect(h.run(makePlan([plannedJob('a', 'x')]))).rejects.toMatchObject({
      code: 'STATE_CORRUPT',
      line: 1,
      message: expect.stringMatching(
        /line 1: a "created" record for attempt 1 of job a, which was never intended/,
      ) as unknown,
    });
    expect(h.service.creates).toHaveLength(0);
  });

  it('polls again on the next apply a job whose poll once answered 404, and gets its result', async () => {
    const h = createHarness();
    h.service.pollErrors.push(new RunnerError('NOT_FOUND', 'HTTP 404'));
    const first = await h.run(makePlan([plannedJob('a', 'x')]));
    expect(first.counts.uncertain).toBe(1);
    const second = await h.run(makePlan([plannedJob('a', 'x')]));
    expect(second.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(1);
    expect(second.jobs[0]?.files).toHaveLength(2);
  });

  it('resumes polling an open job without creating it again', async () => {
    const h = createHarness();
    h.service.pollErrors.push(new RunnerError('AUTHENTICATION', 'HTTP 401'));
    await h.run(makePlan([plannedJob('a', 'x')]));
    expect((await h.state()).get('a')?.status).toBe('open');
    const summary = await h.run(makePlan([plannedJob('a', 'x')]));
    expect(summary.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(1);
  });

  it('follows the concurrency the service reports', async () => {
    const h = createHarness();
    h.service.concurrency = 2;
    await h.run(makePlan(Array.from({ length: 8 }, (_, i) => plannedJob(`j${i}`, `p${i}`))));
    expect(types(h.events, 'concurrency-changed')[0]).toMatchObject({ from: 4, to: 2 });
  });

  it('reports a job past its deadline as still running and keeps its jobId', async () => {
    const h = createHarness();
    const summary = await h.run(makePlan([plannedJob('a', 'never')]), { jobDeadlineMs: 200 });
    expect(summary.counts['still-running']).toBe(1);
    expect(summary.jobs[0]?.jobId).toBe('J1');
    expect((await h.state()).get('a')?.status).toBe('open');
  });

  it('warns once about an unknown status and keeps polling', async () => {
    const h = createHarness();
    const summary = await h.run(makePlan([plannedJob('a', 'weird')]));
    expect(summary.counts.done).toBe(1);
    expect(
      types(h.events, 'warning').filter(
        (event) => 'message' in event && /unknown status "Thinking"/.test(event.message),
      ),
    ).toHaveLength(1);
  });

  it('uploads a local file once for every job that uses it and sends its URL', async () => {
    const h = createHarness();
    const path = join(tmp.path, 'logo.png');
    await writeFile(path, 'PNGDATA');
    const sha256 = createHash('sha256').update('PNGDATA').digest('hex');
    const ref = { localFile: 'logo.png', path, sha256, contentType: 'image/png', bytes: 7 };
    const jobs = [0, 1, 2].map((i) =>
      plannedJob(`j${i}`, `p${i}`, 'image', { params: { referenceImages: [ref, 'https://x/y.png'] } }),
    );
    await h.run(makePlan(jobs));
    expect(h.service.uploads).toEqual(['logo.png']);
    expect(
      h.service.creates.every(
        (create) =>
          JSON.stringify(create.body.referenceImages) ===
          JSON.stringify(['https://blob.test/logo.png', 'https://x/y.png']),
      ),
    ).toBe(true);
  });

  it('keeps a re-sent attempt unanswered when the re-send is refused (the first send may have made a job)', async () => {
    const h = createHarness();
    const job = plannedJob('a', 'x');
    const key = deriveIdempotencyKey({
      pipeline: 'pipe',
      runId: 'run-1',
      jobId: 'a',
      payloadHash: job.payloadHash,
      attempt: 1,
    });
    await writeFile(
      h.journalPath,
      `${JSON.stringify({ type: 'intent', at: h.clock.now() - 1000, id: 'a', attempt: 1, idempotencyKey: key, payloadHash: job.payloadHash })}\n`,
    );
    h.service.createErrors.push(new RunnerError('INSUFFICIENT_CREDITS', 'HTTP 402'));
    const summary = await h.run(makePlan([job]));
    expect(summary.exitReason).toBe('credits');
    expect(summary.counts.creating).toBe(1);
    expect((await h.state()).get('a')?.status).toBe('creating');
    const again = await h.run(makePlan([job]));
    expect(again.counts.done).toBe(1);
    expect(h.service.creates.map((create) => create.idempotencyKey)).toEqual([key, key]);
  });

  it('does not send a create whose credits fit the budget when Ctrl-C comes while its intent is written', async () => {
    const h = createHarness();
    const controller = new AbortController();
    const journal = await openJournal(h.journalPath, { clock: h.clock });
    const tripwire = {
      path: journal.path,
      append: async (entry: Parameters<typeof journal.append>[0]) => {
        const written = await journal.append(entry);
        if (entry.type === 'intent') controller.abort();
        return written;
      },
      close: () => journal.close(),
    };
    // j0 reserves its credits; j1 does not fit and stops creating for the budget; then Ctrl-C.
    const jobs = [0, 1].map((i) => plannedJob(`j${i}`, `p${i}`, 'image', { estimatedCredits: 2 }));
    await executePlan(
      makePlan(jobs, 3),
      {
        client: h.service.client,
        run: testRun({ journal: tripwire }),
        clock: h.clock,
        onEvent: () => undefined,
        signal: controller.signal,
      },
      { runId: 'run-1', concurrency: 2 },
    );
    await journal.close();
    expect(h.service.creates).toHaveLength(0);
    expect((await h.state()).get('j0')?.status).toBe('pending');
  });

  it('records an intent that was never sent because creating stopped meanwhile', async () => {
    const h = createHarness();
    const controller = new AbortController();
    const journal = await openJournal(h.journalPath, { clock: h.clock });
    const tripwire = {
      path: journal.path,
      append: async (entry: Parameters<typeof journal.append>[0]) => {
        const written = await journal.append(entry);
        if (entry.type === 'intent') controller.abort();
        return written;
      },
      close: () => journal.close(),
    };
    const summary = await executePlan(
      makePlan([plannedJob('a', 'x')]),
      {
        client: h.service.client,
        run: testRun({ journal: tripwire }),
        clock: h.clock,
        onEvent: () => undefined,
        signal: controller.signal,
      },
      { runId: 'run-1' },
    );
    await journal.close();
    expect(summary.exitReason).toBe('interrupted');
    expect(h.service.creates).toHaveLength(0);
    expect((await h.state()).get('a')?.status).toBe('pending');
  });
});

describe('executePlan: an open job whose payload no longer matches (issue #11.2)', () => {
  /** A journal as an earlier apply left it: attempt 1 of job `a` created as `J-old`, still open. */
  async function journalOpenJob(h: ExecutorHarness, payloadHash: string): Promise<void> {
    await writeFile(
      h.journalPath,
      [
        { type: 'intent', at: 1, id: 'a', attempt: 1, payloadHash, idempotencyKey: 'rn-old' },
        { type: 'created', at: 2, id: 'a', attempt: 1, jobId: 'J-old', creditCost: 1 },
      ]
        .map((record) => `${JSON.stringify(record)}\n`)
        .join(''),
    );
    h.service.jobs.set('J-old', { prompt: 'old', polls: 0, outcome: 'complete' });
  }

  it('takes an attempt journaled with the legacy hash (defaults folded in) as the same job', async () => {
    const h = createHarness();
    const job = plannedJob('a', 'a clear prompt', 'image');
    expect(legacyPayloadHash(job)).not.toBe(job.payloadHash);
    await journalOpenJob(h, legacyPayloadHash(job));
    const summary = await h.run(makePlan([job]));
    expect(summary.counts.done).toBe(1);
    expect(h.service.creates).toHaveLength(0);
    expect(h.service.jobs.get('J-old')?.polls).toBeLessThan(0);
  });

  it('follows the open job to its end before creating the changed job', async () => {
    const h = createHarness();
    await journalOpenJob(h, 'hash-of-the-old-prompt');
    const summary = await h.run(makePlan([plannedJob('a', 'a new prompt')]));
    expect(summary.counts.done).toBe(1);
    // J-old completed (its polls end negative once finished) before the one new create.
    expect(h.service.jobs.get('J-old')?.polls).toBeLessThan(0);
    expect(h.service.creates).toHaveLength(1);
    const attempts = (await h.state()).get('a')?.attempts;
    expect(attempts?.map((attempt) => [attempt.attempt, attempt.jobId, attempt.outcome])).toEqual([
      [1, 'J-old', 'done'],
      [2, 'J1', 'done'],
    ]);
    expect(types(h.events, 'warning')).toContainEqual(
      expect.objectContaining({
        message: expect.stringMatching(/followed to its end before the changed job is created/) as unknown,
      }),
    );
  });
});

describe('executePlan: a video create whose answer was lost (issue #11.9)', () => {
  const video = () => plannedJob('v', 'a video', 'stock-video');

  /** The journal of an apply killed after sending a keyless create: an intent and maybe `uncertain`. */
  async function journalLostCreate(h: ExecutorHarness, markedUncertain: boolean): Promise<void> {
    const records: object[] = [
      { type: 'intent', at: 999_000, id: 'v', attempt: 1, payloadHash: 'hash-a video' },
    ];
    if (markedUncertain)
      records.push({ type: 'uncertain', at: 999_500, id: 'v', attempt: 1, reason: 'answer lost' });
    await writeFile(h.journalPath, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    h.service.jobs.set('J-lost', { prompt: 'a video', polls: 0, outcome: 'complete' });
  }

  const listing = (jobs: { jobId: string; prompt: string }[] | undefined) => () =>
    Promise.resolve(jobs?.map((job) => ({ ...job, model: 'video-model', createdAt: 999_100 })));

  it.each([true, false])(
    'finds the job in the recent-jobs listing and follows it (uncertain: %s)',
    async (marked) => {
      const h = createHarness();
      await journalLostCreate(h, marked);
      h.service.client.findRecentJobs = listing([
        { jobId: 'J-other', prompt: 'another video' },
        { jobId: 'J-lost', prompt: 'a video' },
      ]);
      const summary = await h.run(makePlan([video()]));
      expect(summary.counts.done).toBe(1);
      expect(summary.jobs[0]?.jobId).toBe('J-lost');
      expect(h.service.creates).toHaveLength(0);
    },
  );

  it('stays uncertain, says why and what is manual, when the service has no listing', async () => {
    const h = createHarness();
    await journalLostCreate(h, true);
    h.service.client.findRecentJobs = listing(undefined);
    const summary = await h.run(makePlan([video()]));
    expect(summary.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
    expect(types(h.events, 'job-skipped')[0]).toMatchObject({
      detail: expect.stringMatching(
        /no job listing \(GET \/jobs answered 404\): check in the service's web app/,
      ) as unknown,
    });
  });

  it('does not guess between two matching jobs', async () => {
    const h = createHarness();
    await journalLostCreate(h, true);
    h.service.client.findRecentJobs = listing([
      { jobId: 'J-lost', prompt: 'a video' },
      { jobId: 'J-twin', prompt: 'a video' },
    ]);
    const summary = await h.run(makePlan([video()]));
    expect(summary.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
    expect(types(h.events, 'job-skipped')[0]).toMatchObject({
      detail: expect.stringMatching(/2 jobs of this exact payload/) as unknown,
    });
  });

  const skippedDetail = (events: ExecutionEvent[]) =>
    String((types(events, 'job-skipped')[0] as { detail?: string } | undefined)?.detail);

  /** Another run of the pipeline, as its journal reads. */
  const otherRun =
    (jobIds: string[], unansweredPayloads: string[] = []) =>
    () =>
      Promise.resolve({
        jobIds: new Set(jobIds),
        unansweredPayloads: new Set(unansweredPayloads),
        unreadable: [],
      });

  it('never adopts a job that another run of the pipeline holds, and never calls a re-send safe (#24.8)', async () => {
    const h = createExecutorHarness(tmp.path, { readOtherRuns: otherRun(['J-lost']) });
    await journalLostCreate(h, true);
    h.service.client.findRecentJobs = listing([{ jobId: 'J-lost', prompt: 'a video' }]);
    const summary = await h.run(makePlan([video()]));
    expect(summary.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
    const detail = skippedDetail(h.events);
    expect(detail).toMatch(/lists no job of this exact payload .* does not prove none was made/);
    expect(detail).toContain('--resend-uncertain pays again if it was made');
    expect(detail).not.toMatch(/probably none/);
  });

  it('says it is unsure, and adopts nothing, when another run lost a create of the same payload (#24.8)', async () => {
    const h = createExecutorHarness(tmp.path, { readOtherRuns: otherRun([], ['hash-a video']) });
    await journalLostCreate(h, true);
    h.service.client.findRecentJobs = listing([{ jobId: 'J-lost', prompt: 'a video' }]);
    const summary = await h.run(makePlan([video()]));
    expect(summary.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
    expect(skippedDetail(h.events)).toMatch(
      /lists job J-lost of this payload, but another run .* may be theirs; not adopted/,
    );
  });

  it('matches the exact payload: a listed job of the same prompt with other params is not this one (#24.8)', async () => {
    const h = createHarness();
    await journalLostCreate(h, true);
    h.service.client.findRecentJobs = () =>
      Promise.resolve([
        {
          jobId: 'J-lost',
          model: 'video-model',
          prompt: 'a video',
          createdAt: 999_100,
          payload: { model: 'video-model', prompt: 'a video', sceneCount: 9 },
        },
      ]);
    const summary = await h.run(makePlan([video()]));
    expect(summary.counts.uncertain).toBe(1);
    expect(h.service.creates).toHaveLength(0);
  });
});
