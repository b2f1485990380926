import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { ExecuteDeps, ExecuteOptions } from '../../src/execute/options.js';
import type { Plan } from '../../src/plan/types.js';
import { createServiceClient } from '../../src/service/client.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { OpenRunInput, RunCoordination, RunState } from '../../src/state/state-store.js';
import { type PgCluster, usePgCluster, withPgClient } from '../pg-cluster.js';

/**
 * What the PostgreSQL integration tests share: a throwaway cluster for the file, a temporary work
 * folder (the manifest's and upload caches' place), and the address of run `r1` of pipeline `p` in it.
 */
export interface PgWorkFolder {
  readonly cluster: () => PgCluster;
  /** The work folder: a new one for each test, or one for the file (`each: 'file'`). */
  readonly dir: string;
  /**
   * Run r1 of pipeline p as `machine` opens it (its own upload cache), with the file's lease length;
   * without a machine, one upload cache and no machine name.
   */
  address(machine?: string): OpenRunInput;
}

/** Registers the cluster and the work folder (`prefix`: the folder's name) on the file or describe. */
export function usePgWorkFolder(
  prefix: string,
  { leaseTtlMs, each = 'test' }: { leaseTtlMs: number; each?: 'test' | 'file' },
): PgWorkFolder {
  const cluster = usePgCluster();
  let dir = '';
  const [before, after] = each === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return {
    cluster,
    get dir() {
      return dir;
    },
    address: (machine) => ({
      manifestFile: join(dir, 'm.yaml'),
      pipeline: 'p',
      runId: 'r1',
      uploadCachePath: join(dir, machine === undefined ? 'uploads.json' : `uploads-${machine}.json`),
      leaseTtlMs,
      ...(machine === undefined ? {} : { machine }),
    }),
  };
}

/** The run's coordination (PostgreSQL has one; the folder none), or an error. */
export function coordinationOf(state: RunState): RunCoordination {
  if (state.coordination === undefined) throw new Error('no coordination');
  return state.coordination;
}

/** The run's coordination, joined for plan `plan-1` as apply joins it before it executes. */
export async function joinRun(state: RunState): Promise<RunCoordination> {
  const coordination = coordinationOf(state);
  await coordination.join('plan-1');
  return coordination;
}

/** The claim's job id, or its kind when it claimed none. */
export async function claimed(coordination: RunCoordination, limit: number): Promise<string> {
  const claim = await coordination.claim(limit);
  return claim.kind === 'claimed' ? claim.id : claim.kind;
}

/** A simulator fast enough for tests and a way to connect a client to it (one per machine). */
export async function startService(
  seed: number,
  maxRetries: number,
): Promise<{ sim: Simulator; connect: () => ServiceClient }> {
  const sim = await startSimulator({ timeScale: 0.002, seed });
  const connect = () =>
    createServiceClient({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      retry: { maxRetries, baseDelayMs: 5, maxDelayMs: 20 },
    });
  return { sim, connect };
}

/** A plan of pipeline p with `jobs`, its manifest in `dir`. */
export function planOf(dir: string, jobs: Plan['jobs']): Plan {
  return { pipeline: 'p', manifestFile: join(dir, 'm.yaml'), jobs, warnings: [] };
}

/** Run r1's execute options with short polls and backoff, results into `dir/out`, nothing downloaded. */
export function quickOptions(dir: string, extra: Partial<ExecuteOptions> = {}): ExecuteOptions {
  return {
    runId: 'r1',
    pollIntervalMs: [10, 30],
    firstPollAfterMs: 20,
    retry: { backoffMs: 5 },
    download: false,
    outputDir: join(dir, 'out'),
    ...extra,
  };
}

/**
 * Executes `plan` on an opened run's state as apply does: the state whole (its journal, lock, jobs,
 * snapshots, coordination and late answers; a PostgreSQL run's coordination joined first, `joinRun`),
 * each event pushed to `events`; as machine `machine` of a shared run where one is named.
 */
export function executeOnRun(
  plan: Plan,
  state: RunState,
  run: {
    client: ServiceClient;
    events: ExecutionEvent[];
    options: ExecuteOptions;
    machine?: string;
    afterDownload?: ExecuteDeps['afterDownload'];
  },
): Promise<ExecutionSummary> {
  return executePlan(
    plan,
    {
      client: run.client,
      run: state,
      clock: systemClock,
      ...(run.machine === undefined ? {} : { machine: run.machine }),
      signal: new AbortController().signal,
      onEvent: (event) => run.events.push(event),
      ...(run.afterDownload === undefined ? {} : { afterDownload: run.afterDownload }),
    },
    run.options,
  );
}

/** The lease token under which an opened run's state writes its records ('' for none). */
export const leaseTokenOf = (state: RunState): string => (state.lock as { token?: string }).token ?? '';

/**
 * Inserts a record into run r1 of pipeline p as no runner would: straight into the table, under
 * `token`'s name (a forged or foreign row, for the checks a replay makes).
 */
export async function forgeRecord(url: string, token: string, id: string, record: object): Promise<void> {
  await withPgClient(url, (client) =>
    client.query(
      `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
       VALUES ('p', 'r1', $1, $2, 'someone', $3)`,
      [JSON.stringify(record), token, id],
    ),
  );
}

/** The warnings among `events` whose message matches `pattern`. */
export const warningsOf = (events: ExecutionEvent[], pattern: RegExp): ExecutionEvent[] =>
  events.filter((event) => event.type === 'warning' && pattern.test(event.message));
