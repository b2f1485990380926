import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import {
  LATE_ANSWER_WINDOW_MS,
  type UnansweredCreate,
  waitForLateAnswers,
} from '../../late-answer-window.js';
import { parseJournalLine } from '../../replay.js';
import { connectStateDb, unreachableError } from './connect-db.js';
import { acquireLease, DEFAULT_LEASE_TTL_MS, FENCE_LOCK, type RunKey } from './lease.js';
import { migrateSchema, readSchemaVersion } from './schema.js';
import { parseStateUrl } from '../../state-url.js';
import { readableUtcTime } from '../../../readable-time.js';

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
 * lease, in one transaction: all of them or none, fenced by the lease (#31.11). Refuses a run that
 * already has records there, unless it was pulled into a folder (`state pull` marked it moved): then
 * the records left behind are replaced by the folder's (but for late answers stored there after the
 * pull, carried over), and the mark is cleared. Returns how many records the database holds now.
 */
export async function importRunRecords(
  stateUrl: string,
  run: RunKey,
  records: readonly string[],
  options: { ttlMs?: number } = {},
): Promise<number> {
  return withLeasedRun(stateUrl, run, options, async (client, lease) => {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ n: string; moved: boolean }>(
        `SELECT (SELECT count(*) FROM runner_records WHERE pipeline = $1 AND run_id = $2)::text AS n,
                coalesce((SELECT moved_to IS NOT NULL FROM runner_runs WHERE pipeline = $1 AND run_id = $2), false)
                  AS moved`,
        [run.pipeline, run.runId],
      );
      const existing = Number(rows[0]?.n ?? 0);
      if (existing > 0 && rows[0]?.moved !== true) {
        throw new RunnerError(
          'STATE_MISMATCH',
          `Run "${run.runId}" of pipeline "${run.pipeline}" already has ${existing} records in ${parseStateUrl(stateUrl).display}: nothing was copied.`,
          { hint: 'Push a run into the database once, before applying it there; or pick another --run id.' },
        );
      }
      let copied = records;
      if (existing > 0) {
        // A late answer stored in the copy a pull left behind (its sender's lease ended while its
        // create was out, and the answer came after the pull) is in no folder: carried over after the
        // folder's records, where a replay applies it with the usual checks (#31.9), never dropped.
        const pulled = new Set(records);
        // One set aside as no longer fitting (warned of once, #31.9) stays out: it would be passed over.
        const { rows: late } = await client.query<[string]>({
          text: `SELECT record FROM runner_records
                  WHERE pipeline = $1 AND run_id = $2 AND record::jsonb ->> 'late' = 'true' AND set_aside_at IS NULL
                  ORDER BY seq`,
          values: [run.pipeline, run.runId],
          rowMode: 'array',
        });
        copied = [...records, ...late.map(([record]) => record).filter((record) => !pulled.has(record))];
        // The copy a pull left behind: the folder's records, which went on from it, take its place.
        for (const table of [
          'runner_snapshot_parts',
          'runner_snapshots',
          'runner_claims',
          'runner_records',
        ]) {
          await client.query(`DELETE FROM ${table} WHERE pipeline = $1 AND run_id = $2`, [
            run.pipeline,
            run.runId,
          ]);
        }
      }
      for (let start = 0; start < copied.length; start += BATCH) {
        await client.query(
          `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
           SELECT $1, $2, t.record, $3, $4, t.job_id
             FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS t(record, job_id, n) ORDER BY t.n`,
          [
            run.pipeline,
            run.runId,
            lease.token,
            lease.holder,
            copied.slice(start, start + BATCH),
            copied.slice(start, start + BATCH).map(jobIdOf),
          ],
        );
      }
      await client.query(
        'UPDATE runner_runs SET moved_to = NULL, moved_at = NULL WHERE pipeline = $1 AND run_id = $2',
        [run.pipeline, run.runId],
      );
      await assertLeaseLive(client, stateUrl, run, lease.token);
      await client.query('COMMIT');
      return copied.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Fenced like every write (#31.11): a copy that stalled past its lease commits nothing, and the
 * lease row, held `FENCE_LOCK` until the commit, cannot be taken over meanwhile.
 */
async function assertLeaseLive(
  client: ClientBase,
  stateUrl: string,
  run: RunKey,
  token: string,
): Promise<void> {
  const { rowCount } = await client.query(
    `SELECT 1 FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND token = $3
        AND NOT released AND expires_at > clock_timestamp() ${FENCE_LOCK}`,
    [run.pipeline, run.runId, token],
  );
  if (rowCount !== 1) {
    throw new RunnerError(
      'STATE_LOCKED',
      `Moving run "${run.runId}" of pipeline "${run.pipeline}" in ${parseStateUrl(stateUrl).display} took longer than its lease (token ${token}), which expired or was taken over: nothing was moved.`,
      { hint: 'Try again when no runner applies the run; the source was left as it was.' },
    );
  }
}

/** The job a journal line is about (its `id`), or null for a run-level or damaged line. */
function jobIdOf(line: string): string | null {
  const record = parseJournalLine(line) as { id?: unknown } | undefined;
  return typeof record?.id === 'string' ? record.id : null;
}

/**
 * A run's records (JSON lines, oldest first), read under its lease so no apply adds any meanwhile,
 * handed to `write` (the folder's new journal), but for late records set aside as no longer fitting
 * (#31.9), handed apart (`setAside`: the folder keeps them for a person, as its own); then, still
 * under the lease, the run is marked moved to `movedTo` (#31.11): applying the database's copy is
 * refused from then on. A run already marked moved is refused.
 */
export async function exportRunRecords(
  stateUrl: string,
  run: RunKey,
  options: {
    movedTo: string;
    write: (records: string[], setAside: string[]) => Promise<void>;
    ttlMs?: number;
    /** {@link waitForLateAnswers}' window (tests shorten it). @default LATE_ANSWER_WINDOW_MS */
    lateAnswerWindowMs?: number;
    /** Hears once what the copy waits for (a create in flight of a runner whose lease just ended). */
    onWait?: (message: string) => void;
  },
): Promise<number> {
  return withLeasedRun(stateUrl, run, options, async (client, lease) => {
    const moved = await readMoved(client, run);
    if (moved !== undefined) {
      throw new RunnerError(
        'STATE_MISMATCH',
        `Run "${run.runId}" of pipeline "${run.pipeline}" in ${parseStateUrl(stateUrl).display} was already pulled into ${moved.to} at ${readableUtcTime(moved.at)}: nothing was written.`,
        { hint: 'Its state lives in that folder now; `runner state push` brings it back into the database.' },
      );
    }
    // A holder whose lease just ended (broken, expired) may still get a video create's answer and
    // store it as a late row: copied before then, the folder would call the job uncertain, and
    // `--resend-uncertain` there would pay for it twice. Waited for as a taker waits (#31.9).
    const windowMs = options.lateAnswerWindowMs ?? LATE_ANSWER_WINDOW_MS;
    await waitForLateAnswers({
      look: () => unansweredCreates(client, run, lease.token, windowMs),
      windowMs,
      ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
    });
    const { rows } = await client.query<[string, boolean]>({
      text: `SELECT record, set_aside_at IS NOT NULL FROM runner_records WHERE pipeline = $1 AND run_id = $2
              ORDER BY seq`,
      values: [run.pipeline, run.runId],
      rowMode: 'array',
    });
    const records = rows.filter(([, setAside]) => !setAside).map(([record]) => record);
    if (records.length === 0) return 0;
    await options.write(
      records,
      rows.filter(([, setAside]) => setAside).map(([record]) => record),
    );
    await client.query('BEGIN');
    try {
      await client.query(
        `UPDATE runner_runs SET moved_to = $3, moved_at = clock_timestamp() WHERE pipeline = $1 AND run_id = $2`,
        [run.pipeline, run.runId, options.movedTo],
      );
      await assertLeaseLive(client, stateUrl, run, lease.token);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return records.length;
  });
}

/**
 * The run's creates without an idempotency key that another lease sent (the job's latest intent),
 * with no answer on record after them (a job id, a refusal, or "uncertain" from a taker that waited
 * already), whose lease ended less than `windowMs` ago: what may still be answered late.
 */
async function unansweredCreates(
  client: ClientBase,
  run: RunKey,
  ownToken: string,
  windowMs: number,
): Promise<UnansweredCreate[]> {
  const { rows } = await client.query<{ id: string; machine: string; ended_ago: number }>(
    `SELECT i.job_id AS id, coalesce(l.machine, l.holder) AS machine,
            greatest(0, extract(epoch FROM clock_timestamp() - l.expires_at) * 1000)::float8 AS ended_ago
       FROM (SELECT DISTINCT ON (job_id) seq, job_id, lease_token, record FROM runner_records
              WHERE pipeline = $1 AND run_id = $2 AND job_id IS NOT NULL AND record LIKE '{"type":"intent"%'
              ORDER BY job_id, seq DESC) i
       JOIN runner_leases l ON l.pipeline = $1 AND l.run_id = $2 AND l.token = i.lease_token
      WHERE l.token <> $3 AND l.expires_at > clock_timestamp() - $4 * interval '1 millisecond'
        AND i.record::jsonb ->> 'idempotencyKey' IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM runner_records a
           WHERE a.pipeline = $1 AND a.run_id = $2 AND a.job_id = i.job_id AND a.seq > i.seq
             AND a.set_aside_at IS NULL
             AND (a.record LIKE '{"type":"created"%' OR a.record LIKE '{"type":"create-failed"%'
                  OR a.record LIKE '{"type":"uncertain"%'))
      ORDER BY i.seq`,
    [run.pipeline, run.runId, ownToken, windowMs],
  );
  return rows.map((row) => ({ id: row.id, machine: row.machine, endedAgoMs: row.ended_ago }));
}

/** Where a run pulled into a folder went (`runner_runs.moved_to`), or undefined. */
export async function readMoved(
  client: ClientBase,
  run: RunKey,
): Promise<{ to: string; at: string } | undefined> {
  const { rows } = await client.query<{ moved_to: string | null; moved_at: Date | null }>(
    'SELECT moved_to, moved_at FROM runner_runs WHERE pipeline = $1 AND run_id = $2',
    [run.pipeline, run.runId],
  );
  const row = rows[0];
  if (row?.moved_to == null) return undefined;
  return { to: row.moved_to, at: row.moved_at?.toISOString() ?? '?' };
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
    // Locked FOR UPDATE first: the break waits for the holder's fenced writes under way (FENCE_LOCK),
    // which a plain UPDATE of no key would not, and refuses every later one.
    const { rowCount } = await db.client.query(
      `WITH live AS (
         SELECT token FROM runner_leases
          WHERE pipeline = $1 AND run_id = $2 AND NOT released AND expires_at > clock_timestamp()
          FOR UPDATE)
       UPDATE runner_leases l SET expires_at = clock_timestamp() FROM live
        WHERE l.pipeline = $1 AND l.run_id = $2 AND l.token = live.token`,
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
  options: { ttlMs?: number },
  task: (client: ClientBase, lease: { token: string; holder: string }) => Promise<T>,
): Promise<T> {
  const url = parseStateUrl(stateUrl);
  const db = await connectStateDb(url);
  try {
    await migrateSchema(db.client);
    const lease = await acquireLease(db.client, run, {
      ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS,
      where: url.display,
    });
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
