import type { SharedRateLimit } from '../../../service/rate-limit-gate.js';
import type { StateDb } from './connect-db.js';

/**
 * What the runs of one account share through the database (#31.5): the service's limits are the
 * account's (api-spec: 4 open jobs per account; a 429 pauses the account), not a run's. The account
 * is a hash of the API key (`accountOfKey`), never the key.
 */

/**
 * The channel of account-wide notices: `slot ACCOUNT PIPELINE/RUN` (a run gave a slot up), `pause
 * ACCOUNT MS` (a 429).
 */
export const ACCOUNT_CHANNEL = 'runner_accounts';

/** Any number, the same in every runner: the first key of an account's claim lock. */
export const ACCOUNT_LOCK = 0x72756e61;

/**
 * The open-job slots the account's OTHER runs hold now, as a scalar subquery (`$1`, `$2`: this run;
 * `account`: the parameter naming the account, NULL for none: then 0): a slot kept past its claim
 * (`keepSlot`) until its time; any other while its holder's lease lives. Unlike this run's slots, a
 * gone holder's stop counting when its lease ends: no process of this run would ever take them over,
 * and its jobs end on their own (the service queues any excess).
 */
export function otherRunsSlots(account: string): string {
  return `(SELECT count(*) FROM runner_claims c
    LEFT JOIN runner_leases l ON l.pipeline = c.pipeline AND l.run_id = c.run_id AND l.token = c.token
   WHERE c.account = ${account}::text AND c.slot AND (c.pipeline, c.run_id) <> ($1, $2)
     AND CASE WHEN c.slot_until IS NOT NULL THEN c.slot_until > clock_timestamp()
              ELSE l.token IS NOT NULL AND NOT l.released AND l.expires_at > clock_timestamp() END)`;
}

/** A notice on {@link ACCOUNT_CHANNEL} read back: which account, and what happened. */
export type AccountNotice =
  { kind: 'slot'; account: string; run: string } | { kind: 'pause'; account: string; delayMs: number };

export function parseAccountNotice(payload: string): AccountNotice | undefined {
  const [kind, account, ...rest] = payload.split(' ');
  if (account === undefined || account === '') return undefined;
  if (kind === 'slot') return { kind, account, run: rest.join(' ') };
  const delayMs = Number(rest[0]);
  if (kind === 'pause' && Number.isFinite(delayMs) && delayMs > 0) return { kind, account, delayMs };
  return undefined;
}

/** An account's shared pause; `close` ends its connection. */
export interface AccountPause {
  readonly shared: SharedRateLimit;
  close(): Promise<void>;
}

/**
 * The account's pause after a 429 (#31.5): `share` stores "paused until" in `runner_account_pauses`
 * on the database's clock (GREATEST: an older, shorter pause never shortens a longer one) and
 * announces what is left of it on {@link ACCOUNT_CHANNEL}; a follower learns of a pause in force
 * when it starts following, and of each later one from the notice, without a query per request.
 * On a connection of its own (`connect`, opened on first use), never inside another transaction:
 * the claims' connection waits its turn on the run's lock (1.3 s on 3 busy machines), and a notice
 * reaches a session only between its transactions.
 */
export function createAccountPause(connect: () => Promise<StateDb>, account: string): AccountPause {
  const followers = new Set<(delayMs: number) => void>();
  let closed = false;
  let opened: Promise<StateDb> | undefined;
  const open = (): Promise<StateDb> =>
    (opened ??= connect().then(async (db) => {
      db.client.on('notification', (message) => {
        if (message.channel !== ACCOUNT_CHANNEL) return;
        const notice = parseAccountNotice(message.payload ?? '');
        if (notice?.kind !== 'pause' || notice.account !== account || closed) return;
        for (const follower of followers) follower(notice.delayMs);
      });
      await db.client.query(`LISTEN ${ACCOUNT_CHANNEL}`);
      return db;
    }));
  return {
    shared: {
      share(delayMs) {
        if (closed) return;
        // Not awaited: the request that met the 429 pauses at once; the others learn of it as soon as
        // the row is stored. A database that does not answer only means the others are not told.
        open()
          .then((db) =>
            db.client.query(
              `WITH paused AS (
                 INSERT INTO runner_account_pauses (account, paused_until)
                 VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
                 ON CONFLICT (account) DO UPDATE
                   SET paused_until = greatest(runner_account_pauses.paused_until, excluded.paused_until)
                 RETURNING paused_until)
               SELECT pg_notify('${ACCOUNT_CHANNEL}', 'pause ' || $1 || ' '
                      || ceil(extract(epoch FROM paused_until - clock_timestamp()) * 1000)::bigint)
                 FROM paused WHERE paused_until > clock_timestamp()`,
              [account, Math.ceil(delayMs)],
            ),
          )
          .catch(() => undefined);
      },
      follow(pause) {
        followers.add(pause);
        // A pause shared before this machine started following: waited out too.
        open()
          .then((db) =>
            db.client.query<{ ms: number }>(
              `SELECT ceil(extract(epoch FROM paused_until - clock_timestamp()) * 1000)::float8 AS ms
                 FROM runner_account_pauses WHERE account = $1 AND paused_until > clock_timestamp()`,
              [account],
            ),
          )
          .then(
            ({ rows }) => {
              const ms = rows[0]?.ms ?? 0;
              if (ms > 0 && followers.has(pause) && !closed) pause(ms);
            },
            () => undefined,
          );
        return () => followers.delete(pause);
      },
    },
    async close() {
      closed = true;
      followers.clear();
      const db = await opened?.catch(() => undefined);
      await db?.end();
    },
  };
}
