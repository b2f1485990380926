import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { QueryResultRow } from 'pg';
import { DEFAULT_LEASE_TTL_MS } from '../../src/state/backends/postgres/lease.js';
import type { StatusView } from '../../src/state/status-view.js';
import { pgAvailable, usePgCluster, withPgClient } from '../pg-cluster.js';
import { readJournalLines, type JournalLine } from './apply-fixtures.js';
import { waitForLeasesToExpire } from './lease-expiry.js';
import { runCli } from './run-cli.js';

/** Where a run's state lives in a test: `--state-dir` (the local folder) or `--state postgres://…`. */
export type StateBackendName = 'folder' | 'postgres';

/**
 * The backends the state tests run on (`describe.each`): the folder, and PostgreSQL when its server
 * is installed. In CI (`CI=true`) a missing server fails the run instead (see `pgAvailable`).
 */
export function stateBackends(): StateBackendName[] {
  return pgAvailable() ? ['folder', 'postgres'] : ['folder'];
}

/** One test's state, in one backend: how the CLI is pointed at it, and what a test reads of it. */
export interface StatePlace {
  readonly backend: StateBackendName;
  /** CLI arguments that select it: `--state-dir DIR` (PostgreSQL's URL is in `env`). */
  readonly args: readonly string[];
  /** Environment for the CLI: `RUNNER_STATE_URL` and the lease's lifetime for PostgreSQL. */
  readonly env: Record<string, string>;
  /** The run's records, oldest first (a torn last journal line skipped). */
  records(run?: string): Promise<JournalLine[]>;
  /**
   * Whether the run's lock or lease was left held (a lock file; a lease row not released), e.g. by
   * a process killed while applying.
   */
  lockLeft(run?: string): Promise<boolean>;
  /** Whether the run has a state snapshot (`snapshot.jsonl`; a `runner_snapshots` row). */
  hasSnapshot(run?: string): Promise<boolean>;
  /** Removes the run's snapshot: the next read replays its records whole. */
  dropSnapshot(run?: string): Promise<void>;
  /** Waits until a lease left by a dead process has expired (PostgreSQL; nothing for the folder). */
  waitForLeaseExpiry(): Promise<void>;
}

/**
 * The backend of one `describe.each` case: for PostgreSQL, one throwaway cluster for the file's
 * cases (started in `beforeAll`, stopped in `afterAll`) and a fresh database per `place()`. The
 * lease defaults to the product's 30 s, which a live apply keeps on a loaded machine (with 2 s one
 * could go that long without a renewal and stop, by design); a file whose case kills an apply and
 * waits out its lease gives that apply a short one.
 */
export function useStateBackend(
  backend: StateBackendName,
  options: { leaseTtlMs?: number } = {},
): { place(stateDir: string, pipeline: string): Promise<StatePlace> } {
  const cluster = usePgCluster(backend === 'postgres');
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  return {
    async place(stateDir, pipeline) {
      if (backend === 'folder') return folderPlace(stateDir, pipeline);
      const url = await cluster().createDatabase();
      return postgresPlace(url, pipeline, leaseTtlMs);
    },
  };
}

function folderPlace(stateDir: string, pipeline: string): StatePlace {
  const runDir = (run = 'default') => join(stateDir, pipeline, run);
  return {
    backend: 'folder',
    args: ['--state-dir', stateDir],
    env: {},
    // Given the run's own folder, the fixture reads the journal in it.
    records: (run) => readJournalLines(runDir(run)),
    lockLeft: (run) => Promise.resolve(existsSync(join(runDir(run), 'lock'))),
    hasSnapshot: (run) => Promise.resolve(existsSync(join(runDir(run), 'snapshot.jsonl'))),
    async dropSnapshot(run) {
      const { rm } = await import('node:fs/promises');
      await rm(join(runDir(run), 'snapshot.jsonl'));
    },
    waitForLeaseExpiry: () => Promise.resolve(),
  };
}

function postgresPlace(url: string, pipeline: string, leaseTtlMs: number): StatePlace {
  const query = async <T extends QueryResultRow>(text: string, values: unknown[]): Promise<T[]> => {
    try {
      return await withPgClient(url, async (client) => (await client.query<T>(text, values)).rows);
    } catch (error) {
      // Before the first apply the tables do not exist yet: no records, no lease, no snapshot.
      if ((error as { code?: string }).code === '42P01') return [];
      throw error;
    }
  };
  const key = (run = 'default') => [pipeline, run];
  return {
    backend: 'postgres',
    args: [],
    env: { RUNNER_STATE_URL: url, RUNNER_LEASE_TTL_MS: String(leaseTtlMs) },
    async records(run) {
      const rows = await query<{ record: string }>(
        'SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq',
        key(run),
      );
      return rows.map((row) => JSON.parse(row.record) as JournalLine);
    },
    async lockLeft(run) {
      const rows = await query(
        'SELECT 1 FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND NOT released',
        key(run),
      );
      return rows.length > 0;
    },
    async hasSnapshot(run) {
      const rows = await query(
        'SELECT 1 FROM runner_snapshots WHERE pipeline = $1 AND run_id = $2',
        key(run),
      );
      return rows.length > 0;
    },
    async dropSnapshot(run) {
      await query(
        `WITH parts AS (DELETE FROM runner_snapshot_parts WHERE pipeline = $1 AND run_id = $2)
         DELETE FROM runner_snapshots WHERE pipeline = $1 AND run_id = $2`,
        key(run),
      );
    },
    waitForLeaseExpiry: () => waitForLeasesToExpire(url),
  };
}

/** `runner status FILE --json` on a place's state, parsed (exit 1 with a view means results are owed). */
export async function readStatusAt(
  place: StatePlace,
  manifestFile: string,
  env: Record<string, string>,
  run?: string,
): Promise<StatusView> {
  const result = await runCli(
    ['status', manifestFile, ...place.args, ...(run === undefined ? [] : ['--run', run]), '--json'],
    { env: { ...env, ...place.env } },
  );
  if (result.code !== 0 && !(result.code === 1 && result.stdout.startsWith('{')))
    throw new Error(`runner status exited ${String(result.code)}: ${result.stderr}`);
  return JSON.parse(result.stdout) as StatusView;
}

/** The manifest job id behind each idempotency key in a place's `intent` records. */
export async function readIntentKeysAt(place: StatePlace, run?: string): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  for (const record of await place.records(run)) {
    if (record.type === 'intent' && record.idempotencyKey !== undefined && record.id !== undefined) {
      keys.set(record.idempotencyKey, record.id);
    }
  }
  return keys;
}

/** Idempotency keys of service jobs whose `created` record the place does not hold (see apply-fixtures). */
export async function findUnrecordedCreates(
  place: StatePlace,
  serviceJobs: readonly { idempotencyKey?: string }[],
): Promise<string[]> {
  const keyOf = new Map<string, string>();
  const recorded = new Set<string>();
  for (const record of await place.records()) {
    const attempt = `${record.id ?? ''}#${String(record.attempt ?? '')}`;
    if (record.type === 'intent' && record.idempotencyKey !== undefined)
      keyOf.set(attempt, record.idempotencyKey);
    if (record.type === 'created') {
      const key = keyOf.get(attempt);
      if (key !== undefined) recorded.add(key);
    }
  }
  return serviceJobs.flatMap((job) =>
    job.idempotencyKey !== undefined && !recorded.has(job.idempotencyKey) ? [job.idempotencyKey] : [],
  );
}
