import { RunnerError } from '../errors.js';
import { readableUtcTime } from '../readable-time.js';

/**
 * Applying a run whose state moved elsewhere would pay again for what was done there (#31.11):
 * refused, naming where it went and the command that brings it back.
 */
export function movedRunError(
  run: { pipeline: string; runId: string; manifestFile: string },
  here: string,
  moved: { to: string; at: string; back: string; applyThere: string },
): RunnerError {
  return new RunnerError(
    'STATE_MISMATCH',
    `Run "${run.runId}" of pipeline "${run.pipeline}" moved from ${here} to ${moved.to} at ${readableUtcTime(moved.at)}: its state lives there now, and going on from the copy left here could pay again for what was done there. Nothing was created.`,
    {
      hint: `Apply it where it lives: ${moved.applyThere}. To bring it back here: ${moved.back}.`,
    },
  );
}

/** The command that names a run, as a hint shows it: `runner state push m.yaml --run r1 …`. */
export function moveCommand(
  words: string[],
  run: { manifestFile: string; runId: string; stateDir?: string | undefined },
  extra: string[] = [],
): string {
  const dir = run.stateDir === undefined ? [] : ['--state-dir', run.stateDir];
  return ['runner', ...words, run.manifestFile, '--run', run.runId, ...dir, ...extra].map(quote).join(' ');
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
