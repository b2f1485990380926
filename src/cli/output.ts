import type { Output } from '../app/output-sink.js';
import { createStyle } from '../text-style.js';

export function shouldUseColor(
  env: NodeJS.ProcessEnv,
  stream: { isTTY?: boolean },
  flag: boolean | undefined,
): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function createOutput(options: {
  env: NodeJS.ProcessEnv;
  stdout: Output['stdout'];
  stderr: Output['stderr'];
  colorFlag?: boolean | undefined;
}): Output {
  const color = shouldUseColor(options.env, options.stdout, options.colorFlag);
  const interactive =
    options.stderr.isTTY === true && options.env.CI !== 'true' && options.env.TERM !== 'dumb';
  const width = tableWidth(options.stdout, options.env);
  const stdoutGone = watchReaderGone(options.stdout);
  const stderrGone = watchReaderGone(options.stderr);
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const { stdout } = options;
  return {
    stdout,
    stderr: options.stderr,
    color,
    interactive,
    width,
    out: (text) => {
      if (!stdoutGone()) stdout.write(line(text));
    },
    err: (text) => {
      if (!stderrGone()) options.stderr.write(line(text));
    },
    async write(chunk) {
      if (stdoutGone() || stdout.write(chunk)) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          stdout.off('drain', done);
          stdout.off('error', done);
          stdout.off('close', done);
          resolve();
        };
        stdout.on('drain', done);
        stdout.on('error', done);
        stdout.on('close', done);
      });
    },
    style: createStyle(color),
  };
}

function tableWidth(stdout: Output['stdout'], env: NodeJS.ProcessEnv): number {
  if (stdout.isTTY !== true) return Number.POSITIVE_INFINITY;
  if (stdout.columns !== undefined && stdout.columns > 0) return stdout.columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}

/**
 * Watches a stream for its reader going away (`runner plan … | head`: EPIPE). Output to it is then
 * dropped and the command carries on to its end: an apply keeps running and journaling, and the exit
 * code stays the command's own, not an "internal error". Any other write error still surfaces.
 */
function watchReaderGone(stream: NodeJS.WritableStream): () => boolean {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // Once the reader is gone, a later write to the destroyed stream fails the same way.
    if (error.code !== 'EPIPE' && !(gone && error.code === 'ERR_STREAM_DESTROYED')) throw error;
    gone = true;
  });
  return () => gone;
}
