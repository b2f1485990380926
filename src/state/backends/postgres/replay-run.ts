import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { SnapshotProblem } from '../../snapshot-format.js';
import type { RunKey } from './lease.js';
import { passedOverWarning, replayRunRecords, setAsideLate, type RecordsReading } from './read-records.js';
import { loadPostgresSnapshot, type SnapshotCover } from './snapshots.js';

/** A run's state read from the database: its records replayed, from its snapshot when it had a good one. */
export interface PostgresRunReading extends RecordsReading {
  /** The records the snapshot used stood for; undefined when the records were replayed whole. */
  snapshot: SnapshotCover | undefined;
}

/**
 * Replays a run as every command reads it (apply under its lease, status, runs and report without):
 * its snapshot plus the records after it, or, without a usable snapshot, all of its records. Both give
 * the same state. A snapshot that does not match (another format, records it stands for that are not
 * there or differ, a damaged part) is ignored with a warning, never trusted: the records are the source
 * of truth, and the next apply stores a new snapshot.
 *
 * A late record that no longer fits its job is passed over with a warning; with `lease` (the token of
 * the apply that opens the run under its lease), it is set aside at the same time, so the warning is
 * given once (#31.9, as the folder's `late.rejected.jsonl`). Readers without the lease only warn.
 */
export async function replayPostgresRun(
  client: ClientBase,
  run: RunKey,
  source: string,
  lease?: { token: string },
): Promise<PostgresRunReading> {
  const reading = await replayWhole(client, run, source);
  if (reading.passedOver.length > 0) {
    const setAside =
      lease !== undefined &&
      (await setAsideLate(
        client,
        run,
        lease.token,
        reading.passedOver.map((late) => late.seq),
      ));
    for (const late of reading.passedOver)
      reading.replay.warnings.push(passedOverWarning(late, source, setAside));
  }
  return reading;
}

async function replayWhole(client: ClientBase, run: RunKey, source: string): Promise<PostgresRunReading> {
  let loaded: Awaited<ReturnType<typeof loadPostgresSnapshot>>;
  let ignored: string | undefined;
  try {
    loaded = await loadPostgresSnapshot(client, run);
  } catch (error) {
    // A database of the schema before snapshots, read by a command that does not upgrade it: none.
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE)
      return replayRunRecords(client, run, source).then((reading) => ({ ...reading, snapshot: undefined }));
    if (!(error instanceof SnapshotProblem) && !isReadFailure(error)) throw error;
    ignored = `Ignored the state snapshot of ${source}: ${error.message}. All of the run's records were replayed instead (they are the source of truth); the next apply stores a new snapshot.`;
  }
  const reading = await replayRunRecords(
    client,
    run,
    source,
    loaded === undefined ? {} : { start: { checkpoint: loaded.checkpoint, lastSeq: loaded.cover.lastSeq } },
  );
  if (ignored !== undefined) reading.replay.warnings.unshift(ignored);
  return { ...reading, snapshot: loaded?.cover };
}

/** PostgreSQL's SQLSTATE for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/**
 * The temporary copy could not be written (a full or read-only temporary folder), or a database error
 * reading the snapshot's rows: read the records (a connection that is gone fails there too).
 */
function isReadFailure(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    !(error instanceof RunnerError) &&
    typeof (error as NodeJS.ErrnoException).code === 'string'
  );
}
