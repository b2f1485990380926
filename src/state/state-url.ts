import { UsageError } from '../errors.js';

/** The parts of `--state postgres://user@host:port/db?sslmode=…` node-postgres connects with. */
export interface StateUrl {
  /**
   * The URL as messages, hints and files show it, rebuilt by {@link showStateUrl} from the parts
   * below: never with a password, whatever part of the text carried one.
   */
  readonly display: string;
  readonly protocol: 'postgres:' | 'postgresql:';
  readonly host: string;
  readonly port: number;
  /** The port as written; absent when the URL leaves it to the default (5432). */
  readonly portText: string | undefined;
  readonly database: string;
  readonly user: string | undefined;
  /** Query parameters in the order written (`sslmode=require`, …), passed on as node-postgres reads them. */
  readonly params: readonly (readonly [string, string])[];
  /** What node-postgres is given: the text as written, once checked to carry no password. */
  readonly connectionString: string;
}

/**
 * A query parameter that carries a password. node-postgres copies every parameter of the query into
 * its config, so `?password=` is the connection's password and `?sslpassword=` the client key's (#31.12).
 */
const PASSWORD_PARAM = /pass(word)?$|passwd/i;

const PASSWORD_HINT =
  'Drop the password from the URL and set PGPASSWORD (e.g. from a CI secret) or write it in a .pgpass file (~/.pgpass, or the file PGPASSFILE names).';

/**
 * Reads `--state` / `RUNNER_STATE_URL`. The password never comes from the URL: a URL given on the
 * command line ends up in shell history, CI logs and `ps`, and a URL is shown in hints, `runs`, the
 * output folder's claim and errors; one that carries a password anywhere (`user:secret@`, `?password=`,
 * `?sslpassword=`) is refused, and the message shows the URL rebuilt without it. node-postgres reads
 * the password from `PGPASSWORD` or a `.pgpass` file instead.
 */
export function parseStateUrl(text: string): StateUrl {
  const { parts, hasUserPassword } = readStateUrl(text);
  const shown = showStateUrl(parts);
  const where = [
    ...(hasUserPassword ? ['its user part (user:password@)'] : []),
    ...parts.params.filter(([name]) => PASSWORD_PARAM.test(name)).map(([name]) => `its ?${name}= parameter`),
  ];
  if (where.length > 0) {
    throw new UsageError(
      `--state ${shown} carries a password in ${where.join(' and ')}: it would be seen in shell history, CI logs, the process list and everything that names the state, so it is refused.`,
      { hint: PASSWORD_HINT },
    );
  }
  if (parts.host === '' || parts.database === '') {
    throw new UsageError(
      `--state ${shown} must name a host and a database: postgres://user@host:port/database.`,
    );
  }
  return { ...parts, display: shown };
}

/** The parts of a postgres:// URL, unchecked; refuses what is not one (exit 2, its passwords blanked). */
function readStateUrl(text: string): { parts: StateUrl; hasUserPassword: boolean } {
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
  const parts: StateUrl = {
    display: '',
    protocol: url.protocol,
    host: url.hostname,
    port: url.port === '' ? 5432 : Number(url.port),
    portText: url.port === '' ? undefined : url.port,
    database: safeDecode(url.pathname.replace(/^\//, '')),
    user: url.username === '' ? undefined : safeDecode(url.username),
    params: [...url.searchParams.entries()],
    connectionString: text,
  };
  return { parts, hasUserPassword: url.password !== '' };
}

/**
 * The one way a state URL is shown (#31.12): rebuilt from its parsed parts (scheme, user, host, port,
 * database, the query's parameters), so no password can reach a message, a hint, `runs`, a claim file
 * or a log, even one a future parameter would carry: parameters naming a password are left out.
 */
export function showStateUrl(url: Omit<StateUrl, 'display' | 'connectionString'>): string {
  const user = url.user === undefined ? '' : `${encodeURIComponent(url.user)}@`;
  const port = url.portText === undefined ? '' : `:${url.portText}`;
  const params = new URLSearchParams(
    url.params
      .filter(([name]) => !PASSWORD_PARAM.test(name))
      .map(([name, value]): [string, string] => [name, value]),
  ).toString();
  return `${url.protocol}//${user}${url.host}${port}/${encodeURIComponent(url.database)}${params === '' ? '' : `?${params}`}`;
}

/**
 * A state URL as given (`--state`, a claim file, a hint's flag) as it may be shown: {@link showStateUrl}
 * of its parts, or, when it does not parse as one, the text with every URL's password blanked out.
 */
export function displayStateUrl(text: string): string {
  try {
    return showStateUrl(readStateUrl(text).parts);
  } catch {
    return redactUrls(text);
  }
}

/**
 * Blanks the passwords of every URL in a message (`postgres://u:secret@h` → `postgres://u:***@h`, up to
 * the last `@`, so a password holding `@` is blanked whole), and the values of `password=`-like
 * parameters (`?sslpassword=secret` → `?sslpassword=***`). For texts that are not one parsed state URL:
 * errors of node-postgres, an unparseable `--state`.
 */
export function redactUrls(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):\S*@/gi, '$1:***@')
    .replace(/((?:^|[?&;\s])\w*(?:pass(?:word)?|passwd)=)[^&\s]*/gi, '$1***');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
