import type { ClientBase } from 'pg';
import {
  createJournalReplay,
  type LatePassedOver,
  type ReplayCheckpoint,
  type ReplayResult,
} from '../../replay.js';
import type { FirstRunRecord } from '../../run-reading.js';
import type { RunKey } from './lease.js';

/** Records fetched per query when a run is replayed. */
const PAGE = 20_000;

/** A run's records replayed from the database. */
export interface RecordsReading {
  replay: ReplayResult;
  /** The run's records: its journal length (those a snapshot stood for and those read after it). */
  lines: number;
  /** The sequence number of the run's last record; undefined when it has none. */
  lastSeq: string | undefined;
  /** The replay apart from its jobs. */
  checkpoint: Omit<ReplayCheckpoint, 'jobs' | 'lines'>;
  /**
   * Late records (#31.9) that no longer fit their job and are not set aside yet: passed over, not
   * yet warned of (the caller does, and the run's lease holder sets them aside: `setAsideLate`).
   */
  passedOver: (LatePassedOver & { seq: string })[];
}

/** Where a replay starts: after the records a snapshot stands for, from its replay of them. */
export interface RecordsStart {
  checkpoint: ReplayCheckpoint;
  /** The sequence number of the last record the checkpoint covers. */
  lastSeq: string;
}

/**
 * Replays a run's records in the order they were appended, exactly as the folder backend replays its
 * journal's lines (the records are stored as the same JSON text), so both give the same state. From
 * `start`, only the records after it are read.
 */
export async function replayRunRecords(
  client: ClientBase,
  run: RunKey,
  source: string,
  options: { page?: number; start?: RecordsStart } = {},
): Promise<RecordsReading> {
  const { page = PAGE, start } = options;
  const replay = createJournalReplay(source, start?.checkpoint, { warnLate: false });
  const passedOver: RecordsReading['passedOver'] = [];
  let number = start?.checkpoint.lines ?? 0;
  let lastSeq = start?.lastSeq;
  let setAsideColumn = true;
  // In pages by sequence number: a large run is never held as one result set (memory), and each
  // page is replayed while the next is not yet asked for.
  for (let after = start?.lastSeq ?? '0'; ;) {
    let rows: [string, string, boolean][];
    try {
      rows = await readPage(client, run, after, page, setAsideColumn);
    } catch (error) {
      // A database of the schema before records were set aside, read by a command that does not
      // upgrade it (status): none is.
      if (!setAsideColumn || (error as { code?: unknown }).code !== UNDEFINED_COLUMN) throw error;
      setAsideColumn = false;
      rows = await readPage(client, run, after, page, setAsideColumn);
    }
    for (const [seq, text, setAside] of rows) {
      number++;
      // A late record that no longer fit, set aside by the holder that passed it over and warned of
      // it (#31.9): it would be passed over again, so it is counted, never replayed, and quiet.
      if (setAside) continue;
      const late = replay.add({ number, text, bytes: text.length, terminated: true });
      if (late !== undefined) passedOver.push({ ...late, seq });
    }
    const last = rows.at(-1);
    if (last !== undefined) lastSeq = last[0];
    if (last === undefined || rows.length < page) break;
    after = last[0];
  }
  const { jobs: _jobs, lines: _lines, ...checkpoint } = replay.checkpoint();
  return { replay: replay.finish(), lines: number, lastSeq, checkpoint, passedOver };
}

/** PostgreSQL's SQLSTATE for a column that does not exist. */
const UNDEFINED_COLUMN = '42703';

async function readPage(
  client: ClientBase,
  run: RunKey,
  after: string,
  page: number,
  setAsideColumn: boolean,
): Promise<[string, string, boolean][]> {
  const { rows } = await client.query<[string, string, boolean]>({
    text: `SELECT seq::text AS after, record, ${setAsideColumn ? 'set_aside_at IS NOT NULL' : 'false'}
             FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND seq > $3
            ORDER BY seq LIMIT ${page}`,
    // Ordered by the bigint column, never by its text (where "10" sorts before "9").
    values: [run.pipeline, run.runId, after],
    rowMode: 'array',
  });
  return rows;
}

