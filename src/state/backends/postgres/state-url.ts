import { UsageError } from '../../../errors.js';

/** The parts of `--state postgres://user@host:port/db` node-postgres connects with. */
export interface StateUrl {
  /** The URL as messages show it: never with a password. */
  readonly display: string;
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string | undefined;
  /** Query parameters such as `sslmode=require`, passed on as node-postgres reads them. */
  readonly connectionString: string;
}

/**
 * Reads `--state` / `RUNNER_STATE_URL`. The password never comes from the URL: a URL given on the
 * command line ends up in shell history, CI logs and `ps`, so one that carries a password is refused
 * (with the password blanked out of the message); node-postgres reads it from `PGPASSWORD` or a
 * `.pgpass` file instead.
 */
export function parseStateUrl(text: string): StateUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--state must be a PostgreSQL URL; received ${JSON.stringify(redactUrls(text))}.`, {
      hint: 'Write it as postgres://user@host:5432/database (the password in PGPASSWORD or ~/.pgpass).',
    });
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(
      `--state must be a postgres:// URL; received ${JSON.stringify(redactUrls(text))}. For a folder, use --state-dir.`,
      { hint: 'Write it as postgres://user@host:5432/database.' },
    );
  }
  if (url.password !== '') {
    throw new UsageError(
      `--state ${redactUrls(text)} carries a password: it would be seen in shell history, CI logs and the process list, so it is refused.`,
      {
        hint: 'Drop the password from the URL and set PGPASSWORD (e.g. from a CI secret) or write it in ~/.pgpass.',
      },
    );
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (url.hostname === '' || database === '') {
    throw new UsageError(
      `--state ${text} must name a host and a database: postgres://user@host:port/database.`,
    );
  }
  return {
    display: text,
    host: url.hostname,
    port: url.port === '' ? 5432 : Number(url.port),
    database,
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    connectionString: text,
  };
}

/** Blanks the password of every URL in a message (`postgres://u:secret@h` → `postgres://u:***@h`). */
export function redactUrls(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):([^@\s]*)@/gi, '$1:***@');
}
