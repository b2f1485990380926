import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { folderStateStore } from '../../src/state/backends/folder/folder-store.js';
import { summarizeJob } from '../../src/state/job-state.js';
import type { RunState } from '../../src/state/state-store.js';
import { HOST_A, HOST_B, useFolderOfTwoHosts } from './folder-two-hosts.js';
import { videoJob } from './executor-harness.js';
import { executeOnRun, planOf, quickOptions, startService } from './pg-work-folder.js';

/**
 * #31.9 on the folder, long after the lease ended (`takeover-create.test.ts` tells the takeover
 * moments after, on both backends): video creates (no idempotency key) are in flight when their
 * sender's lock goes stale and another machine takes the run folder over. The sender keeps the
 * answers it gets afterwards as late records beside the journal, and the next holder adopts them: no
 * paid job is lost, none is paid twice.
 */
describe('a takeover of a run folder while video creates are in flight', () => {
  const { dir: workDir, address } = useFolderOfTwoHosts('runner-folder-takeover-');

  it('lock taken over mid-create of 4 videos: the answers are kept and adopted, 0 paid twice, 0 lost', async () => {
    const dir = workDir();
    const { sim, connect } = await startService(11, 1);
    const client = connect();
    const plan = planOf(
      dir,
      ['v1', 'v2', 'v3', 'v4'].map((id) => videoJob(id, `a short film ${id}`)),
    );
    // The run's state whole, as apply passes it (B's late answers too: A's lease ended long before).
    const apply = (state: RunState, events: ExecutionEvent[]): Promise<ExecutionSummary> =>
      executeOnRun(plan, state, { client, events, options: quickOptions(dir) });
    const hold = sim.holdCreates();
    let pausedFor = 0;
    const a = await folderStateStore.openRun(address(HOST_A, () => Date.now() + pausedFor));
    let b: RunState | undefined;
    let c: RunState | undefined;
    try {
      const eventsA: ExecutionEvent[] = [];
      const runA = apply(a, eventsA).catch((error: unknown) => error);
      // All four creates are sent, and none is answered yet.
      await vi.waitFor(() => expect(hold.held()).toBe(4), { timeout: 30_000, interval: 50 });
      // A is paused past its lease (its clock jumps), and its lock looks stale to B, which takes it.
      pausedFor = 120_000;
      const past = new Date(Date.now() - 120_000);
      await utimes(join(a.dir, 'lock'), past, past);
      b = await folderStateStore.openRun(address(HOST_B));
      expect(b.warnings.join('\n')).toMatch(/stale|took over|taken over/i);
      const eventsB: ExecutionEvent[] = [];
      const summaryB = await apply(b, eventsB);
      // B could not know whether the creates made jobs: uncertain, nothing re-sent.
      expect(summaryB.jobs.map((job) => job.outcome)).toEqual([
        'uncertain',
        'uncertain',
        'uncertain',
        'uncertain',
      ]);
      await b.close();
      b = undefined;

      // The creates land now: A learns the four jobs it paid for after its lock was taken over.
      hold.release();
      await runA;
      expect(
        eventsA.filter(
          (event) => event.type === 'warning' && /kept in the state as a late record/.test(event.message),
        ),
      ).toHaveLength(4);
      const stats = sim.stats();
      expect(stats.jobsCreated).toBe(4);

      // A reader sees the paid jobs; the next apply adopts them and follows them to their end.
      const reading = await folderStateStore.readRun(address(HOST_B));
      const read = [...reading.replay.jobs.values()].map((job) => summarizeJob(job));
      expect(new Set(read.map((job) => job.lastJobId))).toEqual(new Set(stats.jobs.map((job) => job.jobId)));
      c = await folderStateStore.openRun(address(HOST_B));
      const summaryC = await apply(c, []);
      expect(summaryC.jobs.map((job) => `${job.id} ${job.outcome}`).sort()).toEqual([
        'v1 done',
        'v2 done',
        'v3 done',
        'v4 done',
      ]);
      await c.close();
      c = undefined;
      expect(sim.stats().jobsCreated).toBe(4);
      // Adopted into the journal: a replay without the late file gives the same jobs.
      const after = await folderStateStore.readRun(address(HOST_B));
      expect([...after.replay.jobs.values()].map((job) => summarizeJob(job).status)).toEqual([
        'done',
        'done',
        'done',
        'done',
      ]);
    } finally {
      hold.release();
      await c?.close();
      await b?.close();
      await a.close();
      await client.close();
      await sim.close();
    }
  });
});
