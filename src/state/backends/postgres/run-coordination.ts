import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { replayRecords } from '../../replay-records.js';
import { describePlanDifference } from '../../plan-agreement.js';
import type { ClaimResult, RunCoordination } from '../../state-store.js';
import {
  ACCOUNT_CHANNEL,
  ACCOUNT_LOCK,
  createAccountPause,
  otherRunsSlots,
  parseAccountNotice,
  type AccountPause,
} from './account-share.js';
import type { StateDb } from './connect-db.js';
import { endExpiredLeases, type PostgresLease, type RunKey } from './lease.js';

/** The channel a process announces a finished or released claim on: waiting processes look again. */
const CHANNEL = 'runner_claims';

/** A slot kept past its claim (`keepSlot`) until a time still to come. */
const SLOT_KEPT = `coalesce(slot_until > clock_timestamp(), false)`;
/** Whether a row's slot counts: a live claim's, or one kept and not yet over. */
const SLOT_COUNTS = `(slot_until IS NULL OR slot_until > clock_timestamp())`;

/**
 * A slot given up (rows of `runner_claims` returning their `account`): waiting processes of the run look
 * again, and those of the account's other runs (#31.5; the run's own ignore the second notice).
 */
const NOTIFY_SLOT = `pg_notify('${CHANNEL}', $1 || '/' || $2),
  CASE WHEN account IS NOT NULL
       THEN pg_notify('${ACCOUNT_CHANNEL}', 'slot ' || account || ' ' || $1 || '/' || $2) END`;

/** Any number, the same in every runner: the first key of the run's spending lock (`withSpendingLock`). */
const SPENDING_LOCK = 0x72756e73;

/** Whether this process's lease is live: every claim write is fenced by it, as records are. */
const LIVE_LEASE = `EXISTS (SELECT 1 FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND token = $3
  AND NOT released AND expires_at > clock_timestamp())`;

/**
 * Several processes on one run (issue 17.4), on a connection of their own (`db`, whose transactions
 * never mix with the journal's appends): the run's jobs are a queue in `runner_claims`; a process
 * claims the next one (`FOR UPDATE SKIP LOCKED`, as graphile-worker and pg-boss take jobs) together
 * with one of the account's open-job slots, counted across every process of the run under the run's
 * row lock, and only creates, polls and downloads what it holds. A claim of a process whose lease
 * expired passes, with its slot (its job may still be open on the service), to the next taker, who
 * first ends that lease (so the gone process's late writes are refused) and rebuilds the job from its
 * records, so an open attempt is followed, never created again.
 */
