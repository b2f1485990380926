import { RunnerError } from '../errors.js';
import type { JobState } from './job-state.js';
import { createJournalReplay, JournalLineError } from './replay.js';

/**
 * Rebuilds jobs from some of a run's records (JSON texts, in the order they were appended) with the
 * very checks a replay of the whole run makes (#31.10): every reader of records another process wrote
 * mid-run (a claimed job's, the other runners' jobs at the end of an apply) goes through here. A
 * record no runner can have written (a field of the wrong type, an attempt record without its intent,
 * a second job id for one attempt) is a STATE_CORRUPT error naming it and is never acted on; late
 * copies and records of unknown types change nothing, as in a replay.
 * @param source what the records are, for the message: "The records of job j1 in …"
 */
export function replayRecords(records: Iterable<string>, source: string): Map<string, JobState> {
  const replay = createJournalReplay(source);
  let number = 0;
  try {
    for (const text of records) {
      number++;
      replay.add({ number, text, bytes: Buffer.byteLength(text, 'utf8'), terminated: true });
    }
  } catch (error) {
    if (!(error instanceof JournalLineError)) throw error;
    throw new RunnerError(
      'STATE_CORRUPT',
      `${source} hold a record no runner wrote (the ${ordinal(error.line)} of them): ${error.reason}. It was not acted on.`,
      {
        cause: error,
        hint: 'See what is wrong with `runner state check <manifest> --run ID`, with the same state; a record written by hand or by another program must be removed from the state before the run goes on.',
      },
    );
  }
  return replay.finish().jobs;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
