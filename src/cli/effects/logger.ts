import { openSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../../file-modes.js';
import { APPEND_NO_FOLLOW, explainLinkError } from '../../no-follow.js';
import { pino, type Logger } from 'pino';

/**
 * JSON logs for `--log-file`. Secrets are stripped before anything reaches a logger (the client drops
 * the balance's `apiKey`; the key itself is never put in an event). The redact list is a second line of
 * defence only: pino's wildcards cover one level, so it cannot be the first (STACK.md).
 */
export function createLogger(logFile: string | undefined): Logger {
  if (logFile === undefined) return pino({ enabled: false });
  // Mode 0600 (logs name jobs and prompts), never through a link; pino writes to this descriptor.
  let fd: number;
  try {
    fd = openSync(logFile, APPEND_NO_FOLLOW, PRIVATE_FILE_MODE);
  } catch (error) {
    throw explainLinkError(error, '--log-file', logFile);
  }
  // A synchronous destination: a crash before an async stream opens would lose every line.
  const destination = pino.destination({ dest: fd, sync: true });
  return pino(
    {
      base: { pid: process.pid },
      redact: {
        paths: ['apiKey', '*.apiKey', 'headers["x-api-key"]', '*.headers["x-api-key"]'],
        remove: true,
      },
    },
    destination,
  );
}
