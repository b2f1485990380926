import { closeSync, openSync } from 'node:fs';
import { pino, type Logger } from 'pino';

/**
 * JSON logs for `--log-file`. Secrets are stripped before anything reaches a logger (the client drops
 * the balance's `apiKey`; the key itself is never put in an event). The redact list is a second line of
 * defence only: pino's wildcards cover one level, so it cannot be the first (STACK.md).
 */
export function createLogger(logFile: string | undefined): Logger {
  if (logFile === undefined) return pino({ enabled: false });
  // Create the file with mode 0600 before pino opens it: logs name jobs and prompts.
  closeSync(openSync(logFile, 'a', 0o600));
  // A synchronous destination: a crash before an async stream opens would lose every line.
  const destination = pino.destination({ dest: logFile, sync: true, append: true });
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
