import type { Clock } from '../clock.js';
import type { JobState } from './job-state.js';
import type { JournalWriter } from './journal-writer.js';
import type { JournalRecord } from './records.js';
import type { ReplayCheckpoint } from './replay.js';
import type { SnapshotContent } from './write-snapshot.js';

/**
 * Fewest records between two snapshots written during a run. The interval grows with the run (at
 * least as many records as it has jobs), so writing snapshots costs a constant share of the run
 * however large, and a replay reads a snapshot plus at most about as many records again.
 * @default 10,000; `RUNNER_SNAPSHOT_EVERY` overrides it (tests set a few records)
 */
export const DEFAULT_SNAPSHOT_EVERY = 10_000;

/** Where the executor reports its live state so that snapshots of it get written. */
export interface StateSnapshots {
  /**
   * Called right after `record` was journaled and applied to `jobs` (the executor's live state, equal
   * to a replay of the journal so far). Starts a snapshot when one is due; never waits for it.
   */
  afterRecord(record: JournalRecord, jobs: ReadonlyMap<string, JobState>): void;
  /**
   * Writes the end-of-run snapshot of `jobs`, after any still being written. Never throws: a snapshot
   * is an optimisation, so a failure is returned as a warning and the journal stays authoritative.
   */
  finish(jobs: ReadonlyMap<string, JobState>): Promise<string[]>;
  /** The state last passed to `finish`: the run's state at its end. */
  finalState(): ReadonlyMap<string, JobState> | undefined;
}

/**
 * Writes snapshots of a run's state beside its journal: when the journal has grown by
 * `max(every, jobs)` records since the last one, and at the end of the run (unless only a few records,
 * under a tenth of the jobs, came since the last one). Each is written inside
 * `journal.exclusive`, so the state does not change while it is serialized, and covers exactly the
 * journal's records up to that moment.
 */
export function createSnapshotSchedule(input: {
  journal: Pick<JournalWriter, 'path' | 'exclusive' | 'header'>;
  /**
   * The replay of the journal as opened, apart from its jobs (the executor holds those). A journal
   * opened new has no header in it: the one its writer just wrote is taken, so snapshots stand for it too.
   */
  base: Omit<ReplayCheckpoint, 'jobs' | 'lines'>;
  /** Records of the journal as opened that no snapshot covers. */
  uncovered: number;
  /** @default DEFAULT_SNAPSHOT_EVERY */
  every?: number;
  clock: Clock;
  /**
   * Stores a snapshot where the backend keeps it (the folder: `writeSnapshot` beside the journal
   * file); `content.position` is the journal's position then.
   */
  write: (content: SnapshotContent) => Promise<void>;
}): StateSnapshots {
  const every = input.every ?? DEFAULT_SNAPSHOT_EVERY;
  const write = input.write;
  const base = withNewHeader(input.base, input.journal.header);
  const runs = [...base.runs];
  let uncovered = input.uncovered;
  let writing: Promise<void> | undefined;
  let final: ReadonlyMap<string, JobState> | undefined;
  const warnings: string[] = [];

  const snapshot = (jobs: ReadonlyMap<string, JobState>): Promise<void> =>
    input.journal.exclusive(async (position) => {
      if (position === undefined) return;
      const covered = uncovered;
      await write({
        position,
        jobs,
        meta: { ...base, runs: [...runs] },
        at: input.clock.now(),
      });
      uncovered -= covered;
    });

  const track = (promise: Promise<void>): Promise<void> => {
    const settled = promise.catch((error: unknown) => {
      warnings.push(
        `Could not write the state snapshot of ${input.journal.path}: ${error instanceof Error ? error.message : String(error)}. Nothing is lost: the journal holds the state; the next replay reads more of it.`,
      );
    });
    writing = settled;
    return settled;
  };

  return {
    afterRecord(record, jobs) {
      if (record.type === 'run') runs.push(record);
      uncovered++;
      if (writing !== undefined || uncovered < Math.max(every, jobs.size)) return;
      void track(snapshot(jobs)).finally(() => (writing = undefined));
    },
    async finish(jobs) {
      final = jobs;
      await writing;
      // Rewriting every job's state for a few new records (a resumed run with nothing to do) costs
      // more than replaying them does: the end of a run writes one when the tail is a tenth of the state.
      if (uncovered > 0 && uncovered * 10 >= jobs.size) await track(snapshot(jobs));
      return warnings.splice(0);
    },
    finalState: () => final,
  };
}

/** The replay's meta, with the header (and its format version) a new journal's writer wrote. */
function withNewHeader(
  base: Omit<ReplayCheckpoint, 'jobs' | 'lines'>,
  header: JournalWriter['header'],
): Omit<ReplayCheckpoint, 'jobs' | 'lines'> {
  if (base.header !== undefined || header === undefined) return base;
  return {
    ...base,
    version: header.version,
    header: { pipeline: header.pipeline, runId: header.runId, at: header.at },
  };
}