/**
 * Sets aside the late records a replay passed over (`RecordsReading.passedOver`), fenced by the
 * run's live lease `token`: they stay in the table for a person to read (`set_aside_at` says when),
 * and every later replay passes over them quietly. False when the lease is no longer live (nothing
 * was set aside: the next holder does it).
 */
export async function setAsideLate(
  client: ClientBase,
  run: RunKey,
  token: string,
  seqs: readonly string[],
): Promise<boolean> {
  if (seqs.length === 0) return true;
  const { rowCount } = await client.query(
    `UPDATE runner_records SET set_aside_at = clock_timestamp()
      WHERE pipeline = $1 AND run_id = $2 AND seq = ANY($4::bigint[]) AND set_aside_at IS NULL
        AND EXISTS (SELECT 1 FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND token = $3
                      AND NOT released AND expires_at > clock_timestamp())`,
    [run.pipeline, run.runId, token, seqs],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The warning for a late record a replay passed over, and whether it was set aside now (the holder)
 * or only read (`status`, `runs`: the next apply sets it aside).
 */
export function passedOverWarning(
  late: RecordsReading['passedOver'][number],
  source: string,
  setAside: boolean,
): string {
  const { record, place, seq } = late;
  const id = 'id' in record ? ` of job ${record.id}` : '';
  return `Passed over a late "${record.type}" record${id} in ${source} (record ${seq}), from a runner whose lease had ended, which no longer fits: ${place}.${setAside ? ` Set aside for you to read (runner_records, seq ${seq}, set_aside_at set); not shown again.` : ' The next apply sets it aside.'}`;
}

/** The run's first `run` record (when it started, its output folder), from its first few records. */
export async function readFirstRun(client: ClientBase, run: RunKey): Promise<FirstRunRecord | undefined> {
  const { rows } = await client.query<[string]>({
    text: 'SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq LIMIT 4',
    values: [run.pipeline, run.runId],
    rowMode: 'array',
  });
  for (const [text] of rows) {
    let record: { type?: unknown; at?: unknown; outputDir?: unknown };
    try {
      record = JSON.parse(text) as typeof record;
    } catch {
      // A hint only: the replay under the lease reports a damaged record.
      return undefined;
    }
    // A stored row: its fields are checked, not trusted.
    if (record.type === 'run') {
      return {
        ...(typeof record.at === 'number' ? { at: record.at } : {}),
        ...(typeof record.outputDir === 'string' && record.outputDir !== ''
          ? { outputDir: record.outputDir }
          : {}),
      };
    }
  }
  return undefined;
}

/**
 * The machine of each job's latest record (`RUNNER_MACHINE`, else host and pid, as its lease
 * recorded it): which machine did what, when several apply one run.
 */
export async function readJobMachines(
  client: ClientBase,
  run: RunKey,
  jobIds: Iterable<string>,
): Promise<Map<string, string>> {
  // One machine ever held a lease on the run (the usual run: one apply, or applies from one place):
  // it did every job, and the records need not be read again. Sorting 600,000 records by job to find
  // each one's latest writer took longer than replaying the run from its snapshot.
  const { rows: machines } = await client.query<[string]>({
    text: `SELECT DISTINCT coalesce(machine, holder) FROM runner_leases WHERE pipeline = $1 AND run_id = $2`,
    values: [run.pipeline, run.runId],
    rowMode: 'array',
  });
  if (machines.length === 1) {
    const [machine] = machines[0]!;
    return new Map(Array.from(jobIds, (id) => [id, machine]));
  }
  const { rows } = await client.query<[string, string]>({
    text: `SELECT DISTINCT ON (r.job_id) r.job_id, coalesce(l.machine, l.holder)
             FROM runner_records r
             JOIN runner_leases l ON l.pipeline = r.pipeline AND l.run_id = r.run_id AND l.token = r.lease_token
            WHERE r.pipeline = $1 AND r.run_id = $2 AND r.job_id IS NOT NULL
            ORDER BY r.job_id, r.seq DESC`,
    values: [run.pipeline, run.runId],
    rowMode: 'array',
  });
  return new Map(rows);
}
