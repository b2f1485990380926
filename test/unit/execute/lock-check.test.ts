import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { RunnerError } from '../../../src/errors.js';
import { createExecutorHarness, makePlan, plannedJob } from './executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

const tmp = useTempDir('runner-lock-check-');

/** A lock that is this runner's for its first `held` verifications, then taken over by another runner. */
function lockTakenAfter(held: number) {
  const calls = { verify: 0, assertHeld: 0 };
  let lost = false;
  const taken = () =>
    new RunnerError('STATE_LOCKED', 'This runner no longer holds the lock: pid 1 on node-2 took it.');
  return {
    calls,
    lock: {
      verify() {
        calls.verify++;
        if (calls.verify > held) lost = true;
        return lost ? Promise.reject(taken()) : Promise.resolve();
      },
      assertHeld() {
        calls.assertHeld++;
        if (lost) throw taken();
      },
    },
  };
}

describe('the state lock checked before every create (#24.1)', () => {
  it('verifies the lock before each create and, once it is lost, creates and journals nothing more', async () => {
    const { lock, calls } = lockTakenAfter(3);
    const h = createExecutorHarness(tmp.path, { lock });
    const jobs = Array.from({ length: 8 }, (_, index) => plannedJob(`j${index}`, `prompt ${index}`));
    await expect(h.run(makePlan(jobs), { concurrency: 1, download: false })).rejects.toMatchObject({
      code: 'STATE_LOCKED',
      message: expect.stringMatching(/no longer holds the lock/) as unknown,
    });
    expect(h.service.creates).toHaveLength(3);
    expect(calls.verify).toBe(4);
    // The journal ends with the third job's records: nothing after the lock was lost, not even "interrupted".
    const records = (await readFile(h.journalPath, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string });
    expect(records.filter((record) => record.type === 'intent').map((record) => record.id)).toEqual([
      'j0',
      'j1',
      'j2',
    ]);
    expect(records.at(-1)).toMatchObject({ type: 'completed', id: 'j2' });
    expect(h.events.filter((event) => event.type === 'warning' && event.id !== undefined)).toEqual([]);
  });

  it('checks the lease around every journal write without reading the lock file', async () => {
    const { lock, calls } = lockTakenAfter(Number.POSITIVE_INFINITY);
    const h = createExecutorHarness(tmp.path, { lock });
    const summary = await h.run(makePlan([plannedJob('a', 'x'), plannedJob('b', 'y')]), { download: false });
    expect(summary.counts.done).toBe(2);
    expect(calls.verify).toBe(2);
    const records = (await readFile(h.journalPath, 'utf8')).trimEnd().split('\n').length;
    expect(calls.assertHeld).toBe(2 * records);
  });
});
