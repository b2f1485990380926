import { mkdir } from 'node:fs/promises';
import type { ClientBase } from 'pg';
import { dirname } from 'node:path';
import { systemClock } from '../../../clock.js';
import { RunnerError } from '../../../errors.js';
import { summarizeReplay, type ListRunsInput, type RunsView } from '../../run-summary.js';
import { checkJournalIdentity } from '../../journal-identity.js';
import { gatherOtherRunsJobs } from '../../other-runs-jobs.js';
import type { FirstRunRecord } from '../../run-reading.js';
import type { RunStateReading } from '../../run-reading.js';
import type { ReplayResult } from '../../replay.js';
import { createSnapshotSchedule, type StateSnapshots } from '../../snapshot-schedule.js';
import { uploadCachePathFor, type RunAddress } from '../../state-dir.js';
import type { OpenRunInput, RunCoordination, RunState, StateStore } from '../../state-store.js';
import { openUploadCache } from '../../upload-cache.js';
import { connectStateDb, unreachableError, type StateDb } from './connect-db.js';
import { acquireLease, DEFAULT_LEASE_TTL_MS, type PostgresLease, type RunKey } from './lease.js';
import { openPostgresJournal, type PostgresJournal } from './postgres-journal.js';
import { createRunCoordination } from './run-coordination.js';
import { readFirstRun, readJobMachines } from './read-records.js';
import { readMoved } from './run-records.js';
import { moveCommand, movedRunError } from '../../moved-run-hint.js';
import { replayPostgresRun, type PostgresRunReading } from './replay-run.js';
import { writePostgresSnapshot } from './snapshots.js';
import { deletePostgresRun } from './delete-run.js';
import { migrateSchema, readSchemaVersion } from './schema.js';
import { parseStateUrl, type StateUrl } from '../../state-url.js';

/**
 * The PostgreSQL backend (`--state postgres://user@host:port/db`): every run's records in one table,
 * in append order, written only under the run's lease (see lease.ts, postgres-journal.ts). Tables
 * are created on first use (schema.ts). The upload cache stays a local file: losing it only means a
 * reference file is uploaded again, which costs nothing.
 */
export function createPostgresStore(text: string): StateStore {
  const url = parseStateUrl(text);
  return {
    kind: 'postgres',
    openRun: (input) => openPostgresRun(url, input),
    readRun: (where, options) =>
      withReadingDb(url, (db, present) => readRun(url, db, where, present, options?.machines === true)),
    listRuns: (input) => withReadingDb(url, (db, present) => listRuns(url, db, input, present)),
    readRunStart: async (where) => (await readFirstRunRecord(url, where))?.at,
    readFirstRunRecord: (where) => readFirstRunRecord(url, where),
    otherRunsJobs: (where) =>
      withReadingDb(url, async (db, present) => {
        const runIds = present ? await listRunIds(db, where.pipeline, where.runId) : [];
        return gatherOtherRunsJobs(runIds, async (runId) => {
          const run = { pipeline: where.pipeline, runId };
          return (await replayPostgresRun(db.client, run, describeRun(url, run))).replay.jobs.values();
        });
      }),
    deleteRun: (where, options) => deletePostgresRun(url, keyOf(where), where, options),
  };
}

function readFirstRunRecord(url: StateUrl, where: RunAddress): Promise<FirstRunRecord | undefined> {
  return withReadingDb(url, async (db, present) =>
    present ? await readFirstRun(db.client, keyOf(where)) : undefined,
  ).catch(
    // A hint only: the replay under the lease says what is wrong.
    () => undefined,
  );
}

