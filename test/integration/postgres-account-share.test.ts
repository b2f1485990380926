import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import type { OpenRunInput, RunCoordination, StateStore } from '../../src/state/state-store.js';
import { pgAvailable } from '../pg-cluster.js';
import { claimed, coordinationOf, usePgWorkFolder } from './pg-work-folder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue #31.5, driven directly: the runs of one account on one state database share its open-job
 * slots and its 429 pauses; another account's runs, and a run that names no account, do not.
 */
describe.runIf(pgAvailable())('runs of one account share its slots and its 429 pauses', () => {
  const work = usePgWorkFolder('runner-pg-account-', { leaseTtlMs: 600, each: 'file' });
  const { cluster } = work;

  const address = (runId: string, pipeline = 'p'): OpenRunInput => ({
    ...work.address(`${pipeline}-${runId}`),
    manifestFile: join(work.dir, `${pipeline}.yaml`),
    pipeline,
    runId,
  });
  /** A run joined with `account` (none: `undefined`), its queue `j1`…`j4`. */
  const openJoined = async (
    store: StateStore,
    runId: string,
    account: string | undefined,
    pipeline = 'p',
  ) => {
    const state = await store.openRun(address(runId, pipeline));
    const coordination = coordinationOf(state);
    await coordination.join('plan-1', account);
    await coordination.enqueue(['j1', 'j2', 'j3', 'j4']);
    return { state, coordination };
  };

  it('counts the slots of every run of the account; another account and a run without one are not throttled', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const r1 = await openJoined(store, 'r1', 'account-a');
    const r2 = await openJoined(store, 'r2', 'account-a', 'q');
    const other = await openJoined(store, 'r3', 'account-b');
    const none = await openJoined(store, 'r4', undefined);
    try {
      expect(await claimed(r1.coordination, 2)).toBe('j1');
      expect(await claimed(r2.coordination, 2)).toBe('j1');
      // The account's two slots are held, one by each run. Before: each run counted its own (12 open
      // jobs on an account of 4 with three runs).
      expect(await claimed(r1.coordination, 2)).toBe('wait');
      expect(await claimed(r2.coordination, 2)).toBe('wait');
      // Another account has its own slots; a run that names no account (`--simulate`) counts its own.
      expect(await claimed(other.coordination, 2)).toBe('j1');
      expect(await claimed(other.coordination, 2)).toBe('j2');
      expect(await claimed(none.coordination, 2)).toBe('j1');
      expect(await claimed(none.coordination, 2)).toBe('j2');
      // A slot given up in one run is the other run's to take.
      await r1.coordination.finish('j1', true);
      expect(await claimed(r2.coordination, 2)).toBe('j2');
      expect(await claimed(r1.coordination, 2)).toBe('wait');
      // A slot kept past its claim (a create whose answer was lost, #31.6) counts for the whole account.
      await r2.coordination.keepSlot('j1', 60_000);
      await r2.coordination.finish('j1', true);
      expect(await claimed(r1.coordination, 2)).toBe('wait');
      // A run whose process is gone (its lease ended) holds no more of the account's slots, but what
      // it kept: no process of another run would ever take them over.
      await r2.state.close();
      expect(await claimed(r1.coordination, 2)).toBe('j2');
      expect(await claimed(r1.coordination, 2)).toBe('wait');
    } finally {
      for (const run of [r1, r2, other, none]) await run.state.close();
    }
  });

  it('a waiting run looks again as soon as another run of the account gives a slot up', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const r1 = await openJoined(store, 'r1', 'account-a');
    const r2 = await openJoined(store, 'r2', 'account-a');
    try {
      expect(await claimed(r1.coordination, 1)).toBe('j1');
      expect(await claimed(r2.coordination, 1)).toBe('wait');
      // Its timer (a wait's end without any notice) never fires here: only a notice wakes it. Before,
      // only a slot of its own run did, and a run waited out its timer for another run's slot.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let woke = false;
      const waiting = r2.coordination.waitForChange().then(() => (woke = true));
      vi.useRealTimers();
      await r1.coordination.releaseSlot('j1');
      await vi.waitFor(() => expect(woke).toBe(true), { timeout: 10_000, interval: 5 });
      await waiting;
      expect(await claimed(r2.coordination, 1)).toBe('j1');
    } finally {
      await r1.state.close();
      await r2.state.close();
    }
  });

  it("shares a 429's pause with every machine of the account, never shortened by a shorter one", async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const r1 = await openJoined(store, 'r1', 'account-a');
    const r2 = await openJoined(store, 'r2', 'account-a', 'q');
    const other = await openJoined(store, 'r3', 'account-b');
    const none = await openJoined(store, 'r4', undefined);
    try {
      const shared = (run: { coordination: RunCoordination }) => {
        const pause = run.coordination.sharedRateLimit();
        if (pause === undefined) throw new Error('no shared pause');
        return pause;
      };
      expect(none.coordination.sharedRateLimit()).toBeUndefined();
      const heard = { r1: [] as number[], r2: [] as number[], other: [] as number[] };
      shared(r1).follow((ms) => heard.r1.push(ms));
      shared(r2).follow((ms) => heard.r2.push(ms));
      shared(other).follow((ms) => heard.other.push(ms));
      await sleep(100);
      shared(r1).share(30_000);
      await vi.waitFor(() => expect(heard.r2).toHaveLength(1), { timeout: 10_000, interval: 5 });
      expect(heard.r2[0]).toBeGreaterThan(10_000);
      expect(heard.r2[0]).toBeLessThanOrEqual(30_000);
      // A shorter pause met later never shortens it: the notice says what is left of the longer one.
      shared(r2).share(1_000);
      await vi.waitFor(() => expect(heard.r2).toHaveLength(2), { timeout: 10_000, interval: 5 });
      expect(heard.r2[1]).toBeGreaterThan(10_000);
      // A machine that starts following meanwhile waits out the pause in force.
      const late = await openJoined(store, 'r5', 'account-a');
      const lateHeard: number[] = [];
      shared(late).follow((ms) => lateHeard.push(ms));
      await vi.waitFor(() => expect(lateHeard).toHaveLength(1), { timeout: 10_000, interval: 5 });
      expect(lateHeard[0]).toBeGreaterThan(10_000);
      await late.state.close();
      // Another account is not paused.
      await sleep(100);
      expect(heard.other).toEqual([]);
    } finally {
      for (const run of [r1, r2, other, none]) await run.state.close();
    }
  });
});
