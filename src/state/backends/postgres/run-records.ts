import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { parseJournalLine } from '../../replay.js';
import { connectStateDb, unreachableError } from './connect-db.js';
import { acquireLease, DEFAULT_LEASE_TTL_MS, type RunKey } from './lease.js';
import { migrateSchema, readSchemaVersion } from './schema.js';
import { parseStateUrl } from './state-url.js';

/** Records per INSERT when a run's records are copied in. */
const BATCH = 5_000;

/** A run's lease as `runner state lease` shows it. */
export interface LeaseView {
  holder: string;
  token: string;
  acquiredAt: string;
  expiresAt: string;
  released: boolean;
  /** Whether it is held now: not released and not expired. */
  live: boolean;
}

/**
 * Copies a run's journal lines (the JSON records, oldest first) into the database, under the run's
 * lease, in one transaction: all of them or none. Refuses a run that already has records there.
 */
export async function importRunRecords(
  stateUrl: string,
  run: RunKey,
  records: readonly string[],
): Promise<void> {
  await withLeasedRun(stateUrl, run, async (client, lease) => {
    const { rows } = await client.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM runner_records WHERE pipeline = $1 AND run_id = $2',
      [run.pipeline, run.runId],
    );
    const existing = Number(rows[0]?.n ?? 0);
    if (existing > 0) {
      throw new RunnerError(
        'STATE_MISMATCH',
        `Run "${run.runId}" of pipeline "${run.pipeline}" already has ${existing} records in ${parseStateUrl(stateUrl).display}: nothing was copied.`,
        { hint: 'Push a run into the database once, before applying it there; or pick another --run id.' },
      );
    }
    await client.query('BEGIN');
    try {
      for (let start = 0; start < records.length; start += BATCH) {
        await client.query(
          `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
           SELECT $1, $2, t.record, $3, $4, t.job_id
             FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS t(record, job_id, n) ORDER BY t.n`,
          [
            run.pipeline,
            run.runId,
            lease.token,
            lease.holder,
            records.slice(start, start + BATCH),
            records.slice(start, start + BATCH).map(jobIdOf),
          ],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** The job a journal line is about (its `id`), or null for a run-level or damaged line. */
function jobIdOf(line: string): string | null {
  const record = parseJournalLine(line) as { id?: unknown } | undefined;
  return typeof record?.id === 'string' ? record.id : null;
}

/** A run's records (JSON lines, oldest first), read under its lease so no apply adds any meanwhile. */
export async function exportRunRecords(stateUrl: string, run: RunKey): Promise<string[]> {
  return withLeasedRun(stateUrl, run, async (client) => {
    const { rows } = await client.query<[string]>({
      text: 'SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq',
      values: [run.pipeline, run.runId],
      rowMode: 'array',
    });
    return rows.map(([record]) => record);
  });
}

/** The run's lease, or undefined when no runner ever applied it there. */
export async function inspectLease(stateUrl: string, run: RunKey): Promise<LeaseView | undefined> {
  const url = parseStateUrl(stateUrl);
  const db = await connectStateDb(url);
  try {
    if ((await readSchemaVersion(db.client)) === 0) return undefined;
    const { rows } = await db.client.query<{
      holder: string;
      token: string;
      acquired_at: Date;
      expires_at: Date;
      released: boolean;
      live: boolean;
    }>(
      `SELECT holder, token::text AS token, acquired_at, expires_at, released,
              NOT released AND expires_at > clock_timestamp() AS live
         FROM runner_leases WHERE pipeline = $1 AND run_id = $2
        ORDER BY NOT released AND expires_at > clock_timestamp() DESC, token DESC LIMIT 1`,
      [run.pipeline, run.runId],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      holder: row.holder,
      token: row.token,
      acquiredAt: row.acquired_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
      released: row.released,
      live: row.live,
    };
  } catch (error) {
    throw error instanceof RunnerError ? error : unreachableError(url, error, 'read');
  } finally {
    await db.end();
  }
}

/**
 * Ends the run's lease now, as if it had expired: its holder's next write is refused by the
 * database and it stops before its next create; the next apply takes the run over and follows the
 * open jobs. For a holder that is gone for good (a lease expires by itself anyway).
 */
export async function breakLease(stateUrl: string, run: RunKey): Promise<boolean> {
  const url = parseStateUrl(stateUrl);
  const db = await connectStateDb(url);
  try {
    if ((await readSchemaVersion(db.client)) === 0) return false;
    const { rowCount } = await db.client.query(
      `UPDATE runner_leases SET expires_at = clock_timestamp()
        WHERE pipeline = $1 AND run_id = $2 AND NOT released AND expires_at > clock_timestamp()`,
      [run.pipeline, run.runId],
    );
    return (rowCount ?? 0) > 0;
  } catch (error) {
    throw error instanceof RunnerError ? error : unreachableError(url, error, 'update');
  } finally {
    await db.end();
  }
}

async function withLeasedRun<T>(
  stateUrl: string,
  run: RunKey,
  task: (client: ClientBase, lease: { token: string; holder: string }) => Promise<T>,
): Promise<T> {
  const url = parseStateUrl(stateUrl);
  const db = await connectStateDb(url);
  try {
    await migrateSchema(db.client);
    const lease = await acquireLease(db.client, run, { ttlMs: DEFAULT_LEASE_TTL_MS, where: url.display });
    try {
      return await task(db.client, lease);
    } finally {
      await lease.release();
    }
  } catch (error) {
    throw error instanceof RunnerError ? error : unreachableError(url, error, 'use');
  } finally {
    await db.end();
  }
}