export function createRunCoordination(
  db: StateDb,
  run: RunKey,
  lease: PostgresLease,
  options: {
    where: string;
    ttlMs: number;
    /** The run's last record sequence number before this process replayed it. */
    sinceSeq: string;
    /** Opens another connection to the database (the account's 429 pauses, `createAccountPause`). */
    connect: () => Promise<StateDb>;
  },
): RunCoordination {
  const client = db.client;
  const key: [string, string, string] = [run.pipeline, run.runId, lease.token];
  const waiters = new Set<() => void>();
  /** The account the run pays from (`join`): its runs share slots and 429 pauses (#31.5). */
  let account: string | undefined;
  let pause: AccountPause | undefined;
  // One notice is one claim given up: one waiter looks again (all of them would only queue up on the
  // run's row lock, on a loaded machine, to find one slot). Missed ones are caught by the timer.
  const wake = () => {
    const [first] = waiters;
    first?.();
  };
  client.on('notification', (message) => {
    if (message.channel === CHANNEL && message.payload === `${run.pipeline}/${run.runId}`) wake();
    if (message.channel !== ACCOUNT_CHANNEL || account === undefined) return;
    const notice = parseAccountNotice(message.payload ?? '');
    // Another run of the account gave a slot up (this run's own notice came on CHANNEL).
    const own = `${run.pipeline}/${run.runId}`;
    if (notice?.kind === 'slot' && notice.account === account && notice.run !== own) wake();
  });
  let listening: Promise<unknown> | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  /** One transaction at a time on this connection: the executor's workers claim concurrently. */
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = chain.then(task);
    chain = next.catch(() => undefined);
    return next;
  };
  const inTransaction = <T>(task: (client: ClientBase) => Promise<T>): Promise<T> =>
    serial(async () => {
      await client.query('BEGIN');
      try {
        const result = await task(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  const lockRun = (tx: ClientBase) =>
    // NO KEY UPDATE: serializes the run's claims and leases, never the foreign-key checks of appends.
    tx.query('SELECT 1 FROM runner_runs WHERE pipeline = $1 AND run_id = $2 FOR NO KEY UPDATE', [
      run.pipeline,
      run.runId,
    ]);
  const lost = () =>
    new RunnerError(
      'STATE_LOCKED',
      `This runner no longer holds its lease on run "${run.runId}" of pipeline "${run.pipeline}" in ${options.where}: it claims no more jobs and creates nothing more.`,
      { hint: 'Another runner follows its jobs now; run apply again to help finish the run.' },
    );

  /**
   * A claim's locks: the run's row, then (with an account) the account's lock, held to the claim's
   * commit, so two runs of one account never both take its last slot (#31.5). One statement (no round
   * trip more while the run is locked); the subquery's row lock is taken before the outer select calls
   * the function, so the order is the same in every claim and two never wait on each other.
   */
  const lockClaim = (tx: ClientBase) =>
    account === undefined
      ? lockRun(tx)
      : tx.query(
          `SELECT pg_advisory_xact_lock($3, hashtext($4)) FROM (
             SELECT 1 FROM runner_runs WHERE pipeline = $1 AND run_id = $2 FOR NO KEY UPDATE) AS locked`,
          [run.pipeline, run.runId, ACCOUNT_LOCK, account],
        );

  /**
   * Each create of another process since this one joined, at the latest figure its records give
   * (records are written as `{"type":…`: the prefix picks the kinds without parsing the others): the
   * credits its intent reserved, its answer's cost or estimate, the cost its poll showed; nothing once
   * a refusal proved it made nothing.
   */
  const readOthersSpent = async (tx: ClientBase): Promise<number> => {
    const { rows } = await tx.query<{ spent: number }>(
      `SELECT coalesce(sum(credits), 0)::float8 AS spent FROM (
         SELECT DISTINCT ON (job_id, attempt) credits FROM (
           SELECT job_id, seq, (r ->> 'attempt') AS attempt,
                  CASE WHEN r ->> 'type' = 'create-failed' THEN 0
                       ELSE coalesce((r ->> 'creditCost')::numeric, (r ->> 'estimatedCredits')::numeric) END AS credits
             FROM runner_records, LATERAL (SELECT record::jsonb AS r) AS parsed
            WHERE pipeline = $1 AND run_id = $2 AND seq > $4 AND lease_token <> $3 AND job_id IS NOT NULL
              AND (record LIKE '{"type":"intent"%' OR record LIKE '{"type":"created"%'
                   OR record LIKE '{"type":"create-failed"%' OR record LIKE '{"type":"status"%"creditCost"%'
                   OR record LIKE '{"type":"completed"%"creditCost"%')
         ) AS costs
         WHERE credits IS NOT NULL
         ORDER BY job_id, attempt, seq DESC
       ) AS latest`,
      [...key, options.sinceSeq],
    );
    return rows[0]?.spent ?? 0;
  };

  return {
    machine: lease.machine,
    async join(planIdentity, payingAccount) {
      if (payingAccount !== undefined && account === undefined) {
        account = payingAccount;
        pause = createAccountPause(options.connect, payingAccount);
      }
      listening ??= serial(() =>
        client.query(`LISTEN ${CHANNEL}${account === undefined ? '' : `; LISTEN ${ACCOUNT_CHANNEL}`}`),
      );
      await listening;
      await inTransaction(async (tx) => {
        await lockRun(tx);
        const { rows } = await tx.query<{ machine: string | null; holder: string; plan_identity: string }>(
          `SELECT machine, holder, plan_identity FROM runner_leases
            WHERE pipeline = $1 AND run_id = $2 AND token <> $3 AND NOT released
              AND expires_at > clock_timestamp() AND plan_identity IS NOT NULL`,
          key,
        );
        const other = rows.find((row) => row.plan_identity !== planIdentity);
        if (other !== undefined) {
          const flags = describePlanDifference(planIdentity, other.plan_identity);
          throw differentPlanError(run, other.machine ?? other.holder, options.where, flags);
        }
        // The first of a group of processes starts the queue afresh: claims of processes long gone
        // (finished, or of an earlier plan) say nothing about this apply.
        if (rows.length === 0) {
          await tx.query('DELETE FROM runner_claims WHERE pipeline = $1 AND run_id = $2', key.slice(0, 2));
        }
        const { rowCount } = await tx.query(
          `UPDATE runner_leases SET plan_identity = $4 WHERE pipeline = $1 AND run_id = $2 AND token = $3
              AND NOT released AND expires_at > clock_timestamp()`,
          [...key, planIdentity],
        );
        if (rowCount !== 1) throw lost();
      });
    },
    async enqueue(ids) {
      const PAGE = 10_000;
      for (let start = 0; start < ids.length; start += PAGE) {
        await serial(() =>
          client.query(
            `INSERT INTO runner_claims (pipeline, run_id, job_id, ord)
             SELECT $1, $2, t.id, $4 + t.n FROM unnest($5::text[]) WITH ORDINALITY AS t(id, n)
              WHERE ${LIVE_LEASE}
             ON CONFLICT DO NOTHING`,
            [...key, start, ids.slice(start, start + PAGE)],
          ),
        );
      }
    },
    claim(limit) {
      return inTransaction(async (tx): Promise<ClaimResult> => {
        await lockClaim(tx);
        // Leases that ran out are ended first: the UPDATE waits for any write of theirs in flight,
        // and refuses every later one, so their records are complete when read below.
        const tookOver = await endExpiredLeases(tx, run);
        const live = await tx.query<{ live: boolean }>(`SELECT ${LIVE_LEASE} AS live`, key);
        if (live.rows[0]?.live !== true) throw lost();
        // This run's slots, and those its account's other runs hold (none without an account).
        const { rows: counted } = await tx.query<{ slots: number; waiting: number }>(
          `SELECT (count(*) FILTER (WHERE slot AND ${SLOT_COUNTS}) + ${otherRunsSlots('$4')})::int AS slots,
                  count(*) FILTER (WHERE NOT finished AND token IS DISTINCT FROM $3)::int AS waiting
             FROM runner_claims WHERE pipeline = $1 AND run_id = $2`,
          [...key, account ?? null],
        );
        const slots = counted[0]?.slots ?? 0;
        // A job left by a gone process first, with the slot it holds; a free job only with a free slot.
        const { rows: picked } = await tx.query<{ job_id: string; token: string | null; slot: boolean }>(
          `SELECT c.job_id, c.token::text AS token, c.slot FROM runner_claims c
             LEFT JOIN runner_leases l ON l.pipeline = c.pipeline AND l.run_id = c.run_id AND l.token = c.token
            WHERE c.pipeline = $1 AND c.run_id = $2 AND NOT c.finished
              AND (c.token IS NULL OR (c.token <> $3 AND l.released))
              AND (c.slot OR $4::boolean)
            ORDER BY c.slot DESC, c.ord LIMIT 1
            FOR UPDATE OF c SKIP LOCKED`,
          [...key, slots < limit],
        );
        const next = picked[0];
        if (next === undefined) {
          return (counted[0]?.waiting ?? 0) > 0 ? { kind: 'wait', tookOver } : { kind: 'none', tookOver };
        }
        await tx.query(
          `UPDATE runner_claims SET token = $3, claimed_at = clock_timestamp(), slot = true,
                  slot_until = CASE WHEN ${SLOT_KEPT} THEN slot_until END, account = $5
            WHERE pipeline = $1 AND run_id = $2 AND job_id = $4`,
          [...key, next.job_id, account ?? null],
        );
        let from: string | undefined;
        if (next.token !== null) {
          const { rows } = await tx.query<{ machine: string | null; holder: string }>(
            'SELECT machine, holder FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND token = $3',
            [run.pipeline, run.runId, next.token],
          );
          from = rows[0]?.machine ?? rows[0]?.holder;
        }
        // The job as its records have it: another process may have worked on it since this one
        // replayed the run.
        const { rows: records } = await tx.query<[string]>({
          text: `SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND job_id = $3 ORDER BY seq`,
          values: [run.pipeline, run.runId, next.job_id],
          rowMode: 'array',
        });
        return {
          kind: 'claimed',
          id: next.job_id,
          records: records.map(([record]) => record),
          ...(from === undefined ? {} : { from }),
          tookOver,
        };
      });
    },
    async keepSlot(id, ms) {
      await serial(() =>
        client.query(
          `UPDATE runner_claims SET slot_until = clock_timestamp() + $5 * interval '1 millisecond'
            WHERE pipeline = $1 AND run_id = $2 AND job_id = $4 AND token = $3 AND slot AND ${LIVE_LEASE}`,
          [...key, id, Math.ceil(ms)],
        ),
      );
    },
    async releaseSlot(id) {
      await serial(() =>
        client.query(
          `WITH freed AS (
             UPDATE runner_claims SET slot = false
              WHERE pipeline = $1 AND run_id = $2 AND job_id = $4 AND token = $3 AND slot AND NOT ${SLOT_KEPT}
                AND ${LIVE_LEASE}
              RETURNING account)
           SELECT ${NOTIFY_SLOT} FROM freed`,
          [...key, id],
        ),
      );
    },
    async finish(id, finished) {
      await serial(() =>
        client.query(
          `WITH ended AS (
             UPDATE runner_claims SET slot = slot AND ${SLOT_KEPT}, finished = $5,
                    token = CASE WHEN $5 THEN token ELSE NULL END
              WHERE pipeline = $1 AND run_id = $2 AND job_id = $4 AND token = $3 AND ${LIVE_LEASE}
              RETURNING account)
           SELECT ${NOTIFY_SLOT} FROM ended`,
          [...key, id, finished],
        ),
      );
    },
    waitForChange(signal) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          waiters.delete(done);
          resolve();
        };
        // Also without a notice: a process that dies announces nothing; its lease runs out.
        const timer = setTimeout(done, Math.max(20, Math.min(1_000, Math.floor(options.ttlMs / 3))));
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    othersSpent: () => serial(() => readOthersSpent(client)),
    withSpendingLock(task) {
      return serial(async () => {
        await client.query('BEGIN');
        try {
          // A lock of the transaction: it ends with it, also when this process dies.
          await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
            SPENDING_LOCK,
            `${run.pipeline}/${run.runId}`,
          ]);
          return await task(await readOthersSpent(client));
        } finally {
          // Nothing was written in the transaction: its end only lets the next process in.
          await client.query('ROLLBACK').catch(() => undefined);
        }
      });
    },
    async probeModel(model) {
      return serial(async () => {
        // Granted when no price is known and no live process probes the model already.
        const { rows: granted } = await client.query(
          `INSERT INTO runner_model_prices (pipeline, run_id, model, probe_token)
           SELECT $1, $2, $4, $3 WHERE ${LIVE_LEASE}
           ON CONFLICT (pipeline, run_id, model) DO UPDATE SET probe_token = $3
            WHERE NOT runner_model_prices.priced
              AND (runner_model_prices.probe_token IS NULL OR runner_model_prices.probe_token = $3
                   OR NOT EXISTS (SELECT 1 FROM runner_leases l
                                   WHERE l.pipeline = $1 AND l.run_id = $2 AND l.token = runner_model_prices.probe_token
                                     AND NOT l.released AND l.expires_at > clock_timestamp()))
           RETURNING 1`,
          [...key, model],
        );
        if (granted.length > 0) return { kind: 'probe' } as const;
        const { rows } = await client.query<{ priced: boolean; over: number | null }>(
          `SELECT priced, over_credits AS over FROM runner_model_prices
            WHERE pipeline = $1 AND run_id = $2 AND model = $3`,
          [run.pipeline, run.runId, model],
        );
        const row = rows[0];
        if (row === undefined) throw lost();
        if (!row.priced) return { kind: 'wait' } as const;
        return row.over === null
          ? ({ kind: 'priced' } as const)
          : { kind: 'priced' as const, over: row.over };
      });
    },
    async shareModelPrice(model, over) {
      await serial(() =>
        client.query(
          `WITH shared AS (
             INSERT INTO runner_model_prices (pipeline, run_id, model, priced, over_credits)
             SELECT $1, $2, $4, true, $5 WHERE ${LIVE_LEASE}
             ON CONFLICT (pipeline, run_id, model) DO UPDATE SET priced = true, probe_token = NULL,
                    over_credits = greatest(runner_model_prices.over_credits, excluded.over_credits)
             RETURNING 1)
           SELECT pg_notify('${CHANNEL}', $1 || '/' || $2) FROM shared`,
          [...key, model, over ?? null],
        ),
      );
    },
    async endModelProbe(model) {
      await serial(() =>
        client.query(
          `WITH ended AS (
             UPDATE runner_model_prices SET probe_token = NULL
              WHERE pipeline = $1 AND run_id = $2 AND model = $4 AND probe_token = $3
              RETURNING 1)
           SELECT pg_notify('${CHANNEL}', $1 || '/' || $2) FROM ended`,
          [...key, model],
        ),
      );
    },
    async readOthersJobs() {
      // Only the jobs another process wrote to since this one joined, each rebuilt from all of its
      // records (the by-job index): the others this process replayed at its start, or ran itself, it
      // holds already. Re-reading the whole run here doubled a resumed 100,000-job apply's memory.
      const { rows } = await serial(() =>
        client.query<{ record: string }>(
          `SELECT record FROM runner_records
            WHERE pipeline = $1 AND run_id = $2 AND job_id IN (
                    SELECT DISTINCT job_id FROM runner_records
                     WHERE pipeline = $1 AND run_id = $2 AND seq > $4 AND lease_token <> $3 AND job_id IS NOT NULL)
            ORDER BY seq`,
          [...key, options.sinceSeq],
        ),
      );
      // Checked as a replay checks them (#31.10): a record no runner wrote is refused, not reported.
      return replayRecords(
        rows.map((row) => row.record),
        `The records other runners wrote to ${options.where} since this one joined`,
      );
    },
    async readOthersSavedSince(cursor) {
      // One statement, one snapshot: the run's last sequence number, and every record of the jobs
      // whose result another process recorded saved between the cursor and it (the by-run index
      // from the cursor on, then the by-job index): a look costs what changed since the last.
      const { rows } = await serial(() =>
        client.query<{ upto: string; record: string | null }>(
          `WITH upto AS (
             SELECT coalesce(max(seq), $4::bigint) AS seq FROM runner_records WHERE pipeline = $1 AND run_id = $2)
           SELECT upto.seq::text AS upto, saved.record
             FROM upto LEFT JOIN LATERAL (
               SELECT seq, record FROM runner_records
                WHERE pipeline = $1 AND run_id = $2 AND job_id IN (
                        SELECT job_id FROM runner_records
                         WHERE pipeline = $1 AND run_id = $2 AND seq > $4 AND seq <= upto.seq
                           AND lease_token <> $3 AND job_id IS NOT NULL
                           AND record LIKE '{"type":"downloaded"%')) AS saved ON true
            ORDER BY saved.seq`,
          [...key, cursor ?? options.sinceSeq],
        ),
      );
      const records = rows.flatMap((row) => (row.record === null ? [] : [row.record]));
      return {
        // Checked as a replay checks them (#31.10), as readOthersJobs does.
        jobs: replayRecords(
          records,
          `The records other runners wrote to ${options.where} since this one joined`,
        ),
        cursor: rows[0]?.upto ?? cursor ?? options.sinceSeq,
      };
    },
    async unansweredCreate(id) {
      const { rows } = await serial(() =>
        client.query<{ own: boolean; machine: string; ended_ago: number }>(
          `SELECT l.token = $3 AS own, coalesce(l.machine, l.holder) AS machine,
                  CASE WHEN NOT l.released AND l.expires_at > clock_timestamp() THEN 0
                       ELSE greatest(0, extract(epoch FROM clock_timestamp() - l.expires_at) * 1000) END::float8
                    AS ended_ago
             FROM runner_records r
             JOIN runner_leases l ON l.pipeline = r.pipeline AND l.run_id = r.run_id AND l.token = r.lease_token
            WHERE r.pipeline = $1 AND r.run_id = $2 AND r.job_id = $4 AND r.record LIKE '{"type":"intent"%'
            ORDER BY r.seq DESC LIMIT 1`,
          [...key, id],
        ),
      );
      const row = rows[0];
      return row === undefined || row.own ? undefined : { machine: row.machine, endedAgoMs: row.ended_ago };
    },
    async readJobRecords(id) {
      const { rows } = await serial(() =>
        client.query<[string]>({
          text: 'SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND job_id = $3 ORDER BY seq',
          values: [run.pipeline, run.runId, id],
          rowMode: 'array',
        }),
      );
      return rows.map(([record]) => record);
    },
    sharedRateLimit: () => pause?.shared,
    async close() {
      await pause?.close();
      await db.end();
    },
  };
}

function differentPlanError(
  run: RunKey,
  machine: string,
  where: string,
  flags: string | undefined,
): RunnerError {
  const what =
    flags === undefined
      ? 'a different plan (another manifest, vars, --only/--exclude or catalog)'
      : `other options: ${flags}`;
  return new RunnerError(
    'STATE_MISMATCH',
    `Not joining run "${run.runId}" of pipeline "${run.pipeline}" in ${where}: ${machine} is applying it with ${what}. Every machine on one run must run the same plan with the same cap, replacements and re-sends. Nothing was created.`,
    {
      hint: 'Start every machine with the same manifest and options, or give this apply its own --run id.',
    },
  );
}
