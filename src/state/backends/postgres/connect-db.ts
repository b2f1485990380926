import pg from 'pg';
import { RunnerError } from '../../../errors.js';
import { redactUrls, type StateUrl } from '../../state-url.js';

/** An open connection to the state database, and what went wrong with it since. */
export interface StateDb {
  readonly client: pg.Client;
  /** Ends the connection; never throws, never waits long on a dead one. */
  end(): Promise<void>;
}

/**
 * Connects to the state database. The password comes from `PGPASSWORD` or `~/.pgpass` (node-postgres
 * reads both), never from the URL. A statement that gets no answer within `queryTimeoutMs` fails
 * instead of hanging: a cut connection then stops the run instead of freezing it.
 */
export async function connectStateDb(
  url: StateUrl,
  options: {
    queryTimeoutMs?: number;
    /**
     * The server ends the session when a transaction of it waits this long for its client: a process
     * frozen mid-transaction (SIGSTOP, a stalled machine) then frees the run's row lock for the
     * others instead of holding it until it resumes.
     */
    idleInTransactionMs?: number;
  } = {},
): Promise<StateDb> {
  const client = new pg.Client({
    connectionString: url.connectionString,
    application_name: 'runner',
    connectionTimeoutMillis: 10_000,
    query_timeout: options.queryTimeoutMs ?? 60_000,
    keepAlive: true,
    ...(options.idleInTransactionMs === undefined
      ? {}
      : { idle_in_transaction_session_timeout: options.idleInTransactionMs }),
  });
  // A connection lost between statements is reported by the next statement; without a listener the
  // 'error' event would end the process.
  client.on('error', () => undefined);
  serializeQueries(client);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw unreachableError(url, error);
  }
  return {
    client,
    async end() {
      await Promise.race([
        client.end().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
    },
  };
}

/** A failure to reach the database or to run a statement, with any password blanked out. */
export function unreachableError(url: StateUrl, error: unknown, doing = 'connect to'): RunnerError {
  const detail = redactUrls(error instanceof Error ? error.message : String(error));
  return new RunnerError(
    'STATE_UNREACHABLE',
    `Could not ${doing} the state database ${url.display}: ${detail}.`,
    {
      cause: error,
      hint: 'Check the URL, that the server is up and reachable, and the password (PGPASSWORD or ~/.pgpass).',
    },
  );
}

/**
 * One statement at a time on the connection (#31.15): the lease's heartbeat, `verify()` before a
 * create, the journal's appends and snapshot reads share one client, and node-postgres deprecates a
 * query sent while another runs (its own queue goes in pg 9; it printed a DeprecationWarning on every
 * apply). Each call waits for the one before it to settle. The prototype's `query` is looked up at each
 * call, so a test's spy on it still sees every statement.
 */
function serializeQueries(client: pg.Client): void {
  let tail: Promise<unknown> = Promise.resolve();
  const send = (args: unknown[]): unknown =>
    (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(client, args);
  const queued = (...args: unknown[]): unknown => {
    const [first] = args;
    let result: Promise<unknown>;
    if (isSubmittable(first)) {
      // A COPY (copy-out.ts): settled when node-postgres calls its callback.
      result = tail.then(
        () =>
          new Promise<void>((resolve) => {
            const callback = first.callback;
            first.callback = (...answer: unknown[]) => {
              resolve();
              callback?.(...answer);
            };
            send(args);
          }),
      );
      tail = result.catch(() => undefined);
      return first;
    }
    result = tail
      .then(() => send(args) as Promise<unknown>)
      .catch((error: unknown) => {
        if (isReadTimeout(error)) breakConnection(client);
        throw error;
      });
    tail = result.catch(() => undefined);
    return result;
  };
  (client as unknown as { query: typeof queued }).query = queued;
}

/** node-postgres's `query_timeout` error: the statement was sent and no answer came in time. */
function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

/**
 * A statement that timed out after it was sent stays the connection's active one in node-postgres: every
 * later statement waits behind it and times out in turn, one after another, so a machine cut off from the
 * database (packets dropped, no reset) heartbeated and journaled into a queue that never drained and never
 * exited (#31.15: 79 s with a 3 s lease, or not at all). A connection that timed out is ended at once: what
 * waits on it fails now, and so does every later statement, so the run stops and says why.
 */
function breakConnection(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

function isSubmittable(
  value: unknown,
): value is { submit: unknown; callback?: (...answer: unknown[]) => void } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { submit?: unknown }).submit === 'function'
  );
}
