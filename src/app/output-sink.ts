import type { Style } from '../text-style.js';

/**
 * Where a command writes, and how; the CLI makes it (src/cli/output.ts). Color follows the NO_COLOR
 * convention (https://no-color.org): `NO_COLOR` (any non-empty value) or `--no-color` turns it off,
 * `FORCE_COLOR` turns it on, otherwise color is used only when the stream is a terminal.
 */
export interface Output {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Color on stdout. */
  readonly color: boolean;
  /** Whether stderr is a terminal (progress views draw there). */
  readonly interactive: boolean;
  /**
   * Columns for tables and notes. On a terminal: its width, else `COLUMNS`, else 100 (a pty that
   * reports 0 columns counts as unknown). Not on a terminal (a pipe, a file, a CI log): no limit, so
   * paths and job ids are never cut.
   */
  readonly width: number;
  out(text: string): void;
  err(text: string): void;
  /**
   * Writes a piece of a long stdout text, waiting while the pipe is full, so the pieces do not pile
   * up in memory. Resolves at once when the reader has gone. A buffer is UTF-8 (`utf8Batches`), and is
   * not reused by the caller once given.
   */
  write(chunk: string | Uint8Array): Promise<void>;
  style: Style;
}
