import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import type { ExecuteDeps } from '../../src/execute/options.js';
import type { Plan } from '../../src/plan/types.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import type { RunState } from '../../src/state/state-store.js';
import { pgAvailable } from '../pg-cluster.js';
import { imageJob } from './executor-harness.js';
import {
  executeOnRun,
  forgeRecord,
  joinRun,
  leaseTokenOf,
  planOf,
  quickOptions,
  startService,
  usePgWorkFolder,
} from './pg-work-folder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two machines on one PostgreSQL run, each with an output folder of its own (#30.2: each machine's
 * output holds the whole run): the results the other machine saves are fetched while this one still
 * runs its own share, not all of them after its last job (the 3-machine benchmark's tail).
 */
describe.runIf(pgAvailable())("a shared run: the other machines' results fetched meanwhile", () => {
  const work = usePgWorkFolder('runner-pg-fetch-meanwhile-', { leaseTtlMs: 5_000 });
  const { address } = work;

  /** Executes `plan` as machine `machine` of the run (joined), its results into its own folder, as apply does. */
  function execute(
    plan: Plan,
    state: RunState,
    run: {
      machine: string;
      client: ExecuteDeps['client'];
      events: ExecutionEvent[];
      afterDownload?: ExecuteDeps['afterDownload'];
    },
  ): Promise<ExecutionSummary> {
    const options = quickOptions(work.dir, {
      download: true,
      outputDir: join(work.dir, `out-${run.machine}`),
    });
    return executeOnRun(plan, state, { ...run, options });
  }

  /** Opens the run as machines a and b, both joined before either writes a record. */
  async function openBoth(url: string) {
    const store = createPostgresStore(url);
    const a = await store.openRun(address('a'));
    const b = await store.openRun(address('b'));
    return { a, b, ca: await joinRun(a), cb: await joinRun(b) };
  }

  const jobs = ['fox', 'hare', 'owl'].map((animal, index) =>
    imageJob(`j${index + 1}`, `A detailed picture of a ${animal} standing in a misty forest at dawn`),
  );

  it("holds the other machine's results before its own last job is done, each fetched once", async () => {
    const url = await work.cluster().createDatabase();
    const { sim, connect } = await startService(11, 1);
    const clients = [connect(), connect()];
    const { a, b } = await openBoth(url);
    try {
      // b saves j1 and j2 into its own folder while a is on the run (a joined first).
      const bEvents: ExecutionEvent[] = [];
      const bSummary = await execute(planOf(work.dir, jobs.slice(0, 2)), b, {
        machine: 'b',
        client: clients[1] ?? connect(),
        events: bEvents,
      });
      expect(
        bSummary.jobs.map((job) => job.outcome),
        JSON.stringify(bSummary.jobs),
      ).toEqual(['done', 'done']);
      const outA = join(work.dir, 'out-a');
      const bFiles = bSummary.jobs.flatMap((job) => job.files);
      expect(bFiles.length).toBeGreaterThanOrEqual(2);
      const inA = bFiles.map((file) => join(outA, relative(join(work.dir, 'out-b'), file)));

      // a's own job (j3, the one left) is not done until its result is handled: it waits there for
      // b's results to show in a's folder. Before, they were fetched only after a's last job.
      let heldBeforeOwnDone: boolean | undefined;
      const events: ExecutionEvent[] = [];
      const summary = await execute(planOf(work.dir, jobs), a, {
        machine: 'a',
        client: clients[0] ?? connect(),
        events,
        afterDownload: async (saved) => {
          if (saved.id !== 'j3') return;
          const until = Date.now() + 60_000;
          while (!inA.every((file) => existsSync(file)) && Date.now() < until) await sleep(20);
          heldBeforeOwnDone = inA.every((file) => existsSync(file));
        },
      });
      expect(heldBeforeOwnDone).toBe(true);
      expect(summary.jobs.map((job) => [job.id, job.outcome])).toEqual([
        ['j1', 'done'],
        ['j2', 'done'],
        ['j3', 'done'],
      ]);
      expect(summary.jobs.find((job) => job.id === 'j1')?.files.every((f) => f.startsWith(outA))).toBe(true);
      // Nothing created for a fetch, and each of b's results fetched once (not again at the end).
      expect(sim.stats().jobsCreated).toBe(3);
      const fetched = events.filter((event) => event.type === 'downloaded' && event.id !== 'j3');
      expect(fetched).toHaveLength(bFiles.length);
      const refetched = events.filter(
        (event) =>
          event.type === 'warning' &&
          /result\(s\) the state records as saved were missing/.test(event.message),
      );
      expect(refetched.map((event) => event.type === 'warning' && event.message)).toEqual([
        expect.stringMatching(new RegExp(`^${bFiles.length} result\\(s\\)`)),
      ]);
    } finally {
      await a.close();
      await b.close();
      for (const client of clients) await client.close();
      await sim.close();
    }
  }, 180_000);

  it("reads each job another machine saved once, from a cursor, with a replay's checks", async () => {
    const url = await work.cluster().createDatabase();
    const { sim, connect } = await startService(13, 1);
    const client = connect();
    const { a, b, ca, cb } = await openBoth(url);
    try {
      expect((await ca.readOthersSavedSince(undefined)).jobs.size).toBe(0);
      await execute(planOf(work.dir, jobs.slice(0, 1)), b, {
        machine: 'b',
        client,
        events: [],
      });
      const first = await ca.readOthersSavedSince(undefined);
      expect([...first.jobs.keys()]).toEqual(['j1']);
      expect(first.jobs.get('j1')?.status).toBe('done');
      expect(first.jobs.get('j1')?.downloads[0]?.machine).toBe('b');
      // Nothing saved since: nothing read again.
      const again = await ca.readOthersSavedSince(first.cursor);
      expect(again).toEqual({ jobs: new Map(), cursor: first.cursor });
      // b's own reads leave out what b wrote.
      expect((await cb.readOthersSavedSince(undefined)).jobs.size).toBe(0);
      // A "downloaded" row no runner wrote (the job was never completed) is refused, as a replay refuses it.
      await forgeRecord(url, leaseTokenOf(b), 'j7', {
        type: 'downloaded',
        at: 1,
        id: 'j7',
        url: 'http://x/1.png',
        file: 'x.png',
        bytes: 1,
        sha256: 'ab',
      });
      await expect(ca.readOthersSavedSince(again.cursor)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
    } finally {
      await a.close();
      await b.close();
      await client.close();
      await sim.close();
    }
  }, 180_000);

  it('a link that expired before it could be fetched is reported once, honestly, and counted as not saved here', async () => {
    const url = await work.cluster().createDatabase();
    const { sim, connect } = await startService(12, 1);
    const clients = [connect(), connect()];
    const { a, b } = await openBoth(url);
    try {
      const bSummary = await execute(planOf(work.dir, jobs.slice(0, 2)), b, {
        machine: 'b',
        client: clients[1] ?? connect(),
        events: [],
      });
      expect(
        bSummary.jobs.map((job) => job.outcome),
        JSON.stringify(bSummary.jobs),
      ).toEqual(['done', 'done']);
      // From now on the result host refuses every link, as it does an expired one.
      sim.setHostile({ resultStatus: 403 });
      const events: ExecutionEvent[] = [];
      const summary = await execute(planOf(work.dir, jobs), a, {
        machine: 'a',
        client: clients[0] ?? connect(),
        events,
      });
      for (const id of ['j1', 'j2']) {
        const job = summary.jobs.find((one) => one.id === id);
        expect(job?.outcome, id).toBe('downloading');
        expect(job?.error, id).toMatch(
          /missing here: its link expired \(the result host answers HTTP 403; saved on b at /,
        );
        const warnings = events.filter(
          (event) => event.type === 'warning' && event.id === id && /is missing from/.test(event.message),
        );
        expect(warnings, id).toHaveLength(1);
        expect(JSON.stringify(warnings)).not.toMatch(/File not found/);
      }
      expect(summary.counts.done).toBe(0);
      expect(sim.stats().jobsCreated).toBe(3);
    } finally {
      await a.close();
      await b.close();
      for (const client of clients) await client.close();
      await sim.close();
    }
  }, 180_000);
});