async function openPostgresRun(url: StateUrl, input: OpenRunInput): Promise<RunState> {
  const ttlMs = input.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const db = await connectStateDb(url, sessionLimits(ttlMs));
  // The lease's renewals on a connection of their own: one queued behind a slow append or snapshot on
  // the journal's connection let a live process's lease lapse, and another machine took its jobs over.
  let heartbeatDb: StateDb | undefined;
  const run = keyOf(input);
  const where = url.display;
  const source = describeRun(url, run);
  const clock = input.clock ?? systemClock;
  try {
    await guard(url, () => migrateSchema(db.client));
    heartbeatDb = await connectStateDb(url, sessionLimits(ttlMs));
    const heartbeat = heartbeatDb.client;
    const lease = await guard(url, () =>
      acquireLease(db.client, run, {
        ttlMs,
        where,
        shared: true,
        heartbeat,
        ...(input.machine === undefined ? {} : { machine: input.machine }),
      }),
    );
    let coordination: RunCoordination | undefined;
    try {
      const moved = await guard(url, () => readMoved(db.client, run));
      if (moved !== undefined) {
        // Pulled into a folder, which went on from it: this copy may be behind (#31.11).
        throw movedRunError(input, source, {
          ...moved,
          applyThere: `--state-dir ${moved.to} in place of --state`,
          back: moveCommand(['state', 'push'], { ...input, stateDir: moved.to }, ['--state', url.display]),
        });
      }
      // Before the replay: other processes' records after it are what they spend from now on (one
      // committed meanwhile may be counted twice, which only stops creating sooner).
      const { rows: last } = await guard(url, () =>
        db.client.query<{ seq: string }>(
          'SELECT coalesce(max(seq), 0)::text AS seq FROM runner_records WHERE pipeline = $1 AND run_id = $2',
          [run.pipeline, run.runId],
        ),
      );
      // Claims take transactions: on a connection of their own, never between the journal's appends.
      const claimsDb = await connectStateDb(url, sessionLimits(ttlMs));
      coordination = createRunCoordination(claimsDb, run, lease, {
        where: source,
        ttlMs,
        sinceSeq: last[0]?.seq ?? '0',
        connect: () => connectStateDb(url, sessionLimits(ttlMs)),
      });
      const reading = await guard(url, () => replayPostgresRun(db.client, run, source, lease));
      const { replay } = reading;
      checkJournalIdentity(replay, input, source);
      const journal = await openPostgresJournal(db.client, run, lease, {
        clock,
        where: source,
        lines: reading.lines,
        lastSeq: reading.lastSeq,
        failure: (error) => unreachableError(url, error, 'store a record in'),
      });
      const snapshots = createPostgresSnapshots({ client: db.client, run, lease, journal, reading, input });
      const cachePath = input.uploadCachePath ?? uploadCachePathFor(input.manifestFile);
      await mkdir(dirname(cachePath), { recursive: true, mode: 0o700 });
      const uploadCache = await openUploadCache(cachePath);
      return {
        dir: source,
        lock: lease,
        journal,
        jobs: replay.jobs,
        runs: replay.runs,
        warnings: [...(lease.warning === undefined ? [] : [lease.warning]), ...replay.warnings],
        uploadCache,
        coordination,
        snapshots,
        async close() {
          try {
            await journal.close();
          } finally {
            await lease.release();
            await coordination?.close();
            await db.end();
            await heartbeatDb?.end();
          }
        },
      };
    } catch (error) {
      await lease.release();
      await coordination?.close();
      throw error;
    }
  } catch (error) {
    await db.end();
    await heartbeatDb?.end();
    throw error;
  }
}

async function readRun(
  url: StateUrl,
  db: StateDb,
  where: RunAddress,
  present: boolean,
  withMachines: boolean,
): Promise<RunStateReading> {
  const run = keyOf(where);
  const source = describeRun(url, run);
  const reading = present ? await replayPostgresRun(db.client, run, source) : undefined;
  const replay: ReplayResult = reading?.replay ?? { jobs: new Map(), warnings: [], runs: [], version: 2 };
  if (present && withMachines) replay.machines = await readJobMachines(db.client, run, replay.jobs.keys());
  checkJournalIdentity(replay, where, source);
  return {
    location: { dir: source, root: url.display, warnings: [] },
    journalPath: source,
    exists: (reading?.lines ?? 0) > 0,
    replay,
  };
}

