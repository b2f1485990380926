import type { JobOutcome } from './events.js';

/** How one job ended in this run, with its files and what of its downloads failed. */
export interface JobResult {
  outcome: JobOutcome;
  files: string[];
  downloadFailures: number;
  /** Why a `downloading` job's first result not saved was not. */
  downloadError?: string;
}
