import type { ClientBase } from 'pg';
import type { Clock } from '../../../clock.js';
import { RunnerError } from '../../../errors.js';
import { capRecordStrings, JOURNAL_VERSION } from '../../journal-format.js';
import type { JournalWriter, LateEntry } from '../../journal-writer.js';
import type { JournalEntry, JournalHeaderRecord, JournalRecord } from '../../records.js';
import type { JournalPosition } from '../../snapshot-format.js';
import { FENCE_LOCK, type PostgresLease, type RunKey } from './lease.js';

/**
 * Stores one record, fenced: the row is written only while the lease row still carries this
 * process's token and has not expired, checked in the same statement (`FENCE_LOCK` makes a takeover
 * wait for it, and it for a takeover, but never the heartbeat's renewal). A process that lost its lease has every later write refused.
 */
const APPEND_SQL = `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
  SELECT pipeline, run_id, $3, token, holder, $5 FROM runner_leases
   WHERE pipeline = $1 AND run_id = $2 AND token = $4 AND NOT released AND expires_at > clock_timestamp()
   ${FENCE_LOCK}
  RETURNING seq::text`;

/**
 * Stores a create's answer that came after this process's lease ended (#31.9), outside the fence:
 * only for an attempt whose intent this process's token wrote, and only while no intent of the job
 * came after it (nobody re-sent it). Replay applies it with the usual checks, and passes over one
 * that no longer fits with a warning.
 */
const LATE_SQL = `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
  SELECT $1, $2, $3, $4, $5, $6
   WHERE EXISTS (
     SELECT 1 FROM runner_records i
      WHERE i.pipeline = $1 AND i.run_id = $2 AND i.job_id = $6 AND i.lease_token = $4
        AND i.record LIKE '{"type":"intent"%' AND i.record::jsonb ->> 'attempt' = $7
        AND NOT EXISTS (
          SELECT 1 FROM runner_records r
           WHERE r.pipeline = $1 AND r.run_id = $2 AND r.job_id = $6 AND r.seq > i.seq
             AND r.record LIKE '{"type":"intent"%'))
  RETURNING seq::text`;

/** The run's journal in PostgreSQL: a {@link JournalWriter} that knows its rows' sequence numbers. */
export interface PostgresJournal extends JournalWriter {
  /**
   * The sequence number of the run's last record (undefined before the first, or once a write failed):
   * the position a snapshot taken now stands for, with `position().lines`.
   */
  lastSeq(): string | undefined;
}

/**
 * The run's journal in PostgreSQL: each record is committed (autocommit, `synchronous_commit` as
 * the server has it, on by default) before `append` resolves, in call order, so the intent and key
 * of a create are stored before it is sent and its job id right after, as in the folder's journal.
 * A new run's first record is the same header line a new journal file starts with.
 */
export async function openPostgresJournal(
  client: ClientBase,
  run: RunKey,
  lease: PostgresLease,
  options: {
    clock: Clock;
    where: string;
    /** Records the run has. */
    lines: number;
    /** The sequence number of its last record. */
    lastSeq?: string | undefined;
    failure: (error: unknown) => Error;
  },
): Promise<PostgresJournal> {
  let lines = options.lines;
  let lastSeq = options.lastSeq;
  let broken = false;
  let closed = false;
  let chain: Promise<unknown> = Promise.resolve();

  const store = async (record: JournalRecord | JournalHeaderRecord): Promise<void> => {
    let rowCount: number | null;
    let rows: { seq: string }[];
    try {
      ({ rowCount, rows } = await client.query<{ seq: string }>(APPEND_SQL, [
        run.pipeline,
        run.runId,
        JSON.stringify(record),
        lease.token,
        // The job the record is about: a job whose claim passes to another machine is rebuilt from these.
        'id' in record ? record.id : null,
      ]));
    } catch (error) {
      // Whether the last record was committed is unknown now: no later record may follow it.
      broken = true;
      throw options.failure(error);
    }
    if (rowCount !== 1) {
      throw new RunnerError(
        'STATE_LOCKED',
        `The state database refused a record of run "${run.runId}" in ${options.where}: this runner's lease (token ${lease.token}) expired or was taken over. Nothing more is created by it.`,
        { hint: 'Another runner may be applying this run; run apply again once it is done.' },
      );
    }
    lines++;
    lastSeq = rows[0]?.seq;
  };

  let header: JournalHeaderRecord | undefined;
  if (lines === 0) {
    header = capRecordStrings({
      type: 'journal' as const,
      at: options.clock.now(),
      version: JOURNAL_VERSION,
      pipeline: run.pipeline,
      runId: run.runId,
    });
    await store(header);
  }

  const position = (): JournalPosition | undefined => (broken ? undefined : { bytes: 0, lines });

  return {
    path: options.where,
    header,
    append(entry: JournalEntry): Promise<JournalRecord> {
      const record = capRecordStrings({ ...entry, at: entry.at ?? options.clock.now() });
      const next = chain.then(async () => {
        if (closed) throw new Error(`the journal of run "${run.runId}" in ${options.where} is closed`);
        if (broken) throw options.failure(new Error('an earlier record may not have been stored'));
        await store(record);
        return record;
      });
      chain = next.catch(() => undefined);
      return next;
    },
    appendLate(entry: LateEntry): Promise<boolean> {
      const record = capRecordStrings({ ...entry, at: entry.at ?? options.clock.now(), late: true as const });
      // In line with the appends: one statement at a time on this connection.
      const next = chain.then(async () => {
        const { rowCount } = await client.query(LATE_SQL, [
          run.pipeline,
          run.runId,
          JSON.stringify(record),
          lease.token,
          lease.holder,
          record.id,
          String(record.attempt),
        ]);
        return rowCount === 1;
      });
      chain = next.catch(() => undefined);
      return next;
    },
    position,
    lastSeq: () => (broken ? undefined : lastSeq),
    exclusive<T>(task: (at: JournalPosition | undefined) => Promise<T>): Promise<T> {
      const next = chain.then(() => task(position()));
      chain = next.catch(() => undefined);
      return next;
    },
    async close() {
      await chain;
      closed = true;
    },
  };
}
