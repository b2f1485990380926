import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { summarizeReplay } from '../../run-summary.js';
import { checkJournalIdentity } from '../../journal-identity.js';
import {
  describeUnfinished,
  toPrunedRun,
  type DeleteRunOptions,
  type DeleteRunResult,
} from '../../prune-runs.js';
import { connectStateDb, unreachableError } from './connect-db.js';
import type { RunKey } from './lease.js';
import { replayPostgresRun } from './replay-run.js';
import { migrateSchema, readSchemaVersion, SCHEMA_VERSION } from './schema.js';
import type { StateUrl } from '../../state-url.js';
import { readableUtcTime } from '../../../readable-time.js';

/**
 * Every table keyed by one run (schema.ts), children first: its snapshot's parts and header, its job
 * claims, the model prices its machines shared (keyed per run, #31.4), its leases, its records, then
 * its row. `runner_schema_migrations` is the only table shared by every run, and stays.
 */
const RUN_TABLES = [
  'runner_snapshot_parts',
  'runner_snapshots',
  'runner_claims',
  'runner_model_prices',
  'runner_leases',
  'runner_records',
  'runner_runs',
] as const;

/**
 * The PostgreSQL backend's {@link StateStore.deleteRun}: in one transaction, the run's row locked
 * (`FOR UPDATE`: an apply taking the lease waits behind it, then starts the run afresh), refused while
 * a lease on it is live, its records replayed to refuse unfinished paid work, then every row of it in
 * {@link RUN_TABLES} deleted. A crash or a lost connection before the commit rolls all of it back.
 */
export async function deletePostgresRun(
  url: StateUrl,
  run: RunKey,
  where: { manifestFile: string; pipeline: string; runId: string },
  options: DeleteRunOptions = {},
): Promise<DeleteRunResult> {
  const { runId } = run;
  const source = `${url.display} (pipeline "${run.pipeline}", run "${run.runId}")`;
  const db = await connectStateDb(url);
  try {
    const version = await readSchemaVersion(db.client);
    if (version === 0) return { kind: 'missing', runId };
    const client = db.client;
    // Every table of RUN_TABLES exists from then on (an older database lacks the later ones).
    if (version < SCHEMA_VERSION && options.dryRun !== true) await migrateSchema(client);
    await client.query('BEGIN');
    try {
      const result = await deleteInTransaction(client, run, where, source, options);
      if (result.kind === 'deleted' && options.dryRun !== true) {
        await options.seam?.('rows-deleted');
        await client.query('COMMIT');
      } else {
        await client.query('ROLLBACK');
      }
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } catch (error) {
    throw error instanceof RunnerError ? error : unreachableError(url, error, 'delete a run in');
  } finally {
    await db.end();
  }
}

async function deleteInTransaction(
  client: ClientBase,
  run: RunKey,
  where: { manifestFile: string; pipeline: string; runId: string },
  source: string,
  options: DeleteRunOptions,
): Promise<DeleteRunResult> {
  const { runId } = run;
  const key = [run.pipeline, run.runId];
  const { rowCount } = await client.query(
    'SELECT 1 FROM runner_runs WHERE pipeline = $1 AND run_id = $2 FOR UPDATE',
    key,
  );
  if (rowCount !== 1) return { kind: 'missing', runId };
  const { rows: live } = await client.query<{ holder: string; expires_at: Date }>(
    `SELECT holder, expires_at FROM runner_leases
      WHERE pipeline = $1 AND run_id = $2 AND NOT released AND expires_at > clock_timestamp()`,
    key,
  );
  const holder = live[0];
  if (holder !== undefined) {
    return {
      kind: 'kept',
      runId,
      live: true,
      reason: `an apply holds its lease now (${holder.holder}, until ${readableUtcTime(holder.expires_at.getTime(), { seconds: true })} unless renewed)`,
    };
  }
  const reading = await replayPostgresRun(client, run, source);
  checkJournalIdentity(reading.replay, where, source);
  const [summary] = summarizeReplay(reading.replay, source, run.pipeline);
  if (summary === undefined || reading.lines === 0) return { kind: 'missing', runId };
  const { rows: size } = await client.query<{ bytes: string }>(
    `SELECT ((SELECT coalesce(sum(octet_length(record)), 0) FROM runner_records WHERE pipeline = $1 AND run_id = $2)
           + (SELECT coalesce(sum(octet_length(data)), 0) FROM runner_snapshot_parts WHERE pipeline = $1 AND run_id = $2))::text AS bytes`,
    key,
  );
  const pruned = toPrunedRun(summary, run.pipeline, Number(size[0]?.bytes ?? 0));
  const lost = describeUnfinished(summary);
  if (lost !== undefined && options.force !== true)
    return { kind: 'kept', runId, live: false, reason: `it has ${lost}` };
  if (lost !== undefined) pruned.lost = lost;
  if (options.dryRun === true) return { kind: 'deleted', run: pruned };
  for (const table of RUN_TABLES)
    await client.query(`DELETE FROM ${table} WHERE pipeline = $1 AND run_id = $2`, key);
  return { kind: 'deleted', run: pruned };
}
