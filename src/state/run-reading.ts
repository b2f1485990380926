import type { ReplayResult } from './replay.js';

/** Where one run's state lives, and what a reader should know about it. */
export interface RunStateLocation {
  /** The run's folder: `<root>/<pipeline>/<run>/`, or `<root>` for a journal of the old flat layout. */
  dir: string;
  /** `.runner/` beside the manifest, or `--state-dir`. */
  root: string;
  /** Set when the run's journal is of the old flat `--state-dir` layout. */
  warnings: string[];
}

/** One run's state as the read-only commands (plan, status, report) see it. */
export interface RunStateReading {
  location: RunStateLocation;
  journalPath: string;
  /** Whether the run has a journal at all: a run that never applied has none. */
  exists: boolean;
  /** The replayed journal; empty when there is none. */
  replay: ReplayResult;
}

/** What a run's first `run` record says, its fields checked (see `StateStore.readFirstRunRecord`). */
export interface FirstRunRecord {
  /** When the run's first apply started (clock ms). */
  at?: number;
  /** The output folder the run started with. */
  outputDir?: string;
}