async function listRuns(
  url: StateUrl,
  db: StateDb,
  input: ListRunsInput,
  present: boolean,
): Promise<RunsView> {
  const { pipeline } = input;
  const view: RunsView = { schemaVersion: 1, pipeline, stateRoot: url.display, runs: [] };
  if (!present) return view;
  for (const runId of await listRunIds(db, pipeline, input.except)) {
    const run = { pipeline, runId };
    const { replay } = await replayPostgresRun(db.client, run, describeRun(url, run));
    view.runs.push(...summarizeReplay(replay, describeRun(url, run), pipeline, input));
  }
  view.runs.sort(
    (a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.runId.localeCompare(b.runId),
  );
  return view;
}

/** The pipeline's runs that hold records, oldest first, but `except` (a run id). */
async function listRunIds(db: StateDb, pipeline: string, except: string | undefined): Promise<string[]> {
  const { rows } = await db.client.query<{ run_id: string }>(
    `SELECT run_id FROM runner_runs r WHERE pipeline = $1 AND run_id IS DISTINCT FROM $2::text
        AND EXISTS (SELECT 1 FROM runner_records WHERE pipeline = r.pipeline AND run_id = r.run_id)
      ORDER BY created_at, run_id`,
    [pipeline, except ?? null],
  );
  return rows.map((row) => row.run_id);
}

/** Runs a read with a connection of its own; `present`: whether the runner's tables exist yet. */
async function withReadingDb<T>(
  url: StateUrl,
  read: (db: StateDb, present: boolean) => Promise<T>,
): Promise<T> {
  const db = await connectStateDb(url);
  try {
    const version = await guard(url, () => readSchemaVersion(db.client));
    return await guard(url, () => read(db, version > 0));
  } finally {
    await db.end();
  }
}

/** Database errors (not the runner's own) become STATE_UNREACHABLE, with any password blanked out. */
async function guard<T>(url: StateUrl, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw error instanceof RunnerError ? error : unreachableError(url, error, 'use');
  }
}

/**
 * An apply's connections: a transaction left waiting on its client as long as a lease lasts is ended
 * by the server (its holder was frozen: its lease is lost anyway), and a statement waiting behind
 * one gets twice that before it fails.
 */
function sessionLimits(ttlMs: number): { queryTimeoutMs: number; idleInTransactionMs: number } {
  return { queryTimeoutMs: Math.max(2 * ttlMs, 5_000), idleInTransactionMs: ttlMs };
}

function keyOf(where: RunAddress): RunKey {
  return { pipeline: where.pipeline, runId: where.runId };
}

function describeRun(url: StateUrl, run: RunKey): string {
  return `${url.display} (pipeline "${run.pipeline}", run "${run.runId}")`;
}

/**
 * Snapshots of the run's state stored in the database on the folder's schedule (see
 * `createSnapshotSchedule`), each standing for the records appended so far.
 */
function createPostgresSnapshots(input: {
  client: ClientBase;
  run: RunKey;
  lease: PostgresLease;
  journal: PostgresJournal;
  reading: PostgresRunReading;
  input: OpenRunInput;
}): StateSnapshots {
  const { client, run, lease, journal, reading } = input;
  return createSnapshotSchedule({
    journal,
    base: reading.checkpoint,
    uncovered: reading.lines - (reading.snapshot?.records ?? 0),
    ...(input.input.snapshotEvery === undefined ? {} : { every: input.input.snapshotEvery }),
    clock: input.input.clock ?? systemClock,
    write: async (content) => {
      const lastSeq = journal.lastSeq();
      if (lastSeq === undefined) throw new Error('the last record may not have been stored');
      await writePostgresSnapshot(client, run, lease, { lastSeq, records: content.position.lines }, content);
    },
  });
}
